"""Search and sort: topk, sort, argsort, unique, nonzero, searchsorted, bincount, histogram.

Sorted values and top-k values are a gather of the input at the sort indices
(`GatherAlong`), so their gradient is the matching scatter (`ScatterAlong`) and the two ops
differentiate each other for double backward. Sorting is always stable: equal values keep
their input order, which makes results (and gradients) reproducible.
"""

import numpy as np

from dygraph.autograd.backward_math import register
from dygraph.autograd.function import Op, apply
from dygraph.autograd.whole_call import captured_whole
from dygraph.framework.errors import describe, op_error
from dygraph.ops.common import as_tensor, check_axis
from dygraph.ops.reduction.axes import index_dtype
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["topk", "sort", "argsort", "unique", "nonzero", "searchsorted", "bincount",
           "histogram"]
NONDIFF = {"argsort", "unique", "nonzero", "searchsorted", "bincount", "histogram"}
NOT_METHODS = {"searchsorted"}


def _xp(array):
    from dygraph.backend import get_array_module

    return get_array_module(array)


def _const(array):
    return _new_tensor(array, None, 0, True)


def _along_index(xp, index, axis):
    """Fancy-index tuple that addresses `index` positions along `axis` (all others as is)."""
    ndim = index.ndim
    parts = []
    for d, n in enumerate(index.shape):
        if d == axis:
            parts.append(index)
        else:
            shape = [1] * ndim
            shape[d] = n
            parts.append(xp.arange(n).reshape(shape))
    return tuple(parts)


def _scatter_along(xp, g, index, axis, shape):
    out = xp.zeros(shape, g.dtype)
    out[_along_index(xp, index, axis)] = g
    return out


class GatherAlong(Op):
    """x taken at `index` along `axis` (NumPy's take_along_axis)."""

    attrs = ("axis", "index")

    complex_grad = "same"

    def __init__(self, index, axis):
        self.index, self.axis = index, axis

    def forward(self, xp, x):
        self.in_shape = x.shape
        return xp.take_along_axis(x, self.index, self.axis)

    def backward(self, m, g):
        return (m.scatter_along(g, self.index, self.axis, self.in_shape),)


class ScatterAlong(Op):
    """zeros(shape) with g written at `index` along `axis`; the indices of one line along
    the axis are distinct (sort, top-k and order-statistic indices are)."""

    attrs = ("axis", "index", "shape")

    complex_grad = "same"

    def __init__(self, index, axis, shape):
        self.index, self.axis, self.shape = index, axis, shape

    def forward(self, xp, g):
        return _scatter_along(xp, g, self.index, self.axis, self.shape)

    def backward(self, m, gg):
        return (m.gather_along(gg, self.index, self.axis),)


register("gather_along",
         lambda xp: (lambda a, index, axis: xp.take_along_axis(a, index, axis)),
         lambda a, index, axis: apply(GatherAlong(index, axis), a))
register("scatter_along",
         lambda xp: (lambda g, index, axis, shape: _scatter_along(xp, g, index, axis, shape)),
         lambda g, index, axis, shape: apply(ScatterAlong(index, axis, shape), g))


def gather_along(x, index, axis):
    """Differentiable take_along_axis with a raw integer index array (library helper).

    Example:
        >>> import numpy as np, dygraph
        >>> from dygraph.ops.search.sorting import gather_along
        >>> gather_along(dygraph.to_tensor([5.0, 6.0, 7.0]), np.array([2, 0]), 0).numpy()
        array([7., 5.], dtype=float32)
    """
    return apply(GatherAlong(index, axis), x)


def stable_argsort(xp, a, axis, descending=False):
    """Stable argsort along `axis`; descending keeps equal values in input order too.

    Example:
        >>> import numpy as np
        >>> stable_argsort(np, np.array([3, 5, 5, 1]), 0, descending=True).tolist()
        [1, 2, 0, 3]
    """
    if not descending:
        return xp.argsort(a, axis=axis, kind="stable")
    # Sorting the reversed line ascending and reading the result backwards gives a
    # descending order in which ties keep their original order; negating the values
    # instead would break unsigned and bool inputs.
    n = a.shape[axis]
    idx = xp.argsort(xp.flip(a, axis), axis=axis, kind="stable")
    return (n - 1) - xp.flip(idx, axis)


def _int_arg(value, op, what):
    if isinstance(value, Tensor):
        value = value.item()
    if isinstance(value, (bool, float)) or not isinstance(value, (int, np.integer)):
        raise op_error(op, f"{what} must be an int, got {value!r}", TypeError)
    return int(value)


