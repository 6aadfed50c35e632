"""The product of a sparse matrix and a dense one, as one op with its own kernels.

`SparseDenseMatmul` computes out [M, N] = A @ D for A [M, K] given by its stored values
and a `RowLayout` of their positions (CSR offsets and columns, and the permutation that
puts the caller's values in row order), D [K, N] dense. Batched products reach it as one
block-diagonal matrix (dygraph/sparse/products.py), which also keeps each sparse
tensor's layout, so a matrix used at every step is laid out once. Kernels, in order:

- SciPy's CSR product (`scipy.sparse`, imported on first use; CuPy arrays use
  `cupyx.scipy.sparse`);
- without SciPy (or for dtypes it lacks, float16), a NumPy path: the products
  values * D[cols] summed per row with `add.reduceat` (`add.at` on other array modules).

Gradients: the values get the sampled dot products g[rows] . D[cols] (computed in chunks,
so no nnz x N product lives at once), D gets A^T @ g (SciPy's transposed CSR product).
Under create_graph both are recorded with ops, the second as this op again.

Example:
    >>> import numpy as np, dygraph
    >>> from dygraph.autograd.function import apply
    >>> layout = RowLayout.from_coo(np, np.array([1, 0]), np.array([0, 1]), (2, 2))
    >>> out = apply(SparseDenseMatmul(*layout.attrs()), dygraph.to_tensor([2.0, 3.0]),
    ...             dygraph.ones([2, 2]))
    >>> out.numpy()
    array([[3., 3.],
           [2., 2.]], dtype=float32)
"""

import numpy as np

from dygraph.autograd.backward_math import register
from dygraph.autograd.function import Op, apply
from dygraph.backend import attr_on, get_array_module
from dygraph.backend.scatter_at import add_at
from dygraph.ops.manipulation.indexing import GetItem

__all__ = ["RowLayout", "SparseDenseMatmul", "sampled_dot"]

_SCIPY_DTYPES = frozenset(np.dtype(t) for t in ("float32", "float64", "complex64",
                                                "complex128"))
# Rows of the sampled dot products computed per step: bounds the gathered g[rows] and
# D[cols] blocks to about this many elements each.
_CHUNK_ELEMENTS = 1 << 20
_scipy_modules = {}


def _sparse_module(xp):
    """scipy.sparse for NumPy arrays, cupyx.scipy.sparse for CuPy's; None if missing."""
    key = xp.__name__
    if key not in _scipy_modules:
        try:
            if xp is np:
                import scipy.sparse as module
            else:
                import cupyx.scipy.sparse as module
        except ImportError:
            module = None
        _scipy_modules[key] = module
    return _scipy_modules[key]


def _xp(array):
    if type(array) is np.ndarray:
        return np
    from dygraph.backend import get_array_module

    return get_array_module(array)


class RowLayout:
    """Stored positions of a matrix [M, K] in row order: `indptr` [M + 1], `cols`, and
    `order` (entry i in row order is the caller's entry order[i]; None when the caller's
    entries already are in row order). Indices are int32 where they fit (SciPy's own
    choice, which then needs no conversion)."""

    __slots__ = ("indptr", "cols", "order", "shape")

    def __init__(self, indptr, cols, order, shape):
        self.indptr, self.cols, self.order = indptr, cols, order
        self.shape = tuple(int(s) for s in shape)

    @classmethod
    def from_coo(cls, xp, rows, cols, shape):
        """The layout of entries at (rows, cols), in any order, repeats allowed."""
        order = None
        if rows.shape[0] > 1 and bool((rows[1:] < rows[:-1]).any()):
            order = xp.argsort(rows, kind="stable")
            rows, cols = rows[order], cols[order]
        indptr = xp.zeros(shape[0] + 1, dtype=np.int64)
        indptr[1:] = xp.cumsum(xp.bincount(rows, minlength=shape[0]))
        return cls.from_csr(indptr, cols, order, shape)

    @classmethod
    def from_csr(cls, indptr, cols, order, shape):
        small = max(shape[0], shape[1], cols.shape[0]) < 2 ** 31
        kind = np.int32 if small else np.int64
        return cls(indptr.astype(kind), cols.astype(kind), order, shape)

    def attrs(self):
        """The arguments of SparseDenseMatmul for this layout."""
        return self.indptr, self.cols, self.order, self.shape


