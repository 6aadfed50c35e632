"""Scatter-type ops: scatter, scatter_nd_add, index_add, put_along_axis, masked_fill.

All of them reduce to one op, `Scatter`: write values at flat positions of a copy of x.
The public functions only work out the positions (by indexing a grid of flat offsets the
same way the values are laid out), so one gradient formula serves the whole family:
x gets the output gradient with overwritten positions zeroed, the values get it gathered
at their positions. Both are Tensor-level formulas (multiply by a constant mask, getitem),
so double backward works unchanged.
"""

import numpy as np

from dygraph.autograd.function import Op, apply
from dygraph.autograd.whole_call import captured_whole
from dygraph.backend import attr_on
from dygraph.backend.scatter_at import add_at, bincount, extreme_at
from dygraph.framework.errors import op_error
from dygraph.ops.common import as_tensor, cast, check_axis
from dygraph.ops.manipulation.args import check_bounds, constant, index_array, xp_of
from dygraph.ops.manipulation.indexing import GetItem
from dygraph.ops.manipulation.shape import broadcast_to, reshape
from dygraph.ops.math import arithmetic as _math
from dygraph.ops.math import extrema
from dygraph.ops.unary.core import where
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["scatter", "scatter_nd_add", "index_add", "put_along_axis", "masked_fill"]


class Scatter(Op):
    """out = copy of x with values v written at flat positions `pos` of x.

    mode 'assign': v overwrites (with repeated positions the last write wins);
    'add': v accumulates onto x; 'zero_add': the positions are zeroed, then v accumulates.
    """

    attrs = ("mode", "pos")

    complex_grad = "same"

    def __init__(self, pos, mode):
        self.pos, self.mode = pos, mode

    def forward(self, xp, x, v):
        out = x.copy()
        flat = out.reshape(-1)
        vals = v.reshape(-1)
        pos = attr_on(xp, self, "pos")  # a program's positions are host arrays
        self.v_shape = v.shape
        self.winners = None
        if self.mode == "assign":
            if xp is not np:
                # Every write to a position writes the last write's value there, so the
                # order of a GPU's writes does not matter and nothing is read on the host.
                last = _last_write_at(xp, pos, flat.size)
                flat[pos] = vals[last]
                self.winners = last == xp.arange(pos.size)
                return out
            self.winners = _last_writes(xp, pos)
            if self.winners is None:
                flat[pos] = vals
            else:
                flat[pos[self.winners]] = vals[self.winners]
            return out
        if self.mode == "zero_add":
            flat[pos] = 0
        add_at(xp, flat, pos, vals)
        return out

    def backward(self, m, g):
        gx = gv = None
        if self.edges[0] is not None:
            gx = g if self.mode == "add" else g * self._kept(m.data(g))
        if self.edges[1] is not None:
            gv = m.getitem(m.reshape(g, (-1,)), self.pos)
            if self.winners is not None:
                gv = gv * self.winners.astype(m.data(g).dtype)
            gv = m.reshape(gv, self.v_shape)
        return gx, gv

    def _kept(self, g):
        xp = xp_of(g)
        keep = xp.ones(g.size, dtype=g.dtype)
        keep[attr_on(xp, self, "pos")] = 0
        return keep.reshape(g.shape)


def _last_writes(xp, pos):
    """Bool mask of the writes that survive an assignment, or None when no position repeats."""
    order = xp.argsort(pos, kind="stable")
    ordered = pos[order]
    last = xp.ones(pos.size, dtype=bool)
    last[:-1] = ordered[1:] != ordered[:-1]
    if bool(last.all()):
        return None
    winners = xp.empty(pos.size, dtype=bool)
    winners[order] = last
    return winners


def _last_write_at(xp, pos, size):
    """For each write, the number of the last write to its position (of `size` positions):
    one scatter of the write numbers by maximum, no read on the host."""
    steps = xp.arange(pos.size)
    latest = xp.full(size, -1, dtype=steps.dtype)
    extreme_at(xp, "max", latest, pos, steps)
    return latest[pos]


