"""Error function and its inverse (part of the unary family: `dygraph.erf`, `dygraph.erfinv`).

SciPy is optional: when `scipy.special` can be imported (lazily, on first use, because
importing it is slow) its erf/erfinv are used, and `cupyx.scipy.special`'s for GPU arrays
(one kernel; the fallback is some 170 array calls); otherwise a vectorised pure-NumPy
evaluation with about 1e-15 relative error, accurate enough for float64 gradient checks.
"""

import math

import numpy as np

from dygraph.autograd.backward_math import register
from dygraph.autograd.function import Op, apply
from dygraph.ops.common import float_operand
from dygraph.ops.unary.special import special_module

__all__ = ["erf", "erfinv"]
NONDIFF = set()

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2.0
# The Maclaurin series below is used under _SPLIT and the continued fraction of erfc above;
# these depths give about 1e-15 relative error on both sides of the split (checked against
# math.erf/math.erfc in tests/ops/unary/test_unary_behaviour.py).
_SPLIT = 2.0
_SERIES_TERMS = 30
_FRACTION_DEPTH = 50
_HALLEY_STEPS = 2


def _erf_erfc(xp, z):
    """(erf(z), erfc(z)) for float64 z >= 0, each with small relative error.

    Below _SPLIT: erf(z) = 2/sqrt(pi) exp(-z^2) sum_n (2z^2)^n z / (1*3*...*(2n+1)), a
    series of positive terms (no cancellation). Above: the continued fraction
    erfc(z) = exp(-z^2)/sqrt(pi) / (z + (1/2)/(z + 1/(z + (3/2)/(z + ...)))),
    evaluated from the tail, which converges fast for large z.
    """
    zs = xp.minimum(z, _SPLIT)
    z2 = zs * zs
    term = zs
    total = zs
    for n in range(_SERIES_TERMS):
        term = term * (2.0 * z2 / (2 * n + 3))
        total = total + term
    erf_small = _TWO_OVER_SQRT_PI * xp.exp(-z2) * total
    zl = xp.maximum(z, _SPLIT)
    frac = zl
    for k in range(_FRACTION_DEPTH, 0, -1):
        frac = zl + (0.5 * k) / frac
    erfc_large = xp.exp(-zl * zl) / (math.sqrt(math.pi) * frac)
    small = z < _SPLIT
    return (xp.where(small, erf_small, 1.0 - erfc_large),
            xp.where(small, 1.0 - erf_small, erfc_large))


def erf_fallback(xp, x):
    """erf on an array without SciPy (computed in float64, returned in x's dtype)."""
    x64 = xp.asarray(x, dtype=np.float64)
    value = _erf_erfc(xp, xp.abs(x64))[0]
    return (xp.sign(x64) * value).astype(x.dtype, copy=False)


def erfinv_fallback(xp, y):
    """erfinv on an array without SciPy: Winitzki's closed-form estimate (about 2e-3
    relative error) refined by Halley steps on erf(x) = |y|. Near |y| = 1 the residual is
    taken as (1 - |y|) - erfc(x), where 1 - |y| is exact, so the tails keep full accuracy."""
    y64 = xp.asarray(y, dtype=np.float64)
    a = xp.abs(y64)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = 1.0 - a
        log_term = xp.log(w * (1.0 + a))  # log(1 - y^2)
        t = 2.0 / (math.pi * 0.147) + 0.5 * log_term
        x = xp.sqrt(xp.sqrt(t * t - log_term / 0.147) - t)
        inside = a < 1.0
        x = xp.where(inside, x, 0.0)
        for _ in range(_HALLEY_STEPS):
            erf_x, erfc_x = _erf_erfc(xp, x)
            residual = xp.where(a < 0.5, erf_x - a, w - erfc_x)
            slope = _TWO_OVER_SQRT_PI * xp.exp(-x * x)
            # Halley's step for f(x) = erf(x) - a, using f'' = -2 x f'.
            x = x - residual / (slope + x * residual)
        x = xp.where(inside, x, xp.where(a == 1.0, xp.inf, xp.nan))
    return (xp.sign(y64) * x).astype(y.dtype, copy=False)


def _erf_array(xp, x):
    special = special_module(xp)
    if special is None:
        return erf_fallback(xp, x)
    return special.erf(x).astype(x.dtype, copy=False)


def _erfinv_array(xp, y):
    special = special_module(xp)
    if special is None:
        return erfinv_fallback(xp, y)
    return special.erfinv(y).astype(y.dtype, copy=False)


class Erf(Op):
    save_inputs = True

    def forward(self, xp, x):
        return _erf_array(xp, x)

    def backward(self, m, g):
        x = self.x(0, m)
        return (g * _TWO_OVER_SQRT_PI * m.exp(-(x * x)),)


class Erfinv(Op):
    save_output = True

    def forward(self, xp, y):
        return _erfinv_array(xp, y)

    def backward(self, m, g):
        x = self.y(m)
        return (g * _SQRT_PI_OVER_TWO * m.exp(x * x),)


def erf(x, name=None):
    """Elementwise Gauss error function 2/sqrt(pi) * integral_0^x exp(-t^2) dt.

    Example:
        >>> import dygraph
        >>> dygraph.erf(dygraph.to_tensor([0.0, 10.0])).numpy()
        array([0., 1.], dtype=float32)
    """
    return apply(Erf(), float_operand(x, "erf"))


def erfinv(x, name=None):
    """Elementwise inverse error function: erf(erfinv(x)) = x for x in (-1, 1);
    +-inf at +-1, nan outside [-1, 1].

    Example:
        >>> import dygraph
        >>> dygraph.erfinv(dygraph.to_tensor([0.0, 1.0])).numpy()
        array([ 0., inf], dtype=float32)
    """
    return apply(Erfinv(), float_operand(x, "erfinv"))


register("erf", array_fn=lambda xp: lambda x: _erf_array(xp, x), tensor_fn=erf)
register("erfinv", array_fn=lambda xp: lambda x: _erfinv_array(xp, x), tensor_fn=erfinv)