def _line_axis(x, axis, op):
    """(x with at least one dimension, the normalised axis): Paddle sorts a 0-D tensor as
    a line of one element."""
    axis = check_axis(_int_arg(axis, op, "axis"), x._data.ndim, op)
    return (x.reshape([1]), 0) if x._data.ndim == 0 else (x, axis)


# Below this line length a full sort is faster than the partition-based selection.
_SMALL = 256


def _first(a, k, axis):
    return a[(slice(None),) * axis + (slice(0, k),)]


def _topk_index(xp, a, k, axis, largest, sort):
    """Indices of the top k along `axis`; among equal values the lower index wins."""
    n = a.shape[axis]
    if n <= _SMALL or k == n or (a.dtype.kind == "f" and bool(xp.isnan(a).any())):
        return _first(stable_argsort(xp, a, axis, largest), k, axis)
    # Linear time: the k-th value bounds the winners; of the values equal to it, the
    # earliest ones fill the places the strictly better values leave.
    kth = n - k if largest else k - 1
    bound = xp.take(xp.partition(a, kth, axis=axis), [kth], axis=axis)
    better = a > bound if largest else a < bound
    tie = a == bound
    need = k - better.sum(axis=axis, keepdims=True)
    chosen = better | (tie & (xp.cumsum(tie, axis=axis) <= need))
    cand = _first(stable_argsort(xp, ~chosen, axis), k, axis)  # in index order
    if not sort:
        return cand
    order = stable_argsort(xp, xp.take_along_axis(a, cand, axis), axis, descending=largest)
    return xp.take_along_axis(cand, order, axis)


@captured_whole
def topk(x, k, axis=None, largest=True, sorted=True, name=None):  # noqa: A002 - Paddle's name
    """The k largest (or smallest) values along `axis` (default last) and their int64
    indices; the values are differentiable.

    Example:
        >>> import dygraph
        >>> v, i = dygraph.topk(dygraph.to_tensor([1.0, 4.0, 3.0, 2.0]), k=2)
        >>> v.numpy(), i.numpy()
        (array([4., 3.], dtype=float32), array([1, 2]))
    """
    x = as_tensor(x, "topk")
    was_0d = x._data.ndim == 0
    x, axis = _line_axis(x, -1 if axis is None else axis, "topk")
    k = _int_arg(k, "topk", "k")
    n = x._data.shape[axis]
    if was_0d and k >= 1:
        k = 1  # Paddle takes any k >= 1 for a 0-D x: its one value, at index 0
    if not 1 <= k <= n:
        raise op_error("topk", f"k={k} is out of range for axis {axis} of a tensor of shape "
                       f"{list(x._data.shape)}; expected 1 <= k <= {n}")
    xp = _xp(x._data)
    idx = _topk_index(xp, x._data, k, axis, largest, sorted)
    values = apply(GatherAlong(idx, axis), x)
    indices = _const(idx.astype(np.int64, copy=False))
    if was_0d:
        return values.reshape([]), indices.reshape([])
    return values, indices


@captured_whole
def sort(x, axis=-1, descending=False, stable=False, name=None):
    """Sorted values along `axis` (differentiable); ties keep their input order.

    Example:
        >>> import dygraph
        >>> dygraph.sort(dygraph.to_tensor([3.0, 1.0, 2.0]), descending=True).numpy()
        array([3., 2., 1.], dtype=float32)
    """
    x = as_tensor(x, "sort")
    was_0d = x._data.ndim == 0
    x, axis = _line_axis(x, axis, "sort")
    idx = stable_argsort(_xp(x._data), x._data, axis, descending)
    out = apply(GatherAlong(idx, axis), x)
    return out.reshape([]) if was_0d else out


@captured_whole
def argsort(x, axis=-1, descending=False, stable=False, name=None):
    """int64 indices that sort `x` along `axis`; ties keep their input order.

    Example:
        >>> import dygraph
        >>> dygraph.argsort(dygraph.to_tensor([3.0, 1.0, 2.0])).numpy()
        array([1, 2, 0])
    """
    x = as_tensor(x, "argsort")
    if x._data.ndim == 0:
        check_axis(_int_arg(axis, "argsort", "axis"), 0, "argsort")
        return _const(_xp(x._data).zeros((), np.int64))
    axis = check_axis(_int_arg(axis, "argsort", "axis"), x._data.ndim, "argsort")
    idx = stable_argsort(_xp(x._data), x._data, axis, descending)
    return _const(idx.astype(np.int64, copy=False))


