"""More elementwise math: copysign, hypot, ldexp, frexp, logaddexp, sinc, frac, logit,
stanh, deg2rad/rad2deg, gcd/lcm, heaviside, nextafter, sgn, and the torch-style aliases
(mul, sub, div, true_divide, negative, positive; defined in ops/math/torch_aliases.py).

The differentiable ones are compositions of existing ops, so their gradients (and double
backward) come from those ops; integer-only and bool-valued ones have no gradient.
"""

import math as _pymath

import numpy as np

from dygraph.autograd import grad_mode
from dygraph.autograd.function import Op, apply
from dygraph.autograd.whole_call import captured_whole
from dygraph.framework.errors import UnsupportedDTypeError, op_error
from dygraph.ops import compare
from dygraph.ops.common import as_tensor, binary_operands, cast, float_operand
from dygraph.ops.inplace import make_inplace, run_inplace
from dygraph.ops.math import arithmetic as _math
from dygraph.ops.math.torch_aliases import div, mul, negative, positive, sub, true_divide
from dygraph.ops.unary import core as _unary
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["copysign", "hypot", "ldexp", "frexp", "logaddexp", "nextafter", "heaviside",
           "gcd", "lcm", "sinc", "sgn", "frac", "deg2rad", "rad2deg", "logit", "stanh",
           "positive", "negative", "true_divide", "div", "mul", "sub"]
NONDIFF = {"frexp", "nextafter", "gcd", "lcm"}
# sinc's Taylor series runs for |pi x| < _SINC_TAYLOR, sin(t) / t beyond. Its derivatives
# by the quotient rule cancel like 3 / t^2 (the first) and 6 / t^3 (the second): 1e4 eps
# just above a cutoff of 1e-2; from 1 on they lose a few eps at most.
_SINC_TAYLOR = 1.0
# The series' coefficients (-1)^k / (2k+1)! in powers of t^2, to t^18: at |t| < 1 the first
# term left out changes the second derivative by under a quarter of float64's eps of it
# (float32 stops at t^12, under 1e-9).
_SINC_SERIES = tuple((-1) ** k / _pymath.factorial(2 * k + 1) for k in range(10))


class _NoGrad(Op):
    """An elementwise NumPy function of the inputs, returning one or more arrays."""

    attrs = ("fn", "fn_name")

    differentiable = False

    def __init__(self, fn_name, fn):
        self.fn_name = fn_name
        self.fn = fn

    @property
    def name(self):
        return self.fn_name

    def forward(self, xp, *arrays):
        return self.fn(xp, *arrays)


def _xp(t):
    if type(t._data) is np.ndarray:
        return np
    from dygraph.backend import get_array_module

    return get_array_module(t._data)


def _constant(array):
    """A constant Tensor (no gradient) holding `array` (computed on the input's device)."""
    return _new_tensor(array, None, 0, True)


def _zero_gradient_to(out, t):
    """`out`, with `t` given a zero gradient through it (a `where` that always picks `out`):
    Paddle gives a zero gradient, not none, to an input that only selects or signs."""
    if t.stop_gradient or not grad_mode.state.grad_on:
        return out
    return _unary.where(_constant(_xp(out).ones(out._data.shape, bool)), out, t)


class _Mantissa(Op):
    """frexp's mantissa x * 2**-e, with the gradient 2**-e (e held constant, as Paddle)."""

    save_inputs = True

    def forward(self, xp, a):
        return xp.frexp(a)[0]

    def backward(self, m, g):
        a = m.data(self.x(0, m))
        if type(a) is np.ndarray:
            xp = np
        else:
            from dygraph.backend import get_array_module

            xp = get_array_module(a)
        scale = xp.ldexp(xp.ones_like(a), -xp.frexp(a)[1])
        return (g * (_constant(scale) if m.tensor_mode else scale),)


def _real(x, op, error=UnsupportedDTypeError):
    """`x`, refused when complex: Paddle has no kernel there (RuntimeError), except for
    ldexp, which computes a real result that DyGraph does not copy (its `error` is a plain
    TypeError)."""
    if x._data.dtype.kind == "c":
        raise op_error(op, f"expects real tensors, got {x.dtype}", error)
    return x


def _integer_operands(x, y, op):
    """gcd's and lcm's operands: integer tensors, or float ones (Paddle runs Euclid's
    algorithm on floats too)."""
    x, y = binary_operands(x, y, op)
    for t in (x, y):
        if t._data.dtype.kind not in "iuf":
            raise op_error(op, f"expects integer or float tensors, got {x.dtype} and "
                           f"{y.dtype}", UnsupportedDTypeError)
    try:
        np.broadcast_shapes(x._data.shape, y._data.shape)
    except ValueError:
        raise op_error(op, f"shapes {x.shape} and {y.shape} do not broadcast") from None
    return x, y


