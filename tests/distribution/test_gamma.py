"""Gamma, Chi2 and Exponential against SciPy, their samples, KL divergences and gradients
(rsample is differentiable in the rate, as in Paddle)."""

import numpy as np
import pytest

import dygraph
from dygraph.distribution import Chi2, Exponential, Gamma, kl_divergence
from tests.distribution.helpers import assert_seeded, check_grad, check_moments

# SciPy (in the test extra) gives the reference values; without it these tests skip.
stats = pytest.importorskip("scipy.stats")

CONC, RATE = np.array([0.5, 2.0, 7.0]), np.array([1.0, 0.5, 3.0])
X = np.array([0.3, 2.0, 1.5])


@pytest.mark.parametrize("make,ref", [
    (lambda: Gamma(dygraph.to_tensor(CONC), dygraph.to_tensor(RATE)),
     stats.gamma(CONC, scale=1 / RATE)),
    (lambda: Chi2(dygraph.to_tensor(CONC)), stats.chi2(CONC)),
    (lambda: Exponential(dygraph.to_tensor(RATE)), stats.expon(scale=1 / RATE)),
], ids=["gamma", "chi2", "exponential"])
def test_matches_scipy_and_samples(make, ref):
    d = make()
    np.testing.assert_allclose(d.log_prob(dygraph.to_tensor(X)).numpy(), ref.logpdf(X))
    np.testing.assert_allclose(d.prob(dygraph.to_tensor(X)).numpy(), ref.pdf(X))
    np.testing.assert_allclose(d.entropy().numpy(), ref.entropy())
    np.testing.assert_allclose(d.mean.numpy(), ref.mean())
    np.testing.assert_allclose(d.variance.numpy(), ref.var())
    dygraph.seed(0)
    check_moments(d.sample([40000]), ref.mean(), ref.var())
    assert_seeded(lambda: d.sample([3]))


def test_exponential_cdf_and_icdf():
    d = Exponential(dygraph.to_tensor(RATE))
    ref = stats.expon(scale=1 / RATE)
    np.testing.assert_allclose(d.cdf(dygraph.to_tensor(X)).numpy(), ref.cdf(X))
    q = np.array([0.1, 0.5, 0.99])
    np.testing.assert_allclose(d.icdf(dygraph.to_tensor(q)).numpy(), ref.ppf(q))


def test_kl_against_monte_carlo():
    p = Gamma(dygraph.to_tensor(CONC), dygraph.to_tensor(RATE))
    q = Gamma(dygraph.to_tensor(CONC[::-1].copy()), dygraph.to_tensor(RATE * 2))
    dygraph.seed(1)
    x = p.sample([200000])
    estimate = (p.log_prob(x) - q.log_prob(x)).numpy().mean(0)
    np.testing.assert_allclose(kl_divergence(p, q).numpy(), estimate, rtol=0.05, atol=0.01)
    e1, e2 = Exponential(dygraph.to_tensor(RATE)), Exponential(dygraph.to_tensor(RATE * 2))
    np.testing.assert_allclose(kl_divergence(e1, e2).numpy(),
                               np.log(0.5) + 2 - 1 + 0 * RATE, rtol=1e-12)


def test_gradients():
    def gamma_terms(conc, rate):
        d = Gamma(conc, rate)
        return (d.log_prob(dygraph.to_tensor(X)).sum() + d.entropy().sum()
                + kl_divergence(d, Gamma(rate, conc)).sum())

    check_grad(gamma_terms, [CONC, RATE], rtol=1e-4)

    def exponential_terms(rate):
        d = Exponential(rate)
        return (d.log_prob(dygraph.to_tensor(X)).sum() + d.rsample([3]).sum()
                + d.cdf(dygraph.to_tensor(X)).sum())

    check_grad(exponential_terms, [RATE], seed=4)

    def rsample_in_rate(rate):
        return Gamma(dygraph.to_tensor(CONC), rate).rsample([3]).sum()

    check_grad(rsample_in_rate, [RATE], seed=4)


def test_chi2_rejects_non_positive_df():
    with pytest.raises(ValueError):
        Chi2(dygraph.to_tensor([1.0, 0.0]))
