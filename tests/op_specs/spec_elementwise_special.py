"""Spec entries for the elementwise math (dygraph/ops/math/elementwise.py) and the
special functions (dygraph/ops/unary/special.py). The special-function references are SciPy's."""

import math

import numpy as np

import dygraph as D
from tests.op_specs import OpSpec

A = (3, 4)
POS = (0.5, 2.0)


def _signed(rng):
    """Values with |v| in [0.1, 1] and random signs: away from the kink of |x| at 0."""
    return rng.uniform(0.1, 1.0, A) * rng.choice([-1.0, 1.0], A)


def _sp():
    import scipy.special

    return scipy.special


def _sinc_input(rng):
    v = rng.uniform(-2.0, 2.0, A)
    v[0, 0] = 0.0  # the removable singularity
    return v


_HEAVISIDE_X = np.array([[-1.0, 0.0, 2.0, 0.0], [0.5, -0.5, 0.0, 3.0], [0.0, 1.0, -2.0, 4.0]])
_LDEXP_EXP = np.array([[0, 1, -1, 3], [2, -2, 0, 1], [5, 0, 1, -3]])


SPECS = [
    OpSpec("copysign", D.copysign, np.copysign, [_signed, _signed], grad_inputs=[0]),
    OpSpec("hypot", D.hypot, np.hypot, [_signed, _signed]),
    OpSpec("ldexp", D.ldexp, np.ldexp, [A, _LDEXP_EXP]),
    OpSpec("logaddexp", D.logaddexp, np.logaddexp, [A, (1, 4)], domain=(-3.0, 3.0)),
    OpSpec("heaviside", D.heaviside, np.heaviside, [_HEAVISIDE_X, A], grad_inputs=[1]),
    OpSpec("sinc", D.sinc, np.sinc, [_sinc_input]),
    OpSpec("sgn", D.sgn, np.sign, [_signed]),
    OpSpec("frac", D.frac, lambda x: x - np.trunc(x), [_signed], domain=(-3.0, 3.0)),
    OpSpec("deg2rad", D.deg2rad, np.deg2rad, [A]),
    OpSpec("rad2deg", D.rad2deg, np.rad2deg, [A]),
    OpSpec("logit", D.logit, lambda x: np.log(x / (1 - x)), [A], domain=(0.1, 0.9)),
    OpSpec("logit", lambda x: D.logit(x, eps=0.2),
           lambda x: np.log(np.clip(x, 0.2, 0.8) / (1 - np.clip(x, 0.2, 0.8))), [A],
           domain=(0.25, 0.75), id="eps"),
    OpSpec("stanh", D.stanh, lambda x: 1.7159 * np.tanh(0.67 * x), [A]),
    OpSpec("positive", D.positive, lambda x: x, [A], double=False),  # the identity: x itself
    OpSpec("negative", D.negative, np.negative, [A]),
    OpSpec("true_divide", D.true_divide, np.true_divide, [A, A], domain=POS),
    OpSpec("div", D.div, np.divide, [A, A], domain=POS),
    OpSpec("mul", D.mul, np.multiply, [A, A]),
    OpSpec("sub", lambda x, y: D.sub(x, y, alpha=3), lambda x, y: x - 3 * y, [A, A]),
    OpSpec("digamma", D.digamma, lambda x: _sp().psi(x), [A], domain=POS),
    OpSpec("lgamma", D.lgamma, lambda x: _sp().gammaln(x), [A], domain=POS),
    OpSpec("gammaln", D.gammaln, np.vectorize(math.lgamma), [A], domain=POS),
    OpSpec("polygamma", lambda x: D.polygamma(x, 1), lambda x: _sp().polygamma(1, x), [A],
           domain=POS),
    OpSpec("polygamma", lambda x: D.polygamma(x, 0), lambda x: _sp().psi(x), [A],
           domain=POS, id="n0"),
    OpSpec("multigammaln", lambda x: D.multigammaln(x, 3),
           lambda x: _sp().multigammaln(x, 3), [(4,)], domain=(1.5, 3.0)),
    OpSpec("i0", D.i0, np.i0, [A], domain=(-2.0, 2.0)),
    OpSpec("i0e", D.i0e, lambda x: _sp().i0e(x), [A], domain=(0.2, 2.0)),
    OpSpec("i0e", D.i0e, lambda x: _sp().i0e(x), [A], domain=(-2.0, -0.2), id="negative"),
    OpSpec("i1", D.i1, lambda x: _sp().i1(x), [A], domain=(-2.0, 2.0)),
    OpSpec("i1e", D.i1e, lambda x: _sp().i1e(x), [A], domain=(0.2, 2.0)),
    OpSpec("i1e", D.i1e, lambda x: _sp().i1e(x), [A], domain=(-2.0, -0.2), id="negative"),
    OpSpec("gammainc", D.gammainc, lambda a, y: _sp().gammainc(a, y), [A, A], domain=POS,
           grad_inputs=[1]),
    OpSpec("gammaincc", D.gammaincc, lambda a, y: _sp().gammaincc(a, y), [A, A],
           domain=POS, grad_inputs=[1]),
]


def _fill_diagonal_tensor_ref(x, y):
    out = x.copy()
    for k in range(3):
        out[:, k, k + 1] = y[:, k]
    return out


SPECS.append(OpSpec("fill_diagonal_tensor",
                    lambda x, y: x.fill_diagonal_tensor(y, offset=1, dim1=1, dim2=2),
                    _fill_diagonal_tensor_ref, [(2, 3, 4), (2, 3)]))
