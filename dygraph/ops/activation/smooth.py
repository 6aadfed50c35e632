"""Smooth activations of dygraph.nn.functional: sigmoid and its relatives, the exponential
linear units, gelu, softplus, softsign, mish and tanhshrink.

Each is written in a form that neither overflows nor loses precision in the tails
(log_sigmoid and softplus through log1p(exp(-|x|))). Gradients use `m.sigmoid` and
`m.softplus`, registered below so that they also work under create_graph.
"""

import math

import numpy as np

from dygraph.autograd.backward_math import register
from dygraph.autograd.function import Op, apply
from dygraph.framework.errors import op_error
from dygraph.ops.common import float_operand
from dygraph.ops.inplace import run_inplace
from dygraph.ops.unary.erf import _erf_array

__all__ = ["sigmoid", "log_sigmoid", "silu", "swish", "elu", "celu", "selu", "gelu",
           "softplus", "softsign", "mish", "tanhshrink"]
NONDIFF = set()

_SQRT_HALF = math.sqrt(0.5)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_GELU_CUBIC = 0.044715


def _sigmoid_array(xp, x):
    # exp(-x) overflows to inf for very negative x, and 1 / (1 + inf) = 0 is the right
    # limit; only the warning is silenced.
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + xp.exp(-x))


def _softplus_array(xp, x):
    """log(1 + exp(x)) without overflow: max(x, 0) + log1p(exp(-|x|))."""
    return xp.maximum(x, 0) + xp.log1p(xp.exp(-xp.abs(x)))


class Sigmoid(Op):
    complex_grad = "holomorphic"
    save_output = True

    def forward(self, xp, x):
        return _sigmoid_array(xp, x)

    def backward(self, m, g):
        y = self.y(m)
        gy = g * y
        return (gy - gy * y,)  # g y (1 - y), with no Python-float operand (see Tanh)


def _complex_softplus(xp, z, beta=1):
    """log(1 + exp(z)) / beta of complex z on the principal branch of log, as Paddle computes
    it (the real rewrite through |x| has no complex counterpart); exp may overflow to inf,
    and inf / beta be NaN, where softplus takes x instead."""
    with np.errstate(over="ignore", invalid="ignore"):
        soft = xp.log1p(xp.exp(z))
        return soft / beta if beta != 1 else soft


class LogSigmoid(Op):
    complex_grad = "holomorphic"
    save_inputs = True

    def forward(self, xp, x):
        if x.dtype.kind == "c":
            return -_complex_softplus(xp, -x)
        return xp.minimum(x, 0) - xp.log1p(xp.exp(-xp.abs(x)))

    def backward(self, m, g):
        return (g * m.sigmoid(-self.x(0, m)),)


class Silu(Op):
    save_inputs = True

    def forward(self, xp, x):
        return x * _sigmoid_array(xp, x)

    def backward(self, m, g):
        x = self.x(0, m)
        s = m.sigmoid(x)
        return (g * s * (1.0 + x * (1.0 - s)),)


class ExpLinear(Op):
    """scale * (x if x > 0 else alpha * (exp(x * inv) - 1)): elu (inv = 1, scale = 1),
    celu (inv = 1 / alpha) and selu (inv = 1)."""

    attrs = ("alpha", "inv", "scale")

    save_inputs = True

    def __init__(self, alpha, scale, inv):
        self.alpha = alpha
        self.scale = scale
        self.inv = inv

    def forward(self, xp, x):
        # Each term is zero on the other side; taking the exponential of min(x, 0) keeps it
        # from overflowing for large positive x.
        out = xp.maximum(x, 0) + self.alpha * xp.expm1(xp.minimum(x, 0) * self.inv)
        return out * self.scale if self.scale != 1.0 else out

    def backward(self, m, g):
        x = self.x(0, m)
        slope = (self.alpha * self.inv) * m.exp(m.minimum(x, 0) * self.inv)
        positive = g * (x > 0)
        gx = positive + (g - positive) * slope
        return (gx * self.scale if self.scale != 1.0 else gx,)


class Gelu(Op):
    attrs = ("approximate",)

    save_inputs = True

    def __init__(self, approximate):
        self.approximate = approximate

    def forward(self, xp, x):
        if self.approximate:
            inner = _SQRT_2_OVER_PI * (x + _GELU_CUBIC * x * x * x)
            return 0.5 * x * (1.0 + xp.tanh(inner))
        return 0.5 * x * (1.0 + _erf_array(xp, x * _SQRT_HALF))

    def backward(self, m, g):
        x = self.x(0, m)
        if self.approximate:
            x2 = x * x
            t = m.tanh(_SQRT_2_OVER_PI * (x + _GELU_CUBIC * x2 * x))
            d_inner = _SQRT_2_OVER_PI * (1.0 + (3.0 * _GELU_CUBIC) * x2)
            return (g * (0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * d_inner),)
        cdf = 0.5 * (1.0 + m.erf(x * _SQRT_HALF))
        pdf = _INV_SQRT_2PI * m.exp(-0.5 * (x * x))
        return (g * (cdf + x * pdf),)