def _float_gcd(x, y):
    """Euclid's algorithm on |x| and |y| in floating point (exact: fmod is), composed of
    differentiable ops, so the gradient is the chain rule through the remainders."""
    shape = list(np.broadcast_shapes(x._data.shape, y._data.shape))
    a = _unary.abs(_broadcast(x, shape))
    b = _unary.abs(_broadcast(y, shape))
    while bool((b._data != 0).any()):
        nonzero = b != 0
        safe = _unary.where(nonzero, b, 1.0)
        a, b = _unary.where(nonzero, b, a), _unary.where(nonzero, _math.remainder(a, safe), 0.0)
    return a


def _broadcast(t, shape):
    from dygraph.ops.manipulation.shape import broadcast_to

    return t if t.shape == shape else broadcast_to(t, shape)


def _integer_copysign(xp, a, b):
    """|a| with the sign of b, in a's integer dtype (bool values have no sign)."""
    a = xp.broadcast_to(a, np.broadcast_shapes(a.shape, b.shape))
    if a.dtype.kind == "b":
        return a.copy()
    negative = xp.signbit(b) if b.dtype.kind == "f" else b < 0
    magnitude = xp.abs(a)
    return xp.where(negative, -magnitude, magnitude).astype(a.dtype)


@captured_whole
def copysign(x, y, name=None):
    """|x| with the sign of y (the sign bit, so -0.0 counts as negative); the gradient
    flows to x only.

    Example:
        >>> import dygraph
        >>> dygraph.copysign(dygraph.to_tensor([1.0, -2.0]), dygraph.to_tensor([-1.0, 3.0])).numpy()
        array([-1.,  2.], dtype=float32)
    """
    x = as_tensor(x, "copysign")
    if x._data.dtype.kind in "biu":  # Paddle keeps an integer or bool x's dtype
        x, y = binary_operands(x, y, "copysign")
        return apply(_NoGrad("copysign", _integer_copysign), x, _real(y, "copysign"))
    x, y = binary_operands(_real(float_operand(x, "copysign"), "copysign"), y, "copysign")
    _real(y, "copysign")
    y = cast(y, x._data.dtype)
    xp = _xp(y)
    sign = _constant(xp.where(xp.signbit(y._data), -1, 1).astype(x._data.dtype))
    return _zero_gradient_to(_unary.abs(x) * sign, y)


def hypot(x, y, name=None):
    """sqrt(x**2 + y**2), elementwise with broadcasting.

    Example:
        >>> import dygraph
        >>> dygraph.hypot(dygraph.to_tensor([3.0]), dygraph.to_tensor([4.0])).numpy()
        array([5.], dtype=float32)
    """
    x, y = binary_operands(float_operand(x, "hypot"), y, "hypot")
    return _unary.sqrt(x * x + y * y)


@captured_whole
def ldexp(x, y, name=None):
    """x * 2**y (y an integer or float tensor); integer x gives the default float.

    Example:
        >>> import dygraph
        >>> dygraph.ldexp(dygraph.to_tensor([1.0, 3.0]), dygraph.to_tensor([2, 1])).numpy()
        array([4., 6.], dtype=float32)
    """
    x = _real(float_operand(x, "ldexp"), "ldexp", TypeError)
    y = _real(as_tensor(y, "ldexp"), "ldexp", TypeError)
    if y._data.dtype.kind == "f":  # Paddle takes a float exponent too: 2**y, with its gradient
        return x * (2.0 ** y)
    power = _constant(_xp(y).ldexp(_xp(y).ones((), x._data.dtype), y._data))
    return x * power


def frexp(x, name=None):
    """(mantissa, exponent) with x = mantissa * 2**exponent and 0.5 <= |mantissa| < 1;
    both in x's float dtype, as in Paddle.

    Example:
        >>> import dygraph
        >>> m, e = dygraph.frexp(dygraph.to_tensor([8.0]))
        >>> m.numpy(), e.numpy()
        (array([0.5], dtype=float32), array([4.], dtype=float32))
    """
    x = float_operand(x, "frexp")

    def fn(xp, a):
        return xp.frexp(a)[1].astype(a.dtype)

    return apply(_Mantissa(), x), apply(_NoGrad("frexp", fn), x)


