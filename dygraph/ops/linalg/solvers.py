"""dygraph.linalg's triangular, Cholesky and LU solvers, least squares and the matrix
exponential (part of paddle.linalg; dygraph.linalg re-exports them).

Apart from `lu` (ops/linalg/lu.py) these are compositions of differentiable ops (masks,
`solve`, `pinv`, `matmul`), so their gradients and double backward come from those ops.

Example:
    >>> import dygraph
    >>> a = dygraph.to_tensor([[2.0, 1.0], [0.0, 4.0]])
    >>> dygraph.linalg.triangular_solve(a, dygraph.to_tensor([[3.0], [4.0]])).numpy()
    array([[1.],
           [1.]], dtype=float32)
"""

import math

import numpy as np

from dygraph.autograd.function import apply
from dygraph.autograd.whole_call import captured_whole
from dygraph.framework.errors import op_error
from dygraph.ops.common import binary_operands, float_operand
from dygraph.ops.creation.constructors import eye, zeros
from dygraph.ops.linalg.common import matrix_operand, square_operand
from dygraph.ops.linalg.lu import LU, permutation
from dygraph.ops.linalg.products import matmul
from dygraph.ops.manipulation.diag import tril, triu
from dygraph.ops.manipulation.shape import transpose
from dygraph.ops.reduction.reduce import sum as _sum
from dygraph.ops.unary.core import exp
from dygraph.tensor.tensor import Tensor, to_tensor

__all__ = ["triangular_solve", "cholesky_solve", "cholesky_inverse", "lu", "lu_unpack",
           "lu_solve", "lstsq", "matrix_exp", "matrix_transpose"]
NONDIFF = set()


def matrix_transpose(x, name=None):
    """Swap the last two axes of a batch of matrices.

    Example:
        >>> import dygraph
        >>> dygraph.linalg.matrix_transpose(dygraph.ones([2, 3, 4])).shape
        [2, 4, 3]
    """
    x = float_operand(x, "matrix_transpose") if not isinstance(x, Tensor) else x
    nd = x._data.ndim
    if nd < 2:
        raise op_error("matrix_transpose", f"expected at least 2 dims, got shape {x.shape}")
    return transpose(x, list(range(nd - 2)) + [nd - 1, nd - 2])


def _rhs(y, rows, op):
    if y._data.ndim < 2 or y._data.shape[-2] != rows:
        raise op_error(op, f"the right-hand side must have shape [*, {rows}, K], got "
                       f"{y.shape}")
    return y


def triangular_solve(x, y, upper=True, transpose=False, unitriangular=False, name=None):
    """Solve A X = y for a triangular A read from x (its upper or lower triangle; a unit
    diagonal with unitriangular=True); transpose=True solves A^T X = y. y is [*, M, K].

    Example:
        >>> import dygraph
        >>> a = dygraph.to_tensor([[1.0, 0.0], [2.0, 1.0]])
        >>> b = dygraph.to_tensor([[1.0], [4.0]])
        >>> dygraph.linalg.triangular_solve(a, b, upper=False).numpy()
        array([[1.],
               [2.]], dtype=float32)
    """
    from dygraph.ops.linalg.functions import solve

    x, y = binary_operands(square_operand(x, "triangular_solve"),
                           float_operand(y, "triangular_solve"), "triangular_solve")
    n = x._data.shape[-1]
    _rhs(y, n, "triangular_solve")
    if unitriangular:
        a = (triu(x, 1) if upper else tril(x, -1)) + eye(n, dtype=x.dtype)
    else:
        a = triu(x) if upper else tril(x)
    return solve(matrix_transpose(a) if transpose else a, y)


def cholesky_solve(x, y, upper=False, name=None):
    """Solve A X = x given the Cholesky factor y of A (A = y y^T, or y^T y when upper).

    Example:
        >>> import dygraph
        >>> factor = dygraph.to_tensor([[2.0, 0.0], [1.0, 1.0]])  # A = [[4, 2], [2, 2]]
        >>> dygraph.linalg.cholesky_solve(dygraph.to_tensor([[6.0], [4.0]]), factor).numpy()
        array([[1.],
               [1.]], dtype=float32)
    """
    inner = triangular_solve(y, x, upper=upper, transpose=upper)
    return triangular_solve(y, inner, upper=upper, transpose=not upper)


