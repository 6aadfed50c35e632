"""Statistics over axes: var, std, logsumexp, norm, median, quantile (exported by the
reduction family).

Integer inputs give default-float results, except in var and std, which follow Paddle's
integer arithmetic (ops/reduction/integer_moments.py). median and quantile pick elements of
the sorted input, so they are gathers (ops/search/sorting.py) and their gradient goes to the
picked elements.
"""

import math

import numpy as np

from dygraph.autograd.function import Op, apply
from dygraph.autograd.whole_call import captured_whole
from dygraph.framework.errors import op_error
from dygraph.framework.kernel_dtypes import refuse_dtypes
from dygraph.ops.common import as_tensor, cast, check_axis, float_operand, norm_axes
from dygraph.ops.complex import real
from dygraph.ops.manipulation.shape import reshape_computed, transpose
from dygraph.ops.reduction.axes import constant, keep_shape, reduced_count, unreduce
from dygraph.ops.reduction.integer_moments import integer_var
from dygraph.ops.search.sorting import gather_along, stable_argsort
from dygraph.ops.unary import core as _unary
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["var", "std", "logsumexp", "norm", "median", "quantile"]


def _xp(array):
    from dygraph.backend import get_array_module

    return get_array_module(array)


class _AxesOp(Op):
    attrs = ("axes", "keepdim")

    def __init__(self, axes, keepdim):
        self.axes, self.keepdim = axes, keepdim

    def _back(self, m, t):
        """A reduced value (output or gradient) shaped to broadcast against the input."""
        return unreduce(m, t, self.in_shape, self.axes, self.keepdim)


class Var(_AxesOp):
    attrs = ("ddof",)

    save_inputs = True

    def __init__(self, axes, keepdim, ddof):
        super().__init__(axes, keepdim)
        self.ddof = ddof

    def forward(self, xp, x):
        self.in_shape = x.shape
        out = xp.var(x, axis=self.axes, ddof=self.ddof, keepdims=self.keepdim)
        return xp.asarray(out, dtype=x.dtype)

    def _centered(self, m):
        x = self.x(0, m)
        n = reduced_count(self.in_shape, self.axes)
        # NumPy divides by max(n - ddof, 0) too; a zero divisor gives infinities.
        dof = np.float64(max(n - self.ddof, 0))
        return x - m.sum(x, axis=self.axes, keepdims=True) / float(n), dof

    def backward(self, m, g):
        centered, dof = self._centered(m)
        return (self._back(m, g) * centered * float(2.0 / dof),)


class Std(Var):
    save_output = True

    def forward(self, xp, x):
        return xp.sqrt(super().forward(xp, x))

    def backward(self, m, g):
        centered, dof = self._centered(m)
        return (self._back(m, g) * centered / (self._back(m, self.y(m)) * float(dof)),)


class LogSumExp(_AxesOp):
    save_inputs = True
    save_output = True

    def forward(self, xp, x):
        self.in_shape = x.shape
        if x.size:
            shift = xp.max(x, axis=self.axes, keepdims=True)
            # Shifting by the maximum avoids overflow; an infinite maximum is not shifted.
            shift = xp.where(xp.isfinite(shift), shift, 0)
            out = xp.log(xp.sum(xp.exp(x - shift), axis=self.axes, keepdims=True)) + shift
        else:  # no terms: the log of their sum (0) is -inf, as in Paddle
            out = xp.full_like(xp.sum(x, axis=self.axes, keepdims=True), -xp.inf)
        return out if self.keepdim else out.reshape(_reduced_shape(x.shape, self.axes))

    def backward(self, m, g):
        return (self._back(m, g) * m.exp(self.x(0, m) - self._back(m, self.y(m))),)


def _reduced_shape(shape, axes):
    if axes is None:
        return ()
    return tuple(n for d, n in enumerate(shape) if d not in axes)


