"""More scans and reductions: logcumsumexp, cummax/cummin, trapezoid and
cumulative_trapezoid, and the NaN-ignoring nansum, nanmean, nanquantile, nanmedian.

All but logcumsumexp are compositions of differentiable ops (sum, where, gather along an
axis), so their gradients come from those; cummax/cummin and the nan order statistics pick
elements by index, and the gradient flows to the picked elements.
"""

import math

import numpy as np

from dygraph.autograd.backward_math import register
from dygraph.autograd.function import Op, apply
from dygraph.autograd.whole_call import captured_whole
from dygraph.framework.errors import op_error
from dygraph.framework.kernel_dtypes import refuse_dtypes
from dygraph.ops import compare
from dygraph.ops.common import as_tensor, cast, check_axis, float_operand, norm_axes
from dygraph.ops.manipulation.shape import reshape, reshape_computed, transpose
from dygraph.ops.reduction import reduce as reduction
from dygraph.ops.reduction.statistics import empty_quantiles, nan_if_empty, quantile_bounds
from dygraph.ops.search.sorting import GatherAlong, _along_index, gather_along, stable_argsort
from dygraph.ops.unary import core as _unary
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["logcumsumexp", "cummax", "cummin", "trapezoid", "cumulative_trapezoid",
           "nansum", "nanmean", "nanquantile", "nanmedian"]
NONDIFF = set()


def _xp(array):
    if type(array) is np.ndarray:
        return np
    from dygraph.backend import get_array_module

    return get_array_module(array)


def _scatter_add_along(xp, g, index, axis, shape):
    out = xp.zeros(shape, g.dtype)
    xp.add.at(out, _along_index(xp, index, axis), g)
    return out


class _GatherRepeated(GatherAlong):
    """x taken at `index` along `axis`, where an index may repeat (a running maximum
    picks one element many times): the gradient adds up over the repeats."""

    def backward(self, m, g):
        return (m.scatter_add_along(g, self.index, self.axis, self.in_shape),)


class _ScatterAddAlong(Op):
    attrs = ("axis", "index", "shape")

    complex_grad = "same"

    def __init__(self, index, axis, shape):
        self.index, self.axis, self.shape = index, axis, shape

    def forward(self, xp, g):
        return _scatter_add_along(xp, g, self.index, self.axis, self.shape)

    def backward(self, m, gg):
        return (m.gather_along(gg, self.index, self.axis),)


register("scatter_add_along",
         lambda xp: (lambda g, index, axis, shape: _scatter_add_along(xp, g, index, axis,
                                                                      shape)),
         lambda g, index, axis, shape: apply(_ScatterAddAlong(index, axis, shape), g))


def _scan_input(x, axis, dtype, op):
    x = as_tensor(x, op)
    if dtype is not None:
        x = cast(x, dtype)
    if axis is None:
        return reshape(x, [-1]), 0
    return x, check_axis(axis, x._data.ndim, op)


class LogCumSumExp(Op):
    """y_i = log(sum_{j<=i} exp(x_j)) along an axis, by running logaddexp (stable)."""

    attrs = ("axis",)

    save_inputs = True
    save_output = True

    def __init__(self, axis):
        self.axis = axis

    def forward(self, xp, x):
        if x.ndim == 0:
            return x.copy()
        if xp is np:
            return np.logaddexp.accumulate(x, axis=self.axis)
        top = xp.max(x, axis=self.axis, keepdims=True)
        top = xp.where(xp.isfinite(top), top, 0)
        return xp.log(xp.cumsum(xp.exp(x - top), axis=self.axis)) + top

    def backward(self, m, g):
        x, y = self.x(0, m), self.y(m)
        if m.data(x).ndim == 0:
            return (g,)
        # dx_i = sum_{j>=i} g_j exp(x_i - y_j); shifting by the last (largest) y_j keeps the
        # exponentials in range.
        last = m.data(y).shape[self.axis] - 1
        top = y[(slice(None),) * self.axis + (slice(last, last + 1),)]
        return (m.exp(x - top) * m.revcumsum(g * m.exp(top - y), self.axis),)


