"""fluid.layers math in 1.x form: elementwise ops with the `axis` broadcasting rule,
reductions with `dim`/`keep_dim` (a full reduction gives shape [1]), sums, mean, matmul, mul.

Inputs may be NumPy arrays, as 1.x dygraph code passed them straight in.
"""

import dygraph
from dygraph.fluid.dygraph.base import to_variable
from dygraph.tensor.tensor import Tensor

__all__ = ["elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div",
           "elementwise_max", "elementwise_min", "elementwise_pow", "elementwise_mod",
           "elementwise_floordiv", "reduce_sum", "reduce_mean", "reduce_max", "reduce_min",
           "reduce_prod", "reduce_all", "reduce_any", "sums", "sum", "mean", "matmul", "mul",
           "scale", "clip", "abs", "exp", "log", "sqrt", "square", "pow", "sin", "cos"]


def _var(x):
    return x if isinstance(x, Tensor) else to_variable(x)


def _align(x, y, axis):
    """1.x broadcasting: y's dims line up with x's starting at `axis` (-1: trailing)."""
    if axis == -1 or y.ndim == x.ndim:
        return y
    trailing = x.ndim - axis - y.ndim
    if axis < 0 or trailing < 0:
        raise ValueError(f"elementwise op: axis {axis} does not fit y of shape {y.shape} "
                         f"into x of shape {x.shape}")
    return dygraph.reshape(y, [1] * axis + y.shape + [1] * trailing)


def _elementwise(fn, op_name):
    def op(x, y, axis=-1, act=None, name=None):
        x, y = _var(x), _var(y)
        out = fn(x, _align(x, y, axis))
        if act is not None:
            from dygraph.fluid.layers.nn import apply_act

            out = apply_act(out, act)
        return out

    op.__doc__ = (f"1.x elementwise `{fn.__name__}` of x and y; y broadcasts from `axis`.\n\n"
                  "    Example:\n        >>> import numpy as np, dygraph.fluid as fluid\n"
                  "        >>> with fluid.dygraph.guard():\n"
                  f"        ...     fluid.layers.{op_name}"
                  "(np.ones([2, 3]), np.ones([3])).shape\n        [2, 3]\n")
    return op


elementwise_add = _elementwise(dygraph.add, "elementwise_add")
elementwise_sub = _elementwise(dygraph.subtract, "elementwise_sub")
elementwise_mul = _elementwise(dygraph.multiply, "elementwise_mul")
elementwise_div = _elementwise(dygraph.divide, "elementwise_div")
elementwise_max = _elementwise(dygraph.maximum, "elementwise_max")
elementwise_min = _elementwise(dygraph.minimum, "elementwise_min")
elementwise_pow = _elementwise(dygraph.pow, "elementwise_pow")
elementwise_mod = _elementwise(dygraph.remainder, "elementwise_mod")
elementwise_floordiv = _elementwise(dygraph.floor_divide, "elementwise_floordiv")


def _at_least_1d(t):
    return dygraph.reshape(t, [1]) if t.ndim == 0 else t


def _reduce(fn_name):
    def op(input, dim=None, keep_dim=False, name=None):
        fn = getattr(dygraph, fn_name)
        return _at_least_1d(fn(_var(input), axis=dim, keepdim=keep_dim))

    op.__doc__ = (f"1.x `reduce_{fn_name}` over `dim` (None: all); a full reduction has "
                  "shape [1].\n\n    Example:\n        >>> import numpy as np\n"
                  "        >>> import dygraph.fluid as fluid\n"
                  f"        >>> fluid.layers.reduce_{fn_name}(np.ones([2, 2])).shape\n"
                  "        [1]\n")
    return op


reduce_sum = _reduce("sum")
reduce_mean = _reduce("mean")
reduce_max = _reduce("max")
reduce_min = _reduce("min")
reduce_prod = _reduce("prod")
reduce_all = _reduce("all")
reduce_any = _reduce("any")


def sums(input, out=None):
    """Sum of a list of variables of one shape.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.sums([np.ones([2]), np.ones([2])]).numpy()
        array([2., 2.])
    """
    result = dygraph.add_n([_var(v) for v in input])
    if out is not None:
        out.set_value(result)
        return out
    return result


sum = sums  # noqa: A001 - 1.x name


def mean(x, name=None):
    """Mean of all elements, shape [1].

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.mean(np.ones([2, 2], np.float32)).shape
        [1]
    """
    return _at_least_1d(dygraph.mean(_var(x)))


def matmul(x, y, transpose_x=False, transpose_y=False, alpha=1.0, name=None):
    """Matrix product, optionally scaled by alpha.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.matmul(np.ones([2, 3]), np.ones([3, 4])).shape
        [2, 4]
    """
    out = dygraph.matmul(_var(x), _var(y), transpose_x, transpose_y)
    return out * alpha if alpha != 1.0 else out


def mul(x, y, x_num_col_dims=1, y_num_col_dims=1, name=None):
    """Flatten x to 2-D at x_num_col_dims and y at y_num_col_dims, then multiply.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.mul(np.ones([2, 3, 4]), np.ones([12, 5])).shape
        [2, 5]
    """
    x, y = _var(x), _var(y)
    xs, ys = x.shape, y.shape
    x2 = dygraph.reshape(x, [_prod(xs[:x_num_col_dims]), -1])
    y2 = dygraph.reshape(y, [_prod(ys[:y_num_col_dims]), -1])
    out = dygraph.matmul(x2, y2)
    return dygraph.reshape(out, xs[:x_num_col_dims] + ys[y_num_col_dims:])


def _prod(values):
    out = 1
    for v in values:
        out *= v
    return out


def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    """scale * x + bias (1.x signature).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.scale(np.ones([1], np.float32), 2.0, 1.0).numpy()
        array([3.], dtype=float32)
    """
    return dygraph.scale(_var(x), scale, bias, bias_after_scale, act)


def clip(x, min, max, name=None):  # noqa: A002 - 1.x argument names
    """Clamp values to [min, max].

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.clip(np.array([-2.0, 2.0]), -1.0, 1.0).numpy()
        array([-1.,  1.])
    """
    return dygraph.clip(_var(x), min, max)


def _unary(fn_name):
    def op(x, name=None):
        return getattr(dygraph, fn_name)(_var(x))

    op.__doc__ = (f"Elementwise {fn_name}.\n\n    Example:\n        >>> import numpy as np\n"
                  "        >>> import dygraph.fluid as fluid\n"
                  f"        >>> fluid.layers.{fn_name}(np.ones([2])).shape\n        [2]\n")
    return op


abs = _unary("abs")  # noqa: A001
exp = _unary("exp")
log = _unary("log")
sqrt = _unary("sqrt")
square = _unary("square")
sin = _unary("sin")
cos = _unary("cos")


def pow(x, factor=1.0, name=None):  # noqa: A001
    """x ** factor.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.pow(np.array([2.0]), 3.0).numpy()
        array([8.])
    """
    return dygraph.pow(_var(x), factor)
