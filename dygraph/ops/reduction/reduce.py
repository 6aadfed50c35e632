"""Reductions: sum, mean, max/min, amax/amin, prod; argmax/argmin, all/any, count_nonzero.

A reduction over all axes returns a 0-D tensor, as Paddle 2.5+ does. The family also
exports the statistics (var, std, median, quantile, logsumexp; ops/reduction/statistics.py) and
the cumulative ops (cumsum, cumprod; ops/reduction/cumulative.py), which live in their own modules.
"""

import numpy as np

from dygraph.autograd.backward_math import register
from dygraph.autograd.function import Op, apply
from dygraph.autograd.whole_call import captured_whole
from dygraph.framework import dtype as _dt
from dygraph.ops.common import as_tensor, cast, check_axis, norm_axes
from dygraph.ops.reduction.axes import (
    check_not_empty,
    constant,
    expand_back,
    index_dtype,
    keep_shape,
    reduced_count,
    unreduce,
)
from dygraph.ops.reduction.cumulative import cumprod, cumsum
from dygraph.ops.reduction.integer_moments import integer_mean
from dygraph.ops.reduction.statistics import logsumexp, median, norm, quantile, std, var
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["sum", "mean", "max", "min", "amax", "amin", "prod", "var", "std", "logsumexp", "norm",
           "cumsum", "cumprod", "median", "quantile", "argmax", "argmin", "all", "any",
           "count_nonzero"]
NONDIFF = {"argmax", "argmin", "all", "any", "count_nonzero"}


def _xp(array):
    from dygraph.backend import get_array_module

    return get_array_module(array)


class Sum(Op):
    attrs = ("axes", "dtype", "keepdim")

    complex_grad = "same"

    def __init__(self, axes, keepdim, dtype):
        self.axes, self.keepdim, self.dtype = axes, keepdim, dtype

    def forward(self, xp, x):
        self.in_shape = x.shape
        # The array method skips NumPy's Python-level dispatch (this op is hot). asarray: a
        # full reduction gives a NumPy scalar, which in-place ops cannot write into.
        return xp.asarray(x.sum(axis=self.axes, keepdims=self.keepdim, dtype=self.dtype))

    def backward(self, m, g):
        return (expand_back(m, g, self.in_shape, self.axes, self.keepdim),)


class Mean(Op):
    attrs = ("axes", "keepdim")

    complex_grad = "same"

    def __init__(self, axes, keepdim):
        self.axes, self.keepdim = axes, keepdim

    def forward(self, xp, x):
        self.in_shape = x.shape
        if x.dtype.itemsize < 4:  # float16: NumPy's mean accumulates in float32
            return xp.asarray(x.mean(axis=self.axes, keepdims=self.keepdim), dtype=x.dtype)
        n = reduced_count(x.shape, self.axes)
        return xp.asarray(x.sum(axis=self.axes, keepdims=self.keepdim) / (n or float("nan")))

    def backward(self, m, g):
        n = reduced_count(self.in_shape, self.axes)
        return (expand_back(m, g, self.in_shape, self.axes, self.keepdim) / float(n or 1),)


# The array reductions an Extreme or ArgExtreme op selects by name, as closed tables: a
# saved program names one of these, never an arbitrary method or function.
_EXTREMES = {"max": lambda x, **kw: x.max(**kw), "min": lambda x, **kw: x.min(**kw)}
_ARG_EXTREMES = {"argmax": lambda xp: xp.argmax, "argmin": lambda xp: xp.argmin}


class Extreme(Op):
    """max/min/amax/amin. The gradient goes to every element equal to the result: in full
    to each of them (max/min), or split evenly among them (amax/amin), as Paddle does."""

    attrs = ("axes", "fn", "keepdim", "split")
    attr_kinds = {"fn": _EXTREMES}

    save_inputs = True
    save_output = True

    def __init__(self, fn, axes, keepdim, split):
        self.fn, self.axes, self.keepdim, self.split = fn, axes, keepdim, split

    def forward(self, xp, x):
        self.in_shape = x.shape
        return xp.asarray(_EXTREMES[self.fn](x, axis=self.axes, keepdims=self.keepdim))

    def backward(self, m, g):
        x = m.data(self.x(0, m))
        y = m.data(self.y(m))
        if not self.keepdim:
            y = y.reshape(keep_shape(self.in_shape, self.axes))
        weight = (x == y).astype(x.dtype)
        if self.split:
            weight /= weight.sum(axis=self.axes, keepdims=True)
        g = unreduce(m, g, self.in_shape, self.axes, self.keepdim)
        return (g * constant(m, weight),)