def logcumsumexp(x, axis=None, dtype=None, name=None):
    """log(cumsum(exp(x))) along `axis` (None: over the flattened x), computed stably.

    Example:
        >>> import dygraph
        >>> dygraph.logcumsumexp(dygraph.to_tensor([0.0, 0.0, 1000.0])).numpy().round(4).tolist()
        [0.0, 0.6930999755859375, 1000.0]
    """
    x, axis = _scan_input(float_operand(x, "logcumsumexp"), axis, dtype, "logcumsumexp")
    return apply(LogCumSumExp(axis), x)


def running_extreme(xp, a, axis, larger):
    """The running maximum (larger) or minimum of array `a` along `axis` (>= 0), NaN
    propagating, as NumPy's maximum.accumulate / minimum.accumulate. CuPy has no such scan:
    on a GPU each of ceil(log2(n)) steps takes the extreme of every element and the one
    `step` before it, the step doubling, so that no value is read on the host.

    Example:
        >>> running_extreme(np, np.array([1, 3, 2, 5]), 0, True)
        array([1, 3, 3, 5])
    """
    pair = xp.maximum if larger else xp.minimum
    if xp is np:
        return pair.accumulate(a, axis=axis)
    head = (slice(None),) * axis
    n, step = a.shape[axis], 1
    while step < n:
        out = a.copy()
        pair(a[head + (slice(step, None),)], a[head + (slice(None, n - step),)],
             out=out[head + (slice(step, None),)])
        a, step = out, step * 2
    return a


def _cumulative_extreme(x, axis, dtype, op, larger):
    x, axis = _scan_input(x, axis, None, op)
    data = x._data
    xp = _xp(data)
    if data.ndim == 0:
        return x, _new_tensor(xp.zeros((), dtype=np.int64), None, 0, True)
    running = running_extreme(xp, data, axis, larger)
    shape = [1] * data.ndim
    shape[axis] = data.shape[axis]
    positions = xp.arange(data.shape[axis]).reshape(shape)
    # The index of the latest element equal to the running extreme (ties take the later
    # index, as in Paddle); NaN propagates and keeps its own index.
    hit = (data == running) | xp.isnan(data)
    index = running_extreme(xp, xp.where(hit, positions, 0), axis, True)
    values = apply(_GatherRepeated(index, axis), x)
    from dygraph.framework.dtype import convert_dtype

    indices = _new_tensor(index.astype(convert_dtype(dtype).np_dtype), None, 0, True)
    return values, indices


@captured_whole
def cummax(x, axis=None, dtype="int64", name=None):
    """(running maximum along `axis`, the index where each maximum was found); None
    flattens x. The gradient flows to the elements picked.

    Example:
        >>> import dygraph
        >>> v, i = dygraph.cummax(dygraph.to_tensor([1.0, 3.0, 2.0, 3.0]))
        >>> v.numpy(), i.numpy()
        (array([1., 3., 3., 3.], dtype=float32), array([0, 1, 1, 3]))
    """
    return _cumulative_extreme(x, axis, dtype, "cummax", True)


@captured_whole
def cummin(x, axis=None, dtype="int64", name=None):
    """(running minimum along `axis`, the index where each minimum was found).

    Example:
        >>> import dygraph
        >>> v, i = dygraph.cummin(dygraph.to_tensor([3.0, 1.0, 2.0]))
        >>> v.numpy(), i.numpy()
        (array([3., 1., 1.], dtype=float32), array([0, 1, 1]))
    """
    return _cumulative_extreme(x, axis, dtype, "cummin", False)


def _trapezoids(y, x, dx, axis, op):
    """The area of each trapezoid between neighbours along `axis`."""
    y = float_operand(y, op)
    axis = check_axis(axis, y._data.ndim, op)
    if x is not None and dx is not None:
        raise op_error(op, "give either x or dx, not both")
    head = (slice(None),) * axis
    left, right = y[head + (slice(None, -1),)], y[head + (slice(1, None),)]
    if x is None:
        width = 1.0 if dx is None else dx
    else:
        x = float_operand(x, op)
        if x._data.ndim == 1:
            if x._data.shape[0] != y._data.shape[axis]:
                raise op_error(op, f"x has {x._data.shape[0]} points but y has "
                               f"{y._data.shape[axis]} along axis {axis}")
            shape = [1] * y._data.ndim
            shape[axis] = -1
            x = reshape(x, shape)
            width = x[head + (slice(1, None),)] - x[head + (slice(None, -1),)]
        else:
            xa = check_axis(axis, x._data.ndim, op) if x._data.ndim else 0
            xh = (slice(None),) * xa
            width = x[xh + (slice(1, None),)] - x[xh + (slice(None, -1),)]
    return (left + right) * width * 0.5, axis


