"""sum of a sparse tensor over all or some axes, as a sparse tensor.

Summing sparse axes merges the entries that share the remaining indices (a segment sum
of the values); summing dense axes sums the values along them. Positions without stored
entries stay unstored. A CSR result keeps every dim (size 1 where summed), as Paddle's.

Example:
    >>> import dygraph
    >>> x = dygraph.to_tensor([[0.0, 1.0, 2.0], [0.0, 0.0, 0.0], [3.0, 0.0, 4.0]])
    >>> s = dygraph.sparse.sum(x.to_sparse_coo(2), axis=1)
    >>> s.shape, s.indices().tolist(), s.values().tolist()
    ([3], [[0, 2]], [3.0, 7.0])
"""

import numpy as np

from dygraph import ops as _ops
from dygraph.framework.errors import op_error
from dygraph.ops.common import norm_axes
from dygraph.sparse.formats import (
    check_sparse,
    coo_to_csr,
    csr_to_coo,
    index_tensor,
    linear_index,
    segment_sum,
    unravel,
    xp_of,
)
from dygraph.sparse.tensor import SparseCooTensor

__all__ = ["sum"]


def _total(coo, values, keepdim):
    """Every axis summed: one entry, shape [1] (or all ones with keepdim)."""
    nd, sd = coo.ndim, coo.sparse_dim()
    xp = xp_of(coo._indices._data)
    total = _ops.sum(values)
    if keepdim:
        indices = xp.zeros((sd, 1), dtype=coo._indices._data.dtype)
        return SparseCooTensor(index_tensor(indices),
                               _ops.reshape(total, [1] * (1 + nd - sd)), [1] * nd, True)
    indices = xp.zeros((1, 1), dtype=coo._indices._data.dtype)
    return SparseCooTensor(index_tensor(indices), _ops.reshape(total, [1]), [1], True)


def _coo_sum(coo, axes, values, keepdim):
    nd, sd = coo.ndim, coo.sparse_dim()
    if axes is None or len(axes) == nd:
        return _total(coo, values, keepdim)
    dense_axes = [a - sd + 1 for a in axes if a >= sd]
    if dense_axes:
        values = _ops.sum(values, axis=dense_axes, keepdim=keepdim)
    summed = [a for a in axes if a < sd]
    shape = [1 if a in axes else s for a, s in enumerate(coo._dense_shape)]
    if not keepdim:
        shape = [s for a, s in enumerate(shape) if a not in axes]
    idx = coo._indices._data
    if not summed:
        return SparseCooTensor(coo._indices, values, shape, coo._coalesced)
    kept = [a for a in range(sd) if a not in summed]
    if not kept and not keepdim:
        raise op_error("sum", f"summing every sparse dim (axes {axes}) of a tensor with "
                       f"dense dims (shape {coo.shape}, sparse_dim {sd}) leaves no sparse "
                       "dim: pass keepdim=True, or sum its dense dims too")
    xp = xp_of(idx)
    kept_shape = [coo._dense_shape[a] for a in kept]
    lin = linear_index(idx[kept], kept_shape)
    unique, segments = xp.unique(lin, return_inverse=True)
    values = segment_sum(values, segments.reshape(-1), unique.shape[0])
    rows = unravel(unique, kept_shape).astype(idx.dtype)
    if keepdim:
        full = xp.zeros((sd, unique.shape[0]), dtype=idx.dtype)
        full[kept] = rows
        rows = full
    return SparseCooTensor(index_tensor(rows), values, shape, True)


def sum(x, axis=None, dtype=None, keepdim=False, name=None):  # noqa: A001 - Paddle's name
    """The sum of x's entries over `axis` (an int, a list, or None for all) as a sparse
    tensor; `dtype` converts the values first (integer values sum in int64 by default).
    A COO sum over everything has shape [1] (all ones with keepdim); a CSR one has shape
    [1, 1], and CSR sums keep every dim.

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_coo_tensor([[0, 1], [1, 1]], [1.0, 2.0], [2, 2])
        >>> dygraph.sparse.sum(x).values().numpy().tolist()
        [3.0]
    """
    x = check_sparse(x, "sum")
    values = x._values
    if dtype is not None:
        values = _ops.cast(values, dtype)
    elif values.dtype.np_dtype.kind in "biu":  # as dense sums: integers add up in int64
        values = _ops.cast(values, "int64")
    axes = norm_axes(axis, x.ndim, "sum")
    if x.format == "coo":
        return _coo_sum(x, axes, values, keepdim)
    coo = csr_to_coo(x)
    if axes is None:
        xp = xp_of(coo._indices._data)
        indices = xp.zeros((2, 1), dtype=np.int64)
        out = SparseCooTensor(index_tensor(indices), _ops.reshape(_ops.sum(values), [1]),
                              [1, 1], True)
    else:
        out = _coo_sum(coo, axes, values, keepdim=True)
    return coo_to_csr(out)
