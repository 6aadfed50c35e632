"""Products and contractions: matmul, bmm, mm, mv, dot, outer, einsum, t, cross, kron, trace.

Decompositions, inverses and norms live in `dygraph.linalg`, which loads on first use.
"""

import math

import numpy as np

from dygraph.autograd.backward_math import register
from dygraph.autograd.function import Op, apply
from dygraph.backend.workspace import POOLED_SIZE, workspace
from dygraph.framework.errors import (
    RankIndexError,
    ShapeRuntimeError,
    UnsupportedDTypeError,
    op_error,
)
from dygraph.ops.common import amp_casts, as_tensor, binary_operands, cast, check_axis
from dygraph.ops.linalg.common import (
    constant,
    xp_of,
)
from dygraph.ops.linalg.einsum import einsum
from dygraph.tensor.tensor import Tensor

__all__ = ["matmul", "bmm", "mm", "mv", "dot", "outer", "einsum", "t", "cross", "kron",
           "trace"]
NONDIFF = set()
NOT_METHODS = {"einsum"}


def _product(xp, a, b):
    """a @ b; a batch of rows times one matrix runs as a single 2-D product.

    NumPy's matmul runs [..., M, K] @ [K, N] batch entry by batch entry (and without BLAS for
    some strides), several times slower than the same rows as one [B*M, K] @ [K, N] product
    (figures: docs/PERFORMANCE.md#small-ops-and-reductions).
    """
    if a.ndim > 2 and b.ndim == 2:
        return xp.matmul(a.reshape(-1, a.shape[-1]), b).reshape(a.shape[:-1] + b.shape[-1:])
    if (a.ndim > 2 and a.shape[:-2] == b.shape[:-2] and a.dtype == b.dtype
            and math.prod(a.shape[:-1]) * b.shape[-1] >= POOLED_SIZE):
        # A big batched result (attention scores) reuses workspace memory.
        return xp.matmul(a, b, out=workspace.result(xp, a.shape[:-1] + b.shape[-1:], a.dtype))
    return xp.matmul(a, b)


def _mm(m, a, b):
    """m.matmul, with the 2-D fast path of `_product` in plain backward."""
    if m.tensor_mode:
        return m.matmul(a, b)
    return _product(m.xp, a, b)


def _swap(m, a):
    nd = a.ndim if not m.tensor_mode else a._data.ndim
    if nd < 2:
        return a
    return m.swapaxes(a, -1, -2)


