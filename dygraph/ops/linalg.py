"""Matrix products (the family extends this file with bmm, einsum and dygraph.linalg)."""

from dygraph.autograd.function import Op, apply
from dygraph.framework.errors import op_error
from dygraph.ops.common import binary_operands

__all__ = ["matmul"]
NONDIFF = set()


def _swap(m, a):
    nd = a.ndim if not m.tensor_mode else a._data.ndim
    if nd < 2:
        return a
    return m.swapaxes(a, -1, -2)


class MatMul(Op):
    """x @ y with NumPy's rules for 1-D and batched operands; transposes folded in."""

    save_inputs = True

    def __init__(self, tx, ty):
        self.tx, self.ty = tx, ty

    def forward(self, xp, x, y):
        if self.tx and x.ndim >= 2:
            x = xp.swapaxes(x, -1, -2)
        if self.ty and y.ndim >= 2:
            y = xp.swapaxes(y, -1, -2)
        return xp.matmul(x, y)

    def backward(self, m, g):
        x, y = self.x(0, m), self.x(1, m)
        xnd = m.data(x).ndim
        ynd = m.data(y).ndim
        if self.tx:
            x = _swap(m, x)
        if self.ty:
            y = _swap(m, y)
        # Promote 1-D operands to matrices so one formula covers every case.
        if xnd == 1:
            x = m.reshape(x, (1, -1))
            g = m.expand_dims(g, -2)
        if ynd == 1:
            y = m.reshape(y, (-1, 1))
            g = m.expand_dims(g, -1)
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


def matmul(x, y, transpose_x=False, transpose_y=False, name=None):
    """Matrix product with batching and broadcasting over leading dims.

    Example:
        >>> import dygraph
        >>> dygraph.matmul(dygraph.ones([4, 2]), dygraph.ones([2])).shape
        [4]
    """
    x, y = binary_operands(x, y, "matmul")
    xs, ys = x._data.shape, y._data.shape
    if len(xs) == 0 or len(ys) == 0:
        raise op_error("matmul", f"inputs must have at least 1 dim, got shapes {list(xs)} "
                       f"and {list(ys)}")
    kx = xs[-2] if transpose_x and len(xs) >= 2 else xs[-1]
    ky = ys[-1] if transpose_y and len(ys) >= 2 else (ys[-2] if len(ys) >= 2 else ys[0])
    if kx != ky:
        raise op_error("matmul", f"inner dimensions differ: x has shape {list(xs)}"
                       f"{' (transposed)' if transpose_x else ''}, y has shape {list(ys)}"
                       f"{' (transposed)' if transpose_y else ''} ({kx} vs {ky}); expected "
                       "x[..., k] @ y[k, ...]")
    return apply(MatMul(transpose_x, transpose_y), x, y)
