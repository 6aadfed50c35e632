"""Products with sparse matrices: matmul, masked_matmul, mv, addmm.

sparse @ dense runs `SparseDenseMatmul` (dygraph/sparse/dense_product.py, SciPy's
kernels when installed); a batch [B, M, K] @ [B, K, N] is one block-diagonal product.
sparse @ sparse pairs the entries of x's columns with y's rows in index arithmetic and
sums the products per output position with ops (so both inputs' values get gradients).

Example:
    >>> import dygraph
    >>> x = dygraph.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2])
    >>> dygraph.sparse.matmul(x, dygraph.ones([2, 3])).numpy().tolist()
    [[2.0, 2.0, 2.0], [3.0, 3.0, 3.0]]
"""

import numpy as np

from dygraph import ops as _ops
from dygraph.autograd.function import apply
from dygraph.framework.errors import op_error
from dygraph.sparse.binary import add, multiply
from dygraph.sparse.dense_product import RowLayout, SparseDenseMatmul
from dygraph.sparse.formats import (
    check_sparse,
    coalesce,
    coo_indices,
    coo_to_csr,
    csr_to_coo,
    gather_rows,
    index_tensor,
    segment_sum,
    xp_of,
)
from dygraph.sparse.tensor import SparseCooTensor, SparseTensor
from dygraph.tensor.tensor import Tensor

__all__ = ["matmul", "masked_matmul", "mv", "addmm"]


def _matrix_dims(x, op):
    """(batches, rows, cols) of a sparse matrix or batch of matrices without dense dims."""
    if x.ndim not in (2, 3) or (x.format == "coo" and x.dense_dim()):
        raise op_error(op, f"x must be a sparse matrix [M, K] or batch [B, M, K] without "
                       f"dense dims, got shape {x.shape} with dense_dim {x.dense_dim()}")
    shape = x._dense_shape
    return (1 if len(shape) == 2 else shape[0]), shape[-2], shape[-1]


def _flat_positions(x):
    """Rows and cols of x's entries in the block-diagonal matrix of its batches."""
    idx = coo_indices(x)
    batches, m, k = _matrix_dims(x, "matmul")
    if x.ndim == 2:
        return idx[0], idx[1]
    return idx[0] * m + idx[1], idx[0] * k + idx[2]


def _dense_operand(y, x, op, what="y"):
    if not isinstance(y, Tensor):
        raise op_error(op, f"{what} must be a Tensor, got {type(y).__name__}", TypeError)
    if y.dtype != x.dtype:
        raise op_error(op, f"x ({x.dtype.name}) and {what} ({y.dtype.name}) must have the "
                       "same dtype", TypeError)
    return y


def _row_layout(x):
    """The RowLayout of x's entries in the block-diagonal matrix of its batches, made once
    per structure: CSR offsets are used as they are, COO entries are put in row order."""
    if x._layout_cache is None:
        batches, m, k = _matrix_dims(x, "matmul")
        shape = (batches * m, batches * k)
        if x.format == "coo":
            rows, cols = _flat_positions(x)
            layout = RowLayout.from_coo(xp_of(rows), rows, cols, shape)
        else:
            crows, cols = x._crows._data, x._cols._data
            xp = xp_of(cols)
            per = crows.reshape(batches, m + 1)
            starts = xp.cumsum(per[:, -1]) - per[:, -1]
            indptr = xp.concatenate([(per[:, :-1] + starts[:, None]).reshape(-1),
                                     xp.asarray([cols.shape[0]], dtype=per.dtype)])
            batch = xp.repeat(xp.arange(batches), per[:, -1])
            layout = RowLayout.from_csr(indptr, cols + batch * k, None, shape)
        x._layout_cache = layout
    return x._layout_cache


def _sparse_dense(x, y):
    batches, m, k = _matrix_dims(x, "matmul")
    y = _dense_operand(y, x, "matmul")
    if y.ndim != x.ndim or y.shape[-2] != k or (x.ndim == 3 and y.shape[0] != batches):
        raise op_error("matmul", f"cannot multiply x of shape {x.shape} by y of shape "
                       f"{y.shape}: y must be [{'B, ' if x.ndim == 3 else ''}{k}, N]")
    n = y.shape[-1]
    flat = y if x.ndim == 2 else _ops.reshape(y, [batches * k, n])
    out = apply(SparseDenseMatmul(*_row_layout(x).attrs()), x._values, flat)
    return out if x.ndim == 2 else _ops.reshape(out, [batches, m, n])