class MatMul(Op):
    """x @ y with NumPy's rules for 1-D and batched operands; transposes folded in."""

    attrs = ("tx", "ty")

    complex_grad = "holomorphic"

    save_inputs = True

    def __init__(self, tx, ty):
        self.tx, self.ty = tx, ty

    def forward(self, xp, x, y):
        if self.tx and x.ndim >= 2:
            x = xp.swapaxes(x, -1, -2)
        if self.ty and y.ndim >= 2:
            y = xp.swapaxes(y, -1, -2)
        return _product(xp, x, y)

    def backward(self, m, g):
        x, y = self.x(0, m), self.x(1, m)
        xnd = m.data(x).ndim
        ynd = m.data(y).ndim
        if xnd >= 2 and ynd >= 2:
            return self._matrix_grads(m, g, x, y, xnd, ynd)
        if self.tx:
            x = _swap(m, x)
        if self.ty:
            y = _swap(m, y)
        # Promote 1-D operands to matrices so one formula covers the remaining cases.
        if xnd == 1 and ynd == 1:
            g = m.reshape(g, (1, 1))  # vector . vector gave a 0-D result
        elif xnd == 1:
            g = m.expand_dims(g, -2)
        elif ynd == 1:
            g = m.expand_dims(g, -1)
        if xnd == 1:
            x = m.reshape(x, (1, -1))
        if ynd == 1:
            y = m.reshape(y, (-1, 1))
        gx = gy = None
        if self.edges[0] is not None:
            gx = m.matmul(g, _swap(m, y))
            if xnd == 1:
                gx = m.reshape(gx, m.data(gx).shape[:-2] + (m.data(gx).shape[-1],))
            elif self.tx:
                gx = _swap(m, gx)
        if self.edges[1] is not None:
            gy = m.matmul(_swap(m, x), g)
            if ynd == 1:
                gy = m.reshape(gy, m.data(gy).shape[:-1])
            elif self.ty:
                gy = _swap(m, gy)
        return gx, gy

    def _matrix_grads(self, m, g, x, y, xnd, ynd):
        """Both operands are matrices (or batches of them): out = X @ Y.

        Each gradient is produced in its input's own layout (dW = g^T X for a transposed
        weight, not (X^T g)^T), so it is contiguous and accumulates at full speed; a 2-D
        operand shared across a batch gets its gradient from one 2-D product over the
        flattened batch instead of one product per batch entry summed afterwards.
        """
        gx = gy = None
        if self.edges[0] is not None:
            if xnd == 2 and ynd > 2:
                gx = self._shared_grad(m, g, y, self.ty, self.tx, left=False)
            elif self.tx:  # x holds X^T: dX^T = Y g^T
                gx = m.matmul(_swap(m, y) if self.ty else y, _swap(m, g))
            else:  # dX = g Y^T
                gx = _mm(m, g, y if self.ty else _swap(m, y))
        if self.edges[1] is not None:
            if ynd == 2 and xnd > 2:
                gy = self._shared_grad(m, g, x, self.tx, self.ty, left=True)
            elif self.ty:  # y holds Y^T: dY^T = g^T X
                gy = m.matmul(_swap(m, g), _swap(m, x) if self.tx else x)
            else:  # dY = X^T g
                gy = m.matmul(x if self.tx else _swap(m, x), g)
        return gx, gy

    @staticmethod
    def _shared_grad(m, g, other, other_t, own_t, left):
        """Gradient of a 2-D operand broadcast over the batch of `other` (e.g. a weight).

        The batch is flattened into rows, so the gradient is one 2-D product. `left` says
        the 2-D operand is on the right of the product (y), so `other` is x.
        """
        gs = m.data(g).shape
        g2 = m.reshape(g, (-1, gs[-1])) if left else m.reshape(_swap(m, g), (-1, gs[-2]))
        if left:  # out = X @ Y, X batched: rows of X pair with rows of g
            o = _swap(m, other) if other_t else other
            o2 = m.reshape(o, (-1, m.data(o).shape[-1]))
            # dY = X2^T g2, or dY^T = g2^T X2 when y holds the transpose.
            return m.matmul(_swap(m, g2), o2) if own_t else m.matmul(_swap(m, o2), g2)
        # out = X @ Y, Y batched and X 2-D: dX = sum over the batch of g_b Y_b^T, which is
        # [M, B*N] @ [B*N, K] once the batch is folded into the columns of g.
        o = _swap(m, other) if not other_t else other  # Y^T, batched [..., N, K]
        o2 = m.reshape(o, (-1, m.data(o).shape[-1]))
        gm = _swap(m, g2)  # [M, B*N]
        return m.matmul(_swap(m, o2), _swap(m, gm)) if own_t else m.matmul(gm, o2)


def _real_to_complex(x, y):
    """A float32 operand beside a complex one becomes complex, as Paddle promotes it (its
    gradient comes back as the real part); other mixes are left to be refused."""
    kinds = (x._data.dtype.kind, y._data.dtype.kind)
    if kinds == ("f", "c") and x._data.dtype == np.float32:
        return cast(x, y._data.dtype), y
    if kinds == ("c", "f") and y._data.dtype == np.float32:
        return x, cast(y, x._data.dtype)
    return x, y


