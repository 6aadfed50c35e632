"""Activations of sparse tensors: relu, relu6 and leaky_relu map the stored values (the
structure, stored zeros included, is kept); softmax normalises the stored entries that
share every index but the one of `axis` (unstored entries count as absent, not as zeros).

Example:
    >>> import dygraph
    >>> x = dygraph.sparse.sparse_coo_tensor([[0, 0, 1], [0, 2, 1]], [1.0, 1.0, 5.0], [2, 3])
    >>> dygraph.sparse.nn.functional.softmax(x).values().numpy().tolist()
    [0.5, 0.5, 1.0]
"""

import numpy as np

from dygraph import ops as _ops
from dygraph.framework.errors import op_error
from dygraph.nn import functional as _F
from dygraph.sparse.formats import (
    check_sparse,
    coalesce,
    csr_to_coo,
    gather_rows,
    linear_index,
    segment_sum,
    xp_of,
)
from dygraph.sparse.unary import map_values
from dygraph.tensor.tensor import _new_tensor

__all__ = ["relu", "relu6", "leaky_relu", "softmax"]


def relu(x, name=None):
    """max(0, v) of each stored value of a sparse tensor.

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_coo_tensor([[0, 1]], [-1.0, 2.0], [3])
        >>> dygraph.sparse.nn.functional.relu(x).values().numpy().tolist()
        [0.0, 2.0]
    """
    return map_values(x, _F.relu, "relu")


def relu6(x, name=None):
    """min(max(0, v), 6) of each stored value of a sparse tensor.

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_coo_tensor([[0, 1]], [-1.0, 8.0], [3])
        >>> dygraph.sparse.nn.functional.relu6(x).values().numpy().tolist()
        [0.0, 6.0]
    """
    return map_values(x, _F.relu6, "relu6")


def leaky_relu(x, negative_slope=0.01, name=None):
    """v where v >= 0, else negative_slope * v, of each stored value.

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_coo_tensor([[0, 1]], [-1.0, 2.0], [3])
        >>> dygraph.sparse.nn.functional.leaky_relu(x, 0.5).values().numpy().tolist()
        [-0.5, 2.0]
    """
    return map_values(x, lambda v: _F.leaky_relu(v, negative_slope), "leaky_relu")


def _grouped_softmax(coo, axis):
    """Softmax of coo's values over the entries that share all sparse indices but `axis`:
    the entries go into a padded [groups, longest group, *dense] block (-inf where a
    group has fewer), a dense softmax runs along the group, the entries are read back."""
    idx = coo._indices._data
    xp = xp_of(idx)
    sd = coo.sparse_dim()
    others = [a for a in range(sd) if a != axis]
    key = linear_index(idx[others], [coo._dense_shape[a] for a in others])
    order = xp.argsort(key, kind="stable")
    ordered = key[order]
    n = key.shape[0]
    starts = xp.ones(n, dtype=bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    group = xp.cumsum(starts) - 1
    steps = xp.arange(n)
    rank = steps - steps[starts][group]
    groups, width = int(group[-1]) + 1, int(rank.max()) + 1
    slots = xp.empty(n, dtype=np.int64)
    slots[order] = group * width + rank
    dense = list(coo._values.shape[1:])
    filled = segment_sum(coo._values, slots, groups * width)
    absent = xp.full((groups * width,) + (1,) * len(dense), -np.inf,
                     dtype=coo._values.dtype.np_dtype)
    absent[slots] = 0
    block = _ops.add(filled, _new_tensor(absent, None, 0, True))
    normalised = _F.softmax(_ops.reshape(block, [groups, width] + dense), axis=1)
    return gather_rows(_ops.reshape(normalised, [groups * width] + dense), slots)


def softmax(x, axis=-1, name=None):
    """Softmax over the stored entries along `axis` (each group of entries that share the
    other indices sums to 1); a dense `axis` of a COO tensor's values is a plain softmax
    of the values. CSR tensors normalise each row (axis -1).

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([[0.0, 1.0, 1.0], [2.0, 0.0, 0.0]]).to_sparse_csr()
        >>> dygraph.sparse.nn.functional.softmax(x).values().numpy().tolist()
        [0.5, 0.5, 1.0]
    """
    x = check_sparse(x, "softmax")
    nd = x.ndim
    if not -nd <= axis < nd:
        raise op_error("softmax", f"axis {axis} is out of range for shape {x.shape}")
    axis %= nd
    if x.format == "csr":
        if axis != nd - 1:
            raise op_error("softmax", f"a CSR tensor takes softmax over its last axis "
                           f"(-1), got axis {axis}; convert with to_sparse_coo() first")
        if x.nnz() == 0:
            return x
        return x._with_values(_grouped_softmax(csr_to_coo(x), axis))
    x = coalesce(x)
    sd = x.sparse_dim()
    if axis >= sd:
        return x._with_values(_F.softmax(x._values, axis=axis - sd + 1))
    if x.nnz() == 0:
        return x
    return x._with_values(_grouped_softmax(x, axis))
