"""sparse_coo_tensor and sparse_csr_tensor: sparse tensors from index and value arrays.

Values given as a Tensor keep their graph when stop_gradient is False (the gradient of the
sparse tensor's values flows back to them); other values become a new leaf.
"""

import numpy as np

from dygraph.framework import dtype as _dt
from dygraph.framework.errors import op_error
from dygraph.sparse.formats import index_tensor, refuse_in_program, xp_of
from dygraph.sparse.tensor import SparseCooTensor, SparseCsrTensor, SparseTensor
from dygraph.tensor.tensor import Tensor, to_tensor

__all__ = ["sparse_coo_tensor", "sparse_csr_tensor"]


def _index_array(value, op, what, place):
    """An integer index array on `place` (the values' device)."""
    if isinstance(value, SparseTensor):
        raise op_error(op, f"{what} must be dense, got a sparse tensor", TypeError)
    if isinstance(value, Tensor):
        refuse_in_program(op, value)
        value = value._data
    array = value if hasattr(value, "__cuda_array_interface__") else np.asarray(value)
    if array.size == 0 and array.dtype.kind == "f":
        array = array.astype(np.int64)
    if array.dtype.kind not in "iu":
        raise op_error(op, f"{what} must hold integers (int8, int16, int32 or int64), got "
                       f"{array.dtype}", TypeError)
    return index_tensor(to_tensor(array, place=place)._data)


def _values_tensor(values, dtype, place, stop_gradient, op):
    if isinstance(values, SparseTensor):
        raise op_error(op, "values must be dense, got a sparse tensor", TypeError)
    if isinstance(values, Tensor):
        if dtype is not None and values.dtype != _dt.convert_dtype(dtype):
            values = values.astype(dtype)
        if place is not None and str(values.place) != str(place):
            values = values.to(place)
        return values.detach() if stop_gradient else values
    return to_tensor(values, dtype=dtype, place=place, stop_gradient=stop_gradient)


def sparse_coo_tensor(indices, values, shape=None, dtype=None, place=None,
                      stop_gradient=True):
    """A COO tensor: `indices` [sparse_dim, nnz], `values` [nnz, *dense dims]; the shape
    defaults to the smallest that holds every index (and the values' dense dims).

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_coo_tensor([[0, 1], [2, 0]], [1.0, 2.0], [2, 3])
        >>> x.to_dense().numpy().tolist()
        [[0.0, 0.0, 1.0], [2.0, 0.0, 0.0]]
    """
    op = "sparse_coo_tensor"
    vals = _values_tensor(values, dtype, place, stop_gradient, op)
    idx = _index_array(indices, op, "indices", vals.place)
    data = idx._data
    if data.ndim != 2:
        raise op_error(op, f"indices must be 2-D [sparse_dim, nnz], got shape {idx.shape}")
    if vals.ndim == 0:
        raise op_error(op, "values must be at least 1-D [nnz, ...], got a 0-D tensor")
    sparse_dim, nnz = data.shape
    if vals.shape[0] != nnz:
        raise op_error(op, f"indices ({idx.shape}) and values ({vals.shape}) must have the "
                       f"same number of entries: {nnz} != {vals.shape[0]}")
    dense = list(vals.shape[1:])
    if nnz and bool((data < 0).any()):
        raise op_error(op, "indices must be non-negative")
    needed = [int(v) + 1 for v in data.max(axis=1)] if nnz else [0] * sparse_dim
    if shape is None:
        shape = needed + dense
    shape = [int(s) for s in (shape.tolist() if isinstance(shape, Tensor) else shape)]
    if len(shape) != sparse_dim + len(dense):
        raise op_error(op, f"shape {shape} must have sparse_dim ({sparse_dim}) + dense_dim "
                       f"({len(dense)}) dimensions")
    if any(n > s for n, s in zip(needed, shape)) or shape[sparse_dim:] != dense:
        raise op_error(op, f"shape {shape} cannot hold these entries: it needs at least "
                       f"{needed} for the indices and {dense} for the values' dense dims")
    return SparseCooTensor(idx, vals, shape)


def sparse_csr_tensor(crows, cols, values, shape=None, dtype=None, place=None,
                      stop_gradient=True):
    """A CSR tensor of a matrix [M, N] or a batch [B, M, N]: `crows` holds each row's
    start offset into `cols`/`values` (B * (M + 1) entries, each batch's from 0), `cols`
    the column of each stored value. The shape defaults to [len(crows) - 1, max(cols) + 1].

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_csr_tensor([0, 2, 3], [0, 2, 1], [1.0, 2.0, 3.0], [2, 3])
        >>> x.to_dense().numpy().tolist()
        [[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]
    """
    op = "sparse_csr_tensor"
    vals = _values_tensor(values, dtype, place, stop_gradient, op)
    crow = _index_array(crows, op, "crows", vals.place)
    col = _index_array(cols, op, "cols", vals.place)
    for name, t in (("crows", crow), ("cols", col), ("values", vals)):
        if t.ndim != 1:
            raise op_error(op, f"{name} must be 1-D, got shape {t.shape}")
    nnz = col.shape[0]
    if vals.shape[0] != nnz:
        raise op_error(op, f"cols and values must have the same length, got {nnz} and "
                       f"{vals.shape[0]}")
    c, k = crow._data, col._data
    if shape is None:
        shape = [c.shape[0] - 1, int(k.max()) + 1 if nnz else 0]
    shape = [int(s) for s in (shape.tolist() if isinstance(shape, Tensor) else shape)]
    if len(shape) not in (2, 3):
        raise op_error(op, f"CSR holds 2-D or 3-D tensors, got shape {shape}")
    batches = 1 if len(shape) == 2 else shape[0]
    if c.shape[0] != batches * (shape[-2] + 1):
        raise op_error(op, f"crows must have {batches} * (rows + 1) = "
                       f"{batches * (shape[-2] + 1)} entries for shape {shape}, got "
                       f"{c.shape[0]}")
    per = c.reshape(batches, shape[-2] + 1)
    xp = xp_of(c)
    if bool((per[:, 0] != 0).any()) or bool((xp.diff(per, axis=1) < 0).any()):
        raise op_error(op, "crows must start at 0 in each batch and never decrease")
    if int(per[:, -1].sum()) != nnz:
        raise op_error(op, f"the last offsets of crows must add up to the number of "
                       f"values ({nnz}), got {int(per[:, -1].sum())}")
    if nnz and (bool((k < 0).any()) or int(k.max()) >= shape[-1]):
        raise op_error(op, f"cols must be in [0, {shape[-1]}) for shape {shape}")
    return SparseCsrTensor(crow, col, vals, shape)
