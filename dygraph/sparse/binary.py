"""Element-wise arithmetic of two sparse tensors, mask_as and is_same_shape.

add, subtract and multiply store the union of the two (coalesced) patterns, values summed,
subtracted or multiplied there (multiply keeps the zeros of one-sided entries, as
Paddle); divide stores every position, since 0 / 0 is nan. A CSR result comes from CSR
inputs. multiply and divide also take a number.

Example:
    >>> import dygraph
    >>> x = dygraph.sparse.sparse_coo_tensor([[0, 1]], [1.0, 2.0], [3])
    >>> y = dygraph.sparse.sparse_coo_tensor([[1, 2]], [10.0, 20.0], [3])
    >>> z = dygraph.sparse.add(x, y)
    >>> z.indices().tolist(), z.values().tolist()
    ([[0, 1, 2]], [1.0, 12.0, 20.0])
"""

import numbers

import numpy as np

from dygraph import ops as _ops
from dygraph.autograd.function import apply
from dygraph.framework.errors import op_error
from dygraph.ops.manipulation.indexing import GetItem
from dygraph.sparse.formats import (
    check_sparse,
    coalesce,
    coo_indices,
    coo_to_csr,
    csr_to_coo,
    index_tensor,
    linear_index,
    segment_sum,
    to_dense,
    unravel,
    xp_of,
)
from dygraph.sparse.tensor import SparseCooTensor, SparseTensor
from dygraph.tensor.tensor import Tensor

__all__ = ["add", "subtract", "multiply", "divide", "mask_as", "is_same_shape"]


def _as_coo(x):
    return coalesce(csr_to_coo(x) if x.format == "csr" else x)


def _operands(x, y, op):
    x = check_sparse(x, op)
    if not isinstance(y, SparseTensor):
        what = (f"a dense Tensor (shape {y.shape})" if isinstance(y, Tensor)
                else type(y).__name__)
        wanted = "a sparse tensor or a number" if op in ("multiply", "divide") else (
            "a sparse tensor")
        raise op_error(op, f"y must be {wanted}, got {what}", TypeError)
    if x.shape != y.shape or x.sparse_dim() != y.sparse_dim():
        raise op_error(op, f"x and y must have the same shape and sparse_dim, got "
                       f"{x.shape} (sparse_dim {x.sparse_dim()}) and {y.shape} "
                       f"(sparse_dim {y.sparse_dim()})")
    return x, y


def _union(x, y, combine):
    """combine(x values, y values) on the union of the two patterns."""
    a, b = _as_coo(x), _as_coo(y)
    sparse_shape = a._dense_shape[:a.sparse_dim()]
    la = linear_index(a._indices._data, sparse_shape)
    lb = linear_index(b._indices._data, sparse_shape)
    xp = xp_of(la)
    union = xp.union1d(la, lb)
    va = segment_sum(a._values, xp.searchsorted(union, la), union.shape[0])
    vb = segment_sum(b._values, xp.searchsorted(union, lb), union.shape[0])
    indices = index_tensor(unravel(union, sparse_shape).astype(a._indices._data.dtype))
    out = SparseCooTensor(indices, combine(va, vb), a._dense_shape, True)
    return coo_to_csr(out) if x.format == "csr" else out


def add(x, y, name=None):
    """x + y of two sparse tensors of one shape (the union of their patterns).

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse_csr()
        >>> dygraph.sparse.add(x, x).to_dense().numpy().tolist()
        [[0.0, 2.0], [4.0, 0.0]]
    """
    x, y = _operands(x, y, "add")
    return _union(x, y, _ops.add)


def subtract(x, y, name=None):
    """x - y of two sparse tensors of one shape (the union of their patterns).

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_coo_tensor([[0]], [1.0], [2])
        >>> y = dygraph.sparse.sparse_coo_tensor([[1]], [3.0], [2])
        >>> dygraph.sparse.subtract(x, y).values().numpy().tolist()
        [1.0, -3.0]
    """
    x, y = _operands(x, y, "subtract")
    return _union(x, y, _ops.subtract)


def multiply(x, y, name=None):
    """x * y: of two sparse tensors of one shape (stored on the union of their patterns),
    or of a sparse tensor and a number.

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_coo_tensor([[0, 1]], [1.0, 2.0], [2])
        >>> dygraph.sparse.multiply(x, 3).values().numpy().tolist()
        [3.0, 6.0]
    """
    if isinstance(y, numbers.Number) and not isinstance(y, bool):
        x = check_sparse(x, "multiply")
        return x._with_values(_ops.multiply(x._values, y))
    x, y = _operands(x, y, "multiply")
    return _union(x, y, _ops.multiply)


def divide(x, y, name=None):
    """x / y: of two sparse tensors of one shape, stored at every position (where both are
    zero the quotient is nan), or of a sparse tensor and a number (x's pattern).

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_coo_tensor([[0, 1]], [1.0, 2.0], [2])
        >>> dygraph.sparse.divide(x, 2.0).values().numpy().tolist()
        [0.5, 1.0]
        >>> dygraph.sparse.divide(x, x).values().numpy().tolist()
        [1.0, 1.0]
    """
    if isinstance(y, numbers.Number) and not isinstance(y, bool):
        x = check_sparse(x, "divide")
        return x._with_values(_ops.divide(x._values, y))
    x, y = _operands(x, y, "divide")
    quotient = _ops.divide(to_dense(x), to_dense(y))
    sparse_dim = x.sparse_dim() if x.format == "coo" else x.ndim
    sparse_shape = x._dense_shape[:sparse_dim]
    count = int(np.prod(sparse_shape))
    values = _ops.reshape(quotient, [count] + list(x._dense_shape[sparse_dim:]))
    xp = xp_of(coo_indices(x))
    indices = unravel(xp.arange(count, dtype=np.int64), sparse_shape)
    out = SparseCooTensor(index_tensor(indices), values, x._dense_shape, True)
    return coo_to_csr(out) if x.format == "csr" else out


def mask_as(x, mask, name=None):
    """The entries of dense x at the stored positions of sparse `mask` (its pattern, COO or
    CSR); the gradient flows back to x.

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> mask = dygraph.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 1.0], [2, 2])
        >>> dygraph.sparse.mask_as(x, mask).values().numpy().tolist()
        [2.0, 3.0]
    """
    mask = check_sparse(mask, "mask_as")
    if not isinstance(x, Tensor) or isinstance(x, SparseTensor):
        raise op_error("mask_as", f"x must be a dense Tensor, got {type(x).__name__}",
                       TypeError)
    if list(x.shape) != mask.shape:
        raise op_error("mask_as", f"x (shape {x.shape}) and mask (shape {mask.shape}) must "
                       "have the same shape")
    values = apply(GetItem(tuple(coo_indices(mask))), x)
    return mask._with_values(values)


def is_same_shape(x, y):
    """Whether x and y (sparse or dense) have the same shape.

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_coo_tensor([[0], [1]], [1.0], [2, 3])
        >>> dygraph.sparse.is_same_shape(x, dygraph.ones([2, 3]))
        True
    """
    return list(x.shape) == list(y.shape)
