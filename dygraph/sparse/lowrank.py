"""pca_lowrank of a sparse matrix: the randomised SVD (Halko, Martinsson and Tropp 2011)
of the centred matrix without forming it: every product with x - 1 mean(x) is a sparse
product minus a rank-one correction, so x stays sparse throughout.
"""

from dygraph import ops as _ops
from dygraph.framework.errors import op_error
from dygraph.ops.linalg.functions import qr, svd
from dygraph.sparse.formats import check_sparse, to_dense
from dygraph.sparse.products import matmul
from dygraph.sparse.reduction import sum as _sparse_sum
from dygraph.sparse.shape import transpose

__all__ = ["pca_lowrank"]


def pca_lowrank(x, q=None, center=True, niter=2, name=None):
    """(U, S, V) of a sparse matrix x [N, M] (rows are samples), centred by default:
    x - mean ~ U diag(S) V^T with U [N, q], S [q], V [M, q]; q defaults to min(6, N, M),
    niter is the number of subspace iterations. Draws from dygraph's random generator.

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([[2.0, 0.0], [-2.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
        >>> u, s, v = dygraph.sparse.pca_lowrank(x.to_sparse_coo(2), q=2)
        >>> [round(v, 4) for v in s.tolist()]
        [2.8284, 1.4142]
    """
    x = check_sparse(x, "pca_lowrank")
    if x.ndim != 2 or (x.format == "coo" and x.dense_dim()):
        raise op_error("pca_lowrank", f"x must be a sparse matrix [N, M], got shape {x.shape}")
    rows, cols = x.shape
    q = min(6, rows, cols) if q is None else int(q)
    if not 0 < q <= min(rows, cols):
        raise op_error("pca_lowrank", f"q must be in [1, min(N, M) = {min(rows, cols)}], "
                       f"got {q}")
    xt = transpose(x, [1, 0])
    mean = None
    if center:
        mean = _ops.scale(to_dense(_sparse_sum(x, axis=0, keepdim=True)),
                          1.0 / rows)
        mean = _ops.reshape(mean, [1, cols])

    def times(b):
        """(x - 1 mean) @ b for dense b [M, k]."""
        out = matmul(x, b)
        return out if mean is None else _ops.subtract(out, _ops.matmul(mean, b))

    def times_t(b):
        """(x - 1 mean)^T @ b for dense b [N, k]."""
        out = matmul(xt, b)
        if mean is None:
            return out
        return _ops.subtract(out, _ops.matmul(_ops.transpose(mean, [1, 0]),
                                              _ops.sum(b, axis=0, keepdim=True)))

    basis = qr(times(_ops.randn([cols, q], dtype=x.dtype)))[0]
    for _ in range(int(niter)):
        basis = qr(times_t(basis))[0]
        basis = qr(times(basis))[0]
    u, s, vh = svd(_ops.transpose(times_t(basis), [1, 0]))
    return _ops.matmul(basis, u), s, _ops.transpose(vh, [1, 0])
