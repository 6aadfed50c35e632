"""Elementwise unary math: exp, log, trigonometry, rounding, clip, where, erf...

Float-only ops cast integer inputs to the default float first, as Paddle does. The
variants of exp/log/sqrt live in ops/unary/explog.py, the inverse and hyperbolic trigonometry
in ops/unary/trig.py and erf/erfinv in ops/unary/erf.py; this module is the family that
exports them all.
"""

import operator

from dygraph.autograd.backward_math import register
from dygraph.autograd.function import Op, apply
from dygraph.framework.errors import AssertedTypeError, op_error
from dygraph.ops import compare
from dygraph.ops.common import as_tensor, float_operand
from dygraph.ops.unary import erf as unary_special
from dygraph.ops.unary import explog as unary_explog
from dygraph.ops.unary import trig as unary_trig
from dygraph.ops.unary.erf import *  # noqa: F401,F403
from dygraph.ops.unary.explog import *  # noqa: F401,F403
from dygraph.ops.unary.trig import *  # noqa: F401,F403
from dygraph.tensor.tensor import Tensor

__all__ = ["exp", "log", "sqrt", "tanh", "sin", "cos", "abs", "sign", "square", "floor",
           "ceil", "round", "trunc", "where", "clip", "nan_to_num", *unary_explog.__all__,
           *unary_trig.__all__, *unary_special.__all__]
NONDIFF = set()


class Exp(Op):
    complex_grad = "holomorphic"
    save_output = True

    def forward(self, xp, x):
        return xp.exp(x)

    def backward(self, m, g):
        return (g * self.y(m),)


class Log(Op):
    complex_grad = "holomorphic"
    save_inputs = True

    def forward(self, xp, x):
        return xp.log(x)

    def backward(self, m, g):
        return (g / self.x(0, m),)


class Sqrt(Op):
    complex_grad = "holomorphic"
    save_output = True

    def forward(self, xp, x):
        return xp.sqrt(x)

    def backward(self, m, g):
        return (g * 0.5 / self.y(m),)


class Tanh(Op):
    complex_grad = "holomorphic"
    save_output = True

    def forward(self, xp, x):
        return xp.tanh(x)

    def backward(self, m, g):
        y = self.y(m)
        # g (1 - y^2) without a Python-float operand: NumPy's array-scalar ufuncs cost about
        # twice an array-array one on small arrays, and this is in every recurrent net's
        # backward (figures: docs/PERFORMANCE.md#activations-and-element-wise-ops).
        return (g - g * y * y,)


class Sin(Op):
    complex_grad = "holomorphic"
    save_inputs = True

    def forward(self, xp, x):
        return xp.sin(x)

    def backward(self, m, g):
        return (g * m.cos(self.x(0, m)),)


class Cos(Op):
    complex_grad = "holomorphic"
    save_inputs = True

    def forward(self, xp, x):
        return xp.cos(x)

    def backward(self, m, g):
        return (-g * m.sin(self.x(0, m)),)


class Abs(Op):
    complex_grad = "same"
    save_inputs = True

    def forward(self, xp, x):
        return xp.abs(x)

    def backward(self, m, g):
        return (g * m.sign(self.x(0, m)),)

    def backward_complex(self, m, g):
        # |z| is not holomorphic: its gradient (convention of complex.py) is g z / |z|, taken
        # as 0 at z = 0 like the real subgradient sign(0).
        x = self.x(0, m)
        y = m.abs(x)
        zero = y == 0
        safe = m.where(zero, m.ones_like(y), y)
        return (m.where(zero, m.zeros_like(x), g * x / safe),)


class Square(Op):
    complex_grad = "holomorphic"
    save_inputs = True

    def forward(self, xp, x):
        return x * x

    def backward(self, m, g):
        return (g * 2.0 * self.x(0, m),)


class Clip(Op):
    """Clamp to [low, high] (either may be None); the gradient passes where
    low <= x <= high, as in Paddle."""

    attrs = ("high", "low")

    save_inputs = True

    def __init__(self, low, high):
        self.low = low
        self.high = high

    def forward(self, xp, x):
        if self.low is None and self.high is None:
            return x.copy()
        return xp.clip(x, self.low, self.high)

    def backward(self, m, g):
        x = self.x(0, m)
        keep = None
        if self.low is not None:
            keep = x >= self.low
        if self.high is not None:
            below = x <= self.high
            keep = below if keep is None else keep & below
        return (g if keep is None else g * keep,)


class NanToNum(Op):
    """nan/+inf/-inf replaced by numbers; the gradient passes only where x was finite."""

    attrs = ("nan", "neginf", "posinf")

    save_inputs = True

    def __init__(self, nan, posinf, neginf):
        self.nan = nan
        self.posinf = posinf
        self.neginf = neginf

    def forward(self, xp, x):
        return xp.nan_to_num(x, nan=self.nan, posinf=self.posinf, neginf=self.neginf)

    def backward(self, m, g):
        return (g * m.isfinite(self.x(0, m)),)