def _reduce_rows(xp, indptr, cols, values, dense):
    """NumPy path: sum of values * dense[cols] over each row's entries (row order)."""
    out = xp.zeros((indptr.shape[0] - 1, dense.shape[1]), dtype=np.result_type(values, dense))
    if cols.shape[0] == 0:
        return out
    terms = values[:, None] * dense[cols]
    if xp is np:
        starts = indptr[:-1]
        filled = indptr[1:] > starts
        out[filled] = np.add.reduceat(terms, starts[filled], axis=0)
    else:
        # Entry e's row is the number of row ends at or before it: a search on the
        # device (a repeat by the row lengths would read them on the host).
        rows = xp.searchsorted(indptr[1:], xp.arange(cols.shape[0]), side="right")
        add_at(xp, out, rows, terms)
    return out


class SparseDenseMatmul(Op):
    """out = A @ dense; inputs (values [nnz] in the caller's order, dense [K, N]); A's
    positions are the RowLayout (indptr, entry_cols, order, shape)."""

    # (not "cols": static backward releases attributes of that name after each run)
    attrs = ("indptr", "entry_cols", "order", "shape")

    save_inputs = True

    def __init__(self, indptr, entry_cols, order, shape):
        self.indptr, self.entry_cols, self.order = indptr, entry_cols, order
        self.shape = tuple(int(s) for s in shape)

    def _in_row_order(self, values):
        if self.order is None:
            return values
        return values[attr_on(get_array_module(values), self, "order")]

    def forward(self, xp, values, dense):
        values = self._in_row_order(values)
        module = _sparse_module(xp)
        if (module is not None and values.dtype in _SCIPY_DTYPES
                and dense.dtype == values.dtype):
            matrix = module.csr_matrix((values, self.entry_cols, self.indptr),
                                       shape=self.shape)
            return xp.asarray(matrix @ dense)
        return _reduce_rows(xp, attr_on(xp, self, "indptr"), attr_on(xp, self, "entry_cols"),
                            values, dense)

    def _entries(self, xp):
        """Each stored entry's (row, col), in the caller's order."""
        entries = self.__dict__.get("entries")
        if entries is None:
            rows = xp.repeat(xp.arange(self.shape[0]), xp.diff(xp.asarray(self.indptr)))
            cols = xp.asarray(self.entry_cols)
            if self.order is not None:
                caller_rows, caller_cols = xp.empty_like(rows), xp.empty_like(cols)
                caller_rows[self.order], caller_cols[self.order] = rows, cols
                rows, cols = caller_rows, caller_cols
            entries = self.entries = (rows, cols)
        return entries

    def backward(self, m, g):
        values, dense = self.x(0, m), self.x(1, m)
        xp = _xp(m.data(g))
        grad_values = grad_dense = None
        if self.edges[0] is not None:
            grad_values = m.sparse_sampled_dot(g, dense, *self._entries(xp))
        if self.edges[1] is not None:
            if m.tensor_mode:
                rows, cols = self._entries(xp)
                flipped = RowLayout.from_coo(xp, cols, rows, self.shape[::-1])
                grad_dense = apply(SparseDenseMatmul(*flipped.attrs()), values, g)
            else:
                grad_dense = self._transposed_product(xp, values, g)
        return grad_values, grad_dense

    def _transposed_product(self, xp, values, g):
        """A^T @ g on arrays: SciPy's transposed CSR product, else the NumPy path."""
        module = _sparse_module(xp)
        if module is not None and values.dtype in _SCIPY_DTYPES and g.dtype == values.dtype:
            matrix = module.csr_matrix((self._in_row_order(values), self.entry_cols,
                                        self.indptr), shape=self.shape)
            return xp.asarray(matrix.T @ g)
        rows, cols = self._entries(xp)
        flipped = RowLayout.from_coo(xp, cols, rows, self.shape[::-1])
        ordered = values if flipped.order is None else values[flipped.order]
        return _reduce_rows(xp, flipped.indptr, flipped.cols, ordered, g)


def sampled_dot(xp, a, b, rows, cols):
    """sum(a[rows] * b[cols], axis=-1) on arrays, in chunks of rows.

    Example:
        >>> a = np.arange(4.0).reshape(2, 2)
        >>> sampled_dot(np, a, a, np.array([0, 1]), np.array([1, 1])).tolist()
        [3.0, 13.0]
    """
    n = rows.shape[0]
    out = xp.empty(n, dtype=np.result_type(a, b))
    step = max(1, _CHUNK_ELEMENTS // max(1, a.shape[1]))
    for start in range(0, n, step):
        stop = start + step
        out[start:stop] = xp.einsum("ij,ij->i", a[rows[start:stop]], b[cols[start:stop]])
    return out


def _sampled_dot_tensors(a, b, rows, cols):
    from dygraph.ops.reduction.reduce import sum as _sum

    return _sum(apply(GetItem((rows,)), a) * apply(GetItem((cols,)), b), axis=-1)


register("sparse_sampled_dot",
         lambda xp: (lambda a, b, rows, cols: sampled_dot(xp, a, b, rows, cols)),
         _sampled_dot_tensors)