class PNorm(_AxesOp):
    attrs = ("p",)

    save_inputs = True
    save_output = True

    def __init__(self, p, axes, keepdim):
        super().__init__(axes, keepdim)
        self.p = p

    def forward(self, xp, x):
        self.in_shape = x.shape
        p, kw = self.p, {"axis": self.axes, "keepdims": self.keepdim}
        if p == 2:
            out = xp.sqrt(xp.sum(x * x, **kw))
        elif p == 0:
            out = xp.sum(x != 0, **kw)
        elif math.isinf(p):
            out = (xp.max if p > 0 else xp.min)(xp.abs(x), **kw)
        elif p == 1:
            out = xp.sum(xp.abs(x), **kw)
        else:
            out = xp.sum(xp.abs(x) ** p, **kw) ** (1.0 / p)
        return xp.asarray(out, dtype=x.dtype)

    def backward(self, m, g):
        x, p = self.x(0, m), self.p
        g = self._back(m, g)
        if p == 0:
            return (m.zeros_like(x),)  # a count: constant almost everywhere
        if p == 1:
            return (g * m.sign(x),)
        xa = m.data(x)
        if math.isinf(p):
            # Like max/min: every element at the extreme |x| gets the full gradient.
            y = m.data(self.y(m))
            if not self.keepdim:
                y = y.reshape(keep_shape(self.in_shape, self.axes))
            weight = (abs(xa) == y) * _xp(xa).sign(xa)
            return (g * constant(m, weight.astype(xa.dtype, copy=False)),)
        y = self._back(m, self.y(m))
        zero_norm = m.data(y) == 0
        if zero_norm.any():  # an all-zero group: take 0 as the (sub)gradient
            y = m.where(constant(m, zero_norm), m.ones_like(y), y)
        if p == 2:
            return (g * x / y,)
        ax = m.abs(x)
        if p < 1 and (xa == 0).any():  # |0| ** (p - 1) is infinite; sign(0) makes it 0
            ax = m.where(constant(m, xa == 0), m.ones_like(x), ax)
        return (g * m.sign(x) * m.power(ax / y, p - 1.0),)


def var(x, axis=None, unbiased=None, keepdim=False, name=None, *, correction=1):
    """Variance over `axis`, dividing by max(n - correction, 0); `unbiased` (True: n - 1,
    False: n), when given, takes the place of `correction`.

    Example:
        >>> import dygraph
        >>> dygraph.var(dygraph.to_tensor([1.0, 2.0, 3.0, 4.0])).numpy()
        array(1.6666666, dtype=float32)
        >>> dygraph.var(dygraph.to_tensor([1.0, 2.0, 3.0, 4.0]), correction=0).numpy()
        array(1.25, dtype=float32)
        >>> dygraph.var(dygraph.to_tensor([1, 5, 9, 2])).numpy()
        array(13)
    """
    if unbiased is not None:
        if correction != 1:
            raise op_error("var", "give one of unbiased and correction, not both")
        correction = int(bool(unbiased))
    x = as_tensor(x, "var")
    if correction != 0:  # Paddle's complex variance reaches a real-only kernel then
        refuse_dtypes("var", x, ("complex64",), " with a correction")
    if x._data.dtype.kind in "iu":
        return _integer_var(x, axis, keepdim, correction, "var")
    x = float_operand(x, "var")
    return apply(Var(norm_axes(axis, x._data.ndim, "var"), keepdim, correction), x)


def _integer_var(x, axis, keepdim, correction, op):
    """Paddle's variance of an integer tensor, in its dtype (integer_moments.py)."""
    return integer_var(x, norm_axes(axis, x._data.ndim, op), keepdim, correction)


def std(x, axis=None, unbiased=True, keepdim=False, name=None):
    """Standard deviation over `axis`; unbiased divides by n - 1. An integer tensor gives
    the float32 square root of its integer variance (see `var`), as in Paddle.

    Example:
        >>> import dygraph
        >>> dygraph.std(dygraph.to_tensor([1.0, 3.0]), unbiased=False).numpy()
        array(1., dtype=float32)
        >>> dygraph.std(dygraph.to_tensor([1, 5, 9, 2])).numpy()
        array(3.6055512, dtype=float32)
    """
    x = as_tensor(x, "std")
    if unbiased:  # as var
        refuse_dtypes("std", x, ("complex64",), " with unbiased=True")
    if x._data.dtype.kind in "iu":
        variance = cast(_integer_var(x, axis, keepdim, int(bool(unbiased)), "std"),
                        np.float32)
        # A negative variance (the lowest integer: no value, or an overflow) has the
        # square root NaN, given quietly as Paddle gives it.
        return _unary.sqrt(_unary.where(variance < 0, float("nan"), variance))
    x = float_operand(x, "std")
    return apply(Std(norm_axes(axis, x._data.ndim, "std"), keepdim, int(bool(unbiased))), x)


