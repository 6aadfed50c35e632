"""transpose, reshape and slice of sparse tensors: index arithmetic on the structure, the
values gathered (or transposed, for dense dims) with ops. CSR tensors go through COO and
come back as CSR.

Example:
    >>> import dygraph
    >>> x = dygraph.sparse.sparse_coo_tensor([[0, 1], [2, 0]], [1.0, 2.0], [2, 3])
    >>> dygraph.sparse.transpose(x, [1, 0]).to_dense().numpy().tolist()
    [[0.0, 2.0], [0.0, 0.0], [1.0, 0.0]]
"""

import builtins
import math

import numpy as np

from dygraph import ops as _ops
from dygraph.autograd.function import apply
from dygraph.framework.errors import op_error
from dygraph.ops.manipulation.indexing import GetItem
from dygraph.sparse.formats import (
    check_sparse,
    coo_to_csr,
    csr_to_coo,
    gather_rows,
    index_tensor,
    linear_index,
    unravel,
    xp_of,
)
from dygraph.sparse.tensor import SparseCooTensor
from dygraph.tensor.tensor import Tensor

__all__ = ["transpose", "reshape", "slice"]


def _int_list(value, op, what):
    if isinstance(value, Tensor):
        value = value.tolist()
    if isinstance(value, (int, np.integer)):
        value = [value]
    try:
        return [int(v.item()) if isinstance(v, Tensor) else int(v) for v in value]
    except TypeError as exc:
        raise op_error(op, f"{what} must be a list of ints, got {value!r}", TypeError) from exc


def _back(x, coo):
    return coo_to_csr(coo) if x.format == "csr" else coo


def transpose(x, perm, name=None):
    """x with its dims permuted by `perm`. COO entries keep their order (the result may not
    be coalesced); dense dims may be permuted among themselves; a CSR result is sorted.

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse_csr()
        >>> y = dygraph.sparse.transpose(x, [1, 0])
        >>> y.crows().tolist(), y.cols().tolist(), y.values().tolist()
        ([0, 1, 2], [1, 0], [2.0, 1.0])
    """
    x = check_sparse(x, "transpose")
    perm = _int_list(perm, "transpose", "perm")
    nd = x.ndim
    if (len(perm) != nd or any(not -nd <= p < nd for p in perm)
            or sorted(p % nd for p in perm) != list(range(nd))):
        raise op_error("transpose", f"perm {perm} is not a permutation of the {nd} dims of "
                       f"a tensor of shape {x.shape}")
    perm = [p % nd for p in perm]
    coo = csr_to_coo(x) if x.format == "csr" else x
    sd = coo.sparse_dim()
    if sorted(perm[:sd]) != list(range(sd)):
        raise op_error("transpose", f"perm {perm} mixes sparse dims (the first {sd}) with "
                       f"dense ones; convert with to_dense() for that")
    indices = index_tensor(coo._indices._data[perm[:sd]])
    values = coo._values
    if perm[sd:] != list(range(sd, nd)):
        values = _ops.transpose(values, [0] + [p - sd + 1 for p in perm[sd:]])
    shape = tuple(x._dense_shape[p] for p in perm)
    return _back(x, SparseCooTensor(indices, values, shape))


def _target_shape(shape, old, op):
    """Paddle's reshape arguments: 0 copies the old dim, one -1 is inferred."""
    out = [old[i] if s == 0 and i < len(old) else s for i, s in enumerate(shape)]
    total = math.prod(old)
    if out.count(-1) > 1 or any(s < -1 for s in out):
        raise op_error(op, f"shape {shape} may hold one -1 and no other negative size")
    if -1 in out:
        known = math.prod(s for s in out if s != -1)
        if known == 0 or total % known:
            raise op_error(op, f"cannot reshape a tensor of shape {old} into {shape}")
        out[out.index(-1)] = total // known
    if math.prod(out) != total:
        raise op_error(op, f"cannot reshape a tensor of shape {old} ({total} elements) "
                       f"into {shape}")
    return out