def matmul(x, y, transpose_x=False, transpose_y=False, name=None):
    """Matrix product with batching and broadcasting over leading dims.

    Example:
        >>> import dygraph
        >>> dygraph.matmul(dygraph.ones([4, 2]), dygraph.ones([2])).shape
        [4]
    """
    if (isinstance(x, Tensor) and isinstance(y, Tensor) and x._data.dtype != y._data.dtype
            and not amp_casts()):
        x, y = _real_to_complex(x, y)
    if (isinstance(x, Tensor) and isinstance(y, Tensor) and x._data.dtype != y._data.dtype
            and not amp_casts()):
        # Paddle and PyTorch refuse mixed real dtypes here rather than promote (a float64
        # operand would silently make the product and its gradients float64).
        raise op_error("matmul", f"x dtype {x._data.dtype.name} differs from y dtype "
                       f"{y._data.dtype.name} (shapes {x.shape} and {y.shape}); cast one "
                       "of them first")
    x, y = binary_operands(x, y, "matmul")
    xs, ys = x._data.shape, y._data.shape
    if len(xs) == 0 or len(ys) == 0:
        raise op_error("matmul", f"inputs must have at least 1 dim, got shapes {list(xs)} "
                       f"and {list(ys)}")
    kx = xs[-2] if transpose_x and len(xs) >= 2 else xs[-1]
    ky = ys[-1] if transpose_y and len(ys) >= 2 else (ys[-2] if len(ys) >= 2 else ys[0])
    if kx != ky:
        raise op_error("matmul", f"inner dimensions differ: x has shape {list(x.shape)}"
                       f"{' (transposed)' if transpose_x else ''}, y has shape {list(y.shape)}"
                       f"{' (transposed)' if transpose_y else ''} ({kx} vs {ky}); expected "
                       "x[..., k] @ y[k, ...]")
    return apply(MatMul(transpose_x, transpose_y), x, y)


def bmm(x, y, name=None):
    """Batched matrix product of [B, M, K] and [B, K, N] tensors.

    Example:
        >>> import dygraph
        >>> dygraph.bmm(dygraph.ones([2, 3, 4]), dygraph.ones([2, 4, 5])).shape
        [2, 3, 5]
    """
    x, y = binary_operands(x, y, "bmm")
    xs, ys = x._data.shape, y._data.shape
    if len(xs) != 3 or len(ys) != 3 or xs[0] != ys[0] or xs[2] != ys[1]:
        raise op_error("bmm", f"expected shapes [B, M, K] and [B, K, N], got {list(xs)} and "
                       f"{list(ys)}")
    return apply(MatMul(False, False), x, y)


def mm(input, mat2, name=None):  # noqa: A002 - Paddle's argument name
    """Matrix product `input @ mat2` (matmul without transposes).

    Example:
        >>> import dygraph
        >>> dygraph.mm(dygraph.ones([2, 3]), dygraph.ones([3, 4])).shape
        [2, 4]
    """
    return matmul(input, mat2)


def mv(x, vec, name=None):
    """Matrix-vector product of an [M, N] matrix and an [N] vector.

    Example:
        >>> import dygraph
        >>> dygraph.mv(dygraph.ones([2, 3]), dygraph.ones([3])).numpy()
        array([3., 3.], dtype=float32)
    """
    x, vec = binary_operands(x, vec, "mv")
    xs, vs = x._data.shape, vec._data.shape
    if len(xs) != 2 or len(vs) != 1 or xs[1] != vs[0]:
        raise op_error("mv", f"expected shapes [M, N] and [N], got {list(xs)} and {list(vs)}")
    return apply(MatMul(False, False), x, vec)


class Dot(Op):
    """Inner product over the last axis (one per row for 2-D inputs)."""

    complex_grad = "holomorphic"

    save_inputs = True

    def forward(self, xp, x, y):
        return xp.einsum("...i,...i->...", x, y)

    def backward(self, m, g):
        g = m.expand_dims(g, -1)
        e = self.edges
        return (g * self.x(1, m) if e[0] is not None else None,
                g * self.x(0, m) if e[1] is not None else None)


def dot(x, y, name=None):
    """Inner product of 1-D tensors (0-D result), or row by row of 2-D tensors ([N] result).

    Example:
        >>> import dygraph
        >>> dygraph.dot(dygraph.to_tensor([1.0, 2.0]), dygraph.to_tensor([3.0, 4.0])).numpy()
        array(11., dtype=float32)
    """
    x, y = binary_operands(x, y, "dot")
    xs, ys = x._data.shape, y._data.shape
    if xs != ys or len(xs) not in (1, 2):
        raise op_error("dot", f"expected two 1-D or two 2-D tensors of one shape, got shapes "
                       f"{list(xs)} and {list(ys)}", ShapeRuntimeError)
    return apply(Dot(), x, y)