def trapezoid(y, x=None, dx=None, axis=-1, name=None):
    """The integral of y along `axis` by the trapezoid rule, with sample points x or a
    constant spacing dx (default 1).

    Example:
        >>> import dygraph
        >>> float(dygraph.trapezoid(dygraph.to_tensor([1.0, 2.0, 3.0])))
        4.0
    """
    areas, axis = _trapezoids(y, x, dx, axis, "trapezoid")
    return reduction.sum(areas, axis=axis)


def cumulative_trapezoid(y, x=None, dx=None, axis=-1, name=None):
    """The running trapezoid-rule integral of y along `axis` (one element shorter).

    Example:
        >>> import dygraph
        >>> dygraph.cumulative_trapezoid(dygraph.to_tensor([1.0, 2.0, 3.0]), dx=2.0).numpy()
        array([3., 8.], dtype=float32)
    """
    areas, axis = _trapezoids(y, x, dx, axis, "cumulative_trapezoid")
    return reduction.cumsum(areas, axis=axis)


def _without_nan(x):
    return _unary.where(compare.isnan(x), 0.0, x)


def nansum(x, axis=None, dtype=None, keepdim=False, name=None):
    """The sum over `axis` treating NaN as 0.

    Example:
        >>> import dygraph
        >>> float(dygraph.nansum(dygraph.to_tensor([1.0, float('nan'), 2.0])))
        3.0
    """
    x = as_tensor(x, "nansum")
    if x._data.dtype.kind in "fc":
        x = _without_nan(x)
    return reduction.sum(x, axis=axis, dtype=dtype, keepdim=keepdim)


def nanmean(x, axis=None, keepdim=False, name=None):
    """The mean over `axis` of the non-NaN elements (NaN where every element is NaN).

    Example:
        >>> import dygraph
        >>> float(dygraph.nanmean(dygraph.to_tensor([1.0, float('nan'), 2.0])))
        1.5
    """
    x = float_operand(x, "nanmean")
    count = reduction.sum(cast(~compare.isnan(x), x._data.dtype), axis=axis, keepdim=keepdim)
    return nansum(x, axis=axis, keepdim=keepdim) / count


def _nan_lines(x, axis, op):
    """x with the reduced elements along the last axis, and the reduced axes."""
    ndim = x._data.ndim
    axes = norm_axes(axis, ndim, op)
    if axes is None or ndim == 0:
        return reshape(x, [-1]), None
    kept = [d for d in range(ndim) if d not in axes]
    moved = transpose(x, kept + list(axes))
    lines = [x._data.shape[d] for d in kept] + [math.prod(x._data.shape[d] for d in axes)]
    return reshape_computed(moved, lines), axes


def _nan_order(x, qs, axis, keepdim, interpolation, op):
    """(values [len(qs)] + reduced shape, sorted-position indices or None) ignoring NaN."""
    x = float_operand(x, op)
    in_shape = x._data.shape
    lines, axes = _nan_lines(x, axis, op)
    data = lines._data
    xp = _xp(data)
    n = data.shape[-1]
    reduced = [s for d, s in enumerate(in_shape) if axes is not None and d not in axes]
    if keepdim:
        reduced = [1 if axes is None or d in axes else s for d, s in enumerate(in_shape)]
    if n == 0:
        if op != "nanquantile":
            raise op_error(op, f"cannot reduce an axis of length 0 (input shape "
                           f"{list(in_shape)})")
        return empty_quantiles(data, len(qs), reduced), None, reduced
    order = stable_argsort(xp, data, data.ndim - 1)  # NaN sorts last
    count = (~xp.isnan(data)).sum(axis=-1, keepdims=True)
    # One position per q, made on the device (an array of qs would be a copy from the host)
    pos = xp.stack([(count - 1) * q for q in qs])
    lo, hi, frac = quantile_bounds(xp, pos, interpolation, op)
    empty = count == 0
    stacked = xp.broadcast_to(order, (len(qs),) + order.shape)

    def pick(position):
        position = xp.clip(position, 0, n - 1).astype(np.int64)
        return xp.take_along_axis(stacked, position, axis=-1)

    lines_q = lines.unsqueeze(0).expand([len(qs)] + list(data.shape))
    low_index = pick(lo)
    out = gather_along(lines_q, low_index, data.ndim)
    if interpolation in ("linear", "midpoint"):  # the others have no fraction
        fractional = (frac != 0).any()
        if xp is not np or fractional:
            # a tensor of the data's array module (see statistics._order_statistic)
            weight = _new_tensor(frac.astype(data.dtype), None, 0, True)
            weighted = out + (gather_along(lines_q, pick(hi), data.ndim) - out) * weight
            # Whether any line interpolates depends on the NaN counts: on a GPU it is
            # chosen on the device, as a read on the host cannot be captured into a CUDA
            # graph.
            out = weighted if xp is np else _unary.where(
                _new_tensor(fractional, None, 0, True), weighted, out)
    out = _unary.where(_new_tensor(empty[None], None, 0, True), float("nan"), out)
    index = xp.where(empty[None], -1, low_index)[..., 0]
    return reshape_computed(out, [len(qs)] + reduced), index, reduced