def logsumexp(x, axis=None, keepdim=False, name=None):
    """log(sum(exp(x))) over `axis`, computed without overflow.

    Example:
        >>> import dygraph
        >>> round(float(dygraph.logsumexp(dygraph.to_tensor([1000.0, 1000.0]))), 2)
        1000.69
    """
    x = float_operand(x, "logsumexp")
    return apply(LogSumExp(norm_axes(axis, x._data.ndim, "logsumexp"), keepdim), x)


def _axis_list(axis):
    if isinstance(axis, Tensor):
        axis = axis.tolist()
    return axis


def norm(x, p="fro", axis=None, keepdim=False, name=None):
    """Vector p-norm over `axis` (None: all elements): p = 'fro', 0, 1, 2, inf, -inf or any
    positive number. With two axes it is the norm of the flattened matrix (Paddle 2.x).

    Example:
        >>> import dygraph
        >>> from dygraph.ops.reduction.statistics import norm
        >>> norm(dygraph.to_tensor([[3.0, 4.0], [0.0, 0.0]]), p=2, axis=1).numpy()
        array([5., 0.], dtype=float32)
    """
    x = float_operand(x, "norm")
    if x._data.dtype.kind == "c":  # the norm of complex entries is that of their moduli
        x = _unary.abs(x)
    axis = _axis_list(axis)
    if isinstance(axis, (list, tuple)) and len(axis) > 2:
        raise op_error("norm", f"axis must be an int or a list of one or two ints, got {axis}")
    if isinstance(p, str):
        if p != "fro":
            raise op_error("norm", f"p={p!r} is not supported; expected 'fro', 0, 1, 2, inf, "
                           "-inf or a positive number (the nuclear norm is linalg.norm's)")
        porder = 2.0
    else:
        porder = float(p)
        if porder < 0 and porder != -math.inf or math.isnan(porder):
            raise op_error("norm", f"p={p!r} is not supported; expected 'fro', 0, 1, 2, inf, "
                           "-inf or a positive number")
    return apply(PNorm(porder, norm_axes(axis, x._data.ndim, "norm"), keepdim), x)


def _line(x, axis, op):
    """(x with the reduced elements along one axis, that axis, the reduced axes)."""
    ndim = x._data.ndim
    axes = norm_axes(_axis_list(axis), ndim, op)
    if axes is None or ndim == 0:
        return x.reshape([-1]), 0, None
    if len(axes) == 1:
        return x, axes[0], axes
    kept = [d for d in range(ndim) if d not in axes]
    moved = transpose(x, kept + list(axes))
    lines = [x._data.shape[d] for d in kept] + [math.prod(x._data.shape[d] for d in axes)]
    return reshape_computed(moved, lines), len(kept), axes


def quantile_bounds(xp, pos, interpolation, op):
    """(lo, hi, frac) for fractional sorted positions `pos`: the lower and upper positions
    (floats) and the weight of the upper one, as `interpolation` asks."""
    lo, hi = xp.floor(pos), xp.ceil(pos)
    frac = pos - lo
    if interpolation == "lower":
        hi, frac = lo, frac * 0
    elif interpolation == "higher":
        lo, frac = hi, frac * 0
    elif interpolation == "nearest":
        # Paddle rounds half away from zero, where NumPy would round half to even.
        lo = hi = xp.floor(pos + 0.5)
        frac = frac * 0
    elif interpolation == "midpoint":
        frac = xp.where(lo == hi, 0.0, 0.5)
    elif interpolation != "linear":
        raise op_error(op, f"interpolation must be one of 'linear', 'lower', 'higher', "
                       f"'nearest', 'midpoint', got {interpolation!r}")
    return lo, hi, frac


