"""Element-wise extrema of two tensors: maximum, minimum and their NaN-ignoring forms fmax,
fmin.

Each op is its forward and its gradient side by side: the gradient goes to the input that
was chosen (to x on ties). Broadcasting is undone by the engine.
"""

from dygraph.autograd.function import Op, apply
from dygraph.ops.common import binary_operands

__all__ = ["maximum", "minimum", "fmax", "fmin"]
NONDIFF = set()


class Maximum(Op):
    save_inputs = True

    def forward(self, xp, a, b):
        return xp.maximum(a, b)

    def backward(self, m, g):
        mask = self.x(0, m) >= self.x(1, m)
        zero = m.zeros_like(g)
        return m.where(mask, g, zero), m.where(mask, zero, g)


class Minimum(Op):
    save_inputs = True

    def forward(self, xp, a, b):
        return xp.minimum(a, b)

    def backward(self, m, g):
        mask = self.x(0, m) <= self.x(1, m)
        zero = m.zeros_like(g)
        return m.where(mask, g, zero), m.where(mask, zero, g)


class Fmax(Maximum):
    def forward(self, xp, a, b):
        return xp.fmax(a, b)

    def backward(self, m, g):
        a, b = self.x(0, m), self.x(1, m)
        mask = (a >= b) | m.isnan(b)
        zero = m.zeros_like(g)
        return m.where(mask, g, zero), m.where(mask, zero, g)


class Fmin(Minimum):
    def forward(self, xp, a, b):
        return xp.fmin(a, b)

    def backward(self, m, g):
        a, b = self.x(0, m), self.x(1, m)
        mask = (a <= b) | m.isnan(b)
        zero = m.zeros_like(g)
        return m.where(mask, g, zero), m.where(mask, zero, g)


def maximum(x, y, name=None):
    """Elementwise maximum (gradient to x on ties).

    Example:
        >>> import dygraph
        >>> dygraph.maximum(dygraph.to_tensor([1.0, 5.0]), dygraph.to_tensor([3.0, 2.0])).numpy()
        array([3., 5.], dtype=float32)
    """
    return apply(Maximum(), *binary_operands(x, y, "maximum"))


def minimum(x, y, name=None):
    """Elementwise minimum (gradient to x on ties).

    Example:
        >>> import dygraph
        >>> dygraph.minimum(dygraph.to_tensor([1.0, 5.0]), dygraph.to_tensor([3.0, 2.0])).numpy()
        array([1., 2.], dtype=float32)
    """
    return apply(Minimum(), *binary_operands(x, y, "minimum"))


def fmax(x, y, name=None):
    """Elementwise maximum that ignores NaN.

    Example:
        >>> import dygraph
        >>> dygraph.fmax(dygraph.to_tensor([float('nan')]), dygraph.to_tensor([1.0])).numpy()
        array([1.], dtype=float32)
    """
    return apply(Fmax(), *binary_operands(x, y, "fmax"))


def fmin(x, y, name=None):
    """Elementwise minimum that ignores NaN.

    Example:
        >>> import dygraph
        >>> dygraph.fmin(dygraph.to_tensor([float('nan')]), dygraph.to_tensor([1.0])).numpy()
        array([1.], dtype=float32)
    """
    return apply(Fmin(), *binary_operands(x, y, "fmin"))
