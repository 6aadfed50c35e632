"""Comparison, logic and bitwise ops. Their results are bool or integer: no gradients."""

from dygraph.autograd.function import Op, apply
from dygraph.ops.common import as_tensor, binary_operands

__all__ = ["equal", "not_equal", "greater_than", "greater_equal", "less_than", "less_equal",
           "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and",
           "bitwise_or", "bitwise_xor", "bitwise_not", "isnan", "isinf", "isfinite"]
NONDIFF = set(__all__)


class _Elementwise(Op):
    """Apply the `xp` function named `fn_name` to the inputs; never differentiable."""

    differentiable = False

    def __init__(self, fn_name):
        self.fn_name = fn_name

    def forward(self, xp, *arrays):
        return getattr(xp, self.fn_name)(*arrays)


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
