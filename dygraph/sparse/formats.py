"""Index arithmetic of the sparse formats and the conversions between them and dense.

Index work (sorting, merging, offsets) runs on the index arrays with the array module
they live in (NumPy or CuPy); value work goes through two existing ops, so gradients,
double backward and static capture follow: `GetItem` (a gather of rows of the values)
and `IndexPutZeros` (zeros with rows added at positions: a scatter-add, which is also
the segment sum that merges repeated indices).

Example:
    >>> import dygraph
    >>> x = dygraph.to_tensor([[0.0, 1.0], [2.0, 0.0]])
    >>> coo = dense_to_coo(x, 2)
    >>> coo.indices().numpy().tolist(), to_dense(coo_to_csr(coo)).numpy().tolist()
    ([[0, 1], [1, 0]], [[0.0, 1.0], [2.0, 0.0]])
"""

import math

import numpy as np

from dygraph.autograd.function import apply
from dygraph.backend import get_array_module
from dygraph.framework.errors import op_error
from dygraph.ops.manipulation.indexing import GetItem, IndexPutZeros
from dygraph.sparse.tensor import SparseCooTensor, SparseCsrTensor, SparseTensor
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["index_tensor", "xp_of", "linear_index", "unravel", "gather_rows", "segment_sum",
           "coo_indices", "is_sorted_unique", "coalesce", "to_dense", "csr_to_coo",
           "coo_to_csr", "dense_to_coo", "dense_to_csr", "check_sparse", "refuse_in_program"]


def index_tensor(array):
    """An index array as a Tensor that never needs a gradient."""
    return _new_tensor(array, None, 0, True)


def xp_of(array):
    return np if type(array) is np.ndarray else get_array_module(array)


def linear_index(indices, shape):
    """Row-major offsets of the columns of `indices` [d, n] in a grid of `shape` (d dims).

    Example:
        >>> linear_index(np.array([[0, 1], [2, 0]]), (2, 3)).tolist()
        [2, 3]
    """
    xp = xp_of(indices)
    lin = xp.zeros(indices.shape[1], dtype=np.int64)
    for row, size in zip(indices, shape):
        lin = lin * int(size) + row.astype(np.int64)
    return lin


def unravel(lin, shape):
    """The [d, n] indices of row-major offsets `lin` in a grid of `shape`.

    Example:
        >>> unravel(np.array([2, 3]), (2, 3)).tolist()
        [[0, 1], [2, 0]]
    """
    xp = xp_of(lin)
    rows = []
    for size in reversed(shape):
        rows.append(lin % int(size))
        lin = lin // int(size)
    if not rows:
        return xp.zeros((0, lin.shape[0]), dtype=np.int64)
    return xp.stack(rows[::-1]).astype(np.int64)


def gather_rows(values, positions):
    """values[positions] along the first axis, in the graph."""
    return apply(GetItem((positions,)), values)


def segment_sum(values, segments, count):
    """Rows of values summed into `count` rows by segment id, in the graph."""
    shape = (int(count),) + tuple(values.shape[1:])
    return apply(IndexPutZeros(shape, values.dtype.np_dtype, (segments,)), values)


def check_sparse(x, op, formats=("coo", "csr")):
    """x as a sparse tensor of one of `formats`, or a TypeError naming the op."""
    if not isinstance(x, SparseTensor):
        got = type(x).__name__ if not isinstance(x, Tensor) else (
            f"a dense Tensor (shape {x.shape}, {x.dtype.name})")
        raise op_error(op, f"expected a sparse tensor, got {got}", TypeError)
    if x.format not in formats:
        raise op_error(op, f"expected a sparse {' or '.join(f.upper() for f in formats)} "
                       f"tensor, got {x.format.upper()} (shape {x.shape})", TypeError)
    return x


def refuse_in_program(op, *tensors):
    """Sparse structure is computed from index values in Python: inside a static program
    the index tensors must be constants, not program variables."""
    from dygraph.autograd.grad_mode import state

    if state.static_program is None:
        return
    from dygraph.static.program import Variable

    if any(isinstance(t, Variable) for t in tensors):
        raise op_error(op, "in a static program the sparsity pattern must be known when the "
                       "program is built: give the indices as constants (arrays or eager "
                       "tensors), and build sparse tensors from values with "
                       "sparse_coo_tensor rather than from a dense variable",
                       NotImplementedError)


def coo_indices(x):
    """The [sparse_dim, nnz] index array of a COO tensor, or of a CSR tensor's entries
    (rows, or batch and rows, expanded from crows)."""
    if x.format == "coo":
        return x._indices._data
    crows, cols = x._crows._data, x._cols._data
    xp = xp_of(cols)
    shape = x._dense_shape
    rows_per = shape[-2]
    batches = 1 if len(shape) == 2 else shape[0]
    counts = xp.diff(crows.reshape(batches, rows_per + 1), axis=1).reshape(-1)
    rows = xp.repeat(xp.tile(xp.arange(rows_per, dtype=cols.dtype), batches), counts)
    if len(shape) == 2:
        return xp.stack([rows, cols])
    batch = xp.repeat(xp.repeat(xp.arange(batches, dtype=cols.dtype), rows_per), counts)
    return xp.stack([batch, rows, cols])


def is_sorted_unique(x):
    """Whether a COO tensor's indices are strictly increasing in row-major order."""
    lin = linear_index(x._indices._data, x._dense_shape)
    return bool((lin[1:] > lin[:-1]).all()) if lin.shape[0] > 1 else True