@captured_whole
def nanquantile(x, q, axis=None, keepdim=False, interpolation="linear", name=None):
    """The q-th quantile(s) over `axis` ignoring NaN (NaN where a line is all NaN, 0 over
    an axis of length 0, as in Paddle); a list of q puts one result per q along a new
    first dimension.

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([[1.0, float('nan'), 3.0, 4.0]])
        >>> dygraph.nanquantile(x, 0.5, axis=1).numpy()
        array([3.], dtype=float32)
    """
    if isinstance(q, Tensor):
        q = q.tolist()
    scalar = not isinstance(q, (list, tuple))
    qs = [q] if scalar else list(q)
    if not qs or any(not 0 <= float(v) <= 1 for v in qs):
        raise op_error("nanquantile", f"q must be in [0, 1] (a number or a non-empty list), "
                       f"got {q!r}")
    if interpolation == "linear":  # as quantile
        refuse_dtypes("nanquantile", as_tensor(x, "nanquantile"), ("int32", "int64"),
                      " with linear interpolation")
    out = _nan_order(x, [float(v) for v in qs], axis, keepdim, interpolation, "nanquantile")[0]
    return reshape_computed(out, out.shape[1:]) if scalar else out


def _as_int(t, dtype):
    """t cast back to an integer input dtype; a median of no values (NaN) reads as the
    dtype's lowest value, the number Paddle gives there."""
    if dtype.kind not in "iu":
        return t
    return cast(_unary.where(compare.isnan(t), float(np.iinfo(dtype).min), t), dtype)


@captured_whole
def nanmedian(x, axis=None, keepdim=False, mode="avg", name=None):
    """The median over `axis` ignoring NaN. mode='avg' averages the two middle values of an
    even count; mode='min' takes the lower one and, for an int axis, also returns its index
    along that axis (-1 for an all-NaN line).

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([[1.0, float('nan'), 3.0, 4.0, 2.0]])
        >>> dygraph.nanmedian(x, axis=1).numpy()
        array([2.5], dtype=float32)
        >>> v, i = dygraph.nanmedian(x, axis=1, mode='min'); v.numpy(), i.numpy()
        (array([2.], dtype=float32), array([4]))
        >>> dygraph.nanmedian(dygraph.to_tensor([1, 2, 3, 4])).numpy()
        array(2)
    """
    if mode not in ("avg", "min"):
        raise op_error("nanmedian", f"mode must be 'avg' or 'min', got {mode!r}")
    x = as_tensor(x, "nanmedian")
    dtype = x._data.dtype
    if dtype.kind in "iu":
        # As Paddle, integers keep their dtype (an average of two middle values is cut
        # toward zero); they are ordered in float64, exact for the sizes they hold.
        x = cast(x, np.float64)
    interpolation = "linear" if mode == "avg" else "lower"
    empty = nan_if_empty(x, axis, keepdim, "nanmedian") if mode == "avg" else None
    if empty is not None:
        return _as_int(empty, dtype)
    out, index, reduced = _nan_order(x, [0.5], axis, keepdim, interpolation, "nanmedian")
    value = _as_int(reshape_computed(out, out.shape[1:]), dtype)
    if mode == "avg" or axis is None:
        return value
    indices = _new_tensor(index.reshape(reduced).astype(np.int64), None, 0, True)
    return value, indices