@captured_whole(free_dims=(0,))
def unique(x, return_index=False, return_inverse=False, return_counts=False, axis=None,
           dtype="int64", sorted=True, name=None):  # noqa: A002 - Paddle's keyword
    """Sorted unique values (of the flattened input, or of slices along `axis`), optionally
    with first-occurrence indices, the inverse mapping and the counts. The values come
    sorted whatever `sorted` says, as Paddle 3.3's CPU kernel gives them.

    Example:
        >>> import dygraph
        >>> out, counts = dygraph.unique(dygraph.to_tensor([2, 3, 3, 1]), return_counts=True)
        >>> out.numpy(), counts.numpy()
        (array([1, 2, 3]), array([1, 1, 2]))
    """
    x = as_tensor(x, "unique")
    idx_dtype = index_dtype(dtype, "unique")
    data = x._data
    xp = _xp(data)
    if axis is not None:
        axis = check_axis(_int_arg(axis, "unique", "axis"), data.ndim, "unique")
    if data.size == 0:
        # Paddle gives an empty x back as it is (its shape kept, whatever the axis), with
        # empty [0] indices and counts.
        wanted = bool(return_index) + bool(return_inverse) + bool(return_counts)
        extra = [_const(xp.zeros(0, idx_dtype)) for _ in range(wanted)]
        return tuple([_const(data.copy())] + extra) if extra else _const(data.copy())
    result = xp.unique(data if axis is not None else data.reshape(-1), return_index=True,
                       return_inverse=True, return_counts=True, axis=axis)
    out, first, inverse, counts = result
    wanted = [(True, out), (return_index, first), (return_inverse, inverse.reshape(-1)),
              (return_counts, counts)]
    tensors = [_const(a if i == 0 else a.astype(idx_dtype, copy=False))
               for i, (keep, a) in enumerate(wanted) if keep]
    return tensors[0] if len(tensors) == 1 else tuple(tensors)


@captured_whole(free_dims=(0,))
def nonzero(x, as_tuple=False):
    """int64 coordinates of the non-zero elements: a [z, ndim] tensor, or (as_tuple) one
    [z] tensor per dimension (Paddle 3.3's shape; Paddle 2.x gave [z, 1]).

    Example:
        >>> import dygraph
        >>> dygraph.nonzero(dygraph.to_tensor([[1.0, 0.0], [0.0, 2.0]])).numpy()
        array([[0, 0],
               [1, 1]])
    """
    x = as_tensor(x, "nonzero")
    if x._data.ndim == 0:  # Paddle refuses a 0-D input (ValueError); NumPy does too
        raise op_error("nonzero", "x must have at least 1 dim, got a 0-D tensor")
    xp = _xp(x._data)
    coords = xp.argwhere(x._data).astype(np.int64, copy=False)
    if as_tuple:
        return tuple(_const(xp.ascontiguousarray(coords[:, d]))
                     for d in range(coords.shape[1]))
    return _const(coords)


@captured_whole
def searchsorted(sorted_sequence, values, out_int32=False, right=False, name=None):
    """Insertion positions of `values` in the innermost dimension of `sorted_sequence`
    (1-D, or with the same leading dimensions as `values`).

    Example:
        >>> import dygraph
        >>> seq = dygraph.to_tensor([1, 3, 5, 7])
        >>> dygraph.searchsorted(seq, dygraph.to_tensor([3, 6])).numpy()
        array([1, 3])
    """
    seq = as_tensor(sorted_sequence, "searchsorted")._data
    vals = as_tensor(values, "searchsorted")._data
    xp = _xp(seq)
    side = "right" if right else "left"
    out_dtype = np.int32 if out_int32 else np.int64
    if seq.ndim == 0:
        raise op_error("searchsorted", "sorted_sequence must have at least 1 dimension, got "
                       "a 0-D tensor")
    if seq.ndim == 1:
        return _const(xp.searchsorted(seq, vals, side=side).astype(out_dtype, copy=False))
    if vals.ndim != seq.ndim or seq.shape[:-1] != vals.shape[:-1]:
        raise op_error("searchsorted", f"sorted_sequence of shape {list(seq.shape)} needs "
                       f"values with the same leading dimensions {list(seq.shape[:-1])}, got "
                       f"values of shape {list(vals.shape)}")
    n, rows = seq.shape[-1], int(np.prod(seq.shape[:-1]))
    # Replace every number by its rank among all of them, then offset each row by a stride
    # larger than any rank: one search over the flattened rows answers every row at once.
    both = xp.concatenate([seq.reshape(-1), vals.reshape(-1)])
    _, rank = xp.unique(both, return_inverse=True)
    rank = rank.reshape(-1).astype(np.int64)
    stride = int(rank.max()) + 1 if rank.size else 1
    seq_key = rank[:seq.size].reshape(rows, n) + xp.arange(rows)[:, None] * stride
    val_key = rank[seq.size:].reshape(rows, -1) + xp.arange(rows)[:, None] * stride
    pos = xp.searchsorted(seq_key.reshape(-1), val_key, side=side) - xp.arange(rows)[:, None] * n
    return _const(pos.reshape(vals.shape).astype(out_dtype, copy=False))


