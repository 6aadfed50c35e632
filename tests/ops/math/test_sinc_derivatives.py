"""sinc and its first two derivatives around the switch from its Taylor series to sin(t)/t.

By the quotient rule the derivatives of sin(t)/t cancel like 3 / t^2 (the first) and 6 / t^3
(the second) for small t = pi x, so sinc must not take that branch close to 0. The points
here run from 1e-4 to 1.8 in t (below the zero of the second derivative at t = 2.08),
through both the series' cutoff and the former one at 1e-2, with both signs, and are checked
elementwise against the series summed in 60 decimal digits.
"""

from decimal import Decimal, localcontext

import numpy as np
import pytest

import dygraph
from dygraph.ops.math import elementwise as elementwise_extra

_PI = Decimal("3.14159265358979323846264338327950288419716939937510582097494459")

# Largest error allowed, in units of the dtype's eps relative to the exact value, for
# sinc, its derivative and its second derivative. Measured: 1.3, 3.8 and 10 (the second
# derivative's grows toward its zero at t = 2.08, where no formula keeps relative error).
TOLERANCE_EPS = (4.0, 8.0, 24.0)


def _reference(x):
    """sinc(x), sinc'(x) and sinc''(x) at the float x, from the series in 60 digits."""
    with localcontext() as ctx:
        ctx.prec = 60
        t = Decimal(float(x)) * _PI
        t2 = t * t
        value = first = second = Decimal(0)
        term = Decimal(1)  # (-1)^k t^(2k) / (2k+1)!
        for k in range(60):
            value += term
            if k >= 1:
                # d/dt and d2/dt2 of t^(2k) / (2k+1)! times the same sign
                first += 2 * k * term / t
                second += 2 * k * (2 * k - 1) * term / t2
            term = -term * t2 / ((2 * k + 2) * (2 * k + 3))
        return float(value), float(first * _PI), float(second * _PI * _PI)


def _points():
    cut = elementwise_extra._SINC_TAYLOR
    t = np.concatenate([np.geomspace(1e-4, 1.8, 120), np.geomspace(1e-2 * 0.9, 1e-2 * 1.5, 20),
                        np.linspace(cut * 0.95, cut * 1.05, 21)])
    x = t / np.pi
    x = np.concatenate([x, -x[::3]])
    # The float32 neighbours of the cutoff in x, on both sides.
    edge = np.float32(cut / np.pi)
    close = [np.nextafter(edge, np.float32(0)), edge, np.nextafter(edge, np.float32(1))]
    return np.concatenate([x, np.array(close, np.float64)])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sinc_and_derivatives_near_the_series_cutoff(dtype):
    x_np = _points().astype(dtype)
    x = dygraph.to_tensor(x_np, stop_gradient=False)
    y = dygraph.sinc(x)
    (first,) = dygraph.grad(y.sum(), x, create_graph=True)
    (second,) = dygraph.grad(first.sum(), x)
    want = np.array([_reference(v) for v in x_np.astype(np.float64)])
    eps = np.finfo(dtype).eps
    for order, got in enumerate((y.numpy(), first.numpy(), second.numpy())):
        assert got.dtype == dtype
        exact = want[:, order]
        err = np.abs(got.astype(np.float64) - exact) / (np.abs(exact) * eps)
        worst = int(np.argmax(err))
        assert err[worst] <= TOLERANCE_EPS[order], (
            f"derivative {order} errs {err[worst]:.1f} eps at x = {x_np[worst]!r} "
            f"(t = {np.pi * float(x_np[worst]):.4g})")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sinc_gradients_finite_far_from_zero(dtype):
    """The series is evaluated at 0 where sin(t)/t is taken: its high powers of a large t
    would overflow, and the masked branch's inf derivative would make the gradient nan."""
    x_np = np.array([0.0, 45.5, -150.25, 1e4 + 0.5, 3e7 + 0.5], dtype)
    x = dygraph.to_tensor(x_np, stop_gradient=False)
    (first,) = dygraph.grad(dygraph.sinc(x).sum(), x, create_graph=True)
    (second,) = dygraph.grad(first.sum(), x)
    assert np.isfinite(first.numpy()).all() and np.isfinite(second.numpy()).all()
    # Where pi * x rounds by little against the period, sin(t)/t's derivative.
    t = np.pi * x_np[1:3].astype(np.float64)
    np.testing.assert_allclose(first.numpy()[1:3], np.pi * (np.cos(t) / t - np.sin(t) / t**2),
                               rtol=1e-3, atol=1e-6)
