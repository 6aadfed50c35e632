"""The product of a sparse matrix and a dense one, as one op with its own kernels.

`SparseDenseMatmul` computes out [M, N] = A @ D for A [M, K] given by its stored values
and their (row, col) positions, D [K, N] dense. Batched products reach it as one
block-diagonal matrix (dygraph/sparse/products.py). Kernels, in order:

- SciPy's CSR product (`scipy.sparse`, imported on first use; CuPy arrays use
  `cupyx.scipy.sparse`): the values are put in row order once per call, the row order
  and row offsets are worked out once per op;
- without SciPy (or for dtypes it lacks, float16), a NumPy path: the products
  values * D[cols] summed per row with `add.reduceat` (`add.at` on other array modules).

Gradients: the values get the sampled dot products g[rows] . D[cols] (computed in chunks,
so no nnz x N product lives at once), D gets A^T @ g (SciPy's transposed CSR product).
Under create_graph both are recorded with ops, the second as this op again.

Example:
    >>> import numpy as np, dygraph
    >>> from dygraph.autograd.function import apply
    >>> op = SparseDenseMatmul(np.array([0, 1]), np.array([1, 0]), (2, 2))
    >>> apply(op, dygraph.to_tensor([2.0, 3.0]), dygraph.ones([2, 2])).numpy()
    array([[2., 2.],
           [3., 3.]], dtype=float32)
"""

import numpy as np

from dygraph.autograd.backward_math import register
from dygraph.autograd.function import Op, apply
from dygraph.ops.manipulation.indexing import GetItem

__all__ = ["SparseDenseMatmul", "sampled_dot"]

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


class _RowPlan:
    """The row order of a set of (row, col) positions, their CSR offsets and columns."""

    def __init__(self, xp, rows, cols, n_rows):
        self.order = None
        if rows.shape[0] > 1 and bool((rows[1:] < rows[:-1]).any()):
            self.order = xp.argsort(rows, kind="stable")
            rows, cols = rows[self.order], cols[self.order]
        self.rows = rows
        self.indptr = xp.zeros(n_rows + 1, dtype=np.int64)
        self.indptr[1:] = xp.cumsum(xp.bincount(rows, minlength=n_rows))
        small = max(int(n_rows), int(cols.max()) + 1 if cols.shape[0] else 0,
                    rows.shape[0]) < 2 ** 31
        index_type = np.int32 if small else np.int64
        self.indptr = self.indptr.astype(index_type)
        self.cols = cols.astype(index_type)

    def ordered(self, values):
        return values if self.order is None else values[self.order]


def _reduce_rows(xp, plan, values, dense, n_rows):
    """NumPy path: sum of values * dense[cols] over each row's entries."""
    out = xp.zeros((n_rows, dense.shape[1]), dtype=np.result_type(values, dense))
    if plan.rows.shape[0] == 0:
        return out
    terms = plan.ordered(values)[:, None] * dense[plan.cols]
    if xp is np:
        starts = plan.indptr[:-1]
        filled = plan.indptr[1:] > starts
        out[filled] = np.add.reduceat(terms, starts[filled], axis=0)
    else:
        xp.add.at(out, plan.rows, terms)
    return out


class SparseDenseMatmul(Op):
    """out = A @ dense, A [shape] sparse with `values` at (`rows`, `cols`); inputs
    (values [nnz], dense [K, N])."""

    # (not "cols": static backward releases attributes of that name after each run)
    attrs = ("entry_rows", "entry_cols", "shape")

    save_inputs = True

    def __init__(self, rows, cols, shape):
        self.entry_rows, self.entry_cols = rows, cols
        self.shape = tuple(int(s) for s in shape)

    def _plan(self, xp):
        plan = self.__dict__.get("plan")
        if plan is None:
            plan = self.plan = _RowPlan(xp, xp.asarray(self.entry_rows),
                                        xp.asarray(self.entry_cols), self.shape[0])
        return plan

    def _matrix(self, xp, values):
        """A as a SciPy (or CuPy) CSR matrix, or None where only the NumPy path applies."""
        module = _sparse_module(xp)
        if module is None or values.dtype not in _SCIPY_DTYPES:
            return None
        plan = self._plan(xp)
        return module.csr_matrix((plan.ordered(values), plan.cols, plan.indptr),
                                 shape=self.shape)

    def forward(self, xp, values, dense):
        matrix = self._matrix(xp, values)
        if matrix is not None and dense.dtype == values.dtype:
            return xp.asarray(matrix @ dense)
        return _reduce_rows(xp, self._plan(xp), values, dense, self.shape[0])

    def backward(self, m, g):
        values, dense = self.x(0, m), self.x(1, m)
        grad_values = grad_dense = None
        if self.edges[0] is not None:
            grad_values = m.sparse_sampled_dot(g, dense, self.entry_rows, self.entry_cols)
        if self.edges[1] is not None:
            if m.tensor_mode:
                transposed = SparseDenseMatmul(self.entry_cols, self.entry_rows,
                                               self.shape[::-1])
                grad_dense = apply(transposed, values, g)
            else:
                grad_dense = self._transposed_product(values, g)
        return grad_values, grad_dense

    def _transposed_product(self, values, g):
        """A^T @ g on arrays."""
        from dygraph.backend import get_array_module

        xp = np if type(values) is np.ndarray else get_array_module(values)
        matrix = self._matrix(xp, values)
        if matrix is not None and g.dtype == values.dtype:
            return xp.asarray(matrix.T @ g)
        flipped = self.__dict__.get("flipped_plan")
        if flipped is None:
            flipped = self.flipped_plan = _RowPlan(xp, xp.asarray(self.entry_cols),
                                                   xp.asarray(self.entry_rows), self.shape[1])
        return _reduce_rows(xp, flipped, values, g, self.shape[1])


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