class Softplus(Op):
    """log(1 + exp(beta x)) / beta, or x where beta x > threshold (its real part, for complex
    x)."""

    attrs = ("beta", "threshold")

    complex_grad = "holomorphic"
    save_inputs = True

    def __init__(self, beta, threshold):
        self.beta = beta
        self.threshold = threshold

    def forward(self, xp, x):
        z = x * self.beta if self.beta != 1 else x
        if x.dtype.kind == "c":
            return xp.where(z.real > self.threshold, x, _complex_softplus(xp, z, self.beta))
        soft = _softplus_array(xp, z)
        if self.beta != 1:
            soft = soft / self.beta
        return xp.where(z > self.threshold, x, soft)

    def backward(self, m, g):
        x = self.x(0, m)
        z = x * self.beta if self.beta != 1 else x
        linear = g * (z > self.threshold)
        return (linear + (g - linear) * m.sigmoid(z),)

    def backward_complex(self, m, g):
        x = self.x(0, m)
        z = x * self.beta if self.beta != 1 else x
        linear = g * (m.real(z) > self.threshold)
        return (linear + (g - linear) * m.sigmoid(z),)


class Softsign(Op):
    save_inputs = True

    def forward(self, xp, x):
        return x / (1.0 + xp.abs(x))

    def backward(self, m, g):
        d = 1.0 + m.abs(self.x(0, m))
        return (g / (d * d),)


class Mish(Op):
    save_inputs = True

    def forward(self, xp, x):
        return x * xp.tanh(_softplus_array(xp, x))

    def backward(self, m, g):
        x = self.x(0, m)
        t = m.tanh(m.softplus(x))
        return (g * (t + x * (1.0 - t * t) * m.sigmoid(x)),)


class Tanhshrink(Op):
    save_inputs = True

    def forward(self, xp, x):
        return x - xp.tanh(x)

    def backward(self, m, g):
        t = m.tanh(self.x(0, m))
        return (g * t * t,)


def sigmoid(x, name=None):
    """1 / (1 + exp(-x)), elementwise.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.sigmoid(dygraph.to_tensor([0.0])).numpy()
        array([0.5], dtype=float32)
    """
    return apply(Sigmoid(), float_operand(x, "sigmoid"))


def log_sigmoid(x, name=None):
    """log(sigmoid(x)), computed without overflow for large |x|.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.log_sigmoid(dygraph.to_tensor([-100.0])).numpy()
        array([-100.], dtype=float32)
    """
    return apply(LogSigmoid(), float_operand(x, "log_sigmoid"))


def silu(x, inplace=False, name=None):
    """x * sigmoid(x); with inplace=True written into x, which is returned.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.silu(dygraph.to_tensor([0.0])).numpy()
        array([0.], dtype=float32)
    """
    if inplace:
        return run_inplace("silu", silu, x)
    return apply(Silu(), float_operand(x, "silu"))


def swish(x, name=None):
    """x * sigmoid(x) (the same function as silu).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.swish(dygraph.to_tensor([0.0])).numpy()
        array([0.], dtype=float32)
    """
    return apply(Silu(), float_operand(x, "swish"))


def elu(x, alpha=1.0, name=None):
    """x for x > 0, alpha * (exp(x) - 1) otherwise.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.elu(dygraph.to_tensor([1.0, 0.0])).numpy()
        array([1., 0.], dtype=float32)
    """
    return apply(ExpLinear(float(alpha), 1.0, 1.0), float_operand(x, "elu"))


def celu(x, alpha=1.0, name=None):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)); alpha must not be 0.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.celu(dygraph.to_tensor([2.0, 0.0])).numpy()
        array([2., 0.], dtype=float32)
    """
    if alpha == 0:
        raise op_error("celu", "alpha must not be 0 (it divides x)", ZeroDivisionError)
    return apply(ExpLinear(float(alpha), 1.0, 1.0 / alpha), float_operand(x, "celu"))


def selu(x, scale=1.0507009873554804934193349852946,
         alpha=1.6732632423543772848170429916717, name=None):
    """scale * (x if x > 0 else alpha * (exp(x) - 1)); scale must exceed 1, alpha be >= 0.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.selu(dygraph.to_tensor([0.0])).numpy()
        array([0.], dtype=float32)
    """
    if scale <= 1.0:
        raise op_error("selu", f"scale must be greater than 1.0, got {scale}")
    if alpha < 0:
        raise op_error("selu", f"alpha must be no less than 0, got {alpha}")
    return apply(ExpLinear(float(alpha), float(scale), 1.0), float_operand(x, "selu"))


def gelu(x, approximate=False, name=None):
    """x * Phi(x) with Phi the standard normal CDF (through erf); with approximate=True
    the tanh form 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.gelu(dygraph.to_tensor([0.0, 10.0])).numpy()
        array([ 0., 10.], dtype=float32)
    """
    return apply(Gelu(bool(approximate)), float_operand(x, "gelu"))


def softplus(x, beta=1, threshold=20, name=None):
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.softplus(dygraph.to_tensor([0.0, 30.0])).numpy().round(4)
        array([ 0.6931, 30.    ], dtype=float32)
    """
    return apply(Softplus(beta, threshold), float_operand(x, "softplus"))


def softsign(x, name=None):
    """x / (1 + |x|).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.softsign(dygraph.to_tensor([1.0])).numpy()
        array([0.5], dtype=float32)
    """
    return apply(Softsign(), float_operand(x, "softsign"))


def mish(x, name=None):
    """x * tanh(softplus(x)).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.mish(dygraph.to_tensor([0.0])).numpy()
        array([0.], dtype=float32)
    """
    return apply(Mish(), float_operand(x, "mish"))


def tanhshrink(x, name=None):
    """x - tanh(x).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.tanhshrink(dygraph.to_tensor([0.0])).numpy()
        array([0.], dtype=float32)
    """
    return apply(Tanhshrink(), float_operand(x, "tanhshrink"))


register("sigmoid", array_fn=lambda xp: lambda x: _sigmoid_array(xp, x), tensor_fn=sigmoid)
register("softplus", array_fn=lambda xp: lambda x: _softplus_array(xp, x),
         tensor_fn=softplus)
