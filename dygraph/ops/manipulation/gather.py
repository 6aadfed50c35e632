"""Gather-type ops: gather, gather_nd, index_select, take_along_axis, masked_select, slice,
strided_slice, repeat_interleave.

Each builds a NumPy index and runs the indexing op (`GetItem`), whose gradient scatters back
with `add.at` (repeated indices accumulate) and whose double backward gathers again.
"""

import builtins

import numpy as np

from dygraph.autograd.function import apply
from dygraph.autograd.whole_call import captured_whole
from dygraph.framework.errors import IndexValueError, ShapeRuntimeError, op_error
from dygraph.ops.common import as_tensor, check_axis
from dygraph.ops.manipulation.args import (
    check_bounds,
    index_array,
    int_list,
    xp_of,
)
from dygraph.ops.manipulation.indexing import GetItem
from dygraph.ops.manipulation.shape import broadcast_to, reshape
from dygraph.tensor.tensor import Tensor

_ALL = builtins.slice(None)


def _along(axis, idx):
    """The index that picks `idx` along `axis` and keeps every other dim."""
    return (_ALL,) * axis + (idx,)


def _nonscalar(x, op):
    x = as_tensor(x, op)
    if x._data.ndim == 0:  # Paddle: axis 0 is out of range (IndexError)
        raise op_error(op, "expected a tensor with at least 1 dim, got a 0-D tensor",
                       IndexValueError)
    return x


@captured_whole
def gather(x, index, axis=None, name=None):
    """Rows (or slices along `axis`, default 0) of x at `index` (1-D, or [N, 1]; a 0-D index
    drops the axis).

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([[1, 2], [3, 4], [5, 6]])
        >>> dygraph.gather(x, dygraph.to_tensor([2, 0])).numpy()
        array([[5, 6],
               [1, 2]])
    """
    x = _nonscalar(x, "gather")
    ax = 0 if axis is None else check_axis(axis, x._data.ndim, "gather")
    idx = index_array(index, "gather", like=x._data)
    if idx.ndim == 2 and idx.shape[1] == 1:
        idx = idx.reshape(-1)
    elif idx.ndim > 1:
        raise op_error("gather", f"index must be 1-D (or [N, 1]), got shape {list(idx.shape)}")
    check_bounds(idx, x._data.shape[ax], "gather", dim=ax)
    return apply(GetItem(_along(ax, int(idx) if idx.ndim == 0 else idx)), x)


@captured_whole
def index_select(x, index, axis=0, name=None):
    """Slices of x along `axis` at the positions in the 1-D `index` (negative positions
    count from the end).

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([[1, 2, 3], [4, 5, 6]])
        >>> dygraph.index_select(x, dygraph.to_tensor([2, 0]), axis=1).numpy()
        array([[3, 1],
               [6, 4]])
    """
    x = _nonscalar(x, "index_select")
    ax = check_axis(axis, x._data.ndim, "index_select")
    idx = index_array(index, "index_select", like=x._data)
    if idx.ndim != 1:
        raise op_error("index_select", f"index must be 1-D, got shape {list(idx.shape)}")
    check_bounds(idx, x._data.shape[ax], "index_select", negative=True, dim=ax,
                 exc_type=IndexValueError)
    return apply(GetItem(_along(ax, idx)), x)


@captured_whole
def gather_nd(x, index, name=None):
    """Gather by multi-dim indices: index[..., :k] addresses the first k dims of x, so the
    result has shape index.shape[:-1] + x.shape[k:].

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([[1, 2], [3, 4]])
        >>> dygraph.gather_nd(x, dygraph.to_tensor([[1, 0], [0, 1]])).numpy()
        array([3, 2])
    """
    x = as_tensor(x, "gather_nd")
    idx = index_array(index, "gather_nd", like=x._data)
    shape = x._data.shape
    if idx.ndim == 0 or idx.shape[-1] > len(shape):
        raise op_error("gather_nd", f"index of shape {list(idx.shape)} must end in a dim of "
                       f"size <= {len(shape)} (the dims of x, shape {list(shape)})")
    k = idx.shape[-1]
    batch = list(idx.shape[:-1])
    if k == 0:
        # Every index entry selects the whole of x.
        return broadcast_to(reshape(x, [1] * len(batch) + list(shape)), batch + list(shape))
    for d in range(k):
        check_bounds(idx[..., d], shape[d], "gather_nd", dim=d)
    return apply(GetItem(tuple(idx[..., d] for d in range(k))), x)