class Outer(Op):
    complex_grad = "holomorphic"
    save_inputs = True

    def forward(self, xp, x, y):
        return xp.outer(x, y)

    def backward(self, m, g):
        x, y = self.x(0, m), self.x(1, m)
        gx = gy = None
        if self.edges[0] is not None:
            gx = m.reshape(m.matmul(g, m.reshape(y, (-1,))), m.data(x).shape)
        if self.edges[1] is not None:
            gy = m.reshape(m.matmul(m.reshape(x, (-1,)), g), m.data(y).shape)
        return gx, gy


def outer(x, y, name=None):
    """Outer product: out[i, j] = x[i] * y[j]; N-D inputs are flattened first.

    Example:
        >>> import dygraph
        >>> dygraph.outer(dygraph.to_tensor([1.0, 2.0]), dygraph.to_tensor([1.0, 0.0, 3.0])).shape
        [2, 3]
    """
    x, y = binary_operands(x, y, "outer")
    return apply(Outer(), x, y)


class T(Op):
    complex_grad = "same"

    def forward(self, xp, x):
        return xp.ascontiguousarray(x.T) if x.ndim == 2 else x.copy()

    def backward(self, m, g):
        return (m.swapaxes(g, 0, 1) if m.data(g).ndim == 2 else g,)


def t(input, name=None):  # noqa: A002 - Paddle's argument name
    """Transpose of a tensor with at most 2 dims (0-D and 1-D come back unchanged).

    Example:
        >>> import dygraph
        >>> dygraph.t(dygraph.ones([2, 3])).shape
        [3, 2]
    """
    x = as_tensor(input, "t")
    if x._data.ndim > 2:
        raise op_error("t", f"expected a tensor with at most 2 dims, got shape "
                       f"{list(x._data.shape)}; use transpose for more dims")
    return apply(T(), x)


class Cross(Op):
    attrs = ("axis",)

    complex_grad = "holomorphic"
    save_inputs = True

    def __init__(self, axis):
        self.axis = axis

    def forward(self, xp, x, y):
        return xp.cross(x, y, axis=self.axis)

    def backward(self, m, g):
        e = self.edges
        return (m.cross(self.x(1, m), g, axis=self.axis) if e[0] is not None else None,
                m.cross(g, self.x(0, m), axis=self.axis) if e[1] is not None else None)


def cross(x, y, axis=9, name=None):
    """Cross product of 3-vectors along `axis`; the default (9 or None, as in Paddle) takes
    the first axis of length 3.

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([1.0, 0.0, 0.0]); y = dygraph.to_tensor([0.0, 1.0, 0.0])
        >>> dygraph.cross(x, y).numpy()
        array([0., 0., 1.], dtype=float32)
    """
    x, y = binary_operands(x, y, "cross")
    if x._data.dtype == np.bool_:  # NumPy's cross would fail subtracting bools
        raise op_error("cross", f"bool inputs are not supported, got shapes {list(x.shape)} "
                       f"and {list(y.shape)}; cast them to a number dtype first",
                       UnsupportedDTypeError)
    shape = x._data.shape
    if shape != y._data.shape:
        raise op_error("cross", f"inputs must have one shape, got {list(shape)} and "
                       f"{list(y._data.shape)}")
    if axis is None or axis == 9:
        axis = next((i for i, n in enumerate(shape) if n == 3), None)
        if axis is None:
            raise op_error("cross", f"no axis of length 3 in shape {list(shape)}")
    else:
        axis = check_axis(axis, len(shape), "cross")
        if shape[axis] != 3:
            raise op_error("cross", f"axis {axis} of shape {list(shape)} has length "
                           f"{shape[axis]}; the cross product needs length 3")
    return apply(Cross(axis), x, y)