# The `xp` functions an _Elementwise op may apply, by name (a closed table for saved programs).
_PIECEWISE = {name: operator.attrgetter(name) for name in (
    "sign", "floor", "ceil", "round", "trunc")}


class _Elementwise(Op):
    """A piecewise-constant elementwise op (sign, floor, round...) given by the name of an
    `xp` function (a key of _PIECEWISE): its gradient is zero wherever it exists, as in
    Paddle, so a result still requires a gradient exactly when its input does."""

    attrs = ("fn_name",)
    attr_kinds = {"fn_name": _PIECEWISE}

    def __init__(self, fn_name):
        self.fn_name = fn_name

    @property
    def name(self):
        return self.fn_name

    def forward(self, xp, x):
        return _PIECEWISE[self.fn_name](xp)(x)

    def backward(self, m, g):
        return (g * 0.0,)


def exp(x, name=None):
    """Elementwise e ** x.

    Example:
        >>> import dygraph
        >>> dygraph.exp(dygraph.to_tensor([0.0])).numpy()
        array([1.], dtype=float32)
    """
    return apply(Exp(), float_operand(x, "exp"))


def log(x, name=None):
    """Elementwise natural logarithm.

    Example:
        >>> import dygraph
        >>> dygraph.log(dygraph.to_tensor([1.0])).numpy()
        array([0.], dtype=float32)
    """
    return apply(Log(), float_operand(x, "log"))


def sqrt(x, name=None):
    """Elementwise square root.

    Example:
        >>> import dygraph
        >>> dygraph.sqrt(dygraph.to_tensor([4.0])).numpy()
        array([2.], dtype=float32)
    """
    return apply(Sqrt(), float_operand(x, "sqrt"))


def tanh(x, name=None):
    """Elementwise hyperbolic tangent.

    Example:
        >>> import dygraph
        >>> dygraph.tanh(dygraph.to_tensor([0.0])).numpy()
        array([0.], dtype=float32)
    """
    return apply(Tanh(), float_operand(x, "tanh"))


def sin(x, name=None):
    """Elementwise sine.

    Example:
        >>> import dygraph
        >>> dygraph.sin(dygraph.to_tensor([0.0])).numpy()
        array([0.], dtype=float32)
    """
    return apply(Sin(), float_operand(x, "sin"))


def cos(x, name=None):
    """Elementwise cosine.

    Example:
        >>> import dygraph
        >>> dygraph.cos(dygraph.to_tensor([0.0])).numpy()
        array([1.], dtype=float32)
    """
    return apply(Cos(), float_operand(x, "cos"))


def abs(x, name=None):  # noqa: A001 - Paddle's public name
    """Elementwise absolute value (gradient sign(x), 0 at 0).

    Example:
        >>> import dygraph
        >>> dygraph.abs(dygraph.to_tensor([-2.0])).numpy()
        array([2.], dtype=float32)
    """
    return apply(Abs(), as_tensor(x, "abs"))


def square(x, name=None):
    """Elementwise x * x.

    Example:
        >>> import dygraph
        >>> dygraph.square(dygraph.to_tensor([3.0])).numpy()
        array([9.], dtype=float32)
    """
    return apply(Square(), as_tensor(x, "square"))


def _clip_bound(value, which, x):
    """A clip bound as a Python number in x's kind (Paddle casts the bound to x's dtype)."""
    if value is None:
        return None
    if isinstance(value, Tensor):
        if value._data.size != 1:
            raise op_error("clip", f"{which} must be a number or a 1-element Tensor, got a "
                           f"Tensor of shape {list(value._data.shape)}")
        value = value._data.reshape(-1)[0].item()
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise op_error("clip", f"{which} must be a number or a 1-element Tensor, got "
                       f"{type(value).__name__}", TypeError)
    return value if x._data.dtype.kind in "fc" else int(value)


def clip(x, min=None, max=None, name=None):  # noqa: A002 - Paddle's argument names
    """Clamp every value into [min, max]; min/max are numbers, 1-element Tensors or None
    (no bound). The gradient is passed where min <= x <= max and is zero elsewhere.

    Example:
        >>> import dygraph
        >>> dygraph.clip(dygraph.to_tensor([-2.0, 0.5, 3.0]), min=-1.0, max=1.0).numpy()
        array([-1. ,  0.5,  1. ], dtype=float32)
    """
    x = as_tensor(x, "clip")
    low = _clip_bound(min, "min", x)
    high = _clip_bound(max, "max", x)
    return apply(Clip(low, high), x)


