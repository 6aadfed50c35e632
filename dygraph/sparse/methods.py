"""The sparse methods of Tensor, as a dense Tensor answers them (the sparse classes in
dygraph/sparse/tensor.py define their own), and `set_tensor`, which Paddle lists beside
them. `attach_sparse_methods` is called once, from dygraph/tensor/methods.py; nothing here
imports the sparse package until a conversion runs.

A dense tensor is not sparse (`is_sparse()` is False), has no sparse dims and all its dims
dense, converts with `to_sparse_coo(sparse_dim)` / `to_sparse_csr()`, and is its own
`to_dense()`; asking it for indices, crows, cols, values, nnz or a coalesced form raises a
TypeError that says which layout has them (as does asking a CSR tensor for indices or a
COO one for crows and cols).

Example:
    >>> import dygraph
    >>> x = dygraph.to_tensor([[0.0, 5.0], [0.0, 0.0]])
    >>> x.is_sparse(), x.sparse_dim(), x.dense_dim()
    (False, 0, 2)
    >>> x.to_sparse_coo(2).indices().numpy().tolist()
    [[0], [1]]
"""

from dygraph.framework.errors import op_error

__all__ = ["attach_sparse_methods"]


def is_sparse(self):
    """Whether this is a sparse (COO or CSR) tensor."""
    return False


def is_sparse_coo(self):
    """Whether this is a sparse COO tensor."""
    return False


def is_sparse_csr(self):
    """Whether this is a sparse CSR tensor."""
    return False


def sparse_dim(self):
    """The number of sparse (indexed) dims: 0 for a dense tensor."""
    return 0


def dense_dim(self):
    """The number of dense dims: every dim of a dense tensor."""
    return self.ndim


def to_dense(self):
    """The dense form: a dense tensor is its own."""
    return self


def to_sparse_coo(self, sparse_dim):
    """The nonzero entries as a COO tensor with `sparse_dim` indexed dims (the gradient of
    its values flows back to this tensor)."""
    from dygraph.sparse.formats import dense_to_coo

    return dense_to_coo(self, sparse_dim)


def to_sparse_csr(self):
    """The nonzero entries of a matrix [M, N] or batch [B, M, N] as a CSR tensor."""
    from dygraph.sparse.formats import dense_to_csr

    return dense_to_csr(self)


def _only_sparse(method, layout):
    def refuse(self, *args, **kwargs):
        kind = "dense" if self.is_sparse() is False else f"sparse {self.format.upper()}"
        raise op_error(method, f"this is a {kind} tensor (shape {self.shape}); only sparse "
                       f"{layout} tensors have {method}()", TypeError)

    refuse.__name__ = refuse.__qualname__ = method
    refuse.__doc__ = f"Of sparse {layout} tensors only: a dense tensor raises TypeError."
    return refuse


def set_tensor(self, value):
    """Replace this tensor's data by a copy of dense tensor `value` (its shape and dtype
    too); the gradient setting is kept.

    Example:
        >>> import dygraph
        >>> x = dygraph.ones([2])
        >>> x.set_tensor(dygraph.to_tensor([1, 2, 3], dtype='int32'))
        >>> x.numpy().tolist(), x.dtype
        ([1, 2, 3], dygraph.int32)
    """
    from dygraph.autograd.grad_mode import state
    from dygraph.sparse.tensor import SparseTensor
    from dygraph.tensor.tensor import Tensor

    if not isinstance(value, Tensor) or isinstance(value, SparseTensor):
        got = "a sparse tensor" if isinstance(value, Tensor) else type(value).__name__
        raise op_error("set_tensor", f"value must be a dense Tensor, got {got}", TypeError)
    if state.static_program is not None:
        self._refuse_in_trace("set_tensor")
    self._data = value._data.copy()
    self._sg = self._sg or self._data.dtype.kind not in "fc"
    self._version[0] += 1


def attach_sparse_methods(tensor_cls):
    """Set the methods above on `tensor_cls` (dygraph's Tensor)."""
    for fn in (is_sparse, is_sparse_coo, is_sparse_csr, sparse_dim, dense_dim, to_dense,
               to_sparse_coo, to_sparse_csr, set_tensor):
        setattr(tensor_cls, fn.__name__, fn)
    for method, layout in (("indices", "COO"), ("crows", "CSR"), ("cols", "CSR"),
                           ("values", "COO or CSR"), ("nnz", "COO or CSR"),
                           ("coalesce", "COO"), ("is_coalesced", "COO")):
        setattr(tensor_cls, method, _only_sparse(method, layout))