class Prod(Op):
    attrs = ("axes", "dtype", "keepdim")

    complex_grad = "holomorphic"
    save_inputs = True
    save_output = True

    def __init__(self, axes, keepdim, dtype):
        self.axes, self.keepdim, self.dtype = axes, keepdim, dtype

    def forward(self, xp, x):
        self.in_shape = x.shape
        return xp.asarray(xp.prod(x, axis=self.axes, keepdims=self.keepdim, dtype=self.dtype))

    def backward(self, m, g):
        x = self.x(0, m)
        shape, axes = self.in_shape, self.axes
        g = unreduce(m, g, shape, axes, self.keepdim)
        zero = m.data(x) == 0
        if not zero.any():
            return (g * unreduce(m, self.y(m), shape, axes, self.keepdim) / x,)
        # y / x is 0 / 0 at a zero. The product of the other elements is the product of the
        # non-zero ones at a group's only zero, and 0 elsewhere in a group holding a zero.
        zeros_in_group = zero.sum(axis=axes, keepdims=True)
        safe = m.where(constant(m, zero), m.ones_like(x), x)
        rest = m.prod(safe, axis=axes, keepdims=True)
        others = m.where(constant(m, zeros_in_group == 0), rest / safe,
                         m.where(constant(m, zero & (zeros_in_group == 1)), rest,
                                 m.zeros_like(x)))
        return (g * others,)


register("prod", tensor_fn=lambda a, axis=None, keepdims=False: prod(a, axis, keepdims))


def sum(x, axis=None, dtype=None, keepdim=False, name=None):  # noqa: A001 - Paddle's name
    """Sum over `axis` (int, list or None for all). Bool, uint8 and int32 inputs sum to int64.

    Example:
        >>> import dygraph
        >>> dygraph.sum(dygraph.to_tensor([[1.0, 2.0], [3.0, 4.0]]), axis=0).numpy()
        array([4., 6.], dtype=float32)
    """
    x = as_tensor(x, "sum")
    kind = x._data.dtype.kind
    np_dtype = _dt.convert_dtype(dtype).np_dtype if dtype is not None else (
        _dt.int64.np_dtype if kind in "bu" or x._data.dtype == _dt.int32.np_dtype else None)
    return apply(Sum(norm_axes(axis, x._data.ndim, "sum"), keepdim, np_dtype), x)


def mean(x, axis=None, keepdim=False, name=None, *, dtype=None):
    """Arithmetic mean over `axis` (int, list or None for all); `dtype` casts x first.
    Integer and bool tensors keep their dtype, as in Paddle: the mean is cut toward zero
    (bool: True where it is non-zero); see ops/reduction/integer_moments.py.

    Example:
        >>> import dygraph
        >>> dygraph.mean(dygraph.to_tensor([1.0, 2.0, 3.0])).numpy()
        array(2., dtype=float32)
        >>> dygraph.mean(dygraph.to_tensor([1, 2]), dtype="float64").numpy()
        array(1.5)
        >>> dygraph.mean(dygraph.to_tensor([1, 2])).numpy()
        array(1)
    """
    x = as_tensor(x, "mean")
    if dtype is not None:
        x = cast(x, dtype)
    axes = norm_axes(axis, x._data.ndim, "mean")
    if x._data.dtype.kind not in "fc":
        return integer_mean(x, axes, keepdim)
    return apply(Mean(axes, keepdim), x)


def _extreme(x, axis, keepdim, fn, op, split):
    x = as_tensor(x, op)
    axes = norm_axes(axis, x._data.ndim, op)
    check_not_empty(x._data.shape, axes, op)
    return apply(Extreme(fn, axes, keepdim, split), x)


def max(x, axis=None, keepdim=False, name=None):  # noqa: A001 - Paddle's name
    """Largest value over `axis`; every element equal to it gets the full gradient.

    Example:
        >>> import dygraph
        >>> dygraph.max(dygraph.to_tensor([[1.0, 5.0], [3.0, 2.0]]), axis=1).numpy()
        array([5., 3.], dtype=float32)
    """
    return _extreme(x, axis, keepdim, "max", "max", False)


def min(x, axis=None, keepdim=False, name=None):  # noqa: A001 - Paddle's name
    """Smallest value over `axis`; every element equal to it gets the full gradient.

    Example:
        >>> import dygraph
        >>> dygraph.min(dygraph.to_tensor([[1.0, 5.0], [3.0, 2.0]]), axis=1).numpy()
        array([1., 2.], dtype=float32)
    """
    return _extreme(x, axis, keepdim, "min", "min", False)


def amax(x, axis=None, keepdim=False, name=None):
    """Largest value over `axis`; the gradient is split evenly among equal maxima.

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([1.0, 3.0, 3.0], stop_gradient=False)
        >>> dygraph.amax(x).backward(); x.grad.numpy()
        array([0. , 0.5, 0.5], dtype=float32)
    """
    return _extreme(x, axis, keepdim, "max", "amax", True)


def amin(x, axis=None, keepdim=False, name=None):
    """Smallest value over `axis`; the gradient is split evenly among equal minima.

    Example:
        >>> import dygraph
        >>> dygraph.amin(dygraph.to_tensor([[1.0, 5.0], [3.0, 2.0]]), axis=0).numpy()
        array([1., 2.], dtype=float32)
    """
    return _extreme(x, axis, keepdim, "min", "amin", True)


