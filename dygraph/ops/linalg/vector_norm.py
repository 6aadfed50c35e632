"""The vector p-norm op behind dygraph.linalg.norm; matrix norms are built from it and svd."""

from dygraph.autograd.function import Op
from dygraph.ops.linalg.common import constant

_INF = float("inf")


class PNorm(Op):
    """Vector p-norm of x over `axes` (a tuple): p in {inf, -inf, 0} or any real p > 0."""

    attrs = ("axes", "keepdim", "p")

    save_inputs = True
    save_output = True

    def __init__(self, p, axes, keepdim):
        self.p, self.axes, self.keepdim = p, axes, keepdim

    def forward(self, xp, x):
        p, axes, keep = self.p, self.axes, self.keepdim
        self.in_shape = x.shape
        if p == 2:
            return xp.sqrt(xp.sum(x * x, axis=axes, keepdims=keep))
        a = xp.abs(x)
        if p == _INF:
            return xp.max(a, axis=axes, keepdims=keep)
        if p == -_INF:
            return xp.min(a, axis=axes, keepdims=keep)
        if p == 0:
            return xp.sum(x != 0, axis=axes, keepdims=keep).astype(x.dtype)
        if p == 1:
            return xp.sum(a, axis=axes, keepdims=keep)
        return xp.sum(a ** p, axis=axes, keepdims=keep) ** (1.0 / p)

    def backward(self, m, g):
        p = self.p
        if p == 0:
            return (None,)  # a count: zero almost everywhere
        x, y = self.x(0, m), self.y(m)
        if not self.keepdim:
            shape = tuple(1 if i in self.axes else n for i, n in enumerate(self.in_shape))
            g, y = m.reshape(g, shape), m.reshape(y, shape)
        if p == 1:
            return (g * m.sign(x),)
        ydata = m.data(y)
        if p in (_INF, -_INF):
            # Ties share the gradient equally.
            ties = (abs(m.data(x)) == ydata).astype(ydata.dtype)
            ties = ties / ties.sum(axis=self.axes, keepdims=True)
            return (g * m.sign(x) * constant(m, ties),)
        # A zero norm has a zero gradient: add 1 there so the division stays finite.
        safe = y + constant(m, (ydata == 0).astype(ydata.dtype))
        if p == 2:
            return (g * x / safe,)
        ax = m.abs(x)
        if p < 1:
            ax = ax + constant(m, (m.data(x) == 0).astype(ydata.dtype))
        return (g * m.sign(x) * m.power(ax / safe, p - 1.0),)
