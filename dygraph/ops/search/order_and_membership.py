"""Order statistics and membership: kthvalue, mode, msort (with gradients through their
values), bucketize, argwhere, isin, unique_consecutive, histogram_bin_edges, histogramdd.

The values of kthvalue, mode and msort are a gather of x at the chosen indices
(`gather_along`), whose gradient scatters back and differentiates again.
"""

import numpy as np

from dygraph.autograd.whole_call import captured_whole
from dygraph.framework.errors import AssertedValueError, op_error
from dygraph.ops.common import as_tensor, check_axis
from dygraph.ops.manipulation.shape import squeeze
from dygraph.ops.reduction.axes import index_dtype
from dygraph.ops.reduction.scans_and_nan import running_extreme
from dygraph.ops.search.sorting import (
    _const,
    _int_arg,
    _line_axis,
    _xp,
    gather_along,
    nonzero,
    searchsorted,
    sort,
    stable_argsort,
)
from dygraph.tensor.tensor import Tensor

__all__ = ["kthvalue", "mode", "msort", "bucketize", "argwhere", "isin",
           "unique_consecutive", "histogram_bin_edges", "histogramdd"]
NONDIFF = {"bucketize", "argwhere", "isin", "unique_consecutive", "histogram_bin_edges",
           "histogramdd"}


def _pick(x, index, axis, keepdim):
    """(values, int64 indices) at `index` (one per line, kept as a size-1 dim)."""
    values = gather_along(x, index, axis)
    indices = _const(index.astype(np.int64, copy=False))
    if not keepdim:
        values, indices = squeeze(values, axis), squeeze(indices, axis)
    return values, indices


@captured_whole
def kthvalue(x, k, axis=None, keepdim=False, name=None):
    """The k-th smallest value (k counts from 1) along `axis` (default last) and its
    index; among equal values the earlier index comes first.

    Example:
        >>> import dygraph
        >>> v, i = dygraph.kthvalue(dygraph.to_tensor([3.0, 1.0, 2.0]), 2)
        >>> v.item(), i.item()
        (2.0, 2)
    """
    x = as_tensor(x, "kthvalue")
    nd = x._data.ndim
    x, ax = _line_axis(x, -1 if axis is None else axis, "kthvalue")
    k = _int_arg(k, "kthvalue", "k")
    n = x._data.shape[ax]
    if not 1 <= k <= n:
        raise op_error("kthvalue", f"k must be in [1, {n}] (dim {ax} of shape {x.shape}), "
                       f"got {k}")
    xp = _xp(x._data)
    order = stable_argsort(xp, x._data, ax)
    index = xp.take(order, [k - 1], axis=ax)
    values, indices = _pick(x, index, ax, keepdim)
    if nd == 0:
        values, indices = values.reshape([]), indices.reshape([])
    return values, indices


def _run_lengths(xp, flat):
    """For the sorted lines `flat` [rows, n]: each run of equal values' length at its last
    element, 0 elsewhere."""
    end = xp.ones(flat.shape, dtype=bool)
    end[:, :-1] = flat[:, 1:] != flat[:, :-1]
    if xp is np:  # each run's end less the end before it in its line
        rows, cols = np.nonzero(end)
        first = np.ones(rows.shape, dtype=bool)
        first[1:] = rows[1:] != rows[:-1]
        previous = np.where(first, -1, np.roll(cols, 1))
        length = np.zeros(flat.shape, dtype=np.int64)
        length[rows, cols] = cols - previous
        return length
    # On a GPU nonzero would read its count on the host: each run's start is found as
    # the running maximum of the starts' positions instead.
    start = xp.ones(flat.shape, dtype=bool)
    start[:, 1:] = end[:, :-1]
    positions = xp.arange(flat.shape[1])
    first = running_extreme(xp, xp.where(start, positions, 0), 1, True)
    return xp.where(end, positions + 1 - first, 0)


@captured_whole
def mode(x, axis=-1, keepdim=False, name=None):
    """The most frequent value along `axis` (the smallest one on a tie) and the index of
    its last occurrence.

    Example:
        >>> import dygraph
        >>> v, i = dygraph.mode(dygraph.to_tensor([2.0, 1.0, 1.0, 2.0, 3.0]))
        >>> v.item(), i.item()
        (1.0, 2)
    """
    x = as_tensor(x, "mode")
    nd = x._data.ndim
    x, ax = _line_axis(x, axis, "mode")
    data = x._data
    if data.shape[ax] == 0:
        raise op_error("mode", f"dim {ax} of shape {x.shape} is empty")
    xp = _xp(data)
    order = stable_argsort(xp, data, ax)
    ordered = xp.take_along_axis(data, order, ax)
    lines = xp.moveaxis(ordered, ax, -1)
    flat = lines.reshape(-1, lines.shape[-1])
    # Runs of equal values in each sorted line: a run's length is how often its value
    # occurs, and its last element is the value's last occurrence (the sort is stable).
    # argmax of the run lengths finds the first longest run, the one with the smallest
    # value.
    best = xp.argmax(_run_lengths(xp, flat), axis=-1).reshape(lines.shape[:-1] + (1,))
    index = xp.moveaxis(xp.take_along_axis(xp.moveaxis(order, ax, -1), best, -1), -1, ax)
    values, indices = _pick(x, index, ax, keepdim)
    if nd == 0:
        values, indices = values.reshape([]), indices.reshape([])
    return values, indices