def _merge_plan(lin):
    """(order, segments, unique offsets) that sort `lin` and merge its repeats; order is
    None when already sorted, segments None when no offset repeats."""
    xp = xp_of(lin)
    if lin.shape[0] < 2 or bool((lin[1:] > lin[:-1]).all()):
        return None, None, lin
    order = xp.argsort(lin, kind="stable")
    ordered = lin[order]
    first = xp.ones(ordered.shape[0], dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    if bool(first.all()):
        return order, None, ordered
    segments = xp.empty_like(order)
    segments[order] = xp.cumsum(first) - 1
    return order, segments, ordered[first]


def coalesce(x, name=None):
    """x with repeated indices summed and entries sorted row-major (COO).

    Example:
        >>> from dygraph.sparse import sparse_coo_tensor
        >>> x = sparse_coo_tensor([[1, 0, 1], [0, 1, 0]], [1.0, 2.0, 3.0], [2, 2])
        >>> y = coalesce(x)
        >>> y.indices().numpy().tolist(), y.values().numpy().tolist()
        ([[0, 1], [1, 0]], [2.0, 4.0])
    """
    x = check_sparse(x, "coalesce", ("coo",))
    sparse_shape = x._dense_shape[:x.sparse_dim()]
    order, segments, unique = _merge_plan(linear_index(x._indices._data, sparse_shape))
    if order is None:
        return SparseCooTensor(x._indices, x._values, x._dense_shape, True)
    indices = index_tensor(unravel(unique, sparse_shape).astype(x._indices._data.dtype))
    if segments is None:
        values = gather_rows(x._values, order)
    else:
        values = segment_sum(x._values, segments, unique.shape[0])
    return SparseCooTensor(indices, values, x._dense_shape, True)


def to_dense(x):
    """The dense Tensor of a sparse one; repeated COO indices add up.

    Example:
        >>> from dygraph.sparse import sparse_coo_tensor
        >>> to_dense(sparse_coo_tensor([[0, 0]], [1.0, 2.0], [2])).numpy().tolist()
        [3.0, 0.0]
    """
    x = check_sparse(x, "to_dense")
    index = tuple(coo_indices(x))
    return apply(IndexPutZeros(x._dense_shape, x._values.dtype.np_dtype, index), x._values)


def csr_to_coo(x):
    """A CSR tensor as COO with the same stored entries (the values Tensor is shared)."""
    x = check_sparse(x, "to_sparse_coo", ("csr",))
    return SparseCooTensor(index_tensor(coo_indices(x)), x._values, x._dense_shape)


def coo_to_csr(x):
    """A COO tensor (2-D, or a batch of matrices [B, M, N]) as CSR, coalesced first."""
    x = check_sparse(x, "to_sparse_csr", ("coo",))
    shape = x._dense_shape
    if len(shape) not in (2, 3) or x.dense_dim():
        raise op_error("to_sparse_csr", f"CSR holds 2-D or 3-D tensors without dense "
                       f"dimensions; got shape {list(shape)} with sparse_dim "
                       f"{x.sparse_dim()}")
    x = coalesce(x)
    idx = x._indices._data
    xp = xp_of(idx)
    batches = 1 if len(shape) == 2 else shape[0]
    rows = idx[-2] if len(shape) == 2 else idx[0] * shape[1] + idx[1]
    counts = xp.bincount(rows, minlength=batches * shape[-2]).reshape(batches, shape[-2])
    crows = xp.zeros((batches, shape[-2] + 1), dtype=idx.dtype)
    crows[:, 1:] = xp.cumsum(counts, axis=1)
    return SparseCsrTensor(index_tensor(crows.reshape(-1)), index_tensor(idx[-1].copy()),
                           x._values, shape)


def dense_to_coo(x, sparse_dim):
    """The nonzero entries of dense x as COO: its first `sparse_dim` dims are indexed, the
    rest stay dense in the values (an entry is kept where any of its values is nonzero)."""
    if not isinstance(x, Tensor):
        raise op_error("to_sparse_coo", f"expected a Tensor, got {type(x).__name__}",
                       TypeError)
    refuse_in_program("to_sparse_coo", x)
    data = x._data
    sparse_dim = int(sparse_dim)
    if not 0 < sparse_dim <= data.ndim:
        raise op_error("to_sparse_coo", f"sparse_dim must be in [1, {data.ndim}] for a "
                       f"tensor of shape {x.shape}, got {sparse_dim}")
    xp = xp_of(data)
    mask = data != 0
    if sparse_dim < data.ndim:
        mask = mask.any(axis=tuple(range(sparse_dim, data.ndim)))
    found = xp.nonzero(mask)
    values = apply(GetItem(found), x)
    indices = xp.stack(found).astype(np.int64) if found else xp.zeros((0, 0), np.int64)
    return SparseCooTensor(index_tensor(indices), values, data.shape, True)


def dense_to_csr(x):
    """The nonzero entries of a dense matrix [M, N] or batch [B, M, N] as CSR."""
    if isinstance(x, Tensor) and not isinstance(x, SparseTensor) and x.ndim not in (2, 3):
        raise op_error("to_sparse_csr", f"CSR holds 2-D or 3-D tensors, got shape {x.shape}")
    return coo_to_csr(dense_to_coo(x, x.ndim))


def sparse_size(x):
    """The number of positions of the sparse dims."""
    return math.prod(x._dense_shape[:x.sparse_dim()])