def _positions(qs, n, interpolation, op):
    """Lower and upper sorted positions of each quantile and the weight of the upper one."""
    pos = np.asarray(qs, dtype=np.float64) * (n - 1)
    lo, hi, frac = quantile_bounds(np, pos, interpolation, op)
    return lo.astype(np.int64), hi.astype(np.int64), frac


def _take_at(xp, array, positions, axis):
    """`array` taken at the host ints `positions` along `axis`; on a GPU joined from
    slices, as an index array would be a copy from the host, which a CUDA graph cannot
    capture."""
    if xp is np:
        return np.take(array, positions, axis=axis)
    parts = [array[(slice(None),) * axis + (slice(p, p + 1),)] for p in positions.tolist()]
    return parts[0] if len(parts) == 1 else xp.concatenate(parts, axis=axis)


def _laid_along(xp, values, ndim, axis, dtype):
    """The host floats `values` as an array of `xp` and `dtype` with ndim dims, laid along
    `axis`; on a GPU each is filled in there, as an array of them would be a copy from
    the host."""
    if xp is np:
        shape = [1] * ndim
        shape[axis] = len(values)
        return np.asarray(values.reshape(shape), dtype=dtype)
    parts = [xp.full([1] * ndim, v, dtype=dtype) for v in values.tolist()]
    return parts[0] if len(parts) == 1 else xp.concatenate(parts, axis=axis)


# With more positions to place than this, one full sort is cheaper than partitioning.
_MAX_KTH = 16


def _order_statistic(x, qs, axis, keepdim, interpolation, op):
    """The quantiles `qs` of x over `axis`, shaped [len(qs)] + reduced shape."""
    x = float_operand(x, op)
    in_shape = x._data.shape
    t, ax, axes = _line(x, axis, op)
    data = t._data
    n = data.shape[ax]
    target = list(keep_shape(in_shape, axes) if keepdim else _reduced_shape(in_shape, axes))
    if n == 0:
        return empty_quantiles(data, len(qs), target)
    xp = _xp(data)
    lo, hi, frac = _positions(qs, n, interpolation, op)
    kth = sorted(set(lo.tolist()) | set(hi.tolist()) | {n - 1})
    # Partitioning places just the wanted positions, in linear time; position n - 1 is
    # included so that a NaN (sorted last) is found there.
    order = (xp.argpartition(data, kth, axis=ax) if len(kth) <= _MAX_KTH
             else stable_argsort(xp, data, ax))
    has_nan = xp.isnan(data).any(axis=ax, keepdims=True)
    # NaN sorts last: a line holding NaN picks its last element, so its result is NaN.
    last = xp.full(has_nan.shape, n - 1, dtype=order.dtype)

    def pick(positions):
        idx = _take_at(xp, order, positions, ax)
        return xp.where(has_nan, xp.take_along_axis(order, last, ax), idx)

    out = gather_along(t, pick(lo), ax)
    if frac.any():
        # A tensor of x's array module, not a bare array: an array operand would become a
        # tensor on the default device, which is not x's in a program's CPU stand-ins.
        weight = _new_tensor(_laid_along(xp, frac, data.ndim, ax, data.dtype), None, 0, True)
        out = out + (gather_along(t, pick(hi), ax) - out) * weight
    if len(qs) > 1:
        out = transpose(out, [ax] + [d for d in range(data.ndim) if d != ax])
    return reshape_computed(out, [len(qs)] + target)


def empty_quantiles(data, count, shape):
    """The quantiles of no values: zeros of shape [count] + `shape` in the dtype of array
    `data`, as Paddle gives them (its take_along_axis of an empty input fills zeros)."""
    return _new_tensor(_xp(data).zeros([count] + list(shape), data.dtype), None, 0, True)