def prod(x, axis=None, keepdim=False, dtype=None, name=None):
    """Product over `axis`; `dtype` casts the input first. Exact gradients with zeros too.

    Example:
        >>> import dygraph
        >>> dygraph.prod(dygraph.to_tensor([[1.0, 2.0], [3.0, 4.0]]), axis=1).numpy()
        array([ 2., 12.], dtype=float32)
    """
    x = as_tensor(x, "prod")
    if dtype is not None:
        x = cast(x, dtype)
    elif x._data.dtype.kind == "b":
        x = cast(x, np.int64)
    axes = norm_axes(axis, x._data.ndim, "prod")
    # NumPy would widen int32 products to int64; Paddle keeps the input's dtype.
    return apply(Prod(axes, keepdim, x._data.dtype), x)


def _arg_extreme(x, axis, keepdim, dtype, fn, op):
    x = as_tensor(x, op)
    out_dtype = index_dtype(dtype, op)
    data = x._data
    if isinstance(axis, Tensor):
        axis = int(axis.item())
    if axis is not None:
        axis = check_axis(axis, data.ndim, op)
        if data.ndim == 0:
            axis = None
    check_not_empty(data.shape, None if axis is None else (axis,), op)
    return apply(ArgExtreme(fn, axis, keepdim, np.dtype(out_dtype)), x)


class ArgExtreme(Op):
    """argmax/argmin as an op (no gradient), so that static programs compute it per run."""

    attrs = ("axis", "dtype", "fn", "keepdim")
    attr_kinds = {"fn": _ARG_EXTREMES}

    differentiable = False

    def __init__(self, fn, axis, keepdim, dtype):
        self.fn, self.axis, self.keepdim, self.dtype = fn, axis, keepdim, dtype

    def forward(self, xp, x):
        out = _ARG_EXTREMES[self.fn](xp)(x, axis=self.axis, keepdims=self.keepdim)
        return xp.asarray(out, dtype=self.dtype)

    def backward(self, m, g):
        return (None,)


def argmax(x, axis=None, keepdim=False, dtype="int64", name=None):
    """Index of the largest value along `axis` (None: of the flattened tensor); the first
    one among equal maxima.

    Example:
        >>> import dygraph
        >>> dygraph.argmax(dygraph.to_tensor([[1.0, 5.0], [3.0, 2.0]]), axis=1).numpy()
        array([1, 0])
    """
    return _arg_extreme(x, axis, keepdim, dtype, "argmax", "argmax")


def argmin(x, axis=None, keepdim=False, dtype="int64", name=None):
    """Index of the smallest value along `axis` (None: of the flattened tensor); the first
    one among equal minima.

    Example:
        >>> import dygraph
        >>> dygraph.argmin(dygraph.to_tensor([[1.0, 5.0], [3.0, 2.0]]), axis=1).numpy()
        array([0, 1])
    """
    return _arg_extreme(x, axis, keepdim, dtype, "argmin", "argmin")


def _logic(x, axis, keepdim, fn, op):
    x = as_tensor(x, op)
    data = x._data
    xp = _xp(data)
    out = getattr(xp, fn)(data, axis=norm_axes(axis, data.ndim, op), keepdims=keepdim)
    return _new_tensor(xp.asarray(out), None, 0, True)


@captured_whole  # (computed from the values: a whole op in static programs)
def all(x, axis=None, keepdim=False, name=None):  # noqa: A001 - Paddle's name
    """Whether every element over `axis` is true (non-zero); a bool tensor.

    Example:
        >>> import dygraph
        >>> dygraph.all(dygraph.to_tensor([[True, False], [True, True]]), axis=1).numpy()
        array([False,  True])
    """
    return _logic(x, axis, keepdim, "all", "all")


@captured_whole  # (computed from the values: a whole op in static programs)
def any(x, axis=None, keepdim=False, name=None):  # noqa: A001 - Paddle's name
    """Whether some element over `axis` is true (non-zero); a bool tensor.

    Example:
        >>> import dygraph
        >>> dygraph.any(dygraph.to_tensor([[True, False], [False, False]]), axis=1).numpy()
        array([ True, False])
    """
    return _logic(x, axis, keepdim, "any", "any")


@captured_whole
def count_nonzero(x, axis=None, keepdim=False, name=None):
    """How many elements over `axis` are non-zero, as int64.

    Example:
        >>> import dygraph
        >>> dygraph.count_nonzero(dygraph.to_tensor([[1, 0, 2], [0, 0, 3]]), axis=1).numpy()
        array([2, 1])
    """
    x = as_tensor(x, "count_nonzero")
    data = x._data
    xp = _xp(data)
    axes = norm_axes(axis, data.ndim, "count_nonzero")
    out = xp.sum(data != 0, axis=axes, keepdims=keepdim, dtype=np.int64)
    return _new_tensor(xp.asarray(out), None, 0, True)