@captured_whole(free_dims=(0,))
def bincount(x, weights=None, minlength=0, name=None):
    """Occurrences of each value of a 1-D non-negative integer tensor (or the sum of the
    matching `weights`).

    Example:
        >>> import dygraph
        >>> dygraph.bincount(dygraph.to_tensor([1, 1, 3])).numpy()
        array([0, 2, 0, 1])
    """
    x = as_tensor(x, "bincount")
    data = x._data
    if data.ndim != 1 or data.dtype.kind not in "iu":
        raise op_error("bincount", f"x must be a 1-D integer tensor, got {describe(x)}",
                       TypeError if data.dtype.kind not in "iu" else ValueError)
    if data.size and int(data.min()) < 0:
        raise op_error("bincount", f"x must be non-negative, got a minimum of {int(data.min())}")
    minlength = _int_arg(minlength, "bincount", "minlength")
    if minlength < 0:
        raise op_error("bincount", f"minlength must be >= 0, got {minlength}")
    xp = _xp(data)
    if weights is None:
        return _const(xp.bincount(data, minlength=minlength).astype(np.int64, copy=False))
    w = as_tensor(weights, "bincount")._data
    if w.shape != data.shape:
        raise op_error("bincount", f"weights of shape {list(w.shape)} must match x of shape "
                       f"{list(data.shape)}")
    out = xp.bincount(data, weights=w, minlength=minlength)
    return _const(out.astype(w.dtype, copy=False))


@captured_whole
def histogram(input, bins=100, min=0, max=0, weight=None, density=False,  # noqa: A002
              name=None):
    """Counts of the values in `bins` equal-width bins over [min, max] (both 0: the data's
    range); values outside are ignored. int64 counts, or float32 with weight/density; an
    empty input gives zeros in its own dtype, as in Paddle.

    Example:
        >>> import dygraph
        >>> dygraph.histogram(dygraph.to_tensor([1, 2, 1]), bins=4, min=0, max=3).numpy()
        array([0, 2, 1, 0])
    """
    x = as_tensor(input, "histogram")
    bins = _int_arg(bins, "histogram", "bins")
    if bins < 1:
        raise op_error("histogram", f"bins must be >= 1, got {bins}")
    data = x._data.reshape(-1)
    xp = _xp(data)
    lo, hi = float(min), float(max)
    if lo == 0 and hi == 0 and data.size:
        lo, hi = float(data.min()), float(data.max())
    if lo > hi:
        raise op_error("histogram", f"max must be >= min, got min={min} and max={max}")
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    w = None
    if weight is not None:
        w = as_tensor(weight, "histogram")._data
        if w.shape != x._data.shape:
            raise op_error("histogram", f"weight of shape {list(w.shape)} must match input of "
                           f"shape {list(x._data.shape)}")
        w = w.reshape(-1)
    if not data.size:  # Paddle: zeros in x's dtype, whatever weight and density say
        return _const(xp.zeros(bins, x._data.dtype))
    inside = (data >= lo) & (data <= hi)
    pos = ((data[inside].astype(np.float64) - lo) * (bins / (hi - lo))).astype(np.int64)
    pos = xp.minimum(pos, bins - 1)  # the upper edge belongs to the last bin
    counts = xp.bincount(pos, weights=None if w is None else w[inside], minlength=bins)
    if not density and w is None:
        return _const(counts.astype(np.int64, copy=False))
    counts = counts.astype(np.float64)
    if density:
        total = counts.sum()
        counts = counts / (total * (hi - lo) / bins) if total else counts
    return _const(counts.astype(np.float32))
