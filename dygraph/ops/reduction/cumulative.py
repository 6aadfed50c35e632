"""Cumulative ops along an axis: cumsum and cumprod (exported by the reduction family).

The gradient of a cumulative sum is a cumulative sum taken from the other end, so one op
with a `reverse` flag is its own adjoint and double backward needs nothing more.
"""

from dygraph.autograd.backward_math import register
from dygraph.autograd.function import Op, apply
from dygraph.ops.common import as_tensor, cast, check_axis
from dygraph.ops.inplace import make_inplace
from dygraph.ops.reduction.axes import constant
from dygraph.tensor.tensor import Tensor

__all__ = ["cumsum", "cumprod"]


def _cumsum(xp, x, axis, reverse):
    # dtype=x.dtype: NumPy would widen int32 sums to int64; Paddle keeps the dtype.
    if not reverse:
        return xp.cumsum(x, axis=axis, dtype=x.dtype)
    return xp.ascontiguousarray(
        xp.flip(xp.cumsum(xp.flip(x, axis), axis=axis, dtype=x.dtype), axis))


class Cumsum(Op):
    attrs = ("axis", "reverse")

    complex_grad = "same"

    def __init__(self, axis, reverse=False):
        self.axis, self.reverse = axis, reverse

    def forward(self, xp, x):
        return _cumsum(xp, x, self.axis, self.reverse)

    def backward(self, m, g):
        if self.reverse:
            return (m.cumsum(g, axis=self.axis),)
        return (m.revcumsum(g, self.axis),)


class Cumprod(Op):
    attrs = ("axis",)

    complex_grad = "holomorphic"
    save_inputs = True
    save_output = True

    def __init__(self, axis):
        self.axis = axis

    def forward(self, xp, x):
        return xp.cumprod(x, axis=self.axis, dtype=x.dtype)

    def backward(self, m, g):
        x, axis = self.x(0, m), self.axis
        # d y_i / d x_j = y_i / x_j for i >= j, so the gradient is a reversed cumsum / x.
        through_y = m.revcumsum(g * self.y(m), axis)
        zero = m.data(x) == 0
        if not zero.any():
            return (through_y / x,)
        # Along a line with a zero at position z: before z the formula above holds; at z
        # the products skip x_z (so x_z is taken as 1); after z every product holds x_z = 0.
        seen = zero.cumsum(axis=axis)
        before, first = constant(m, seen == 0), constant(m, zero & (seen == 1))
        ones = m.ones_like(x)
        at_first = m.revcumsum(g * m.cumprod(m.where(first, ones, x), axis=axis), axis)
        return (m.where(before, through_y / m.where(before, x, ones),
                        m.where(first, at_first, m.zeros_like(x))),)


register("cumsum", tensor_fn=lambda a, axis=None: apply(Cumsum(axis), a))
register("revcumsum", lambda xp: (lambda a, axis: _cumsum(xp, a, axis, True)),
         lambda a, axis: apply(Cumsum(axis, reverse=True), a))
register("cumprod", tensor_fn=lambda a, axis=None: apply(Cumprod(axis), a))


def _prepare(x, axis, dtype, op):
    """(tensor to accumulate, axis, shape to give the result or None)."""
    x = as_tensor(x, op)
    if dtype is not None:
        x = cast(x, dtype)
    elif x._data.dtype.kind == "b":
        x = cast(x, "int64")
    if isinstance(axis, Tensor):
        axis = int(axis.item())
    if axis is None:
        return x.reshape([-1]), 0, None
    axis = check_axis(axis, x._data.ndim, op)
    if x._data.ndim == 0:
        return x.reshape([1]), 0, []
    return x, axis, None


def cumsum(x, axis=None, dtype=None, name=None):
    """Running sum along `axis` (None: over the flattened tensor); `dtype` casts the input
    first. Bool and integer inputs sum as int64 (as in Paddle) unless `dtype` is given.

    Example:
        >>> import dygraph
        >>> dygraph.cumsum(dygraph.to_tensor([[1, 2], [3, 4]]), axis=1).numpy()
        array([[1, 3],
               [3, 7]])
    """
    x = as_tensor(x, "cumsum")
    if dtype is None and x._data.dtype.kind in "biu":
        dtype = "int64"  # as Paddle (and NumPy's sum): integer sums run in int64
    x, axis, shape = _prepare(x, axis, dtype, "cumsum")
    out = apply(Cumsum(axis), x)
    return out if shape is None else out.reshape(shape)


def _cumsum_in_dtype(x, axis=None, dtype=None, name=None):
    """cumsum in x's own dtype unless told: the in-place form keeps x's dtype (Paddle)."""
    return cumsum(x, axis, x.dtype if dtype is None else dtype)


_cumsum_in_dtype.__name__ = "cumsum"
Tensor.cumsum_ = make_inplace("cumsum_", _cumsum_in_dtype)


def cumprod(x, dim=None, dtype=None, name=None):
    """Running product along `dim` (None: over the flattened tensor); `dtype` casts the
    input first. The gradient is exact when the input holds zeros.

    Example:
        >>> import dygraph
        >>> dygraph.cumprod(dygraph.to_tensor([1.0, 2.0, 3.0]), dim=0).numpy()
        array([1., 2., 6.], dtype=float32)
    """
    x, axis, shape = _prepare(x, dim, dtype, "cumprod")
    out = apply(Cumprod(axis), x)
    return out if shape is None else out.reshape(shape)