def cholesky_inverse(x, upper=False, name=None):
    """Inverse of A from its Cholesky factor x (A = x x^T, or x^T x when upper). As Paddle,
    the whole of x is used: a factor is triangular, and its other triangle is not masked.

    Example:
        >>> import dygraph
        >>> dygraph.linalg.cholesky_inverse(dygraph.to_tensor([[2.0, 0.0], [0.0, 4.0]])).numpy()
        array([[0.25  , 0.    ],
               [0.    , 0.0625]], dtype=float32)
    """
    from dygraph.ops.linalg.functions import inv

    inverse = inv(square_operand(x, "cholesky_inverse"))
    # (x x^T)^-1 = x^-T x^-1 and (x^T x)^-1 = x^-1 x^-T
    return matmul(inverse, inverse, transpose_x=not upper, transpose_y=bool(upper))


def lu(x, pivot=True, get_infos=False, name=None):
    """LU factorisation with partial pivoting, packed as LAPACK does: returns (LU, pivots)
    or (LU, pivots, infos); pivots are 1-based int32 row swaps, infos 0 or i + 1 when
    U[i, i] is zero. Differentiable for square, wide and tall full-rank inputs.

    Example:
        >>> import dygraph
        >>> packed, pivots = dygraph.linalg.lu(dygraph.to_tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> packed.numpy(), pivots.numpy()
        (array([[3.        , 4.        ],
               [0.33333334, 0.6666666 ]], dtype=float32), array([2, 2], dtype=int32))
    """
    packed, pivots, infos = apply(LU(bool(pivot)), matrix_operand(x, "lu"))
    return (packed, pivots, infos) if get_infos else (packed, pivots)


def lu_unpack(x, y, unpack_ludata=True, unpack_pivots=True, name=None):
    """(P, L, U) from lu's packed factors x [*, M, N] and pivots y, with A = P L U; an
    unrequested part is None.

    Example:
        >>> import dygraph
        >>> p, l, u = dygraph.linalg.lu_unpack(*dygraph.linalg.lu(
        ...     dygraph.to_tensor([[1.0, 2.0], [3.0, 4.0]])))
        >>> (p @ l @ u).numpy()
        array([[1., 2.],
               [3., 4.]], dtype=float32)
    """
    x = matrix_operand(x, "lu_unpack")
    rows, cols = x._data.shape[-2:]
    k = min(rows, cols)
    p = low = up = None
    if unpack_ludata:
        low = tril(x, -1)[..., :, :k] + eye(rows, k, dtype=x.dtype)
        up = triu(x)[..., :k, :]
    if unpack_pivots and x._data.size == 0:  # nothing to permute: any pivots will do
        p = zeros(list(x._data.shape[:-2]) + [rows, rows], dtype=x.dtype)
    elif unpack_pivots:
        pivots = y._data if isinstance(y, Tensor) else np.asarray(y)
        if pivots.dtype.kind in "fc":
            raise op_error("lu_unpack", f"pivots must be integers (int32, as lu returns "
                           f"them), got {pivots.dtype}")
        if pivots.ndim == 0 or pivots.shape[-1] != k:
            raise op_error("lu_unpack", f"pivots must have {k} entries per matrix, got shape "
                           f"{list(pivots.shape)}")
        from dygraph.backend import get_array_module

        p = to_tensor(permutation(get_array_module(x._data), pivots, rows, x._data.dtype))
    return p, low, up


def lu_solve(b, lu, pivots, trans="N", name=None):
    """Solve A X = b (trans 'N') or A^T X = b ('T', 'C') from lu's factors of A.

    Example:
        >>> import dygraph
        >>> a = dygraph.to_tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> packed, pivots = dygraph.linalg.lu(a)
        >>> dygraph.linalg.lu_solve(dygraph.to_tensor([[5.0], [11.0]]), packed, pivots).numpy()
        array([[1.],
               [2.]], dtype=float32)
    """
    if trans not in ("N", "T", "C"):
        raise op_error("lu_solve", f"trans must be 'N', 'T' or 'C', got {trans!r}")
    lu = square_operand(lu, "lu_solve")
    b = float_operand(b, "lu_solve")
    _rhs(b, lu._data.shape[-1], "lu_solve")
    p = lu_unpack(lu, pivots, unpack_ludata=False)[0]
    if trans == "N":
        inner = triangular_solve(lu, matmul(matrix_transpose(p), b), upper=False,
                                 unitriangular=True)
        return triangular_solve(lu, inner, upper=True)
    inner = triangular_solve(lu, b, upper=True, transpose=True)
    return matmul(p, triangular_solve(lu, inner, upper=False, transpose=True,
                                      unitriangular=True))


