"""Row reductions by index, the array work behind every graph op: `reduce_rows` sums (or
averages, or takes the maximum or minimum of) the rows of `values` that share an index.

Each reduction is one pass over the values, whatever the order of the indices:

- sum: on NumPy, a one-hot [rows, E] matrix in CSC form (built without sorting: column e
  holds a single 1 at row index[e]) times the values, through scipy.sparse when it is
  installed; otherwise `add.at` on flat positions (NumPy's fast path for a 1-D index);
  on CuPy, `add.at` on the rows.
- maximum and minimum: `maximum.at` / `minimum.at` on flat positions (NumPy) or rows (CuPy).

(On CuPy through backend/scatter_at.py, which serves the dtypes CuPy's `ufunc.at` lacks.)

Rows that no index reaches are 0, as in Paddle.

Example:
    >>> import numpy as np
    >>> out, count = reduce_rows(np, np.array([[1.0], [2.0], [4.0]]), np.array([0, 2, 0]), 3,
    ...                          "sum")
    >>> out.ravel().tolist(), count.tolist()
    ([5.0, 0.0, 2.0], [2, 0, 1])
"""

import math

import numpy as np

from dygraph.backend.scatter_at import add_at, bincount, extreme_at

__all__ = ["reduce_rows", "gather_rows", "trunc_divide"]

# {"sparse": scipy.sparse, or False when SciPy is missing}, filled on first use (the import
# is slow and most programs never need it).
_SCIPY = {}


def _sparse():
    if "sparse" not in _SCIPY:
        try:
            import scipy.sparse as sparse
        except ImportError:
            sparse = False
        _SCIPY["sparse"] = sparse
    return _SCIPY["sparse"] or None


def gather_rows(xp, x, index):
    """x[index] along the first axis (`take` is NumPy's fastest row gather).

    Example:
        >>> gather_rows(np, np.array([10, 20, 30]), np.array([2, 2, 0])).tolist()
        [30, 30, 10]
    """
    return xp.take(x, index, axis=0)


def _flat_positions(xp, index, width):
    """The flat positions of rows `index` of a [rows, width] array, row by row."""
    if width == 1:
        return index
    return (index.astype(np.int64, copy=False)[:, None] * width
            + xp.arange(width, dtype=np.int64)).reshape(-1)


def _sum_rows(xp, flat, index, rows):
    """[rows, D] sums of the rows of flat [E, D] by index."""
    edges, width = flat.shape
    sparse = _sparse() if xp is np and flat.dtype in (np.float32, np.float64) else None
    if sparse is not None and edges:
        onehot = sparse.csc_matrix(
            (np.ones(edges, flat.dtype), index, np.arange(edges + 1, dtype=index.dtype)),
            shape=(rows, edges))
        return np.asarray(onehot @ flat)
    if xp is np:
        out = np.zeros(rows * width, flat.dtype)
        np.add.at(out, _flat_positions(np, index, width), flat.reshape(-1))
        return out.reshape(rows, width)
    out = xp.zeros((rows, width), flat.dtype)
    add_at(xp, out, index, flat)
    return out


def _extreme_rows(xp, flat, index, rows, reduce):
    """[rows, D] maxima (reduce 'max') or minima of the rows of flat [E, D] by index; rows
    no index reaches hold the reduction's identity (the caller zeroes them)."""
    dtype = flat.dtype
    if dtype.kind == "f":
        start = -np.inf if reduce == "max" else np.inf
    else:
        info = np.iinfo(dtype)
        start = info.min if reduce == "max" else info.max
    if xp is np:
        out = np.full(rows * flat.shape[1], start, dtype)
        extreme_at(np, reduce, out, _flat_positions(np, index, flat.shape[1]),
                   flat.reshape(-1))
        return out.reshape(rows, flat.shape[1])
    out = xp.full((rows, flat.shape[1]), start, dtype)
    extreme_at(xp, reduce, out, index, flat)
    return out


def trunc_divide(xp, total, count):
    """total / count rounded toward zero for integers (Paddle's integer mean), the true
    quotient for floats.

    Example:
        >>> trunc_divide(np, np.array([-5, 5]), np.array([2, 2])).tolist()
        [-2, 2]
    """
    if total.dtype.kind == "f":
        return (total / count).astype(total.dtype, copy=False)
    quotient = total // count
    inexact = (quotient * count != total) & (total < 0)
    return quotient + inexact.astype(total.dtype)


def reduce_rows(xp, values, index, rows, reduce):
    """(out, count): out[r] is the reduction ('sum', 'mean', 'max' or 'min') of the rows
    values[e] with index[e] == r, for r < rows (0 where there is none); count[r] is how many
    there are. `index` must hold values in [0, rows); the caller checks.

    Example:
        >>> out, _ = reduce_rows(np, np.array([3, 1, 2]), np.array([1, 1, 0]), 2, "max")
        >>> out.tolist()
        [2, 3]
    """
    feature = values.shape[1:]
    width = math.prod(feature)
    flat = values.reshape(values.shape[0], width)
    count = bincount(xp, index, rows)
    if reduce in ("sum", "mean"):
        out = _sum_rows(xp, flat, index, rows)
        if reduce == "mean":
            out = trunc_divide(xp, out, xp.maximum(count, 1).astype(out.dtype)[:, None])
    else:
        out = _extreme_rows(xp, flat, index, rows, reduce)
        if xp is np:
            out[count == 0] = 0
        else:  # a masked write would read the mask's count on the host
            out = xp.where((count == 0)[:, None], xp.zeros((), out.dtype), out)
    return out.reshape((rows,) + feature), count
