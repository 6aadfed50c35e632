"""Uniform against SciPy, including what DyGraph adds to Paddle's Uniform: mean, variance,
a reparameterised rsample and the KL divergence."""

import numpy as np
import pytest

import dygraph
from dygraph.distribution import Uniform, kl_divergence
from tests.distribution.helpers import assert_seeded, check_grad, check_moments

# SciPy (in the test extra) gives the reference values; without it these tests skip.
stats = pytest.importorskip("scipy.stats")

LOW, HIGH = np.array([0.0, -1.0, 2.0]), np.array([1.0, 3.0, 2.5])


def test_matches_scipy():
    d = Uniform(dygraph.to_tensor(LOW), dygraph.to_tensor(HIGH))
    ref = stats.uniform(LOW, HIGH - LOW)
    x = np.array([0.5, 4.0, 2.2])
    np.testing.assert_allclose(d.prob(dygraph.to_tensor(x)).numpy(), ref.pdf(x))
    np.testing.assert_allclose(d.log_prob(dygraph.to_tensor(x)).numpy(), ref.logpdf(x))
    np.testing.assert_allclose(d.entropy().numpy(), ref.entropy())
    np.testing.assert_allclose(d.mean.numpy(), ref.mean())
    np.testing.assert_allclose(d.variance.numpy(), ref.var())


def test_samples_and_seeding():
    d = Uniform(dygraph.to_tensor(LOW), dygraph.to_tensor(HIGH))
    dygraph.seed(0)
    x = d.sample([40000])
    assert x.numpy().min(0).tolist() >= LOW.tolist() and (x.numpy().max(0) < HIGH).all()
    check_moments(x, d.mean.numpy(), d.variance.numpy())
    assert_seeded(lambda: d.rsample([3]))


def test_kl():
    inner = Uniform(dygraph.to_tensor([0.0, 0.0]), dygraph.to_tensor([1.0, 1.0]))
    outer = Uniform(dygraph.to_tensor([-1.0, 0.5]), dygraph.to_tensor([3.0, 2.0]))
    np.testing.assert_allclose(kl_divergence(inner, outer).numpy(), [np.log(4.0), np.inf])


def test_gradients_of_rsample_and_log_prob():
    def terms(low, high):
        d = Uniform(low, high)
        return ((d.rsample([4]) ** 2).sum() + d.log_prob(dygraph.to_tensor(
            [0.5, 0.0, 2.2], dtype=low.dtype)).sum() + d.entropy().sum())

    check_grad(terms, [LOW, HIGH], seed=3)
