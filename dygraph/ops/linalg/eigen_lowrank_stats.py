"""dygraph.linalg's general eigendecomposition, Householder products, low-rank SVD/PCA,
covariance and small helpers (part of paddle.linalg; dygraph.linalg re-exports them).

Everything but `eig`/`eigvals` (ops/linalg/eig.py) is a composition of differentiable ops.

Example:
    >>> import dygraph
    >>> dygraph.linalg.vecdot(dygraph.to_tensor([1.0, 2.0]), dygraph.to_tensor([3.0, 4.0])).numpy()
    array(11., dtype=float32)
"""

import numpy as np

from dygraph.autograd.function import apply
from dygraph.framework.errors import op_error
from dygraph.ops.common import as_tensor, binary_operands, check_axis, float_operand
from dygraph.ops.complex import conj
from dygraph.ops.creation.constructors import eye, randn, zeros
from dygraph.ops.linalg.common import matrix_operand, square_operand
from dygraph.ops.linalg.eig import Eig
from dygraph.ops.linalg.products import cross, matmul
from dygraph.ops.linalg.solvers import matrix_transpose
from dygraph.ops.manipulation.diag import diagonal
from dygraph.ops.manipulation.shape import unsqueeze
from dygraph.ops.reduction.reduce import mean
from dygraph.ops.reduction.reduce import sum as _sum
from dygraph.ops.unary.core import clip, sqrt

__all__ = ["eig", "eigvals", "householder_product", "ormqr", "svdvals", "svd_lowrank",
           "pca_lowrank", "cov", "corrcoef", "vecdot", "cross", "diagonal"]
NONDIFF = set()


def eig(x, name=None):
    """Eigenvalues and unit-norm eigenvectors of a general square matrix, both complex
    (complex64 for float32 input). Gradients hold for distinct eigenvalues and losses that
    do not depend on the eigenvectors' phases; no double backward.

    Example:
        >>> import dygraph
        >>> w, v = dygraph.linalg.eig(dygraph.to_tensor([[2.0, 0.0], [0.0, 3.0]]))
        >>> w.numpy()
        array([2.+0.j, 3.+0.j], dtype=complex64)
    """
    x = as_tensor(x, "eig")
    x = x if x._data.dtype.kind == "c" else square_operand(x, "eig")
    return apply(Eig(), x)


def eigvals(x, name=None):
    """Eigenvalues (complex) of a general square matrix.

    Example:
        >>> import dygraph
        >>> dygraph.linalg.eigvals(dygraph.to_tensor([[0.0, -1.0], [1.0, 0.0]])).numpy()
        array([0.+1.j, 0.-1.j], dtype=complex64)
    """
    return eig(x)[0]


def _reflector(x, i):
    """v_i of the i-th Householder reflector stored in column i of x: zeros above row i,
    1 at row i, x's entries below. Shape [*, M, 1]."""
    rows = x._data.shape[-2]
    below = np.arange(rows) > i
    unit = (np.arange(rows) == i).astype(x._data.dtype)
    column = x[..., :, i:i + 1]
    return column * below.astype(x._data.dtype)[:, None] + unit[:, None]


def _householder_operands(x, tau, op):
    x, tau = binary_operands(matrix_operand(x, op), float_operand(tau, op), op)
    rows, cols = x._data.shape[-2:]
    k = tau._data.shape[-1] if tau._data.ndim else 0
    if tau._data.ndim != x._data.ndim - 1 or k > cols or cols > rows:
        raise op_error(op, f"expected x [*, M, N] with M >= N and tau [*, K] with K <= N, got "
                       f"shapes {x.shape} and {tau.shape}")
    return x, tau, k


def householder_product(x, tau, name=None):
    """The first N columns of Q = H_1 ... H_K, H_i = I - tau_i v_i v_i^T with v_i stored
    below the diagonal of column i of x (the form geqrf returns).

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([[1.0], [1.0]])
        >>> dygraph.linalg.householder_product(x, dygraph.to_tensor([1.0])).numpy()
        array([[ 0.],
               [-1.]], dtype=float32)
    """
    x, tau, k = _householder_operands(x, tau, "householder_product")
    rows, cols = x._data.shape[-2:]
    q = eye(rows, dtype=x.dtype)
    for i in range(k):
        v = _reflector(x, i)
        t = unsqueeze(tau[..., i:i + 1], -1)
        q = q - matmul(matmul(q, v) * t, matrix_transpose(v))
    return q[..., :, :cols]


