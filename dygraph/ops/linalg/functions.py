"""dygraph.linalg: inverses, determinants, solvers, decompositions and norms (paddle.linalg).

Every function takes a matrix or a batch of them (leading dims) where NumPy does, and has
gradients (with double backward) except matrix_rank. Decomposition gradients follow the
usual adjoint formulas, valid for full-rank inputs with distinct singular values or
eigenvalues; see dygraph/ops/linalg/decompositions.py.

Example:
    >>> import dygraph
    >>> a = dygraph.to_tensor([[2.0, 0.0], [0.0, 4.0]])
    >>> dygraph.linalg.det(a).numpy()
    array(8., dtype=float32)
"""

import numpy as np

from dygraph.autograd.backward_math import register
from dygraph.autograd.function import apply
from dygraph.backend import get_array_module
from dygraph.framework.errors import AssertedValueError, ValueTypeError, describe, op_error
from dygraph.framework.kernel_dtypes import refuse_dtypes
from dygraph.ops.common import (
    _Identity,
    as_tensor,
    binary_operands,
    cast,
    check_axis,
    float_operand,
)
from dygraph.ops.creation.constructors import zeros
from dygraph.ops.linalg.common import matrix_operand, square_operand
from dygraph.ops.linalg.decompositions import QR, SVD, Cholesky, Eigh
from dygraph.ops.linalg.inverse import Det, Inv, MatrixRank, Pinv, Slogdet, Solve, batched_solve
from dygraph.ops.linalg.products import matmul
from dygraph.ops.linalg.vector_norm import PNorm
from dygraph.ops.manipulation import shape as _shape
from dygraph.ops.unary import core as _unary
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["inv", "det", "slogdet", "solve", "cholesky", "qr", "svd", "eigh", "eigvalsh",
           "pinv", "norm", "vector_norm", "matrix_norm", "cond", "matrix_power", "multi_dot",
           "matrix_rank"]
NONDIFF = {"matrix_rank"}

_INF = float("inf")


def inv(x, name=None):
    """Inverse of a square matrix (or of each in a batch); singular input raises.

    Example:
        >>> import dygraph
        >>> dygraph.linalg.inv(dygraph.to_tensor([[2.0, 0.0], [0.0, 4.0]])).numpy()
        array([[0.5 , 0.  ],
               [0.  , 0.25]], dtype=float32)
    """
    return apply(Inv(), square_operand(x, "inv"))


def det(x, name=None):
    """Determinant of a square matrix (or of each in a batch).

    Example:
        >>> import dygraph
        >>> dygraph.linalg.det(dygraph.to_tensor([[1.0, 2.0], [3.0, 4.0]])).numpy()
        array(-2., dtype=float32)
    """
    return apply(Det(), square_operand(x, "det"))


def slogdet(x, name=None):
    """Sign and log|det| stacked in one tensor of shape [2, *batch] (Paddle 2.x layout).

    Example:
        >>> import dygraph
        >>> dygraph.linalg.slogdet(dygraph.to_tensor([[1.0, 2.0], [3.0, 4.0]])).numpy()
        array([-1.       ,  0.6931472], dtype=float32)
    """
    return apply(Slogdet(), square_operand(x, "slogdet"))


def solve(x, y, left=True, name=None):
    """Solve x @ out = y (`left` False: out @ x = y). y is [*, M, K], or a vector [M] / batch
    of vectors [*, M] when its shape is x.shape[:-1].

    Example:
        >>> import dygraph
        >>> a = dygraph.to_tensor([[3.0, 1.0], [1.0, 2.0]])
        >>> dygraph.linalg.solve(a, dygraph.to_tensor([9.0, 8.0])).numpy()
        array([2., 3.], dtype=float32)
    """
    x, y = binary_operands(square_operand(x, "solve"), float_operand(y, "solve"), "solve")
    xs, ys = x._data.shape, y._data.shape
    given = list(ys)
    vector = len(ys) == 1 or (len(ys) == len(xs) - 1 and ys == xs[:-1])
    if not left:  # out @ x = y is x^T @ out^T = y^T
        x, y = _swap_last(x), (y if vector else _swap_last(y))
        ys = y._data.shape
    rows = ys[-1] if vector else (ys[-2] if len(ys) >= 2 else None)
    if rows != xs[-1] or not (vector or _broadcastable(xs[:-2], ys[:-2])):
        want = "[*, M, K]" if left else "[*, K, M]"
        raise op_error("solve", f"x has shape {list(xs)} and y has shape {given}; expected "
                       f"y of shape {want} or [*, M] matching x's [*, M, M]")
    out = apply(Solve(vector), x, y)
    return out if left or vector else _swap_last(out)


