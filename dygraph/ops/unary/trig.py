"""Elementwise trigonometric and hyperbolic functions beyond sin/cos/tanh (part of the
unary family: `dygraph.tan`, `dygraph.asin`, ...). Integer inputs become the default float.
"""

from dygraph.autograd.backward_math import register
from dygraph.autograd.function import Op, apply
from dygraph.ops.common import float_operand

__all__ = ["tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh"]
NONDIFF = set()


class Tan(Op):
    complex_grad = "holomorphic"
    save_output = True

    def forward(self, xp, x):
        return xp.tan(x)

    def backward(self, m, g):
        y = self.y(m)
        return (g * (1.0 + y * y),)


class Asin(Op):
    complex_grad = "holomorphic"
    save_inputs = True

    def forward(self, xp, x):
        return xp.arcsin(x)

    def backward(self, m, g):
        x = self.x(0, m)
        return (g / m.sqrt(1.0 - x * x),)


class Acos(Op):
    complex_grad = "holomorphic"
    save_inputs = True

    def forward(self, xp, x):
        return xp.arccos(x)

    def backward(self, m, g):
        x = self.x(0, m)
        return (-g / m.sqrt(1.0 - x * x),)


class Atan(Op):
    complex_grad = "holomorphic"
    save_inputs = True

    def forward(self, xp, x):
        return xp.arctan(x)

    def backward(self, m, g):
        x = self.x(0, m)
        return (g / (1.0 + x * x),)


class Sinh(Op):
    complex_grad = "holomorphic"
    save_inputs = True

    def forward(self, xp, x):
        return xp.sinh(x)

    def backward(self, m, g):
        return (g * m.cosh(self.x(0, m)),)


class Cosh(Op):
    complex_grad = "holomorphic"
    save_inputs = True

    def forward(self, xp, x):
        return xp.cosh(x)

    def backward(self, m, g):
        return (g * m.sinh(self.x(0, m)),)


class Asinh(Op):
    complex_grad = "holomorphic"
    save_inputs = True

    def forward(self, xp, x):
        return xp.arcsinh(x)

    def backward(self, m, g):
        x = self.x(0, m)
        return (g / m.sqrt(x * x + 1.0),)


class Acosh(Op):
    complex_grad = "holomorphic"
    save_inputs = True

    def forward(self, xp, x):
        return xp.arccosh(x)

    def backward(self, m, g):
        x = self.x(0, m)
        # sqrt(x - 1) sqrt(x + 1), not sqrt(x * x - 1): the same for real x >= 1, and the
        # derivative of the principal branch for complex x (where the two differ in sign).
        return (g / (m.sqrt(x - 1.0) * m.sqrt(x + 1.0)),)


class Atanh(Op):
    complex_grad = "holomorphic"
    save_inputs = True

    def forward(self, xp, x):
        return xp.arctanh(x)

    def backward(self, m, g):
        x = self.x(0, m)
        return (g / (1.0 - x * x),)


def tan(x, name=None):
    """Elementwise tangent.

    Example:
        >>> import dygraph
        >>> dygraph.tan(dygraph.to_tensor([0.0])).numpy()
        array([0.], dtype=float32)
    """
    return apply(Tan(), float_operand(x, "tan"))


def asin(x, name=None):
    """Elementwise arcsine (nan outside [-1, 1]).

    Example:
        >>> import dygraph
        >>> dygraph.asin(dygraph.to_tensor([0.0])).numpy()
        array([0.], dtype=float32)
    """
    return apply(Asin(), float_operand(x, "asin"))


def acos(x, name=None):
    """Elementwise arccosine (nan outside [-1, 1]).

    Example:
        >>> import dygraph
        >>> dygraph.acos(dygraph.to_tensor([1.0])).numpy()
        array([0.], dtype=float32)
    """
    return apply(Acos(), float_operand(x, "acos"))


def atan(x, name=None):
    """Elementwise arctangent.

    Example:
        >>> import dygraph
        >>> dygraph.atan(dygraph.to_tensor([0.0])).numpy()
        array([0.], dtype=float32)
    """
    return apply(Atan(), float_operand(x, "atan"))


def sinh(x, name=None):
    """Elementwise hyperbolic sine.

    Example:
        >>> import dygraph
        >>> dygraph.sinh(dygraph.to_tensor([0.0])).numpy()
        array([0.], dtype=float32)
    """
    return apply(Sinh(), float_operand(x, "sinh"))


def cosh(x, name=None):
    """Elementwise hyperbolic cosine.

    Example:
        >>> import dygraph
        >>> dygraph.cosh(dygraph.to_tensor([0.0])).numpy()
        array([1.], dtype=float32)
    """
    return apply(Cosh(), float_operand(x, "cosh"))


def asinh(x, name=None):
    """Elementwise inverse hyperbolic sine.

    Example:
        >>> import dygraph
        >>> dygraph.asinh(dygraph.to_tensor([0.0])).numpy()
        array([0.], dtype=float32)
    """
    return apply(Asinh(), float_operand(x, "asinh"))


def acosh(x, name=None):
    """Elementwise inverse hyperbolic cosine (nan below 1).

    Example:
        >>> import dygraph
        >>> dygraph.acosh(dygraph.to_tensor([1.0])).numpy()
        array([0.], dtype=float32)
    """
    return apply(Acosh(), float_operand(x, "acosh"))


def atanh(x, name=None):
    """Elementwise inverse hyperbolic tangent (+-inf at +-1, nan outside).

    Example:
        >>> import dygraph
        >>> dygraph.atanh(dygraph.to_tensor([0.0])).numpy()
        array([0.], dtype=float32)
    """
    return apply(Atanh(), float_operand(x, "atanh"))


# Tensor versions of the NumPy names, for gradient formulas under create_graph.
for _name, _fn in {"tan": tan, "arcsin": asin, "arccos": acos, "arctan": atan, "sinh": sinh,
                   "cosh": cosh, "arcsinh": asinh, "arccosh": acosh, "arctanh": atanh}.items():
    register(_name, tensor_fn=_fn)