def ormqr(x, tau, y, left=True, transpose=False, name=None):
    """Multiply y by Q = householder_product(x, tau) as Paddle does: Q y, Q^T y
    (transpose), y Q or y Q^T (left=False). Q is [*, M, N], so for M > N this is the thin
    Q (LAPACK's ormqr would use the full M x M one).

    Example:
        >>> import dygraph
        >>> x, tau = dygraph.to_tensor([[1.0, 0.0], [1.0, 1.0]]), dygraph.to_tensor([1.0, 0.0])
        >>> dygraph.linalg.ormqr(x, tau, dygraph.eye(2)).numpy()
        array([[ 0., -1.],
               [-1.,  0.]], dtype=float32)
    """
    q = householder_product(x, tau)
    y = float_operand(y, "ormqr")
    if transpose:
        q = matrix_transpose(q)
    rows, cols = q._data.shape[-2:]
    need, got = (cols, y._data.shape[-2]) if left else (rows, y._data.shape[-1])
    if y._data.ndim < 2 or need != got:
        raise op_error("ormqr", f"y of shape {y.shape} cannot be multiplied "
                       f"{'after' if left else 'before'} Q{'^T' if transpose else ''} of "
                       f"shape {q.shape}")
    return matmul(q, y) if left else matmul(y, q)


def svdvals(x, name=None):
    """Singular values, descending.

    Example:
        >>> import dygraph
        >>> dygraph.linalg.svdvals(dygraph.to_tensor([[3.0, 0.0], [0.0, -4.0]])).numpy()
        array([4., 3.], dtype=float32)
    """
    from dygraph.ops.linalg.functions import svd

    return svd(matrix_operand(x, "svdvals"))[1]


def svd_lowrank(x, q=None, niter=2, M=None, name=None):  # noqa: N803 - Paddle's name
    """Randomised truncated SVD (Halko et al. 2011) of x - M: (U [*, M, q], S [*, q],
    V [*, N, q]) with x - M ~ U diag(S) V^T; q defaults to min(6, M, N), niter is the
    number of subspace iterations. Draws from dygraph's random generator.

    Example:
        >>> import dygraph
        >>> u, s, v = dygraph.linalg.svd_lowrank(dygraph.to_tensor([[3.0, 0.0], [0.0, 1.0]]))
        >>> s.numpy().round(4)
        array([3., 1.], dtype=float32)
    """
    from dygraph.ops.linalg.functions import qr, svd

    x = matrix_operand(x, "svd_lowrank")
    if M is not None:
        x = x - as_tensor(M, "svd_lowrank")
    rows, cols = x._data.shape[-2:]
    if min(rows, cols) == 0:  # an empty matrix: empty factors (q is 0), as Paddle gives
        batch, real = list(x._data.shape[:-2]), x._data.real.dtype
        return (zeros(batch + [rows, 0], dtype=x.dtype), zeros(batch + [0], dtype=real),
                zeros(batch + [cols, 0], dtype=x.dtype))
    q = min(6, rows, cols) if q is None else int(q)
    if not 0 < q <= min(rows, cols):
        raise op_error("svd_lowrank", f"q must be in [1, min(M, N) = {min(rows, cols)}], "
                       f"got {q}")
    xt = matrix_transpose(x)
    basis = qr(matmul(x, randn([cols, q], dtype=x.dtype)))[0]
    for _ in range(int(niter)):
        basis = qr(matmul(xt, basis))[0]
        basis = qr(matmul(x, basis))[0]
    u, s, vh = svd(matmul(matrix_transpose(basis), x))
    return matmul(basis, u), s, matrix_transpose(vh)


