"""Beta and Dirichlet against SciPy, their samples, KL divergences and gradients."""

import numpy as np
import pytest

import dygraph
from dygraph.distribution import Beta, Dirichlet, kl_divergence
from tests.distribution.helpers import assert_seeded, check_grad, check_moments

# SciPy (in the test extra) gives the reference values; without it these tests skip.
special = pytest.importorskip("scipy.special")
stats = pytest.importorskip("scipy.stats")

A, B = np.array([0.5, 2.0, 5.0]), np.array([1.5, 2.0, 0.7])
CONC = np.array([[1.0, 2.0, 3.0], [0.5, 0.5, 4.0]])


def test_beta_matches_scipy():
    d = Beta(dygraph.to_tensor(A), dygraph.to_tensor(B))
    ref = stats.beta(A, B)
    x = np.array([0.3, 0.5, 0.9])
    np.testing.assert_allclose(d.log_prob(dygraph.to_tensor(x)).numpy(), ref.logpdf(x))
    np.testing.assert_allclose(d.entropy().numpy(), ref.entropy())
    np.testing.assert_allclose(d.mean.numpy(), ref.mean())
    np.testing.assert_allclose(d.variance.numpy(), ref.var())


def test_dirichlet_matches_scipy():
    d = Dirichlet(dygraph.to_tensor(CONC))
    x = np.array([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])
    for i in range(2):
        ref = stats.dirichlet(CONC[i])
        np.testing.assert_allclose(d.log_prob(dygraph.to_tensor(x)).numpy()[i],
                                   ref.logpdf(x[i]))
        np.testing.assert_allclose(d.entropy().numpy()[i], ref.entropy())
        np.testing.assert_allclose(d.mean.numpy()[i], ref.mean())
        np.testing.assert_allclose(d.variance.numpy()[i], ref.var())


def test_kl_closed_forms():
    a0 = CONC.sum(-1)
    other = np.array([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]])
    b0 = other.sum(-1)
    kl = (special.gammaln(a0) - special.gammaln(b0)
          - (special.gammaln(CONC) - special.gammaln(other)).sum(-1)
          + ((CONC - other) * (special.digamma(CONC) - special.digamma(a0)[:, None])).sum(-1))
    got = kl_divergence(Dirichlet(dygraph.to_tensor(CONC)), Dirichlet(dygraph.to_tensor(other)))
    np.testing.assert_allclose(got.numpy(), kl)
    # a beta is a two-class Dirichlet
    p = Beta(dygraph.to_tensor(A), dygraph.to_tensor(B))
    q = Beta(dygraph.to_tensor(B), dygraph.to_tensor(A))
    as_dirichlet = kl_divergence(Dirichlet(dygraph.to_tensor(np.stack([A, B], -1))),
                                 Dirichlet(dygraph.to_tensor(np.stack([B, A], -1))))
    np.testing.assert_allclose(kl_divergence(p, q).numpy(), as_dirichlet.numpy())


def test_samples_and_seeding():
    dygraph.seed(0)
    d = Dirichlet(dygraph.to_tensor(CONC))
    x = d.sample([40000])
    np.testing.assert_allclose(x.numpy().sum(-1), 1.0, rtol=1e-12)
    check_moments(x, d.mean.numpy(), d.variance.numpy())
    b = Beta(dygraph.to_tensor(A), dygraph.to_tensor(B))
    check_moments(b.sample([40000]), b.mean.numpy(), b.variance.numpy())
    assert_seeded(lambda: b.sample([3]))


def test_gradients():
    def beta_terms(a, b):
        d = Beta(a, b)
        x = dygraph.to_tensor([0.3, 0.5, 0.9], dtype=a.dtype)
        return (d.log_prob(x).sum() + d.entropy().sum()
                + kl_divergence(d, Beta(b, a)).sum())

    check_grad(beta_terms, [A, B], rtol=1e-4)

    def dirichlet_terms(conc):
        d = Dirichlet(conc)
        x = dygraph.to_tensor([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]], dtype=conc.dtype)
        return d.log_prob(x).sum() + d.entropy().sum() + d.variance.sum()

    check_grad(dirichlet_terms, [CONC], rtol=1e-4)