_DRIVERS = (None, "gels", "gelsy", "gelsd", "gelss")


@captured_whole(free_dims=(0,))
def lstsq(x, y, rcond=None, driver=None, name=None):
    """Least-squares solution of x @ X = y: returns (solution, residuals, rank,
    singular_values) as Paddle does. Singular values below rcond * the largest (default
    eps * max(M, N)) count as zero. residuals (the squared error per column) are filled
    for M > N at full rank and driver other than 'gelsy' (the default); rank is empty for
    'gels'; singular_values only for 'gelsd' and 'gelss'.

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
        >>> sol, res, rank, sv = dygraph.linalg.lstsq(x, dygraph.to_tensor([[1.0], [2.0], [4.0]]))
        >>> sol.numpy().round(4), int(rank)
        (array([[1.3333],
               [2.3333]], dtype=float32), 2)
    """
    from dygraph.ops.linalg.functions import matrix_rank, pinv, svd

    if driver not in _DRIVERS:
        raise op_error("lstsq", f"driver must be one of 'gels', 'gelsy', 'gelsd', 'gelss', "
                       f"got {driver!r}")
    driver = driver or "gelsy"
    x, y = binary_operands(matrix_operand(x, "lstsq"), float_operand(y, "lstsq"), "lstsq")
    rows, cols = x._data.shape[-2:]
    _rhs(y, rows, "lstsq")
    if rcond is None:
        rcond = float(np.finfo(x._data.dtype).eps) * max(rows, cols)
    solution = matmul(pinv(x, rcond=rcond), y)
    empty = to_tensor(np.zeros([0], dtype=x._data.dtype))
    s = svd(x)[1]
    smax = float(s._data.max()) if s._data.size else 0.0
    rank = matrix_rank(x, tol=rcond * smax)
    full = bool((rank._data == cols).all())
    residuals = empty
    if rows > cols and full and driver != "gelsy":
        error = matmul(x, solution) - y
        residuals = _sum(error * error, axis=-2)
    rank = to_tensor(np.zeros([0], np.int32)) if driver == "gels" else rank.astype("int32")
    if x._data.size == 0:  # Paddle 3.3 gives an empty x no rank (an empty int64 tensor)
        rank = to_tensor(np.zeros([0], np.int64))
    singular = s if driver in ("gelsd", "gelss") else empty
    return solution, residuals, rank, singular


# Pade coefficients of degree 13 and the 1-norm bound that makes it exact to double
# precision (Higham, "The scaling and squaring method for the matrix exponential
# revisited", 2005).
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0,
           1187353796428800.0, 129060195264000.0, 10559470521600.0, 670442572800.0,
           33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


@captured_whole
def matrix_exp(x, name=None):
    """Matrix exponential by scaling and squaring with a degree-13 Pade approximant.

    Example:
        >>> import dygraph
        >>> dygraph.linalg.matrix_exp(dygraph.to_tensor([[0.0, 1.0], [0.0, 0.0]])).numpy()
        array([[1., 1.],
               [0., 1.]], dtype=float32)
    """
    from dygraph.ops.linalg.functions import solve

    if isinstance(x, Tensor) and x._data.ndim == 0:  # a number: its exponential, as Paddle
        return exp(float_operand(x, "matrix_exp"))
    x = square_operand(x, "matrix_exp")
    n = x._data.shape[-1]
    norm = float(abs(x._data).sum(axis=-2).max()) if x._data.size else 0.0
    squarings = max(0, math.ceil(math.log2(norm / _THETA13))) if norm > _THETA13 else 0
    a = x * (0.5 ** squarings) if squarings else x
    b = _PADE13
    ident = eye(n, dtype=x.dtype)
    a2 = matmul(a, a)
    a4 = matmul(a2, a2)
    a6 = matmul(a4, a2)
    u = matmul(a, matmul(a6, a6 * b[13] + a4 * b[11] + a2 * b[9])
               + a6 * b[7] + a4 * b[5] + a2 * b[3] + ident * b[1])
    v = matmul(a6, a6 * b[12] + a4 * b[10] + a2 * b[8]) + a6 * b[6] + a4 * b[4] + a2 * b[2] \
        + ident * b[0]
    result = solve(v - u, v + u)
    for _ in range(squarings):
        result = matmul(result, result)
    return result