def _along_axis_index(arr_shape, idx, axis, broadcast, op):
    """The fancy index that take/put_along_axis use, with Paddle's broadcast rules."""
    nd = len(arr_shape)
    if idx.ndim != nd:
        raise op_error(op, f"indices must have as many dims as arr: arr has shape "
                       f"{list(arr_shape)} but indices has shape {list(idx.shape)}")
    check_bounds(idx, arr_shape[axis], op, name="indices", negative=True, dim=axis)
    xp = xp_of(idx)
    index = []
    for d in range(nd):
        if d == axis:
            index.append(idx)
            continue
        a, b = arr_shape[d], idx.shape[d]
        if broadcast and not (a == b or a == 1 or b == 1):
            raise op_error(op, f"indices of shape {list(idx.shape)} cannot broadcast against "
                           f"arr of shape {list(arr_shape)} at dim {d} ({b} vs {a})")
        if not broadcast and b > a:
            raise op_error(op, f"indices of shape {list(idx.shape)} are larger than arr of "
                           f"shape {list(arr_shape)} at dim {d} ({b} > {a})")
        view = [1] * nd
        view[d] = -1
        index.append(xp.arange(a if broadcast else b).reshape(view))
    return tuple(index)


@captured_whole
def take_along_axis(arr, indices, axis, broadcast=True, name=None):
    """Pick values of `arr` along `axis` at `indices` (same number of dims as arr; the other
    dims broadcast). Negative indices count from the end.

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([[10, 30, 20], [60, 40, 50]])
        >>> dygraph.take_along_axis(x, dygraph.to_tensor([[1], [0]]), 1).numpy()
        array([[30],
               [60]])
    """
    arr = _nonscalar(arr, "take_along_axis")
    ax = check_axis(axis, arr._data.ndim, "take_along_axis")
    idx = index_array(indices, "take_along_axis", name="indices", like=arr._data)
    index = _along_axis_index(arr._data.shape, idx, ax, broadcast, "take_along_axis")
    return apply(GetItem(index), arr)


@captured_whole(free_dims=(0,))
def masked_select(x, mask, name=None):
    """The values of x where the bool `mask` is True, as a 1-D tensor (x and mask
    broadcast against each other).

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([1.0, -2.0, 3.0])
        >>> dygraph.masked_select(x, x > 0).numpy()
        array([1., 3.], dtype=float32)
    """
    x = as_tensor(x, "masked_select")
    mask = as_tensor(mask, "masked_select")
    m = mask._data
    if m.dtype != np.bool_:
        raise op_error("masked_select", f"mask must be a bool tensor, got dtype "
                       f"{m.dtype.name}", TypeError)
    try:
        shape = np.broadcast_shapes(x._data.shape, m.shape)
    except ValueError:
        raise op_error("masked_select", f"mask of shape {list(m.shape)} does not broadcast "
                       f"with x of shape {x.shape}", ShapeRuntimeError) from None
    if x._data.shape != shape:
        x = broadcast_to(x, list(shape))
    if m.shape != shape:
        m = xp_of(m).broadcast_to(m, shape)
    return apply(GetItem(m), x)


