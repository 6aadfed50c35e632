"""Sparse tensors: a COO or CSR index structure plus a dense Tensor of stored values.

Paddle keeps sparse tensors in its one Tensor class (`isinstance(x, paddle.Tensor)` holds,
`x.is_sparse()` tells them apart). Here they are subclasses of Tensor, so the same
isinstance test holds, with the values a plain dense Tensor: every sparse op computes its
output values with dense ops on the input values, so gradients, double backward, static
capture and amp reach them unchanged. The indices are integer Tensors that never need a
gradient.

A sparse tensor has no dense array: dense ops read `_data`, which raises a TypeError that
says to convert with `to_dense()` or to call the `paddle.sparse` function instead (Paddle
fails there with unrelated kernel errors, or crashes).

Example:
    >>> import dygraph
    >>> from dygraph.sparse import sparse_coo_tensor
    >>> x = sparse_coo_tensor([[0, 1], [1, 2]], [1.0, 2.0], [2, 3])
    >>> isinstance(x, dygraph.Tensor), x.is_sparse_coo(), x.shape, x.nnz()
    (True, True, [2, 3], 2)
"""

import math

from dygraph.framework.errors import op_error
from dygraph.tensor.printing import format_data
from dygraph.tensor.tensor import Tensor

__all__ = ["SparseTensor", "SparseCooTensor", "SparseCsrTensor"]


def _dense_use(x):
    return TypeError(
        f"a sparse {x.format.upper()} tensor (shape {x.shape}, {x.dtype.name}) was given "
        "where a dense tensor is needed: convert it with x.to_dense(), or use the "
        "dygraph.sparse function of the same name")


class SparseTensor(Tensor):
    """What COO and CSR tensors share: the dense shape, the values Tensor, autograd.

    Gradients live on the values: `x.grad` is a sparse tensor of x's structure holding the
    values' gradient, and `x.backward()` seeds ones at every stored value.
    """

    # _layout_cache: the row layout of a matrix's entries, kept for the sparse x dense
    # product (dygraph/sparse/products.py); tensors that share the structure share it.
    __slots__ = ("_values", "_dense_shape", "_layout_cache")
    format = None

    # Dense code paths read these fields of Tensor: a sparse tensor refuses them clearly.
    @property
    def _data(self):
        raise _dense_use(self)

    @property
    def _node(self):
        raise _dense_use(self)

    @property
    def _sg(self):
        raise _dense_use(self)

    def _init_sparse(self, values, shape):
        self._values, self._dense_shape = values, tuple(int(s) for s in shape)
        self._name, self.persistable, self._hooks = None, False, None
        self._layout_cache = None

    def _with_values(self, values):
        """The same structure (and its cached layout) holding other values."""
        out = self._new_values(values)
        out._layout_cache = self._layout_cache
        return out

    # -- what a tensor reports ---------------------------------------------------------------
    @property
    def shape(self):
        return list(self._dense_shape)

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def place(self):
        return self._values.place

    @property
    def ndim(self):
        return len(self._dense_shape)

    def dim(self):
        return len(self._dense_shape)

    ndimension = dim

    @property
    def size(self):
        return math.prod(self._dense_shape)

    def numel(self):
        return math.prod(self._dense_shape)

    def __len__(self):
        if not self._dense_shape:
            raise TypeError("len() of a 0-D tensor")
        return self._dense_shape[0]

    def is_sparse(self):
        return True

    def is_sparse_coo(self):
        return self.format == "coo"

    def is_sparse_csr(self):
        return self.format == "csr"

    def values(self):
        """The stored values: a dense Tensor [nnz, *dense dims] in x's graph."""
        return self._values

    def nnz(self):
        """The number of stored entries."""
        return int(self._values.shape[0]) if self._values.ndim else 1

    def to_dense(self):
        """The dense tensor, with the values' gradient path."""
        from dygraph.sparse.formats import to_dense

        return to_dense(self)

    def to_sparse_coo(self, sparse_dim=None):
        """This tensor in COO form (CSR converts; COO returns itself, as Paddle)."""
        from dygraph.sparse.formats import csr_to_coo

        return self if self.format == "coo" else csr_to_coo(self)

    def to_sparse_csr(self):
        """This tensor in CSR form (2-D or batched 3-D)."""
        from dygraph.sparse.formats import coo_to_csr

        return self if self.format == "csr" else coo_to_csr(self)

    # -- autograd, through the values ----------------------------------------------------------
    @property
    def stop_gradient(self):
        return self._values.stop_gradient

    @stop_gradient.setter
    def stop_gradient(self, value):
        self._values.stop_gradient = value

    @property
    def is_leaf(self):
        return self._values.is_leaf

    @property
    def grad(self):
        g = self._values.grad
        return None if g is None else self._with_values(g)

    @grad.setter
    def grad(self, value):
        if isinstance(value, SparseTensor):
            value = value._values
        self._values.grad = value

    def backward(self, grad_tensor=None, retain_graph=False):
        """Backpropagate from the stored values (ones as the seed, or grad_tensor's values)."""
        if isinstance(grad_tensor, SparseTensor):
            grad_tensor = grad_tensor._values
        self._values.backward(grad_tensor, retain_graph)

    def clear_grad(self, set_to_zero=True):
        self._values.clear_grad(set_to_zero)

    def clear_gradient(self, set_to_zero=True):
        self._values.clear_grad(set_to_zero)

    def detach(self):
        """The same structure with the values cut off from the graph."""
        return self._with_values(self._values.detach())

    def numpy(self):
        raise _dense_use(self)

    def __array__(self, dtype=None, copy=None):
        raise _dense_use(self)

    def _host(self):
        raise _dense_use(self)

    def set_tensor(self, value):
        raise _dense_use(self)

    def gradient(self):
        raise _dense_use(self)

    def __deepcopy__(self, memo):
        copied = self._with_values(self._values.__deepcopy__(memo))
        memo[id(self)] = copied
        return copied

    def __reduce__(self):
        parts = [t.numpy() for t in self._index_tensors()]
        return (_rebuild, (self.format, parts, self._values.numpy(), self._dense_shape,
                           self.stop_gradient))

    def __repr__(self):
        head = (f"Tensor(shape={self.shape}, dtype={self.dtype!r}, place={self.place}, "
                f"stop_gradient={self.stop_gradient}, \n")
        parts = []
        for label, t in self._printed():
            parts.append(" " * 7 + f"{label}=" + format_data(t.numpy(), 8 + len(label)))
        return head + ", \n".join(parts) + ")"

    __str__ = __repr__