def _swap_last(t):
    """t with its last two dimensions swapped."""
    perm = list(range(t._data.ndim))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return _shape.transpose(t, perm)


def _broadcastable(a, b):
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


def cholesky(x, upper=False, name=None):
    """Cholesky factor of a symmetric positive-definite matrix: L with x = L L^T, or the
    upper factor U = L^T when upper=True. Only the lower triangle of x is read.

    Example:
        >>> import dygraph
        >>> dygraph.linalg.cholesky(dygraph.to_tensor([[4.0, 2.0], [2.0, 5.0]])).numpy()
        array([[2., 0.],
               [1., 2.]], dtype=float32)
    """
    # (Paddle asserts the shape: the error is an AssertionError too)
    return apply(Cholesky(bool(upper)), square_operand(x, "cholesky", AssertedValueError))


def qr(x, mode="reduced", name=None):
    """QR decomposition x = Q R. mode 'reduced' gives Q [*, M, K], R [*, K, N] with
    K = min(M, N); 'complete' gives Q [*, M, M], R [*, M, N]; 'r' returns only R.

    Example:
        >>> import dygraph
        >>> q, r = dygraph.linalg.qr(dygraph.ones([3, 2]))
        >>> q.shape, r.shape
        ([3, 2], [2, 2])
    """
    if mode not in ("reduced", "complete", "r"):
        raise op_error("qr", f"mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    q, r = apply(QR(mode), matrix_operand(x, "qr"))
    return r if mode == "r" else (q, r)


def svd(x, full_matrices=False, name=None):
    """Singular value decomposition x = U diag(S) VH; returns (U, S, VH), S descending.

    Example:
        >>> import dygraph
        >>> u, s, vh = dygraph.linalg.svd(dygraph.to_tensor([[3.0, 0.0], [0.0, -2.0]]))
        >>> s.numpy()
        array([3., 2.], dtype=float32)
    """
    return apply(SVD(bool(full_matrices)), matrix_operand(x, "svd"))


def _uplo(uplo, op):
    if uplo not in ("L", "U"):
        raise op_error(op, f"UPLO must be 'L' or 'U', got {uplo!r}")
    return uplo


def eigh(x, UPLO="L", name=None):  # noqa: N803 - Paddle's argument name
    """Eigenvalues (ascending) and eigenvectors of a symmetric matrix; reads the triangle
    UPLO names. Returns (values, vectors).

    Example:
        >>> import dygraph
        >>> w, v = dygraph.linalg.eigh(dygraph.to_tensor([[2.0, 1.0], [1.0, 2.0]]))
        >>> w.numpy()
        array([1., 3.], dtype=float32)
    """
    return apply(Eigh(_uplo(UPLO, "eigh")), square_operand(x, "eigh"))


def eigvalsh(x, UPLO="L", name=None):  # noqa: N803 - Paddle's argument name
    """Eigenvalues (ascending) of a symmetric matrix.

    Example:
        >>> import dygraph
        >>> dygraph.linalg.eigvalsh(dygraph.to_tensor([[2.0, 0.0], [0.0, 1.0]])).numpy()
        array([1., 2.], dtype=float32)
    """
    return apply(Eigh(_uplo(UPLO, "eigvalsh")), square_operand(x, "eigvalsh"))[0]


def pinv(x, rcond=1e-15, hermitian=False, name=None):
    """Moore-Penrose pseudo-inverse; singular values below rcond * largest count as zero.

    Example:
        >>> import dygraph
        >>> dygraph.linalg.pinv(dygraph.to_tensor([[2.0, 0.0]])).numpy()
        array([[0.5],
               [0. ]], dtype=float32)
    """
    return apply(Pinv(float(rcond), bool(hermitian)), matrix_operand(x, "pinv"))


def matrix_rank(x, tol=None, hermitian=False, atol=None, rtol=None, name=None):
    """Number of singular values above `tol` (default: NumPy's S.max() * max(M, N) * eps).
    Instead of tol, `atol` and `rtol` give the threshold max(atol, rtol * S.max()); rtol
    defaults to the default's factor when atol is not above zero, else to 0.

    Example:
        >>> import dygraph
        >>> dygraph.linalg.matrix_rank(dygraph.to_tensor([[1.0, 2.0], [2.0, 4.0]])).numpy()
        array(1)
        >>> x = dygraph.to_tensor([[1.0, 0.0], [0.0, 1e-3]])
        >>> int(dygraph.linalg.matrix_rank(x, atol=1e-2)), int(dygraph.linalg.matrix_rank(x))
        (1, 2)
    """
    x = matrix_operand(x, "matrix_rank")
    tol, atol, rtol = (t._data if isinstance(t, Tensor) else t for t in (tol, atol, rtol))
    if atol is None and rtol is None:
        return apply(MatrixRank(tol, bool(hermitian)), x)
    if tol is not None:
        raise op_error("matrix_rank", "give tol alone, or atol and rtol without tol")
    if rtol is None:
        zero_atol = atol is None or not np.any(np.asarray(atol) > 0)
        rtol = max(x._data.shape[-2:]) * np.finfo(x._data.dtype).eps if zero_atol else 0.0
    return apply(MatrixRank(atol, bool(hermitian), rtol), x)


# -- norms -------------------------------------------------------------------------------

def _is_number(p):
    return isinstance(p, (int, float, np.integer, np.floating)) and not isinstance(p, bool)


def _vector(x, p, axes, keepdim):
    return apply(PNorm(float(p), axes, keepdim), x)


def _modulus(x):
    """|x| for a complex x, whose vector norms are real (PNorm's p = 2 squares entries)."""
    return _unary.abs(x) if x._data.dtype.kind == "c" else x


def _keep(result, x, axes):
    """Re-insert the reduced `axes` of x as size-1 dims (keepdim=True)."""
    shape = [1 if i in axes else n for i, n in enumerate(x._data.shape)]
    return _shape.reshape(result, shape)


def _matrix(x, p, axes, keepdim):
    a0, a1 = axes
    if p is None or p == "fro":
        return _vector(x, 2, axes, keepdim)
    if p in ("nuc", 2, -2):
        rest = [i for i in range(x._data.ndim) if i not in axes]
        moved = _shape.transpose(x, rest + [a0, a1]) if rest + [a0, a1] != list(
            range(x._data.ndim)) else x
        s = svd(moved)[1]
        out = _vector(s, {"nuc": 1, 2: _INF, -2: -_INF}[p], (s._data.ndim - 1,), False)
        return _keep(out, x, axes) if keepdim else out
    if p in (1, -1, _INF, -_INF):
        # Induced norms: the extreme (over one axis) of absolute sums (over the other).
        inner, outer = (a0, a1) if p in (1, -1) else (a1, a0)
        sums = _vector(x, 1, (inner,), True)
        out = _vector(sums, _INF if p > 0 else -_INF, (outer,), True)
        return out if keepdim else _shape.reshape(
            out, [n for i, n in enumerate(out._data.shape) if i not in axes])
    if _is_number(p):
        return _vector(x, p, axes, keepdim)  # Paddle 2.x: the entries as one vector
    raise op_error("norm", f"unsupported matrix norm p={p!r}; use 'fro', 'nuc', inf, -inf, "
                   "1, -1, 2, -2 or another number")


def norm(x, p=None, axis=None, keepdim=False, name=None, *, dtype=None):
    """Vector or matrix norm. axis None: x flattened as one vector ('nuc' needs a 2-D x);
    an int: vector norms over that axis; two axes: matrix norms over them.

    p for vectors: None/'fro' (2-norm), inf, -inf, 0 (count of non-zeros) or any number.
    p for matrices: None/'fro', 'nuc', inf, -inf, 1, -1 (induced), 2, -2 (largest/smallest
    singular value); other numbers treat the entries as one vector (Paddle 2.x). `dtype`
    casts x first.

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([[3.0, 4.0], [0.0, 0.0]])
        >>> float(dygraph.linalg.norm(x)), dygraph.linalg.norm(x, p=1, axis=1).numpy()
        (5.0, array([7., 0.], dtype=float32))
    """
    x = float_operand(x if dtype is None else cast(x, dtype), "norm")
    nd = x._data.ndim
    if isinstance(axis, (list, tuple)) and len(axis) == 1:
        axis = axis[0]
    if axis is None:
        if p == "nuc":
            if nd != 2:
                raise op_error("norm", f"p='nuc' with axis=None needs a 2-D input, got shape "
                               f"{list(x._data.shape)}; pass two axes")
            return _matrix(x, p, (0, 1), keepdim)
        axes = tuple(range(nd))
    elif isinstance(axis, (list, tuple)):
        if len(axis) != 2:
            raise op_error("norm", f"axis must be an int or two ints, got {axis!r}")
        axes = (check_axis(int(axis[0]), nd, "norm"), check_axis(int(axis[1]), nd, "norm"))
        if axes[0] == axes[1]:
            raise op_error("norm", f"the two axes must differ, got {axis!r}")
        return _matrix(x, p, axes, keepdim)
    else:
        axes = (check_axis(int(axis), nd, "norm"),)
    if p is None or p == "fro":
        p = 2
    if not _is_number(p):
        raise op_error("norm", f"unsupported vector norm p={p!r}; use a number, inf or -inf")
    return _vector(_modulus(x), p, axes, keepdim)


def vector_norm(x, p=2.0, axis=None, keepdim=False, name=None, *, dtype=None):
    """Vector p-norm over `axis` (None: all entries; a list: those axes as one vector);
    `dtype` casts x first.

    Example:
        >>> import dygraph
        >>> float(dygraph.linalg.vector_norm(dygraph.to_tensor([[3.0], [4.0]])))
        5.0
    """
    x = as_tensor(x, "vector_norm") if dtype is None else cast(x, dtype)
    if axis is None or not isinstance(axis, (list, tuple)) or len(axis) == 1:
        # one axis (or all as one vector) runs Paddle's float-only p_norm kernel
        refuse_dtypes("vector_norm", x, ("int32", "int64"), " over one axis")
    x = float_operand(x, "vector_norm")
    nd = x._data.ndim
    if axis is None:
        axes = tuple(range(nd))
    elif isinstance(axis, (list, tuple)):
        axes = tuple(sorted({check_axis(int(a), nd, "vector_norm") for a in axis}))
    else:
        axes = (check_axis(int(axis), nd, "vector_norm"),)
    if not _is_number(p):
        raise op_error("vector_norm", f"p must be a number, inf or -inf, got {p!r}", TypeError)
    return _vector(_modulus(x), p, axes, keepdim)


def matrix_norm(x, p="fro", axis=(-2, -1), keepdim=False, name=None):
    """Matrix norm over two axes: 'fro', 'nuc', inf, -inf, 1, -1, 2 or -2.

    Example:
        >>> import dygraph
        >>> float(dygraph.linalg.matrix_norm(dygraph.to_tensor([[1.0, -2.0], [3.0, 4.0]]), 1))
        6.0
    """
    if not isinstance(axis, (list, tuple)):
        raise op_error("matrix_norm", f"axis must be a list or tuple of two ints, got "
                       f"{axis!r}", ValueTypeError)
    if len(axis) != 2:
        raise op_error("matrix_norm", f"axis must be two ints, got {axis!r}")
    return norm(matrix_operand(x, "matrix_norm"), p, list(axis), keepdim)


def cond(x, p=None, name=None):
    """Condition number: norm(x, p) * norm(inv(x), p); p None/2/-2 use singular values.

    Example:
        >>> import dygraph
        >>> float(dygraph.linalg.cond(dygraph.to_tensor([[2.0, 0.0], [0.0, 0.5]])))
        4.0
    """
    x = matrix_operand(x, "cond")
    if p in (None, 2, -2):
        s = svd(x)[1]
        if s._data.shape[-1] == 0:  # an empty matrix: 0, as Paddle gives
            return zeros(list(s._data.shape[:-1]), dtype=s.dtype)
        last = (s._data.ndim - 1,)
        big, small = _vector(s, _INF, last, False), _vector(s, -_INF, last, False)
        return small / big if p == -2 else big / small
    x = square_operand(x, "cond")
    return norm(x, p, [-2, -1]) * norm(inv(x), p, [-2, -1])


# -- products ----------------------------------------------------------------------------

def matrix_power(x, n, name=None):
    """x multiplied by itself n times; n < 0 uses inv(x), n = 0 gives the identity.

    Example:
        >>> import dygraph
        >>> dygraph.linalg.matrix_power(dygraph.to_tensor([[1.0, 1.0], [0.0, 1.0]]), 3).numpy()
        array([[1., 3.],
               [0., 1.]], dtype=float32)
    """
    x = square_operand(x, "matrix_power")
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise op_error("matrix_power", f"n must be an int, got {type(n).__name__}", TypeError)
    n = int(n)
    if n == 0:
        data = x._data
        xp = get_array_module(data)
        eye = xp.eye(data.shape[-1], dtype=data.dtype)
        return _new_tensor(xp.broadcast_to(eye, data.shape).copy(), None, 0, True)
    if n < 0:
        x, n = inv(x), -n
    elif n == 1:
        return apply(_Identity(), x)
    result, base = None, x
    while n:  # square-and-multiply: about log2(n) products
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if n:
            base = matmul(base, base)
    return result


def multi_dot(x, name=None):
    """Product of a list of matrices in the cheapest order; the first may be a row vector
    and the last a column vector (1-D).

    Example:
        >>> import dygraph
        >>> a, b, c = dygraph.ones([2, 3]), dygraph.ones([3, 4]), dygraph.ones([4])
        >>> dygraph.linalg.multi_dot([a, b, c]).numpy()
        array([12., 12.], dtype=float32)
    """
    if not isinstance(x, (list, tuple)):
        raise op_error("multi_dot", f"x must be a list or tuple of Tensors, got "
                       f"{describe(x)}", ValueTypeError)
    tensors = [as_tensor(t, "multi_dot") for t in x]
    if len(tensors) < 2:
        raise op_error("multi_dot", f"expected at least 2 tensors, got {len(tensors)}")
    shapes = [list(t.shape) for t in tensors]
    dims = []
    for i, s in enumerate(shapes):
        end = i in (0, len(shapes) - 1)
        if len(s) != 2 and not (end and len(s) == 1):
            raise op_error("multi_dot", f"tensor {i} has shape {s}; expected 2-D matrices "
                           f"(1-D allowed first and last), got shapes {shapes}")
        rows, cols = (1, s[0]) if (len(s) == 1 and i == 0) else (
            (s[0], 1) if len(s) == 1 else tuple(s))
        if dims and dims[-1] != rows:
            raise op_error("multi_dot", f"shapes {shapes} do not chain: tensor {i} has "
                           f"{rows} rows but the product so far has {dims[-1]} columns")
        if not dims:
            dims.append(rows)
        dims.append(cols)
    return _chain(tensors, _chain_order(dims), 0, len(tensors) - 1)


def _chain_order(dims):
    """Matrix-chain dynamic programme: split[i][j] is where to cut the product i..j."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = float("inf")
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain(tensors, split, i, j):
    if i == j:
        return tensors[i]
    k = split[i][j]
    return matmul(_chain(tensors, split, i, k), _chain(tensors, split, k + 1, j))


# The Tensor versions of the names the gradient formulas above use (see backward_math).
register("inv", array_fn=lambda xp: xp.linalg.inv, tensor_fn=inv)
register("solve", array_fn=lambda xp: lambda a, b: batched_solve(xp, a, b), tensor_fn=solve)