def reshape(x, shape, name=None):
    """x with a new shape (0 copies a dim, -1 is inferred). The sparse dims are reshaped;
    dense dims, if any, must stay as they are at the end.

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_coo_tensor([[0, 1], [2, 0]], [1.0, 2.0], [2, 3])
        >>> dygraph.sparse.reshape(x, [-1]).indices().tolist()
        [[2, 3]]
    """
    x = check_sparse(x, "reshape")
    coo = csr_to_coo(x) if x.format == "csr" else x
    shape = _target_shape(_int_list(shape, "reshape", "shape"), x.shape, "reshape")
    sd, dense = coo.sparse_dim(), list(x._dense_shape[coo.sparse_dim():])
    new_sd = len(shape) - len(dense)
    if new_sd < 1 or shape[new_sd:] != dense:
        raise op_error("reshape", f"only the sparse dims of x (shape {x.shape}, sparse_dim "
                       f"{sd}) can be reshaped: the new shape {shape} must end with the "
                       f"dense dims {dense}")
    lin = linear_index(coo._indices._data, x._dense_shape[:sd])
    indices = unravel(lin, shape[:new_sd]).astype(coo._indices._data.dtype)
    out = SparseCooTensor(index_tensor(indices), coo._values, shape, coo._coalesced)
    if x.format == "csr" and len(shape) not in (2, 3):
        raise op_error("reshape", f"a CSR tensor reshapes to 2-D or 3-D, got {shape}")
    return _back(x, out)


def _bounds(start, end, size):
    """Python slicing's clamped [start, end) of a dim of `size`."""
    start = max(0, start + size) if start < 0 else min(start, size)
    end = max(0, end + size) if end < 0 else min(end, size)
    return start, max(start, end)


def slice(x, axes, starts, ends, name=None):  # noqa: A001 - Paddle's name
    """The part of x in [starts, ends) along `axes` (negative values count from the end,
    bounds clamp as in Python slicing).

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_coo_tensor([[0, 1], [2, 0]], [1.0, 2.0], [2, 3])
        >>> y = dygraph.sparse.slice(x, [1], [1], [3])
        >>> y.shape, y.indices().tolist(), y.values().tolist()
        ([2, 2], [[0], [1]], [1.0])
    """
    x = check_sparse(x, "slice")
    axes = _int_list(axes, "slice", "axes")
    starts = _int_list(starts, "slice", "starts")
    ends = _int_list(ends, "slice", "ends")
    nd = x.ndim
    if not len(axes) == len(starts) == len(ends):
        raise op_error("slice", f"axes, starts and ends must have the same length, got "
                       f"{len(axes)}, {len(starts)} and {len(ends)}")
    if any(not -nd <= a < nd for a in axes) or len({a % nd for a in axes}) != len(axes):
        raise op_error("slice", f"axes {axes} must be distinct dims of a tensor of shape "
                       f"{x.shape}")
    coo = csr_to_coo(x) if x.format == "csr" else x
    sd = coo.sparse_dim()
    shape = list(x._dense_shape)
    idx = coo._indices._data
    xp = xp_of(idx)
    keep = xp.ones(idx.shape[1], dtype=bool)
    offsets = [0] * sd
    dense_index = [builtins.slice(None)] * (nd - sd)
    for a, s, e in zip(axes, starts, ends):
        a %= nd
        lo, hi = _bounds(s, e, shape[a])
        shape[a] = hi - lo
        if a < sd:
            keep &= (idx[a] >= lo) & (idx[a] < hi)
            offsets[a] = lo
        else:
            dense_index[a - sd] = builtins.slice(lo, hi)
    positions = xp.nonzero(keep)[0]
    shift = xp.asarray(offsets, dtype=idx.dtype).reshape(-1, 1)
    indices = index_tensor(idx[:, positions] - shift)
    values = gather_rows(coo._values, positions)
    if any(s != builtins.slice(None) for s in dense_index):
        values = apply(GetItem((builtins.slice(None),) + tuple(dense_index)), values)
    return _back(x, SparseCooTensor(indices, values, shape, coo._coalesced))

