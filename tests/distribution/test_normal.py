"""Normal and LogNormal against SciPy, their samples' moments, gradients through log_prob,
entropy, KL and rsample (float64 against central differences, float32 against float64)."""

import numpy as np
import pytest

import dygraph
from dygraph.distribution import LogNormal, Normal
from tests.distribution.helpers import (
    assert_seeded,
    check_grad,
    check_moments,
    float32_grads_match,
)

# SciPy (in the test extra) gives the reference values; without it these tests skip.
stats = pytest.importorskip("scipy.stats")

LOC, SCALE = np.array([0.0, 1.5, -2.0]), np.array([1.0, 0.5, 3.0])
X = np.array([0.3, 1.0, -5.0])


def test_normal_matches_scipy():
    d = Normal(dygraph.to_tensor(LOC), dygraph.to_tensor(SCALE))
    ref = stats.norm(LOC, SCALE)
    np.testing.assert_allclose(d.log_prob(dygraph.to_tensor(X)).numpy(), ref.logpdf(X))
    np.testing.assert_allclose(d.prob(dygraph.to_tensor(X)).numpy(), ref.pdf(X))
    np.testing.assert_allclose(d.probs(dygraph.to_tensor(X)).numpy(), ref.pdf(X))
    np.testing.assert_allclose(d.entropy().numpy(), ref.entropy())
    np.testing.assert_allclose(d.variance.numpy(), ref.var())


def test_lognormal_matches_scipy():
    d = LogNormal(dygraph.to_tensor(LOC), dygraph.to_tensor(SCALE))
    ref = stats.lognorm(s=SCALE, scale=np.exp(LOC))
    x = np.array([0.3, 1.0, 5.0])
    np.testing.assert_allclose(d.log_prob(dygraph.to_tensor(x)).numpy(), ref.logpdf(x))
    np.testing.assert_allclose(d.entropy().numpy(), ref.entropy())
    np.testing.assert_allclose(d.mean.numpy(), ref.mean())
    np.testing.assert_allclose(d.variance.numpy(), ref.var())


def test_kl_matches_monte_carlo():
    p, q = Normal(0.5, 2.0), Normal(-1.0, 1.5)
    dygraph.seed(0)
    x = p.sample([200000])
    estimate = float((p.log_prob(x) - q.log_prob(x)).mean())
    assert abs(float(p.kl_divergence(q)) - estimate) < 0.02


@pytest.mark.parametrize("make", [
    lambda: Normal(dygraph.to_tensor(LOC), dygraph.to_tensor(SCALE)),
    lambda: LogNormal(dygraph.to_tensor(LOC / 4), dygraph.to_tensor(SCALE / 4)),
], ids=["normal", "lognormal"])
def test_sample_moments_and_seeding(make):
    d = make()
    dygraph.seed(1)
    check_moments(d.sample([40000]), d.mean.numpy(), d.variance.numpy())
    check_moments(d.rsample([40000]), d.mean.numpy(), d.variance.numpy())
    assert_seeded(lambda: d.sample([5]))
    assert_seeded(lambda: d.rsample([5]))


def test_sample_seed_argument_repeats_without_touching_the_generator():
    d = Normal(0.0, 1.0)
    dygraph.seed(3)
    plain = d.sample([4]).numpy()
    dygraph.seed(3)
    np.testing.assert_array_equal(d.sample([4], seed=11).numpy(),
                                  d.sample([4], seed=11).numpy())
    np.testing.assert_array_equal(d.sample([4]).numpy(), plain)


def test_complex_normal_samples():
    d = Normal(complex(1.0, -1.0), 2.0)
    dygraph.seed(2)
    x = d.sample([40000]).numpy()
    assert x.dtype == np.complex64
    np.testing.assert_allclose([x.real.mean(), x.imag.mean()], [1.0, -1.0], atol=0.05)
    np.testing.assert_allclose([x.real.var(), x.imag.var()], [2.0, 2.0], rtol=0.05)


def _normal_terms(loc, scale):
    d = Normal(loc, scale)
    q = Normal(loc * 0.5 + 1.0, scale * 2.0)
    value = dygraph.to_tensor(X, dtype=loc.dtype)
    return (d.log_prob(value).sum() + d.entropy().sum() + d.kl_divergence(q).sum()
            + (d.rsample([3]) ** 2).sum())


def test_normal_gradients_float64():
    check_grad(_normal_terms, [LOC, SCALE], seed=5)


def test_lognormal_gradients_float64():
    def terms(loc, scale):
        d = LogNormal(loc, scale)
        value = dygraph.to_tensor([0.3, 1.0, 5.0], dtype=loc.dtype)
        return d.log_prob(value).sum() + d.entropy().sum() + d.rsample([2]).sum()

    check_grad(terms, [LOC / 4, SCALE / 4], seed=5)


def test_normal_gradients_float32():
    def terms(loc, scale):
        d = Normal(loc, scale)
        return d.log_prob(dygraph.to_tensor(X, dtype=loc.dtype)).sum() + d.entropy().sum()

    float32_grads_match(terms, [LOC, SCALE])


def test_shapes_and_dtypes():
    d = Normal(dygraph.zeros([2, 3], "float64"), dygraph.ones([2, 3], "float64"))
    assert d.batch_shape == (2, 3) and d.event_shape == ()
    assert d.sample([4]).shape == [4, 2, 3] and d.rsample().dtype == dygraph.float64
    with pytest.raises(TypeError):
        d.sample(4)
    with pytest.raises(ValueError):
        Normal(dygraph.zeros([1]), 1.0)