def pca_lowrank(x, q=None, center=True, niter=2, name=None):
    """Principal components by svd_lowrank of x (rows are samples), centred first by
    default: returns (U, S, V).

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([[1.0, 0.0], [-1.0, 0.0], [0.0, 0.5], [0.0, -0.5]])
        >>> u, s, v = dygraph.linalg.pca_lowrank(x, q=2)
        >>> s.numpy().round(4)
        array([1.4142, 0.7071], dtype=float32)
    """
    x = matrix_operand(x, "pca_lowrank")
    rows, cols = x._data.shape[-2:]
    q = min(6, rows, cols) if q is None else q
    if center and min(rows, cols):  # (an empty matrix has no mean to take)
        x = x - mean(x, axis=-2, keepdim=True)
    return svd_lowrank(x, q=q, niter=niter)


def cov(x, rowvar=True, ddof=True, fweights=None, aweights=None, name=None):
    """Covariance matrix of the variables in x's rows (columns when rowvar=False), as
    numpy.cov: ddof=True divides by N - 1; fweights (integer repeat counts) and aweights
    (observation weights) weight the observations.

    Example:
        >>> import dygraph
        >>> dygraph.linalg.cov(dygraph.to_tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])).numpy()
        array([[ 1., -1.],
               [-1.,  1.]], dtype=float32)
    """
    x = float_operand(x, "cov")
    if not 1 <= x._data.ndim <= 2:
        raise op_error("cov", f"expected a 1-D or 2-D input, got shape {x.shape}")
    obs = x if x._data.ndim < 2 else (x if rowvar else matrix_transpose(x))
    if obs._data.ndim == 1:
        obs = unsqueeze(obs, 0)
    n = obs._data.shape[1]
    ddof = int(ddof)
    weight = None
    for w, what in ((fweights, "fweights"), (aweights, "aweights")):
        if w is None:
            continue
        w = as_tensor(w, "cov")
        if w._data.ndim != 1 or w._data.shape[0] != n:
            raise op_error("cov", f"{what} must be 1-D with one entry per observation "
                           f"({n}), got shape {w.shape}")
        w = w.astype(x.dtype)
        weight = w if weight is None else weight * w
    if weight is None:
        centred = obs - mean(obs, axis=1, keepdim=True)
        fact = n - ddof
        product = matmul(centred, matrix_transpose(centred))
    else:
        total = _sum(weight)
        centred = obs - _sum(obs * weight, axis=1, keepdim=True) / total
        if ddof == 0:
            fact = total
        elif aweights is None:
            fact = total - ddof
        else:
            a = as_tensor(aweights, "cov").astype(x.dtype)
            fact = total - ddof * _sum(weight * a) / total
        product = matmul(centred * weight, matrix_transpose(centred))
    out = product / fact
    return out[0, 0] if x._data.ndim < 2 or out._data.shape[0] == 1 else out


def corrcoef(x, rowvar=True, name=None):
    """Pearson correlation coefficients of the variables in x's rows (columns when
    rowvar=False), clipped to [-1, 1].

    Example:
        >>> import dygraph
        >>> dygraph.linalg.corrcoef(dygraph.to_tensor([[0.0, 1.0, 2.0], [4.0, 2.0, 0.0]])).numpy()
        array([[ 1., -1.],
               [-1.,  1.]], dtype=float32)
    """
    c = cov(x, rowvar)
    if c._data.ndim == 0:
        return c / c
    d = sqrt(diagonal(c))
    return clip(c / unsqueeze(d, 1) / unsqueeze(d, 0), -1.0, 1.0)


def vecdot(x, y, axis=-1, name=None):
    """Dot products along `axis` (the first operand conjugated when complex).

    Example:
        >>> import dygraph
        >>> dygraph.linalg.vecdot(dygraph.ones([2, 3]), dygraph.ones([3])).numpy()
        array([3., 3.], dtype=float32)
    """
    x, y = binary_operands(x, y, "vecdot")
    nd = max(x._data.ndim, y._data.ndim)
    if nd == 0:  # two numbers: their product, along the only axis a 0-D tensor has
        if axis not in (-1, 0, None):
            raise op_error("vecdot", f"axis of 0-D inputs must be -1, 0 or None, got {axis}")
        return conj(x) * y
    return _sum(conj(x) * y, axis=check_axis(int(axis), nd, "vecdot") - nd)
