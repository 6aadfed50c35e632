"""Gradients in float32: for each distribution, those of log_prob, entropy and (where it
is reparameterised) rsample agree with the float64 ones, which test_<family>.py checks
against central differences."""

import numpy as np
import pytest

import dygraph
from dygraph.distribution import (
    Bernoulli,
    Beta,
    Binomial,
    Categorical,
    Cauchy,
    ContinuousBernoulli,
    Dirichlet,
    Exponential,
    Gamma,
    Geometric,
    Gumbel,
    Laplace,
    LKJCholesky,
    LogNormal,
    MultivariateNormal,
    Normal,
    Poisson,
    StudentT,
    Uniform,
)
from tests.distribution.helpers import float32_grads_match

A, B = [0.5, 1.5, 3.0], [1.0, 0.5, 2.0]
X = [0.3, 1.2, 2.5]


def _v(values, like):
    return dygraph.to_tensor(np.asarray(values), dtype=like.dtype)


def _all(d, x, reparameterised=True):
    """log_prob at x + entropy (+ a sum of rsample draws), in the distribution's dtype."""
    entropy = d.entropy().sum()
    total = d.log_prob(_v(x, entropy)).sum() + entropy
    return total + d.rsample([3]).sum() if reparameterised else total


CASES = {
    "normal": (lambda a, b: _all(Normal(a, b), X), [A, B]),
    "lognormal": (lambda a, b: _all(LogNormal(a, b), X), [A, B]),
    "uniform": (lambda a, b: _all(Uniform(a, a + b + 2.0), X), [A, B]),
    "laplace": (lambda a, b: _all(Laplace(a, b), X), [A, B]),
    "cauchy": (lambda a, b: _all(Cauchy(a, b), X), [A, B]),
    "gumbel": (lambda a, b: _all(Gumbel(a, b), X), [A, B]),
    "gamma": (lambda a, b: _all(Gamma(a, b), X), [A, B]),
    "exponential": (lambda b: _all(Exponential(b), X), [B]),
    "beta": (lambda a, b: _all(Beta(a, b), [0.2, 0.5, 0.9], False), [A, B]),
    "dirichlet": (lambda a: _all(Dirichlet(a), [0.2, 0.3, 0.5], False), [A]),
    "student_t": (lambda a, b: StudentT(a + 2.0, a, b).log_prob(_v(X, a)).sum()
                  + StudentT(a + 2.0, a, b).entropy().sum(), [A, B]),
    "bernoulli": (lambda p: _all(Bernoulli(p), [1.0, 0.0, 1.0]), [[0.2, 0.5, 0.7]]),
    "continuous_bernoulli": (lambda p: _all(ContinuousBernoulli(p), [0.1, 0.5, 0.8]),
                             [[0.2, 0.3, 0.7]]),
    "categorical": (lambda w: Categorical(w).log_prob(dygraph.to_tensor([2, 0])).sum()
                    + Categorical(w).entropy(), [A]),
    "counts": (lambda p, r: Binomial(_v([10.0] * 3, p), p).log_prob(_v([2.0, 5.0, 9.0], p)).sum()
               + Poisson(r).log_prob(_v([0.0, 2.0, 4.0], r)).sum()
               + Geometric(p).log_prob(_v([1.0, 0.0, 3.0], p)).sum(),
               [[0.2, 0.5, 0.7], B]),
    "mvn": (lambda loc, tril: _all(MultivariateNormal(loc, scale_tril=tril.tril()), X),
            [A, [[1.0, 0.0, 0.0], [0.3, 2.0, 0.0], [-0.2, 0.1, 0.5]]]),
    "lkj": (lambda c: LKJCholesky(3, c).log_prob(_v(np.linalg.cholesky(
        [[1.0, 0.3, -0.2], [0.3, 1.0, 0.4], [-0.2, 0.4, 1.0]]), c)), [1.5]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_float32_gradients_match_float64(name):
    fn, params = CASES[name]
    float32_grads_match(fn, params, seed=0)