def logaddexp(x, y, name=None):
    """log(exp(x) + exp(y)) without overflow.

    Example:
        >>> import dygraph
        >>> float(dygraph.logaddexp(dygraph.to_tensor(1000.0), dygraph.to_tensor(1000.0)))
        1000.693...
    """
    x, y = binary_operands(float_operand(x, "logaddexp"), y, "logaddexp")
    try:
        np.broadcast_shapes(x._data.shape, y._data.shape)
    except ValueError:
        raise op_error("logaddexp", f"shapes {x.shape} and {y.shape} do not broadcast") \
            from None
    # The shift by the (constant) max keeps exp() finite; it does not change the value or
    # the gradient of the expression.
    xp = _xp(x)
    top = xp.maximum(x._data, y._data)
    top = _constant(xp.where(xp.isfinite(top), top, 0).astype(x._data.dtype))
    return top + _unary.log(_unary.exp(x - top) + _unary.exp(y - top))


def nextafter(x, y, name=None):
    """The next representable float after x towards y (no gradient).

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([1.0], dtype='float64')
        >>> bool(dygraph.nextafter(x, x + 1) > x)
        True
    """
    x, y = binary_operands(float_operand(x, "nextafter"), y, "nextafter")
    return apply(_NoGrad("nextafter", lambda xp, a, b: xp.nextafter(a, b)), x, y)


@captured_whole
def heaviside(x, y, name=None):
    """The step function: 0 where x < 0, y where x == 0, 1 where x > 0; the gradient
    flows to y where x == 0.

    Example:
        >>> import dygraph
        >>> dygraph.heaviside(dygraph.to_tensor([-1.0, 0.0, 2.0]), dygraph.to_tensor(5.0)).numpy()
        array([0., 5., 1.], dtype=float32)
    """
    x, y = binary_operands(x, y, "heaviside")
    step = _constant((x._data > 0).astype(x._data.dtype))
    return _zero_gradient_to(_unary.where(x == 0, y, step), x)


def gcd(x, y, name=None):
    """Greatest common divisor of integer tensors (gcd(0, 0) = 0).

    Example:
        >>> import dygraph
        >>> dygraph.gcd(dygraph.to_tensor([12, -3]), dygraph.to_tensor([8, 6])).numpy()
        array([4, 3])
    """
    x, y = _integer_operands(x, y, "gcd")
    if x._data.dtype.kind == "f":
        return _float_gcd(x, y)
    return apply(_NoGrad("gcd", lambda xp, a, b: xp.gcd(a, b)), x, y)


def lcm(x, y, name=None):
    """Least common multiple of integer tensors (0 when either is 0).

    Example:
        >>> import dygraph
        >>> dygraph.lcm(dygraph.to_tensor([12, -3]), dygraph.to_tensor([8, 6])).numpy()
        array([24,  6])
    """
    x, y = _integer_operands(x, y, "lcm")
    if x._data.dtype.kind == "f":  # no gradient, as in Paddle
        with grad_mode.no_grad():
            divisor = _float_gcd(x, y)
            zero = divisor == 0
            return _unary.where(zero, 0.0,
                                _unary.abs(x * y) / _unary.where(zero, 1.0, divisor))
    return apply(_NoGrad("lcm", lambda xp, a, b: xp.lcm(a, b)), x, y)


def sinc(x, name=None):
    """sin(pi x) / (pi x), with sinc(0) = 1.

    Example:
        >>> import dygraph
        >>> dygraph.sinc(dygraph.to_tensor([0.0, 0.5])).numpy().round(4)
        array([1.    , 0.6366], dtype=float32)
    """
    x = float_operand(x, "sinc")
    t = x * _pymath.pi
    near = _unary.abs(t) < _SINC_TAYLOR
    # Near 0 the Taylor polynomial (Horner's rule in t^2) gives the right value and
    # derivatives; elsewhere sin(t)/t. Each branch is evaluated at a safe point where the
    # other is taken: 1 for sin(t)/t, 0 for the polynomial (its t^12 overflows float32
    # beyond |t| = 1600, and a masked inf gradient times 0 is nan).
    small = _unary.where(near, t, 0.0)
    t2 = small * small
    coefficients = _SINC_SERIES if np.finfo(x._data.dtype).eps < 1e-10 else _SINC_SERIES[:7]
    taylor = t2 * coefficients[-1] + coefficients[-2]
    for c in reversed(coefficients[:-2]):
        taylor = taylor * t2 + c
    safe = _unary.where(near, 1.0, t)
    return _unary.where(near, taylor, _unary.sin(safe) / safe)


