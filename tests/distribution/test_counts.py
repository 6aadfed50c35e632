"""The count distributions Binomial, Poisson, Geometric and Multinomial against SciPy,
their samples and the gradients of log_prob."""

import numpy as np
import pytest

import dygraph
from dygraph.distribution import Binomial, Geometric, Multinomial, Poisson, kl_divergence
from tests.distribution.helpers import assert_seeded, check_grad, check_moments

# SciPy (in the test extra) gives the reference values; without it these tests skip.
stats = pytest.importorskip("scipy.stats")

COUNT, P = np.array([5.0, 12.0, 30.0]), np.array([0.3, 0.5, 0.9])
RATE = np.array([0.5, 3.0, 12.0])
K = np.array([2.0, 6.0, 27.0])


def test_binomial_matches_scipy():
    d = Binomial(dygraph.to_tensor(COUNT), dygraph.to_tensor(P))
    ref = stats.binom(COUNT.astype(int), P)
    np.testing.assert_allclose(d.log_prob(dygraph.to_tensor(K)).numpy(), ref.logpmf(K))
    np.testing.assert_allclose(d.entropy().numpy(), ref.entropy(), rtol=1e-10)
    np.testing.assert_allclose(d.variance.numpy(), ref.var())
    q = Binomial(dygraph.to_tensor(COUNT), dygraph.to_tensor(np.full(3, 0.5)))
    kl = []
    for n, p in zip(COUNT.astype(int), P):
        k = np.arange(n + 1)
        log_p, log_q = stats.binom.logpmf(k, n, p), stats.binom.logpmf(k, n, 0.5)
        kl.append((np.exp(log_p) * (log_p - log_q)).sum())
    np.testing.assert_allclose(kl_divergence(d, q).numpy(), kl, rtol=1e-10)


def test_poisson_matches_scipy():
    d = Poisson(dygraph.to_tensor(RATE))
    ref = stats.poisson(RATE)
    np.testing.assert_allclose(d.log_prob(dygraph.to_tensor(K)).numpy(), ref.logpmf(K))
    np.testing.assert_allclose(d.entropy().numpy(), ref.entropy(), rtol=1e-8)
    q = Poisson(dygraph.to_tensor(RATE[::-1].copy()))
    kl = RATE * np.log(RATE / RATE[::-1]) - RATE + RATE[::-1]
    np.testing.assert_allclose(kl_divergence(d, q).numpy(), kl, rtol=1e-8)


def test_geometric_matches_scipy():
    d = Geometric(dygraph.to_tensor(P))
    ref = stats.geom(P, loc=-1)  # failures before the first success
    k = dygraph.to_tensor(K)
    np.testing.assert_allclose(d.pmf(k).numpy(), ref.pmf(K))
    np.testing.assert_allclose(d.log_prob(k).numpy(), ref.logpmf(K))
    np.testing.assert_allclose(d.cdf(k).numpy(), ref.cdf(K))
    np.testing.assert_allclose(d.entropy().numpy(), ref.entropy())
    np.testing.assert_allclose(d.mean.numpy(), ref.mean())
    np.testing.assert_allclose(d.variance.numpy(), ref.var())


def test_multinomial_matches_scipy():
    probs = np.array([[0.2, 0.3, 0.5], [0.05, 0.05, 0.9]])
    d = Multinomial(6, dygraph.to_tensor(probs))
    x = np.array([[1.0, 2.0, 3.0], [0.0, 1.0, 5.0]])
    for i in range(2):
        ref = stats.multinomial(6, probs[i])
        np.testing.assert_allclose(d.log_prob(dygraph.to_tensor(x)).numpy()[i], ref.logpmf(x[i]))
        np.testing.assert_allclose(d.entropy().numpy()[i], ref.entropy())
        np.testing.assert_allclose(d.variance.numpy()[i], np.diag(ref.cov()))


def test_samples_and_seeding():
    dygraph.seed(0)
    for d, ref in [(Binomial(dygraph.to_tensor(COUNT), dygraph.to_tensor(P)),
                    stats.binom(COUNT.astype(int), P)),
                   (Poisson(dygraph.to_tensor(RATE)), stats.poisson(RATE)),
                   (Geometric(dygraph.to_tensor(P)), stats.geom(P, loc=-1))]:
        x = d.sample([40000])
        np.testing.assert_array_equal(x.numpy(), np.round(x.numpy()))
        check_moments(x, ref.mean(), ref.var())
        assert_seeded(lambda d=d: d.sample([5]))
    m = Multinomial(6, dygraph.to_tensor([0.2, 0.3, 0.5]))
    x = m.sample([20000])
    np.testing.assert_array_equal(x.numpy().sum(-1), 6)
    check_moments(x, m.mean.numpy(), m.variance.numpy())
    assert_seeded(lambda: m.sample([5]))


def test_gradients_of_log_prob():
    def terms(count, p, rate, probs):
        value = dygraph.to_tensor(K)
        return (Binomial(count, p).log_prob(value).sum()
                + Poisson(rate).log_prob(value).sum()
                + Geometric(p).log_prob(value).sum() + Geometric(p).entropy().sum()
                + Multinomial(6, probs).log_prob(dygraph.to_tensor([1.0, 2.0, 3.0])))

    check_grad(terms, [COUNT, P, RATE, [0.2, 0.3, 0.5]], rtol=1e-4)