@captured_whole
def msort(input):  # noqa: A002 - Paddle's argument name
    """Sorted along the first axis.

    Example:
        >>> import dygraph
        >>> dygraph.msort(dygraph.to_tensor([[3, 1], [1, 2]])).numpy()
        array([[1, 1],
               [3, 2]])
    """
    return sort(as_tensor(input, "msort"), axis=0)


def bucketize(x, sorted_sequence, out_int32=False, right=False, name=None):
    """For each value of x, its bucket in the 1-D `sorted_sequence` (searchsorted).

    Example:
        >>> import dygraph
        >>> dygraph.bucketize(dygraph.to_tensor([1, 5, 9]),
        ...                   dygraph.to_tensor([1, 3, 5, 7])).numpy()
        array([0, 2, 4])
    """
    seq = as_tensor(sorted_sequence, "bucketize")
    if seq._data.ndim != 1:
        raise op_error("bucketize", f"sorted_sequence must be 1-D, got shape {seq.shape}")
    return searchsorted(seq, x, out_int32=out_int32, right=right)


def argwhere(input):  # noqa: A002 - Paddle's argument name
    """int64 coordinates of the non-zero elements, one row each.

    Example:
        >>> import dygraph
        >>> dygraph.argwhere(dygraph.to_tensor([[0, 1], [2, 0]])).numpy()
        array([[0, 1],
               [1, 0]])
    """
    return nonzero(input)


def isin(x, test_x, assume_unique=False, invert=False, name=None):
    """Bool tensor: whether each element of x occurs in test_x (or not, with invert).

    Example:
        >>> import dygraph
        >>> dygraph.isin(dygraph.to_tensor([1, 2, 3]), dygraph.to_tensor([2, 5])).numpy()
        array([False,  True, False])
    """
    x, test = as_tensor(x, "isin"), as_tensor(test_x, "isin")
    xp = _xp(x._data)
    out = xp.isin(x._data, test._data, assume_unique=assume_unique, invert=invert)
    return _const(out)


def unique_consecutive(x, return_inverse=False, return_counts=False, axis=None,
                       dtype="int64", name=None):
    """Collapse runs of equal consecutive elements (of the flattened x, or slices along
    `axis`), optionally with the inverse mapping and the run lengths.

    Example:
        >>> import dygraph
        >>> out, counts = dygraph.unique_consecutive(dygraph.to_tensor([1, 1, 2, 1]),
        ...                                          return_counts=True)
        >>> out.numpy(), counts.numpy()
        (array([1, 2, 1]), array([2, 1, 1]))
    """
    x = as_tensor(x, "unique_consecutive")
    idx_dtype = index_dtype(dtype, "unique_consecutive")
    data = x._data
    xp = _xp(data)
    if axis is None:
        lines, ax = data.reshape(-1), 0
    else:
        ax = check_axis(_int_arg(axis, "unique_consecutive", "axis"), data.ndim,
                        "unique_consecutive")
        lines = data
    moved = xp.moveaxis(lines, ax, 0)
    n = moved.shape[0]
    new = xp.ones(n, dtype=bool)
    if n > 1:
        differs = moved[1:] != moved[:-1]
        new[1:] = differs.reshape(n - 1, -1).any(axis=1)
    starts = xp.nonzero(new)[0]
    out = xp.moveaxis(moved[starts], 0, ax)
    results = [_const(xp.ascontiguousarray(out))]
    if return_inverse:
        results.append(_const((xp.cumsum(new) - 1).astype(idx_dtype)))
    if return_counts:
        counts = xp.diff(xp.append(starts, n))
        results.append(_const(counts.astype(idx_dtype)))
    return results[0] if len(results) == 1 else tuple(results)


def _range_of(data, lo, hi):
    """[min, max] of the bins: the data's range when both are 0 (an empty input has none,
    a ValueError as in Paddle), widened by 0.5 each way when it is one point, as Paddle
    does."""
    lo, hi = float(lo), float(hi)
    if lo == 0 and hi == 0:
        if not data.size:
            raise op_error("histogram_bin_edges", "an empty input has no range; give min "
                           "and max")
        lo, hi = float(data.min()), float(data.max())
    if lo > hi:
        raise op_error("histogram_bin_edges", f"max must be >= min, got min={lo} and "
                       f"max={hi}")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return lo, hi