def _write_rank(xp, pos):
    """For each write, how many earlier writes went to the same position."""
    n = pos.size
    order = xp.argsort(pos, kind="stable")
    ordered = pos[order]
    first = xp.ones(n, dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    steps = xp.arange(n)
    group_start = steps[first][xp.cumsum(first) - 1]
    rank = xp.empty(n, dtype=steps.dtype)
    rank[order] = steps - group_start
    return rank


def _grid(x):
    """Flat offsets of every element of x, shaped like x."""
    data = x._data
    return xp_of(data).arange(data.size).reshape(data.shape)


def _same_dtype(x, v, op, name):
    if v._data.dtype != x._data.dtype:
        raise op_error(op, f"{name} must have the dtype of x ({x._data.dtype.name}), got "
                       f"{v._data.dtype.name}", TypeError)


@captured_whole
def scatter(x, index, updates, overwrite=True, name=None):
    """Write rows of `updates` into the rows of x given by the 1-D `index`. overwrite=True:
    the last write to a row wins; False: the indexed rows are zeroed, then accumulated.

    Example:
        >>> import dygraph
        >>> x = dygraph.zeros([3, 2])
        >>> up = dygraph.to_tensor([[1.0, 1.0], [2.0, 2.0]])
        >>> dygraph.scatter(x, dygraph.to_tensor([2, 2]), up, overwrite=False).numpy()
        array([[0., 0.],
               [0., 0.],
               [3., 3.]], dtype=float32)
    """
    x = as_tensor(x, "scatter")
    updates = as_tensor(updates, "scatter")
    if x._data.ndim == 0:
        raise op_error("scatter", "x must have at least 1 dim, got a 0-D tensor")
    idx = index_array(index, "scatter", like=x._data)
    if idx.ndim == 0:
        idx = idx.reshape(1)
        updates = reshape(updates, [1] + updates.shape)
    elif idx.ndim != 1:
        raise op_error("scatter", f"index must be 1-D or 0-D, got shape {list(idx.shape)}")
    ushape, xshape = updates._data.shape, x._data.shape
    if len(ushape) != len(xshape) or ushape[1:] != xshape[1:] or ushape[0] < idx.shape[0]:
        raise op_error("scatter", f"updates of shape {list(ushape)} do not fit x of shape "
                       f"{list(xshape)} with {idx.shape[0]} indices: expected "
                       f"{[idx.shape[0]] + list(xshape[1:])}")
    _same_dtype(x, updates, "scatter", "updates")
    check_bounds(idx, xshape[0], "scatter", dim=0)
    if ushape[0] > idx.shape[0]:
        updates = apply(GetItem(slice(0, idx.shape[0])), updates)  # extra rows are unused
    pos = _grid(x)[idx].reshape(-1)
    return apply(Scatter(pos, "assign" if overwrite else "zero_add"), x, updates)


@captured_whole
def scatter_nd_add(x, index, updates, name=None):
    """Add `updates` into x at multi-dim indices: index[..., :k] addresses the first k dims,
    updates has shape index.shape[:-1] + x.shape[k:]; repeated indices accumulate.

    Example:
        >>> import dygraph
        >>> x = dygraph.zeros([2, 2])
        >>> idx = dygraph.to_tensor([[0, 1], [0, 1]])
        >>> dygraph.scatter_nd_add(x, idx, dygraph.to_tensor([1.0, 2.0])).numpy()
        array([[0., 3.],
               [0., 0.]], dtype=float32)
    """
    x = as_tensor(x, "scatter_nd_add")
    updates = as_tensor(updates, "scatter_nd_add")
    idx = index_array(index, "scatter_nd_add", like=x._data)
    shape = x._data.shape
    if idx.ndim == 0 or idx.shape[-1] > len(shape):
        raise op_error("scatter_nd_add", f"index of shape {list(idx.shape)} must end in a dim "
                       f"of size <= {len(shape)} (the dims of x, shape {list(shape)})")
    k = idx.shape[-1]
    want = tuple(idx.shape[:-1]) + tuple(shape[k:])
    if updates._data.shape != want:
        raise op_error("scatter_nd_add", f"updates must have shape {list(want)} (index shape "
                       f"{list(idx.shape)}, x shape {list(shape)}), got {updates.shape}")
    _same_dtype(x, updates, "scatter_nd_add", "updates")
    for d in range(k):
        check_bounds(idx[..., d], shape[d], "scatter_nd_add", dim=d)
    picked = _grid(x)[tuple(idx[..., d] for d in range(k))]
    pos = xp_of(picked).broadcast_to(picked, want).reshape(-1)
    return apply(Scatter(pos, "add"), x, updates)


@captured_whole
def index_add(x, index, axis, value, alpha=1, name=None):
    """Add the slices of `alpha * value` into x at positions `index` (1-D) along `axis`.

    Example:
        >>> import dygraph
        >>> x = dygraph.ones([3, 2])
        >>> v = dygraph.to_tensor([[1.0, 2.0]])
        >>> dygraph.index_add(x, dygraph.to_tensor([1]), 0, v).numpy()
        array([[1., 1.],
               [2., 3.],
               [1., 1.]], dtype=float32)
    """
    x = as_tensor(x, "index_add")
    value = as_tensor(value, "index_add")
    if x._data.ndim == 0:
        raise op_error("index_add", "x must have at least 1 dim, got a 0-D tensor")
    ax = check_axis(axis, x._data.ndim, "index_add")
    idx = index_array(index, "index_add", like=x._data)
    if idx.ndim != 1:
        raise op_error("index_add", f"index must be 1-D, got shape {list(idx.shape)}")
    want = list(x._data.shape)
    want[ax] = idx.shape[0]
    if list(value._data.shape) != want:
        raise op_error("index_add", f"value must have shape {want} (x shape {x.shape}, "
                       f"{idx.shape[0]} indices along axis {ax}), got {value.shape}")
    _same_dtype(x, value, "index_add", "value")
    check_bounds(idx, x._data.shape[ax], "index_add", dim=ax)
    if isinstance(alpha, Tensor) or alpha != 1:
        value = _math.multiply(value, alpha)
    pos = xp_of(idx).take(_grid(x), idx, axis=ax).reshape(-1)
    return apply(Scatter(pos, "add"), x, value)


_REDUCE_COMBINE = {"mul": _math.multiply, "multiply": _math.multiply,
                   "amax": extrema.maximum, "amin": extrema.minimum}


@captured_whole
def put_along_axis(arr, indices, values, axis, reduce="assign", include_self=True,
                   broadcast=True, name=None):
    """Write `values` into arr along `axis` at `indices` (as many dims as arr). reduce:
    'assign' (default), 'add', 'mul'/'multiply', 'mean', 'amin' or 'amax'; include_self=False
    leaves arr's own value out of the reduction.

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([[10, 30, 20], [60, 40, 50]])
        >>> dygraph.put_along_axis(x, dygraph.to_tensor([[0]]), 99, 0).numpy()
        array([[99, 99, 99],
               [60, 40, 50]])
    """
    from dygraph.ops.manipulation.gather import _along_axis_index

    if reduce not in ("assign", "add", "mean") and reduce not in _REDUCE_COMBINE:
        raise op_error("put_along_axis", f"reduce must be one of 'assign', 'add', 'mul', "
                       f"'multiply', 'mean', 'amin', 'amax'; got {reduce!r}")
    arr = as_tensor(arr, "put_along_axis")
    if arr._data.ndim == 0:
        raise op_error("put_along_axis", "arr must have at least 1 dim, got a 0-D tensor")
    ax = check_axis(axis, arr._data.ndim, "put_along_axis")
    idx = index_array(indices, "put_along_axis", name="indices", like=arr._data)
    index = _along_axis_index(arr._data.shape, idx, ax, broadcast, "put_along_axis")
    picked = _grid(arr)[index]
    shape = list(picked.shape)
    values = _values_like(values, arr, shape)
    pos = picked.reshape(-1)
    if reduce == "assign":
        return apply(Scatter(pos, "assign"), arr, values)
    if reduce == "add":
        return apply(Scatter(pos, "add" if include_self else "zero_add"), arr, values)
    if reduce == "mean":
        return _put_mean(arr, pos, values, include_self)
    return _put_rounds(arr, pos, values, include_self, _REDUCE_COMBINE[reduce])


def _values_like(values, arr, shape):
    if not isinstance(values, Tensor):
        values = constant(np.asarray(values), arr)
    else:
        _same_dtype(arr, values, "put_along_axis", "values")
    if values._data.shape != tuple(shape):
        try:
            np.broadcast_shapes(values._data.shape, tuple(shape))
        except ValueError:
            raise op_error("put_along_axis", f"values of shape {values.shape} do not "
                           f"broadcast to the indices shape {shape}") from None
        values = broadcast_to(values, shape)
    return values


def _put_mean(arr, pos, values, include_self):
    xp = xp_of(arr._data)
    total = apply(Scatter(pos, "add" if include_self else "zero_add"), arr, values)
    counts = bincount(xp, pos, arr._data.size) + (1 if include_self else 0)
    counts = xp.maximum(counts, 1).reshape(arr._data.shape).astype(arr._data.dtype)
    if arr._data.dtype.kind not in "fc":
        return cast(_math.divide(total, constant(counts, arr)), arr._data.dtype)
    return total / _new_tensor(counts, None, 0, True)


def _put_rounds(arr, pos, values, include_self, combine):
    """Reduce repeated positions in rounds: round r handles every position's r-th write, so
    each round's positions are unique and one overwrite per round applies it."""
    if pos.size == 0:
        return apply(Scatter(pos, "assign"), arr, values)
    rank = _write_rank(xp_of(pos), pos)
    flat_values = reshape(values, [-1])
    out = arr
    for r in range(int(rank.max()) + 1):
        sel = rank == r
        p = pos[sel]
        v = flat_values if bool(sel.all()) else apply(GetItem(sel), flat_values)
        if r > 0 or include_self:
            v = combine(apply(GetItem(p), reshape(out, [-1])), v)
        out = apply(Scatter(p, "assign"), out, v)
    return out


def masked_fill(x, mask, value, name=None):
    """x with `value` (a number or 0-D tensor) wherever the bool `mask` (broadcast to x) is
    True.

    Example:
        >>> import dygraph
        >>> x = dygraph.ones([2, 2])
        >>> dygraph.masked_fill(x, dygraph.to_tensor([True, False]), 0.5).numpy()
        array([[0.5, 1. ],
               [0.5, 1. ]], dtype=float32)
    """
    x = as_tensor(x, "masked_fill")
    mask = as_tensor(mask, "masked_fill")
    if mask._data.dtype != np.bool_:
        raise op_error("masked_fill", f"mask must be a bool tensor, got dtype "
                       f"{mask._data.dtype.name}", TypeError)
    try:
        np.broadcast_shapes(x._data.shape, mask._data.shape)
    except ValueError:
        raise op_error("masked_fill", f"mask of shape {mask.shape} does not broadcast with x "
                       f"of shape {x.shape}") from None
    if isinstance(value, Tensor):
        if value._data.size != 1:
            raise op_error("masked_fill", f"value must be a number or a 1-element tensor, got "
                           f"shape {value.shape}")
        if value._data.ndim:
            value = reshape(value, [])
        if value._data.dtype != x._data.dtype:
            value = cast(value, x._data.dtype)
    else:
        value = constant(value, x)
    return where(mask, value, x)
