"""Bernoulli and ContinuousBernoulli against exact formulas (SciPy for Bernoulli, numerical
integration for the continuous one), their samples and gradients."""

import numpy as np
import pytest

import dygraph
from dygraph.distribution import Bernoulli, ContinuousBernoulli
from tests.distribution.helpers import assert_seeded, check_grad, check_moments

# SciPy (in the test extra) gives the reference values; without it these tests skip.
integrate = pytest.importorskip("scipy.integrate")
stats = pytest.importorskip("scipy.stats")

P = np.array([0.1, 0.5, 0.85])


def test_bernoulli_matches_scipy():
    d = Bernoulli(dygraph.to_tensor(P))
    ref = stats.bernoulli(P)
    for k in (0.0, 1.0):
        value = dygraph.to_tensor(np.full(3, k))
        np.testing.assert_allclose(d.log_prob(value).numpy(), ref.logpmf(k))
        np.testing.assert_allclose(d.cdf(value).numpy(), ref.cdf(k))
    np.testing.assert_allclose(d.entropy().numpy(), ref.entropy())
    np.testing.assert_allclose(d.variance.numpy(), ref.var())
    q = np.array([0.3, 0.3, 0.3])
    kl = P * np.log(P / q) + (1 - P) * np.log((1 - P) / (1 - q))
    np.testing.assert_allclose(d.kl_divergence(Bernoulli(dygraph.to_tensor(q))).numpy(), kl)


def test_bernoulli_samples():
    d = Bernoulli(dygraph.to_tensor(P))
    dygraph.seed(0)
    x = d.sample([40000])
    assert set(np.unique(x.numpy())) <= {0.0, 1.0}
    check_moments(x, P, P * (1 - P))
    assert_seeded(lambda: d.sample([5]))
    # the relaxed draws: sigmoid(rsample) is 1 with probability p at temperature -> 0
    relaxed = d.rsample([40000], temperature=0.01)
    np.testing.assert_allclose((relaxed.numpy() > 0).mean(0), P, atol=0.01)


def test_bernoulli_gradients():
    def terms(p):
        d = Bernoulli(p)
        value = dygraph.to_tensor([1.0, 0.0, 1.0], dtype=p.dtype)
        return (d.log_prob(value).sum() + d.entropy().sum() + d.rsample([2]).sum()
                + d.kl_divergence(Bernoulli(dygraph.full_like(p, 0.3))).sum())

    check_grad(terms, [P], seed=1, rtol=1e-4)


CB = np.array([0.2, 0.4995, 0.7])


def test_continuous_bernoulli_is_normalised_and_its_moments_integrate():
    d = ContinuousBernoulli(dygraph.to_tensor(CB, dtype="float64"))
    for i, p in enumerate(CB):
        def density(x, p=p, i=i):
            return float(d.prob(dygraph.to_tensor(np.full(3, x))).numpy()[i])

        assert abs(integrate.quad(density, 0, 1)[0] - 1) < 1e-6
        mean = integrate.quad(lambda x: x * density(x), 0, 1)[0]
        second = integrate.quad(lambda x: x * x * density(x), 0, 1)[0]
        np.testing.assert_allclose(d.mean.numpy()[i], mean, rtol=1e-5)
        np.testing.assert_allclose(d.variance.numpy()[i], second - mean ** 2, rtol=1e-4)
        entropy = -integrate.quad(lambda x: density(x) * np.log(density(x)), 0, 1)[0]
        np.testing.assert_allclose(d.entropy().numpy()[i], entropy, rtol=1e-4, atol=1e-7)
    q = dygraph.to_tensor(np.full(3, 0.5))
    np.testing.assert_allclose(d.cdf(d.icdf(q)).numpy(), q.numpy(), rtol=1e-5)


def test_continuous_bernoulli_samples_and_gradients():
    d = ContinuousBernoulli(dygraph.to_tensor(CB, dtype="float64"))
    dygraph.seed(0)
    check_moments(d.sample([40000]), d.mean.numpy(), d.variance.numpy())
    assert_seeded(lambda: d.rsample([3]))

    def terms(p):
        cb = ContinuousBernoulli(p)
        value = dygraph.to_tensor([0.3, 0.6, 0.9], dtype=p.dtype)
        return cb.log_prob(value).sum() + cb.rsample([2]).sum() + cb.mean.sum()

    check_grad(terms, [[0.2, 0.3, 0.7]], seed=2, rtol=1e-4)
