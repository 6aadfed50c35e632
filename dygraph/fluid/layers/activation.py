"""fluid.layers activations and elementwise functions in 1.x form (1.5's relu6, elu, selu,
swish, hard_sigmoid, brelu, soft_relu, stanh, softplus, softsign, logsigmoid, tanh_shrink,
softshrink, hard_shrink, thresholded_relu, maxout, gelu, erf, sign, ceil, floor, round,
reciprocal, rsqrt, atan, acos, asin, cumsum, logical_and/or/xor/not), with 1.x's argument
names and defaults, on the 2.x ops. Inputs may be NumPy arrays, as 1.x dygraph code
passed them.

Example:
    >>> import numpy as np, dygraph.fluid as fluid
    >>> fluid.layers.relu6(np.array([-1.0, 3.0, 9.0])).numpy().tolist()
    [0.0, 3.0, 6.0]
"""

import dygraph
from dygraph.fluid.dygraph.base import to_variable
from dygraph.tensor.tensor import Tensor

__all__ = ["relu6", "elu", "selu", "swish", "hard_sigmoid", "brelu", "soft_relu", "stanh",
           "softplus", "softsign", "logsigmoid", "tanh_shrink", "softshrink", "hard_shrink",
           "thresholded_relu", "maxout", "gelu", "erf", "sign", "ceil", "floor", "round",
           "reciprocal", "rsqrt", "atan", "acos", "asin", "cumsum", "logical_and",
           "logical_or", "logical_xor", "logical_not"]


def _var(x):
    return x if isinstance(x, Tensor) else to_variable(x)


def _F():
    from dygraph.nn import functional

    return functional


def relu6(x, threshold=6.0, name=None):
    """min(max(x, 0), threshold).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.relu6(np.array([7.0]), threshold=5.0).numpy().tolist()
        [5.0]
    """
    return dygraph.clip(_var(x), 0.0, threshold)


def elu(x, alpha=1.0, name=None):
    """x if x > 0 else alpha * (exp(x) - 1).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.elu(np.array([1.0])).numpy().tolist()
        [1.0]
    """
    return _F().elu(_var(x), alpha)


def selu(x, scale=None, alpha=None, name=None):
    """scale * (x if x > 0 else alpha * (exp(x) - 1)), with SELU's constants by default.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.selu(np.array([1.0])).numpy().round(4).tolist()
        [1.0507]
    """
    kwargs = {k: v for k, v in (("scale", scale), ("alpha", alpha)) if v is not None}
    return _F().selu(_var(x), **kwargs)


def swish(x, beta=1.0, name=None):
    """x * sigmoid(beta * x).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.swish(np.array([0.0])).numpy().tolist()
        [0.0]
    """
    x = _var(x)
    return x * _F().sigmoid(x * beta)


def hard_sigmoid(x, slope=0.2, offset=0.5, name=None):
    """clip(slope * x + offset, 0, 1).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.hard_sigmoid(np.array([0.0, 5.0])).numpy().tolist()
        [0.5, 1.0]
    """
    return _F().hardsigmoid(_var(x), slope, offset)


def brelu(x, t_min=0.0, t_max=24.0, name=None):
    """min(max(x, t_min), t_max).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.brelu(np.array([-1.0, 30.0])).numpy().tolist()
        [0.0, 24.0]
    """
    return dygraph.clip(_var(x), t_min, t_max)


def soft_relu(x, threshold=40.0, name=None):
    """log(1 + exp(clip(x, -threshold, threshold))).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.soft_relu(np.array([0.0])).numpy().round(4).tolist()
        [0.6931]
    """
    return dygraph.log1p(dygraph.exp(dygraph.clip(_var(x), -threshold, threshold)))


def stanh(x, scale_a=0.67, scale_b=1.7159, name=None):
    """scale_b * tanh(scale_a * x).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.stanh(np.array([0.0])).numpy().tolist()
        [0.0]
    """
    return dygraph.tanh(_var(x) * scale_a) * scale_b


def softplus(x, name=None):
    """log(1 + exp(x)).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.softplus(np.array([0.0])).numpy().round(4).tolist()
        [0.6931]
    """
    return _F().softplus(_var(x))


def softsign(x, name=None):
    """x / (1 + |x|).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.softsign(np.array([1.0])).numpy().tolist()
        [0.5]
    """
    return _F().softsign(_var(x))