def sgn(x, name=None):
    """The sign of real x (-1, 0, 1); x / |x| for complex x (0 at 0).

    Example:
        >>> import dygraph
        >>> dygraph.sgn(dygraph.to_tensor([-2.0, 0.0, 3.0])).numpy()
        array([-1.,  0.,  1.], dtype=float32)
    """
    x = as_tensor(x, "sgn")
    if x._data.dtype.kind != "c":
        return _unary.sign(x)
    magnitude = _unary.abs(x)
    zero = magnitude == 0
    safe = _unary.where(zero, 1.0, magnitude)
    return _unary.where(zero, x * 0, x / cast(safe, x._data.dtype))


def frac(x, name=None):
    """The fractional part x - trunc(x) (sign of x kept); integers give 0.

    Example:
        >>> import dygraph
        >>> dygraph.frac(dygraph.to_tensor([1.25, -2.5])).numpy()
        array([ 0.25, -0.5 ], dtype=float32)
    """
    x = as_tensor(x, "frac")
    return x - _unary.trunc(x)


def _angle_scaled(x, factor, op):
    """x * factor for deg2rad/rad2deg, with Paddle's dtypes: int32 and int64 give the
    default float; bool and the narrower integers stay in their dtype, scaled by the
    factor cut to it (bool: True, so x is unchanged; deg2rad's factor cuts to 0)."""
    x = as_tensor(x, op)
    dtype = x._data.dtype
    if dtype.kind == "b":
        return x.clone()
    if dtype.kind in "iu" and dtype.itemsize < 4:
        return x * int(factor)  # the dtype's integer arithmetic: wraps around
    return float_operand(x, op) * factor


def deg2rad(x, name=None):
    """Degrees to radians; int32/int64 give the default float, bool and narrower
    integers keep their dtype (see `_angle_scaled`).

    Example:
        >>> import dygraph
        >>> dygraph.deg2rad(dygraph.to_tensor([180])).numpy().round(5)
        array([3.14159], dtype=float32)
    """
    return _angle_scaled(x, _pymath.pi / 180.0, "deg2rad")


def rad2deg(x, name=None):
    """Radians to degrees; int32/int64 give the default float, bool and narrower
    integers keep their dtype (see `_angle_scaled`).

    Example:
        >>> import dygraph
        >>> dygraph.rad2deg(dygraph.to_tensor([3.141592653589793], dtype='float64')).numpy()
        array([180.])
    """
    return _angle_scaled(x, 180.0 / _pymath.pi, "rad2deg")


def logit(x, eps=None, name=None):
    """log(x / (1 - x)); with eps, x is first clipped to [eps, 1 - eps] (no gradient
    outside that range).

    Example:
        >>> import dygraph
        >>> dygraph.logit(dygraph.to_tensor([0.5, 0.0]), eps=0.1).numpy().round(4)
        array([ 0.    , -2.1972], dtype=float32)
    """
    x = float_operand(x, "logit")
    if eps is not None and eps > 0:
        x = _unary.clip(x, eps, 1.0 - eps)
    elif not x.stop_gradient:
        # Outside [0, 1] logit is undefined: its value is NaN, and so (as in Paddle) is its
        # gradient, which the formula below would give finite: x is scaled by NaN there.
        xp = _xp(x)
        inside = (x._data >= 0) & (x._data <= 1)
        x = x * _constant(xp.where(inside, 1, xp.nan).astype(x._data.dtype))
    return _unary.log(x / (1.0 - x))


def stanh(x, scale_a=0.67, scale_b=1.7159, name=None):
    """The scaled tanh scale_b * tanh(scale_a * x).

    Example:
        >>> import dygraph
        >>> dygraph.stanh(dygraph.to_tensor([0.0])).numpy()
        array([0.], dtype=float32)
    """
    return _unary.tanh(float_operand(x, "stanh") * scale_a) * scale_b


def sinc_(x, name=None):
    """In-place `sinc`, as Paddle's: x takes sinc's values (NaN where they are NaN) and
    the result is a new tensor, equal to x but with 1 in place of NaN.

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([0.5, float('nan')])
        >>> out = x.sinc_()
        >>> out is x, out.numpy().round(4), x.numpy().round(4)
        (False, array([0.6366, 1.    ], dtype=float32), array([0.6366,    nan], dtype=float32))
    """
    run_inplace("sinc_", sinc, x)
    return _unary.where(compare.isnan(x), 1.0, x)


# Paddle's in-place forms of these ops (x.hypot_(y), paddle.gcd_(x, y), ...).
for _name in ("copysign", "hypot", "ldexp", "gcd", "lcm", "frac", "logit"):
    setattr(Tensor, _name + "_", make_inplace(_name + "_", globals()[_name]))
Tensor.sinc_ = sinc_