class Kron(Op):
    """Kronecker product; the gradient contracts the interleaved (x, y) axes of g."""

    complex_grad = "holomorphic"

    save_inputs = True

    def forward(self, xp, x, y):
        return xp.kron(x, y)

    def backward(self, m, g):
        x, y = self.x(0, m), self.x(1, m)
        xs, ys = m.data(x).shape, m.data(y).shape
        nd = max(len(xs), len(ys))
        xs_p = (1,) * (nd - len(xs)) + tuple(xs)
        ys_p = (1,) * (nd - len(ys)) + tuple(ys)
        gr = m.reshape(g, tuple(n for pair in zip(xs_p, ys_p) for n in pair))
        xl, yl = "abcdefghijklm"[:nd], "nopqrstuvwxyz"[:nd]
        gsub = "".join(a + b for a, b in zip(xl, yl))
        gx = gy = None
        if self.edges[0] is not None:
            gx = m.reshape(m.einsum(f"{gsub},{yl}->{xl}", gr, m.reshape(y, ys_p)), xs)
        if self.edges[1] is not None:
            gy = m.reshape(m.einsum(f"{gsub},{xl}->{yl}", gr, m.reshape(x, xs_p)), ys)
        return gx, gy


def kron(x, y, name=None):
    """Kronecker product: block (i, j) of the result is x[i, j] * y.

    Example:
        >>> import dygraph
        >>> dygraph.kron(dygraph.ones([2, 2]), dygraph.ones([3, 1])).shape
        [6, 2]
    """
    x, y = binary_operands(x, y, "kron")
    if max(x._data.ndim, y._data.ndim) > 13:
        raise op_error("kron", f"supports at most 13 dims, got shapes {list(x._data.shape)} "
                       f"and {list(y._data.shape)}")
    return apply(Kron(), x, y)


class Trace(Op):
    attrs = ("axis1", "axis2", "offset")

    complex_grad = "same"

    def __init__(self, offset, axis1, axis2):
        self.offset, self.axis1, self.axis2 = offset, axis1, axis2

    def forward(self, xp, x):
        self.in_shape = x.shape
        # dtype: NumPy's sum would widen int32 (and bool) to int64; Paddle keeps the dtype
        dtype = x.dtype if x.dtype != np.bool_ else None
        return xp.trace(x, self.offset, self.axis1, self.axis2, dtype=dtype)

    def backward(self, m, g):
        data = m.data(g)
        a1, a2 = self.axis1, self.axis2
        n1, n2 = self.in_shape[a1], self.in_shape[a2]
        diag = constant(m, xp_of(m, g).eye(n1, n2, k=self.offset, dtype=data.dtype))
        # g covers the remaining axes; place it on the diagonal, then restore the axis order.
        full = m.reshape(g, tuple(data.shape) + (1, 1)) * diag
        order = [i for i in range(len(self.in_shape)) if i not in (a1, a2)] + [a1, a2]
        inverse = [0] * len(order)
        for i, a in enumerate(order):
            inverse[a] = i
        return (m.transpose(full, tuple(inverse)),)


def trace(x, offset=0, axis1=0, axis2=1, name=None):
    """Sum of the diagonal at `offset` of the 2-D slices spanned by `axis1` and `axis2`.

    Example:
        >>> import dygraph
        >>> dygraph.trace(dygraph.to_tensor([[1.0, 2.0], [3.0, 4.0]])).numpy()
        array(5., dtype=float32)
    """
    x = as_tensor(x, "trace")
    nd = x._data.ndim
    if nd < 2:
        raise op_error("trace", f"expected at least 2 dims, got shape {list(x._data.shape)}",
                       RankIndexError)
    a1, a2 = check_axis(axis1, nd, "trace"), check_axis(axis2, nd, "trace")
    if a1 == a2:
        raise op_error("trace", f"axis1 and axis2 must differ, both are {a1} for shape "
                       f"{list(x._data.shape)}")
    return apply(Trace(int(offset), a1, a2), x)


register("cross", tensor_fn=cross)