def nan_to_num(x, nan=0.0, posinf=None, neginf=None, name=None):
    """Replace nan by `nan`, +inf by `posinf` and -inf by `neginf`; None means the largest
    (or lowest) finite value of x's dtype. The gradient passes only at finite values.
    x must be a real floating tensor: Paddle asserts it (AssertionError) for integers,
    bools and complex numbers.

    Example:
        >>> import dygraph
        >>> t = dygraph.to_tensor([float('nan'), 1.0, float('-inf')])
        >>> dygraph.nan_to_num(t, neginf=-5.0).numpy()
        array([ 0.,  1., -5.], dtype=float32)
    """
    x = as_tensor(x, "nan_to_num")
    if x._data.dtype.kind != "f":
        raise op_error("nan_to_num", f"expects a floating tensor, got {x.dtype}",
                       AssertedTypeError)
    return apply(NanToNum(nan, posinf, neginf), x)


def sign(x, name=None):
    """Elementwise sign: -1, 0 or 1 (no gradient).

    Example:
        >>> import dygraph
        >>> dygraph.sign(dygraph.to_tensor([-3.0, 0.0, 2.0])).numpy()
        array([-1.,  0.,  1.], dtype=float32)
    """
    return apply(_Elementwise("sign"), as_tensor(x, "sign"))


def floor(x, name=None):
    """Elementwise floor (no gradient).

    Example:
        >>> import dygraph
        >>> dygraph.floor(dygraph.to_tensor([1.7])).numpy()
        array([1.], dtype=float32)
    """
    return apply(_Elementwise("floor"), as_tensor(x, "floor"))


def ceil(x, name=None):
    """Elementwise ceiling (no gradient).

    Example:
        >>> import dygraph
        >>> dygraph.ceil(dygraph.to_tensor([1.2])).numpy()
        array([2.], dtype=float32)
    """
    return apply(_Elementwise("ceil"), as_tensor(x, "ceil"))


class RoundDecimals(Op):
    """Rounding to `decimals` places (negative: tens, hundreds...), halves to even; integer
    inputs are kept as they are, as in Paddle. Piecewise constant: a zero gradient."""

    attrs = ("decimals",)

    def __init__(self, decimals):
        self.decimals = decimals

    def forward(self, xp, x):
        return xp.round(x, self.decimals) if x.dtype.kind in "fc" else x.copy()

    def backward(self, m, g):
        return (g * 0.0,)


def round(x, decimals=0, name=None):  # noqa: A001 - Paddle's public name
    """Elementwise rounding to `decimals` places (default: the nearest integer), halves to
    even (a zero gradient).

    Example:
        >>> import dygraph
        >>> dygraph.round(dygraph.to_tensor([1.4])).numpy()
        array([1.], dtype=float32)
        >>> dygraph.round(dygraph.to_tensor([1.26]), decimals=1).numpy()
        array([1.3], dtype=float32)
    """
    if decimals:
        return apply(RoundDecimals(int(decimals)), as_tensor(x, "round"))
    return apply(_Elementwise("round"), as_tensor(x, "round"))


def trunc(x, name=None):
    """Elementwise rounding toward zero (no gradient).

    Example:
        >>> import dygraph
        >>> dygraph.trunc(dygraph.to_tensor([-1.7])).numpy()
        array([-1.], dtype=float32)
    """
    return apply(_Elementwise("trunc"), as_tensor(x, "trunc"))


class Where(Op):
    complex_grad = "same"

    def forward(self, xp, cond, a, b):
        self.cond = cond
        return xp.where(cond, a, b)

    def backward(self, m, g):
        zero = m.zeros_like(g)
        cond = self.cond
        return (None,
                m.where(cond, g, zero) if self.edges[1] is not None else None,
                m.where(cond, zero, g) if self.edges[2] is not None else None)


def where(condition, x=None, y=None, name=None):
    """Pick x where condition holds, else y (broadcast); with only a condition, the indices
    of its True values (as nonzero with as_tuple=True).

    Example:
        >>> import dygraph
        >>> c = dygraph.to_tensor([True, False])
        >>> dygraph.where(c, dygraph.ones([2]), dygraph.zeros([2])).numpy()
        array([1., 0.], dtype=float32)
    """
    from dygraph.ops.common import binary_operands

    cond = as_tensor(condition, "where")
    if (x is None) != (y is None):
        raise op_error("where", "give both x and y, or neither (then the result is the "
                       "indices of the True values of condition)")
    if x is None:
        from dygraph.ops.search.sorting import nonzero

        return nonzero(cond, as_tuple=True)
    if cond._data.dtype.kind != "b":
        from dygraph.ops.compare import not_equal

        cond = not_equal(cond, 0)
    x, y = binary_operands(x, y, "where")
    return apply(Where(), cond, x, y)


def _xp_of(array):
    from dygraph.backend import get_array_module

    return get_array_module(array)


# Tensor versions of the NumPy names, for gradient formulas under create_graph.
for _name, _fn in {"clip": clip, "nan_to_num": nan_to_num,
                   "isfinite": compare.isfinite}.items():
    register(_name, tensor_fn=_fn)
