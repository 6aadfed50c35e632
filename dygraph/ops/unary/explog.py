"""Variants of exp, log and sqrt: expm1, log2, log10, log1p, rsqrt, reciprocal (part of the
unary family: `dygraph.expm1`, ...). Integer inputs become the default float.
"""

import math

from dygraph.autograd.backward_math import register
from dygraph.autograd.function import Op, apply
from dygraph.ops.common import float_operand

__all__ = ["expm1", "log2", "log10", "log1p", "rsqrt", "reciprocal"]
NONDIFF = set()
_LN2 = math.log(2.0)
_LN10 = math.log(10.0)


class Expm1(Op):
    complex_grad = "holomorphic"
    save_output = True

    def forward(self, xp, x):
        return xp.expm1(x)

    def backward(self, m, g):
        return (g * (self.y(m) + 1.0),)


class Log2(Op):
    complex_grad = "holomorphic"
    save_inputs = True

    def forward(self, xp, x):
        return xp.log2(x)

    def backward(self, m, g):
        return (g / (self.x(0, m) * _LN2),)


class Log10(Op):
    complex_grad = "holomorphic"
    save_inputs = True

    def forward(self, xp, x):
        return xp.log10(x)

    def backward(self, m, g):
        return (g / (self.x(0, m) * _LN10),)


class Log1p(Op):
    complex_grad = "holomorphic"
    save_inputs = True

    def forward(self, xp, x):
        return xp.log1p(x)

    def backward(self, m, g):
        return (g / (self.x(0, m) + 1.0),)


class Rsqrt(Op):
    complex_grad = "holomorphic"
    save_output = True

    def forward(self, xp, x):
        return 1.0 / xp.sqrt(x)

    def backward(self, m, g):
        y = self.y(m)
        return (g * -0.5 * y * y * y,)


class Reciprocal(Op):
    complex_grad = "holomorphic"
    save_output = True

    def forward(self, xp, x):
        return 1.0 / x

    def backward(self, m, g):
        y = self.y(m)
        return (-g * y * y,)


def expm1(x, name=None):
    """Elementwise exp(x) - 1, accurate for small x.

    Example:
        >>> import dygraph
        >>> dygraph.expm1(dygraph.to_tensor([0.0])).numpy()
        array([0.], dtype=float32)
    """
    return apply(Expm1(), float_operand(x, "expm1"))


def log2(x, name=None):
    """Elementwise base-2 logarithm.

    Example:
        >>> import dygraph
        >>> dygraph.log2(dygraph.to_tensor([8.0])).numpy()
        array([3.], dtype=float32)
    """
    return apply(Log2(), float_operand(x, "log2"))


def log10(x, name=None):
    """Elementwise base-10 logarithm.

    Example:
        >>> import dygraph
        >>> dygraph.log10(dygraph.to_tensor([10.0])).numpy()
        array([1.], dtype=float32)
    """
    return apply(Log10(), float_operand(x, "log10"))


def log1p(x, name=None):
    """Elementwise log(1 + x), accurate for small x.

    Example:
        >>> import dygraph
        >>> dygraph.log1p(dygraph.to_tensor([0.0])).numpy()
        array([0.], dtype=float32)
    """
    return apply(Log1p(), float_operand(x, "log1p"))


def rsqrt(x, name=None):
    """Elementwise 1 / sqrt(x).

    Example:
        >>> import dygraph
        >>> dygraph.rsqrt(dygraph.to_tensor([4.0])).numpy()
        array([0.5], dtype=float32)
    """
    return apply(Rsqrt(), float_operand(x, "rsqrt"))


def reciprocal(x, name=None):
    """Elementwise 1 / x.

    Example:
        >>> import dygraph
        >>> dygraph.reciprocal(dygraph.to_tensor([4.0])).numpy()
        array([0.25], dtype=float32)
    """
    return apply(Reciprocal(), float_operand(x, "reciprocal"))


# Tensor versions of the NumPy names, for gradient formulas under create_graph.
for _name, _fn in {"expm1": expm1, "log2": log2, "log10": log10, "log1p": log1p,
                   "reciprocal": reciprocal}.items():
    register(_name, tensor_fn=_fn)