def _float_dtype(data):
    return data.dtype if data.dtype.kind == "f" else np.dtype(np.float32)


def histogram_bin_edges(input, bins=100, min=0.0, max=0.0, name=None):  # noqa: A002
    """The bins + 1 edges that histogram(input, bins, min, max) uses (min = max = 0: the
    data's range), as float32 whatever the input's dtype, as in Paddle.

    Example:
        >>> import dygraph
        >>> dygraph.histogram_bin_edges(dygraph.to_tensor([1.0, 2.0, 5.0]), bins=4).numpy()
        array([1., 2., 3., 4., 5.], dtype=float32)
    """
    x = as_tensor(input, "histogram_bin_edges")
    bins = _int_arg(bins, "histogram_bin_edges", "bins")
    if bins < 1:
        raise op_error("histogram_bin_edges", f"bins must be >= 1, got {bins}")
    data = x._data
    lo, hi = _range_of(data, min, max)
    edges = _xp(data).linspace(lo, hi, bins + 1)
    return _const(edges.astype(np.float32))


def histogramdd(x, bins=10, ranges=None, density=False, weights=None, name=None):
    """Histogram of N points in D dims (x of shape [N, D], or [..., D]); bins is an int,
    one int per dim, or a list of 1-D edge tensors; ranges is [lo0, hi0, lo1, hi1, ...].
    Returns (hist, list of edge tensors) in x's dtype: an integer x gives integer counts
    and integer edges (see `_integer_edges`), as in Paddle.

    Example:
        >>> import dygraph
        >>> hist, edges = dygraph.histogramdd(dygraph.to_tensor([[0.0, 1.0], [1.0, 0.0]]),
        ...                                   bins=2)
        >>> hist.numpy()
        array([[0., 1.],
               [1., 0.]], dtype=float32)
    """
    x = as_tensor(x, "histogramdd")
    data = x._data
    if data.ndim < 2:  # Paddle asserts it (AssertionError)
        raise op_error("histogramdd", f"x must have shape [N, D], got {x.shape}",
                       AssertedValueError)
    xp = _xp(data)
    points = data.reshape(-1, data.shape[-1])
    d = points.shape[1]
    if isinstance(bins, (list, tuple)) and bins and isinstance(bins[0], Tensor):
        bins = [b._data for b in bins]
    elif isinstance(bins, (int, np.integer)):
        bins = [int(bins)] * d
    if ranges is not None:
        flat = [float(v) for v in ranges]
        if len(flat) != 2 * d:
            raise op_error("histogramdd", f"ranges needs 2 values per dim ({2 * d}), got "
                           f"{len(flat)}")
        ranges = list(zip(flat[::2], flat[1::2]))
    w = None
    if weights is not None:
        w = as_tensor(weights, "histogramdd")._data.reshape(-1)
        if w.shape[0] != points.shape[0]:
            raise op_error("histogramdd", f"weights must hold one value per point "
                           f"({points.shape[0]}), got {w.shape[0]}")
    if not points.size and ranges is None and isinstance(bins[0], (int, np.integer)):
        raise op_error("histogramdd", f"an empty x (shape {x.shape}) has no range; give "
                       "ranges or the bin edges")
    dtype = _float_dtype(data)
    if data.dtype.kind in "iu":  # Paddle keeps an integer x's dtype, edges included
        if density:
            raise op_error("histogramdd", "density needs a float x (Paddle cannot divide "
                           f"the integer counts), got {data.dtype.name}", TypeError)
        dtype = data.dtype
        bins = _integer_edges(xp, points, bins, ranges, dtype)
        ranges = None
    hist, edges = xp.histogramdd(points, bins=bins, range=ranges, density=density, weights=w)
    return _const(hist.astype(dtype)), [_const(e.astype(dtype)) for e in edges]


def _integer_edges(xp, points, bins, ranges, dtype):
    """The bin edges of each dim for integer points, as Paddle makes them: the range (the
    data's, or `ranges` cut toward zero to integers) split by a linspace in the integer
    dtype, which computes each edge in float64 from the nearer end and cuts it toward
    zero (so that edges may repeat: the bins between equal edges stay empty). Explicit
    edge tensors are used as they are."""
    if not isinstance(bins[0], (int, np.integer)):
        return bins
    if ranges is None:
        ranges = list(zip(points.min(axis=0).tolist(), points.max(axis=0).tolist()))
    edges = []
    for (lo, hi), n in zip(ranges, bins):
        lo, hi, num = int(lo), int(hi), int(n) + 1
        i = np.arange(num)
        step = (hi - lo) / max(num - 1, 1)
        values = np.where(i < num // 2, lo + step * i, hi - step * (num - 1 - i))
        edges.append(xp.asarray(np.trunc(values).astype(dtype)))
    return edges