@captured_whole
def median(x, axis=None, keepdim=False, mode="avg", name=None):
    """Median over `axis` (None: all elements). `mode` "avg" averages the two middle values
    of an even count (integer inputs give float32, float64 stays float64, complex ones give
    the median of their real parts); "min" takes the lower one, in x's dtype, and over an
    axis also returns its indices. NaN gives NaN.

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([[1, 4, 2, 8], [3, 5, 7, 6]])
        >>> dygraph.median(x, axis=1).numpy()
        array([3. , 5.5], dtype=float32)
        >>> [t.numpy() for t in dygraph.median(x, axis=1, mode="min")]
        [array([2, 5]), array([2, 1])]
    """
    if isinstance(axis, (list, tuple)):
        raise op_error("median", f"axis must be an int or None, got {axis}", TypeError)
    if mode not in ("avg", "min"):
        raise op_error("median", f"mode must be 'avg' or 'min', got {mode!r}")
    if mode == "min":
        return _lower_median(x, axis, keepdim)
    x = as_tensor(x, "median")
    if x._data.dtype.kind == "c":
        x = real(x)  # as Paddle, the median of complex numbers is that of their real parts
    empty = nan_if_empty(x, axis, keepdim, "median")
    if empty is not None:
        return empty
    out = _order_statistic(x, [0.5], axis, keepdim, "linear", "median")
    return reshape_computed(out, out.shape[1:])


def nan_if_empty(x, axis, keepdim, op):
    """NaN in the reduced shape (x's float dtype) when the reduced axis of x (None: all
    of x) is empty, else None: as in Paddle, the median of no values is NaN, as is their
    mean."""
    x = float_operand(x, op)
    shape = list(x.shape)
    if axis is None:
        if x._data.size:
            return None
        out_shape = [1] * len(shape) if keepdim else []
    else:
        axis = check_axis(axis, len(shape), op)
        if not shape or shape[axis]:
            return None
        out_shape = shape[:axis] + ([1] if keepdim else []) + shape[axis + 1:]
    return _new_tensor(_xp(x._data).full(out_shape, np.nan, x._data.dtype), None, 0, True)


def _lower_median(x, axis, keepdim):
    """median(mode="min"): the lower middle value, with its indices when axis is given."""
    from dygraph.ops.search.order_and_membership import kthvalue

    if axis is None:
        flat = x.reshape([-1])
        if flat.shape[0] == 0:
            raise op_error("median", "cannot take median of an empty input")
        value = kthvalue(flat, (flat.shape[0] - 1) // 2 + 1, axis=0)[0]
        return value.reshape([1] * x.ndim) if keepdim else value
    n = x.shape[check_axis(axis, x.ndim, "median")] if x.ndim else 1
    if n == 0:
        raise op_error("median", f"cannot take median over an axis of length 0 (input "
                       f"shape {list(x.shape)})")
    return kthvalue(x, (n - 1) // 2 + 1, axis=axis, keepdim=keepdim)


@captured_whole
def quantile(x, q, axis=None, keepdim=False, interpolation="linear", name=None):
    """The q-th quantile(s) over `axis` (int, list or None for all), interpolating between
    sorted elements. A list of q puts one result per q along a new first dimension. Over
    an axis of length 0 the result is 0, as Paddle gives it.

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])
        >>> dygraph.quantile(x, q=0.5, axis=0).numpy()
        array([2., 3.], dtype=float32)
    """
    if isinstance(q, Tensor):
        q = q.tolist()
    scalar = not isinstance(q, (list, tuple))
    qs = [q] if scalar else list(q)
    if not qs:
        raise op_error("quantile", "q must not be an empty list")
    for value in qs:
        if not 0 <= float(value) <= 1:
            raise op_error("quantile", f"q must be in the range [0, 1], got {value}")
    if interpolation == "linear":  # Paddle's linear interpolation has no integer kernel
        refuse_dtypes("quantile", as_tensor(x, "quantile"), ("int32", "int64"),
                      " with linear interpolation")
    out = _order_statistic(x, [float(v) for v in qs], axis, keepdim, interpolation, "quantile")
    return reshape_computed(out, out.shape[1:]) if scalar else out
