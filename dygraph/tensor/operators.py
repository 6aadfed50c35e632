"""Tensor methods that are not plain ops: operators, conversion, device moves, in-place."""

import numpy as np

from dygraph.autograd.function import Op, apply
from dygraph.framework import dtype as _dt
from dygraph.ops import compare
from dygraph.ops.common import _Identity, cast
from dygraph.ops.inplace import make_inplace
from dygraph.ops.manipulation import indexing
from dygraph.ops.math import arithmetic as _math
from dygraph.tensor.tensor import Tensor

_Add, _Sub, _Mul = _math.Add, _math.Subtract, _math.Multiply


def _fast_binary(op_cls, public):
    """Operator with a fast path for two tensors of one dtype (the common case)."""

    def forward_op(self, other):
        if isinstance(other, Tensor) and other._data.dtype == self._data.dtype:
            return apply(op_cls(), self, other)
        return public(self, other)

    return forward_op


def _reflected(public):
    def reflected(self, other):
        return public(other, self)

    return reflected


def astype(self, dtype):
    """A copy converted to `dtype`."""
    return cast(self, dtype)


def clone(self, name=None):
    """A copy that stays in the graph (gradients flow back to self)."""
    return apply(_Identity(), self)


def to(self, *args, **kwargs):
    """Move to a device and/or convert dtype: `x.to('gpu')`, `x.to('float64')`."""
    device = kwargs.get("device")
    dtype = kwargs.get("dtype")
    for a in args:
        text = str(a).lower()
        if text.startswith(("cpu", "gpu", "cuda")) or hasattr(a, "is_gpu_place"):
            device = a
        else:
            dtype = a
    out = self
    if dtype is not None:
        out = cast(out, dtype)
    if device is not None:
        from dygraph.framework.place import _parse_device

        out = apply(_ToPlace(_parse_device(device)), out)
    return out


class _ToPlace(Op):
    """A copy on another device; the gradient goes back to the source device."""

    attrs = ("place",)

    complex_grad = "same"

    def __init__(self, place):
        self.place = place

    def forward(self, xp, x):
        from dygraph.backend import place_of, to_place

        self.source = place_of(x)
        out = to_place(x, self.place)
        return out.copy() if out is x else out

    def backward(self, m, g):
        if m.tensor_mode:
            return (apply(_ToPlace(self.source), g),)
        from dygraph.backend import to_place

        return (to_place(g, self.source),)


def cpu(self):
    return to(self, "cpu")


def cuda(self, device_id=0, blocking=True):
    return to(self, f"gpu:{device_id}")


def _setitem(self, index, value):
    indexing.setitem(self, index, value)


def zero_(self):
    """Set every value to 0 in place."""
    self._bump_version("zero_")
    self._data[...] = 0
    return self


def fill_(self, value):
    """Set every value to `value` in place."""
    self._bump_version("fill_")
    self._data[...] = value
    return self


def _transpose_all(self):
    from dygraph.ops.manipulation.shape import transpose

    return transpose(self, list(range(self._data.ndim))[::-1])


def attach(families):
    """Attach every family op as a Tensor method, plus operators and in-place forms."""
    ops = {}
    for family in families:
        skip = getattr(family, "NOT_METHODS", set())
        for name in family.__all__:
            fn = getattr(family, name)
            ops[name] = fn
            if name not in skip and not hasattr(Tensor, name):
                setattr(Tensor, name, fn)
    T = Tensor
    T.__add__ = _fast_binary(_Add, _math.add)
    T.__sub__ = _fast_binary(_Sub, _math.subtract)
    T.__mul__ = _fast_binary(_Mul, _math.multiply)
    T.__radd__ = _reflected(_math.add)
    T.__rsub__ = _reflected(_math.subtract)
    T.__rmul__ = _reflected(_math.multiply)
    T.__truediv__ = _math.divide
    T.__rtruediv__ = _reflected(_math.divide)
    T.__floordiv__ = _math.floor_divide
    T.__rfloordiv__ = _reflected(_math.floor_divide)
    T.__mod__ = _math.remainder
    T.__rmod__ = _reflected(_math.remainder)
    T.__pow__ = _math.pow
    T.__rpow__ = _reflected(_math.pow)
    T.__neg__ = _math.neg
    T.__pos__ = lambda self: self
    T.__abs__ = ops["abs"]
    T.__matmul__ = ops["matmul"]
    T.__rmatmul__ = _reflected(ops["matmul"])
    T.__eq__ = compare.equal
    T.__ne__ = compare.not_equal
    T.__lt__ = compare.less_than
    T.__le__ = compare.less_equal
    T.__gt__ = compare.greater_than
    T.__ge__ = compare.greater_equal
    T.__and__ = _logic_or_bitwise(compare.logical_and, compare.bitwise_and)
    T.__or__ = _logic_or_bitwise(compare.logical_or, compare.bitwise_or)
    T.__xor__ = _logic_or_bitwise(compare.logical_xor, compare.bitwise_xor)
    T.__rand__, T.__ror__, T.__rxor__ = T.__and__, T.__or__, T.__xor__
    T.__invert__ = lambda self: (compare.logical_not(self) if self._data.dtype == np.bool_
                                 else compare.bitwise_not(self))
    T.__getitem__ = indexing.getitem
    T.__setitem__ = _setitem
    T.astype = astype
    T.cast = astype
    T.clone = clone
    T.to = to
    T.cpu = cpu
    T.cuda = cuda
    T.zero_ = zero_
    T.fill_ = fill_
    T.T = property(_transpose_all)
    T.element_size = lambda self: self._data.itemsize
    T.is_floating_point = lambda self: _dt.is_floating(self._data.dtype)
    for name in ("add", "subtract", "multiply", "divide", "scale", "pow", "exp", "sqrt",
                 "tanh", "clip", "abs", "square", "floor", "ceil", "round", "reshape",
                 "squeeze", "unsqueeze", "flatten", "remainder", "reciprocal", "rsqrt",
                 "log", "sin", "cos", "neg", "lerp", "masked_fill", "transpose", "cast",
                 "index_add", "put_along_axis", "scatter", "exponential", "erf", "expm1",
                 "log1p", "trunc", "tril", "triu", "flip", "nan_to_num", "acos", "acosh",
                 "asin", "asinh", "atan", "atanh", "bitwise_and", "bitwise_not",
                 "bitwise_or", "bitwise_xor", "cosh", "cumprod", "cumsum", "erfinv",
                 "floor_divide", "floor_mod", "log10", "log2", "mod", "sinh", "tan", "t",
                 "scatter_add", "index_fill", "index_put", "masked_scatter", "renorm",
                 "addmm", "baddbmm"):
        if name in ops and not hasattr(T, name + "_"):
            setattr(T, name + "_", make_inplace(name + "_", ops[name]))
    return ops


def _logic_or_bitwise(logical, bitwise):
    def op(self, other):
        if self._data.dtype == np.bool_:
            return logical(self, other)
        return bitwise(self, other)

    return op