def logsigmoid(x, name=None):
    """log(sigmoid(x)).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.logsigmoid(np.array([0.0])).numpy().round(4).tolist()
        [-0.6931]
    """
    return _F().log_sigmoid(_var(x))


def tanh_shrink(x, name=None):
    """x - tanh(x).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.tanh_shrink(np.array([0.0])).numpy().tolist()
        [0.0]
    """
    return _F().tanhshrink(_var(x))


def softshrink(x, alpha=None, name=None):
    """x - alpha above alpha, x + alpha below -alpha, 0 between (alpha 0.5 by default).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.softshrink(np.array([2.0, 0.1])).numpy().tolist()
        [1.5, 0.0]
    """
    return _F().softshrink(_var(x), 0.5 if alpha is None else alpha)


def hard_shrink(x, threshold=None):
    """x where |x| > threshold (0.5 by default), else 0.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.hard_shrink(np.array([2.0, 0.1])).numpy().tolist()
        [2.0, 0.0]
    """
    return _F().hardshrink(_var(x), 0.5 if threshold is None else threshold)


def thresholded_relu(x, threshold=None):
    """x where x > threshold (1.0 by default), else 0.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.thresholded_relu(np.array([2.0, 0.5])).numpy().tolist()
        [2.0, 0.0]
    """
    return _F().thresholded_relu(_var(x), 1.0 if threshold is None else threshold)


def maxout(x, groups, name=None, axis=1):
    """The maximum of each group of `groups` channels.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.maxout(np.ones([1, 4, 2, 2], np.float32), 2).shape
        [1, 2, 2, 2]
    """
    return _F().maxout(_var(x), groups, axis)


def gelu(x, approximate=False):
    """x * Phi(x) (tanh form when approximate).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.gelu(np.array([0.0])).numpy().tolist()
        [0.0]
    """
    return _F().gelu(_var(x), approximate)


def cumsum(x, axis=None, exclusive=None, reverse=None):
    """Running sums along `axis` (all values flattened when None); `exclusive` leaves each
    value out of its own sum, `reverse` sums from the end.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.cumsum(np.array([1.0, 2.0, 3.0]), exclusive=True,
        ...                     reverse=True).numpy().tolist()
        [5.0, 3.0, 0.0]
    """
    x = _var(x)
    if axis is None:
        x, axis = dygraph.flatten(x), 0
    if reverse:
        x = dygraph.flip(x, [axis])
    out = dygraph.cumsum(x, axis=axis)
    if exclusive:
        out = out - x
    return dygraph.flip(out, [axis]) if reverse else out


def _elementwise(fn_name, doc):
    def fn(x, name=None):
        return getattr(dygraph, fn_name)(_var(x))

    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = (f"{doc}\n\n    Example:\n        >>> import numpy as np, dygraph.fluid as "
                  f"fluid\n        >>> fluid.layers.{fn_name}(np.array([0.5])).shape\n"
                  "        [1]\n")
    return fn


erf = _elementwise("erf", "The error function.")
sign = _elementwise("sign", "-1, 0 or 1 by the sign of x.")
ceil = _elementwise("ceil", "The smallest integer not below x.")
floor = _elementwise("floor", "The largest integer not above x.")
round = _elementwise("round", "x rounded to the nearest integer.")  # noqa: A001
reciprocal = _elementwise("reciprocal", "1 / x.")
rsqrt = _elementwise("rsqrt", "1 / sqrt(x).")
atan = _elementwise("atan", "The arctangent.")
acos = _elementwise("acos", "The arccosine.")
asin = _elementwise("asin", "The arcsine.")
logical_not = _elementwise("logical_not", "Elementwise not of a bool tensor.")


def _logical(fn_name):
    def fn(x, y, out=None, name=None):
        return getattr(dygraph, fn_name)(_var(x), _var(y))

    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = (f"Elementwise {fn_name.split('_')[1]} of two bool tensors.\n\n    Example:\n"
                  "        >>> import numpy as np, dygraph.fluid as fluid\n"
                  f"        >>> fluid.layers.{fn_name}(np.array([True]), np.array([False]))"
                  ".shape\n        [1]\n")
    return fn


logical_and = _logical("logical_and")
logical_or = _logical("logical_or")
logical_xor = _logical("logical_xor")
