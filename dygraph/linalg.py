"""dygraph.linalg: inverses, determinants, solvers, decompositions and norms (paddle.linalg).

Every function takes a matrix or a batch of them (leading dims) where NumPy does, and has
gradients (with double backward) except matrix_rank. Decomposition gradients follow the
usual adjoint formulas, valid for full-rank inputs with distinct singular values or
eigenvalues; see dygraph/ops/linalg_decomp.py.

Example:
    >>> import dygraph
    >>> a = dygraph.to_tensor([[2.0, 0.0], [0.0, 4.0]])
    >>> dygraph.linalg.det(a).numpy()
    array(8., dtype=float32)
"""

from dygraph.ops.linalg import eigen_lowrank_stats as _eigen_lowrank_stats
from dygraph.ops.linalg import functions as _functions
from dygraph.ops.linalg import fused as _fused
from dygraph.ops.linalg import solvers as _solvers
from dygraph.ops.linalg.eigen_lowrank_stats import (
    corrcoef,
    cov,
    eig,
    eigvals,
    householder_product,
    ormqr,
    pca_lowrank,
    svd_lowrank,
    svdvals,
    vecdot,
)
from dygraph.ops.linalg.functions import (
    cholesky,
    cond,
    det,
    eigh,
    eigvalsh,
    inv,
    matrix_norm,
    matrix_power,
    matrix_rank,
    multi_dot,
    norm,
    pinv,
    qr,
    slogdet,
    solve,
    svd,
    vector_norm,
)
from dygraph.ops.linalg.fused import fp8_fp8_half_gemm_fused
from dygraph.ops.linalg.products import cross, matmul
from dygraph.ops.linalg.solvers import (
    cholesky_inverse,
    cholesky_solve,
    lstsq,
    lu,
    lu_solve,
    lu_unpack,
    matrix_exp,
    matrix_transpose,
    triangular_solve,
)
from dygraph.ops.manipulation.diag import diagonal

NONDIFF = set().union(*(m.NONDIFF for m in (_functions, _eigen_lowrank_stats, _fused,
                                             _solvers)))
__all__ = [
    "cholesky",
    "cholesky_inverse",
    "cholesky_solve",
    "cond",
    "corrcoef",
    "cov",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "fp8_fp8_half_gemm_fused",
    "householder_product",
    "inv",
    "lstsq",
    "lu",
    "lu_solve",
    "lu_unpack",
    "matmul",
    "matrix_exp",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "matrix_transpose",
    "multi_dot",
    "norm",
    "ormqr",
    "pca_lowrank",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svd_lowrank",
    "svdvals",
    "triangular_solve",
    "vecdot",
    "vector_norm",
]

from dygraph.framework.kernel_dtypes import guard_namespace as _guard_namespace  # noqa: E402

_guard_namespace(globals(), "linalg")  # the dtypes Paddle refuses