def _slices(x, axes, starts, ends, strides, op):
    nd = x._data.ndim
    if nd == 0:
        raise op_error(op, "cannot slice a 0-D tensor (it has no axes)")
    axes = int_list(axes, op, "axes")
    starts = int_list(starts, op, "starts")
    ends = int_list(ends, op, "ends")
    if not len(axes) == len(starts) == len(ends) == len(strides):
        raise op_error(op, f"axes {axes}, starts {starts}, ends {ends} (and strides) must "
                       "have the same length")
    index = [_ALL] * nd
    seen = set()
    for a, s, e, st in zip(axes, starts, ends, strides):
        a = check_axis(a, nd, op)
        if a in seen:
            raise op_error(op, f"axis {a} appears twice in axes {axes}")
        if st == 0:
            raise op_error(op, f"strides must not be 0, got {list(strides)}")
        seen.add(a)
        index[a] = builtins.slice(s, e, st)
    return apply(GetItem(tuple(index)), x)


def slice(input, axes, starts, ends):  # noqa: A001,A002 - Paddle's names
    """input[starts:ends] along each of `axes`; out-of-range bounds are clipped and
    negative ones count from the end (starts/ends may hold Tensors).

    Example:
        >>> import dygraph
        >>> x = dygraph.arange(12).reshape([3, 4])
        >>> dygraph.slice(x, axes=[0, 1], starts=[1, 0], ends=[3, -1]).numpy()
        array([[ 4,  5,  6],
               [ 8,  9, 10]])
    """
    x = as_tensor(input, "slice")
    n = len(int_list(axes, "slice", "axes"))
    return _slices(x, axes, starts, ends, [1] * n, "slice")


def strided_slice(x, axes, starts, ends, strides, name=None):
    """Like slice, with a step per axis (negative steps walk backwards); the axes must be
    >= 0, as Paddle requires here.

    Example:
        >>> import dygraph
        >>> x = dygraph.arange(6)
        >>> dygraph.strided_slice(x, axes=[0], starts=[5], ends=[0], strides=[-2]).numpy()
        array([5, 3, 1])
    """
    x = as_tensor(x, "strided_slice")
    axes = int_list(axes, "strided_slice", "axes")
    if any(a < 0 for a in axes):
        raise op_error("strided_slice", f"axes must be >= 0, got {axes} (x shape "
                       f"{x.shape})")
    return _slices(x, axes, starts, ends, int_list(strides, "strided_slice", "strides"),
                   "strided_slice")


@captured_whole(free_dims=(0,))
def repeat_interleave(x, repeats, axis=None, name=None, *, output_size=None):
    """Repeat each element (each slice along `axis`; None flattens first) `repeats` times;
    repeats is an int or a 1-D tensor with one count per slice. `output_size`, when given,
    keeps the first output_size slices of the result.

    Example:
        >>> import dygraph
        >>> dygraph.repeat_interleave(dygraph.to_tensor([1, 2]), 2).numpy()
        array([1, 1, 2, 2])
    """
    x = as_tensor(x, "repeat_interleave")
    if axis is None or x._data.ndim == 0:
        x = reshape(x, [-1])
        ax = 0
    else:
        ax = check_axis(axis, x._data.ndim, "repeat_interleave")
    n = x._data.shape[ax]
    if isinstance(repeats, (int, np.integer)):
        counts = int(repeats)
        bad = counts < 0
    else:
        counts = np.asarray(repeats.numpy() if isinstance(repeats, Tensor) else repeats)
        if counts.dtype.kind not in "iu":
            raise op_error("repeat_interleave", f"repeats must be an int or an integer "
                           f"tensor, got dtype {counts.dtype.name}", TypeError)
        counts = counts.reshape(-1)
        if counts.size not in (1, n):
            raise op_error("repeat_interleave", f"repeats has {counts.size} values but dim "
                           f"{ax} of x (shape {x.shape}) has size {n}")
        bad = bool((counts < 0).any())
    if bad:
        raise op_error("repeat_interleave", f"repeats must be >= 0, got {repeats}")
    # An int count makes the index on x's device (a copy from the host could not be
    # captured into a CUDA graph); counts per slice are host values, copied.
    xp = xp_of(x._data)
    idx = (xp.repeat(xp.arange(n), counts) if isinstance(counts, int)
           else xp.asarray(np.repeat(np.arange(n), counts)))
    if output_size is not None:
        idx = idx[:int(output_size)]
    return apply(GetItem(_along(ax, idx)), x)
