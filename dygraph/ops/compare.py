"""Comparison, logic and bitwise ops. Their results are bool or integer: no gradients."""

import operator

import numpy as np

from dygraph.autograd.function import Op, apply
from dygraph.framework.errors import op_error
from dygraph.ops.common import as_tensor, binary_operands
from dygraph.tensor import Tensor, _new_tensor

__all__ = ["equal", "not_equal", "greater_than", "greater_equal", "less_than", "less_equal",
           "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and",
           "bitwise_or", "bitwise_xor", "bitwise_not", "isnan", "isinf", "isfinite",
           "allclose", "isclose", "equal_all"]
NONDIFF = set(__all__)


# The `xp` functions an _Elementwise op may apply, by name: a closed table, so that a saved
# program can select one of these and nothing else.
_FUNCTIONS = {name: operator.attrgetter(name) for name in (
    "equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "logical_and",
    "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor",
    "invert", "isnan", "isinf", "isfinite")}


class _Elementwise(Op):
    """Apply the `xp` function named `fn_name` (a key of _FUNCTIONS) to the inputs; never
    differentiable."""

    attrs = ("fn_name",)
    attr_kinds = {"fn_name": _FUNCTIONS}

    differentiable = False

    def __init__(self, fn_name):
        self.fn_name = fn_name

    @property
    def name(self):
        return self.fn_name

    def forward(self, xp, *arrays):
        return _FUNCTIONS[self.fn_name](xp)(*arrays)


def _binary(fn_name, op_name):
    def op(x, y, name=None):
        return apply(_Elementwise(fn_name), *binary_operands(x, y, op_name))

    op.__name__ = op.__qualname__ = op_name
    op.__doc__ = (f"Elementwise `{fn_name}` of x and y with broadcasting (no gradient).\n\n"
                  f"    Example:\n        >>> import dygraph\n"
                  f"        >>> dygraph.{op_name}(dygraph.to_tensor([1, 2]), "
                  f"dygraph.to_tensor([2, 2])).shape\n        [2]\n")
    return op


def _unary(fn_name, op_name):
    def op(x, name=None):
        return apply(_Elementwise(fn_name), as_tensor(x, op_name))

    op.__name__ = op.__qualname__ = op_name
    op.__doc__ = (f"Elementwise `{fn_name}` (no gradient).\n\n"
                  f"    Example:\n        >>> import dygraph\n"
                  f"        >>> dygraph.{op_name}(dygraph.to_tensor([True, False])).shape\n"
                  f"        [2]\n")
    return op


equal = _binary("equal", "equal")
not_equal = _binary("not_equal", "not_equal")
greater_than = _binary("greater", "greater_than")
greater_equal = _binary("greater_equal", "greater_equal")
less_than = _binary("less", "less_than")
less_equal = _binary("less_equal", "less_equal")
logical_and = _binary("logical_and", "logical_and")
logical_or = _binary("logical_or", "logical_or")
logical_xor = _binary("logical_xor", "logical_xor")
logical_not = _unary("logical_not", "logical_not")
bitwise_and = _binary("bitwise_and", "bitwise_and")
bitwise_or = _binary("bitwise_or", "bitwise_or")
bitwise_xor = _binary("bitwise_xor", "bitwise_xor")
bitwise_not = _unary("invert", "bitwise_not")
isnan = _unary("isnan", "isnan")
isinf = _unary("isinf", "isinf")
isfinite = _unary("isfinite", "isfinite")


def _tolerance(value, name):
    if isinstance(value, Tensor):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise op_error(name, f"rtol and atol must be numbers, got {value!r}", TypeError)
    return float(value)


class _Close(Op):
    attrs = ("atol", "equal_nan", "rtol")

    differentiable = False

    def __init__(self, rtol, atol, equal_nan):
        self.rtol, self.atol, self.equal_nan = rtol, atol, equal_nan

    def forward(self, xp, a, b):
        return xp.isclose(a, b, rtol=self.rtol, atol=self.atol, equal_nan=self.equal_nan)


def isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """Elementwise |x - y| <= atol + rtol * |y| (broadcast), as a bool tensor.

    Example:
        >>> import dygraph
        >>> dygraph.isclose(dygraph.to_tensor([1.0, 2.0]), dygraph.to_tensor([1.0, 2.1])).numpy()
        array([ True, False])
    """
    op = _Close(_tolerance(rtol, "isclose"), _tolerance(atol, "isclose"), bool(equal_nan))
    x, y = binary_operands(x, y, "isclose")
    try:
        np.broadcast_shapes(x._data.shape, y._data.shape)
    except ValueError:
        raise op_error("isclose", f"shapes {list(x._data.shape)} and {list(y._data.shape)} "
                       "cannot be broadcast together") from None
    return apply(op, x, y)


def allclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """Whether every |x - y| <= atol + rtol * |y| (broadcast), as a 0-D bool tensor.

    Example:
        >>> import dygraph
        >>> bool(dygraph.allclose(dygraph.to_tensor([1.0]), dygraph.to_tensor([1.0 + 1e-7])))
        True
    """
    close = isclose(x, y, rtol, atol, equal_nan)
    data = close._data
    return _new_tensor(_xp(data).asarray(data.all()), None, 0, True)


def equal_all(x, y, name=None):
    """Whether x and y have the same shape and equal elements, as a 0-D bool tensor.

    Example:
        >>> import dygraph
        >>> bool(dygraph.equal_all(dygraph.to_tensor([1, 2]), dygraph.to_tensor([1, 3])))
        False
    """
    x, y = binary_operands(x, y, "equal_all")
    a, b = x._data, y._data
    xp = _xp(a)
    same = a.shape == b.shape and bool((a == b).all())
    return _new_tensor(xp.asarray(same), None, 0, True)


def _xp(array):
    from dygraph.backend import get_array_module

    return get_array_module(array)