def _sparse_sparse(x, y):
    batches, m, k = _matrix_dims(x, "matmul")
    yb, yk, n = _matrix_dims(y, "matmul")
    if x.ndim != y.ndim or yk != k or yb != batches:
        raise op_error("matmul", f"cannot multiply x of shape {x.shape} by y of shape "
                       f"{y.shape}")
    a = coalesce(x if x.format == "coo" else csr_to_coo(x))
    b = coalesce(y if y.format == "coo" else csr_to_coo(y))
    ra, ca = _flat_positions(a)
    rb, cb = _flat_positions(b)  # b is coalesced: rb never decreases
    xp = xp_of(ra)
    counts = xp.bincount(rb, minlength=batches * k)
    starts = xp.zeros_like(counts)
    starts[1:] = xp.cumsum(counts)[:-1]
    per_entry = counts[ca]
    pa = xp.repeat(xp.arange(ca.shape[0]), per_entry)
    first = xp.repeat(xp.cumsum(per_entry) - per_entry, per_entry)
    pb = starts[ca][pa] + xp.arange(pa.shape[0]) - first
    lin = ra[pa].astype(np.int64) * (batches * n) + cb[pb]
    unique, segments = xp.unique(lin, return_inverse=True)
    products = _ops.multiply(gather_rows(a._values, pa), gather_rows(b._values, pb))
    values = segment_sum(products, segments.reshape(-1), unique.shape[0])
    row, col = unique // (batches * n), unique % (batches * n)
    if batches == 1:
        indices = xp.stack([row, col])
    else:
        batch = row // m
        indices = xp.stack([batch, row % m, col - batch * n])
    out = SparseCooTensor(index_tensor(indices.astype(np.int64)), values,
                          (x._dense_shape[:-1] + (n,)), True)
    return coo_to_csr(out) if x.format == "csr" else out


def matmul(x, y, name=None):
    """x @ y for sparse x (COO or CSR, [M, K] or a batch [B, M, K]): a dense result for
    dense y, a sparse one (x's format) for sparse y.

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([[0.0, 2.0], [1.0, 0.0]]).to_sparse_csr()
        >>> dygraph.sparse.matmul(x, x).to_dense().numpy().tolist()
        [[2.0, 0.0], [0.0, 2.0]]
    """
    x = check_sparse(x, "matmul")
    if isinstance(y, SparseTensor):
        return _sparse_sparse(x, y)
    return _sparse_dense(x, y)


def masked_matmul(x, y, mask, name=None):
    """(x @ y) at the stored positions of sparse `mask` only: x [M, K] and y [K, N] dense
    (or batches [B, ...]), the result sparse with mask's pattern and format.

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> mask = dygraph.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 1.0], [2, 2])
        >>> dygraph.sparse.masked_matmul(x, x, mask).values().numpy().tolist()
        [10.0, 15.0]
    """
    mask = check_sparse(mask, "masked_matmul")
    batches, m, n = _matrix_dims(mask, "masked_matmul")
    for what, t in (("x", x), ("y", y)):
        if not isinstance(t, Tensor) or isinstance(t, SparseTensor):
            raise op_error("masked_matmul", f"{what} must be a dense Tensor", TypeError)
    if x.dtype != y.dtype:
        raise op_error("masked_matmul", f"x ({x.dtype.name}) and y ({y.dtype.name}) must "
                       "have the same dtype", TypeError)
    k = x.shape[-1]
    lead = [batches] if mask.ndim == 3 else []
    if list(x.shape) != lead + [m, k] or list(y.shape) != lead + [k, n]:
        raise op_error("masked_matmul", f"x {x.shape} @ y {y.shape} does not give the "
                       f"mask's shape {mask.shape}")
    rows, cols = _flat_positions(mask)
    left = gather_rows(_ops.reshape(x, [batches * m, k]), rows)
    perm = [0, 2, 1] if lead else [1, 0]
    right_t = _ops.reshape(_ops.transpose(y, perm), [batches * n, k])
    values = _ops.sum(_ops.multiply(left, gather_rows(right_t, cols)), axis=-1)
    return mask._with_values(values)


def mv(x, vec, name=None):
    """x @ vec for a sparse matrix x [M, K] (COO or CSR) and a dense vector [K].

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2])
        >>> dygraph.sparse.mv(x, dygraph.to_tensor([1.0, 10.0])).numpy().tolist()
        [20.0, 3.0]
    """
    x = check_sparse(x, "mv")
    if x.ndim != 2:
        raise op_error("mv", f"x must be a sparse matrix [M, K], got shape {x.shape}")
    vec = _dense_operand(vec, x, "mv", "vec")
    if list(vec.shape) != [x.shape[1]]:
        raise op_error("mv", f"vec must have shape [{x.shape[1]}] for x of shape "
                       f"{x.shape}, got {vec.shape}")
    return _ops.reshape(_sparse_dense(x, _ops.reshape(vec, [-1, 1])), [-1])


def addmm(input, x, y, beta=1.0, alpha=1.0, name=None):  # noqa: A002 - Paddle's name
    """beta * input + alpha * (x @ y) for sparse x: with dense y and dense input the
    result is dense; with sparse y and sparse input it is sparse.

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2])
        >>> dygraph.sparse.addmm(dygraph.ones([2, 2]), x, dygraph.eye(2), 0.5, 2.0).numpy()
        array([[0.5, 4.5],
               [6.5, 0.5]], dtype=float32)
    """
    product = matmul(x, y)
    if isinstance(product, SparseTensor):
        input = check_sparse(input, "addmm")
        return add(multiply(input, beta), multiply(product, alpha))
    if not isinstance(input, Tensor) or isinstance(input, SparseTensor):
        raise op_error("addmm", "input must be a dense Tensor when y is dense", TypeError)
    if list(input.shape) != list(product.shape):
        raise op_error("addmm", f"input of shape {input.shape} does not match x @ y of "
                       f"shape {product.shape}")
    return _ops.add(_ops.scale(input, beta), _ops.scale(product, alpha))