class SparseCooTensor(SparseTensor):
    """COO: `indices` [sparse_dim, nnz] (int) and `values` [nnz, *dense dims].

    Example:
        >>> from dygraph.sparse import sparse_coo_tensor
        >>> x = sparse_coo_tensor([[0, 2]], [[1.0, 2.0], [3.0, 4.0]], [3, 2])
        >>> x.sparse_dim(), x.dense_dim(), x.to_dense().numpy().tolist()
        (1, 1, [[1.0, 2.0], [0.0, 0.0], [3.0, 4.0]])
    """

    __slots__ = ("_indices", "_coalesced")
    format = "coo"

    def __init__(self, indices, values, shape, coalesced=None):
        self._init_sparse(values, shape)
        self._indices, self._coalesced = indices, coalesced

    def _new_values(self, values):
        return SparseCooTensor(self._indices, values, self._dense_shape, self._coalesced)

    def _index_tensors(self):
        return (self._indices,)

    def _printed(self):
        return (("indices", self._indices), ("values", self._values))

    def indices(self):
        """The indices, an int Tensor [sparse_dim, nnz]."""
        return self._indices

    def nnz(self):
        return int(self._indices.shape[1])

    def sparse_dim(self):
        return int(self._indices.shape[0])

    def dense_dim(self):
        return len(self._dense_shape) - int(self._indices.shape[0])

    def is_coalesced(self):
        """Whether the indices are sorted (row-major) and free of repeats."""
        if self._coalesced is None:
            from dygraph.sparse.formats import is_sorted_unique

            self._coalesced = is_sorted_unique(self)
        return self._coalesced

    def coalesce(self, name=None):
        """Repeated indices summed, entries sorted row-major."""
        from dygraph.sparse.formats import coalesce

        return coalesce(self)


class SparseCsrTensor(SparseTensor):
    """CSR of a matrix [M, N] or a batch [B, M, N]: `crows` (B * (M + 1) row offsets, each
    batch's starting at 0), `cols` and `values` [nnz].

    Example:
        >>> from dygraph.sparse import sparse_csr_tensor
        >>> x = sparse_csr_tensor([0, 1, 1, 2], [2, 0], [1.0, 2.0], [3, 3])
        >>> x.to_dense().numpy().tolist()
        [[0.0, 0.0, 1.0], [0.0, 0.0, 0.0], [2.0, 0.0, 0.0]]
    """

    __slots__ = ("_crows", "_cols")
    format = "csr"

    def __init__(self, crows, cols, values, shape):
        self._init_sparse(values, shape)
        self._crows, self._cols = crows, cols

    def _new_values(self, values):
        return SparseCsrTensor(self._crows, self._cols, values, self._dense_shape)

    def _index_tensors(self):
        return (self._crows, self._cols)

    def _printed(self):
        return (("crows", self._crows), ("cols", self._cols), ("values", self._values))

    def crows(self):
        """The row offsets, an int Tensor [B * (M + 1)]."""
        return self._crows

    def cols(self):
        """The column of each stored value, an int Tensor [nnz]."""
        return self._cols

    def nnz(self):
        return int(self._cols.shape[0])

    def sparse_dim(self):
        return len(self._dense_shape)

    def dense_dim(self):
        return 0

    def is_coalesced(self):
        raise op_error("is_coalesced", "only sparse COO tensors have a coalesced state; "
                       "this one is CSR", TypeError)


def _rebuild(fmt, parts, values, shape, stop_gradient):
    """Unpickle a sparse tensor (see SparseTensor.__reduce__)."""
    from dygraph.tensor.tensor import to_tensor

    index = [to_tensor(p) for p in parts]
    vals = to_tensor(values, stop_gradient=stop_gradient)
    if fmt == "coo":
        return SparseCooTensor(index[0], vals, shape)
    return SparseCsrTensor(index[0], index[1], vals, shape)
