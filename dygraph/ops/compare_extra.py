"""Comparison aliases (eq, ne, gt, ge, lt, le, greater, less), their in-place forms, the
in-place logical ops, bit shifts, bitwise_invert and the float-class tests (signbit,
isneginf, isposinf, isreal). All results are bool or integer: no gradients.

An in-place comparison or logical op (`x.equal_(y)`) makes x hold the bool result, as in
Paddle: x's dtype becomes bool.
"""

import numpy as np

from dygraph.autograd.function import Op, apply
from dygraph.framework.errors import op_error
from dygraph.ops import compare
from dygraph.ops.common import as_tensor, binary_operands
from dygraph.ops.inplace import make_inplace
from dygraph.tensor import Tensor

__all__ = ["eq", "ne", "gt", "ge", "lt", "le", "greater", "less", "bitwise_invert",
           "bitwise_left_shift", "bitwise_right_shift", "signbit", "isneginf", "isposinf",
           "isreal"]
NONDIFF = set(__all__)


class _Elementwise(Op):
    attrs = ("fn", "op_name")

    differentiable = False

    def __init__(self, op_name, fn):
        self.op_name = op_name
        self.fn = fn

    @property
    def name(self):
        return self.op_name

    def forward(self, xp, *arrays):
        return self.fn(xp, *arrays)


def _alias(target, alias):
    def op(x, y, name=None):
        return target(x, y)

    op.__name__ = op.__qualname__ = alias
    op.__doc__ = (f"The same as `{target.__name__}` (elementwise, bool result).\n\n"
                  f"    Example:\n        >>> import dygraph\n"
                  f"        >>> dygraph.{alias}(dygraph.to_tensor([1, 2]), "
                  f"dygraph.to_tensor([2, 2])).dtype\n        dygraph.bool\n")
    return op


eq = _alias(compare.equal, "eq")
ne = _alias(compare.not_equal, "ne")
gt = _alias(compare.greater_than, "gt")
ge = _alias(compare.greater_equal, "ge")
lt = _alias(compare.less_than, "lt")
le = _alias(compare.less_equal, "le")
greater = _alias(compare.greater_than, "greater")
less = _alias(compare.less_than, "less")


def _integer(x, op):
    x = as_tensor(x, op)
    if x._data.dtype.kind not in "iub":
        raise op_error(op, f"expects an integer or bool tensor, got {x.dtype}", TypeError)
    return x


def bitwise_invert(x, out=None, name=None):
    """Bitwise NOT (logical NOT for bool); the same as `bitwise_not`.

    Example:
        >>> import dygraph
        >>> dygraph.bitwise_invert(dygraph.to_tensor([0, 5])).numpy()
        array([-1, -6])
    """
    return compare.bitwise_not(_integer(x, "bitwise_invert"))


def _shift(x, y, op, left, is_arithmetic):
    x, y = binary_operands(x, y, op)
    if x._data.dtype.kind not in "iu":
        raise op_error(op, f"expects integer tensors, got {x.dtype} and {y.dtype}", TypeError)

    def fn(xp, a, b):
        if left:
            return xp.left_shift(a, b)
        if is_arithmetic or a.dtype.kind == "u":
            return xp.right_shift(a, b)
        # A logical shift moves zeros into the sign bit: shift the unsigned view.
        unsigned = np.dtype(f"u{a.dtype.itemsize}")
        return xp.right_shift(a.view(unsigned), b.astype(unsigned)).view(a.dtype)

    return apply(_Elementwise(op, fn), x, y)


def bitwise_left_shift(x, y, is_arithmetic=True, out=None, name=None):
    """x << y elementwise for integer tensors.

    Example:
        >>> import dygraph
        >>> dygraph.bitwise_left_shift(dygraph.to_tensor([1, 3]), dygraph.to_tensor([2, 1])).numpy()
        array([4, 6])
    """
    return _shift(x, y, "bitwise_left_shift", True, is_arithmetic)


def bitwise_right_shift(x, y, is_arithmetic=True, out=None, name=None):
    """x >> y elementwise for integer tensors; is_arithmetic=False shifts zeros into the
    sign bit of negative values (a logical shift).

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([-8], dtype='int32')
        >>> dygraph.bitwise_right_shift(x, dygraph.to_tensor([1], dtype='int32')).numpy()
        array([-4], dtype=int32)
        >>> dygraph.bitwise_right_shift(x, dygraph.to_tensor([1], dtype='int32'),
        ...                             is_arithmetic=False).numpy()
        array([2147483644], dtype=int32)
    """
    return _shift(x, y, "bitwise_right_shift", False, is_arithmetic)


def _test(op, fn, doc):
    def test(x, name=None):
        return apply(_Elementwise(op, fn), as_tensor(x, op))

    test.__name__ = test.__qualname__ = op
    test.__doc__ = doc
    return test


signbit = _test("signbit", lambda xp, a: xp.signbit(a) if a.dtype.kind == "f"
                else a < 0 if a.dtype.kind == "i" else xp.zeros(a.shape, bool), """\
True where the sign bit is set (negative values and -0.0).

    Example:
        >>> import dygraph
        >>> dygraph.signbit(dygraph.to_tensor([-1.0, 0.0, -0.0])).numpy()
        array([ True, False,  True])
    """)
isneginf = _test("isneginf", lambda xp, a: xp.isneginf(a) if a.dtype.kind == "f"
                 else xp.zeros(a.shape, bool), """\
True where x is -inf.

    Example:
        >>> import dygraph
        >>> dygraph.isneginf(dygraph.to_tensor([-float('inf'), 1.0])).numpy()
        array([ True, False])
    """)
isposinf = _test("isposinf", lambda xp, a: xp.isposinf(a) if a.dtype.kind == "f"
                 else xp.zeros(a.shape, bool), """\
True where x is +inf.

    Example:
        >>> import dygraph
        >>> dygraph.isposinf(dygraph.to_tensor([float('inf'), 1.0])).numpy()
        array([ True, False])
    """)
isreal = _test("isreal", lambda xp, a: a.imag == 0 if a.dtype.kind == "c"
               else xp.ones(a.shape, bool), """\
True where x has no imaginary part (everywhere for real dtypes).

    Example:
        >>> import dygraph
        >>> dygraph.isreal(dygraph.to_tensor([1 + 0j, 1 + 1j])).numpy()
        array([ True, False])
    """)


def _to_result(name, fn):
    """In-place form whose result may change x's dtype (comparisons give bool)."""

    def method(self, *args, **kwargs):
        out = fn(self, *args, **kwargs)
        self._bump_version(name)
        if out._data.shape != self._data.shape:
            raise op_error(name, f"the result shape {out.shape} differs from x's shape "
                           f"{self.shape}; an in-place op cannot broadcast x")
        self._data = out._data
        self._node, self._idx, self._sg = None, 0, True
        return self

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place `{fn.__name__}`: x holds the result; returns x."
    return method


for _name, _fn in (("equal_", compare.equal), ("not_equal_", compare.not_equal),
                   ("greater_than_", compare.greater_than),
                   ("greater_equal_", compare.greater_equal),
                   ("less_than_", compare.less_than), ("less_equal_", compare.less_equal),
                   ("less_", compare.less_than), ("logical_and_", compare.logical_and),
                   ("logical_or_", compare.logical_or), ("logical_xor_", compare.logical_xor),
                   ("logical_not_", compare.logical_not)):
    setattr(Tensor, _name, _to_result(_name, _fn))
for _name in ("bitwise_invert", "bitwise_left_shift", "bitwise_right_shift"):
    setattr(Tensor, _name + "_", make_inplace(_name + "_", globals()[_name]))
