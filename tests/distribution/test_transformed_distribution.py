"""Independent and TransformedDistribution: shapes, log_prob by the change of variables
against closed forms, reparameterised samples and their gradients; and the
ExponentialFamily entropy from the log normaliser."""

import math

import numpy as np
import pytest

import dygraph
from dygraph.distribution import (
    AffineTransform,
    ExponentialFamily,
    ExpTransform,
    Independent,
    LogNormal,
    Normal,
    Poisson,
    StickBreakingTransform,
    TransformedDistribution,
    kl_divergence,
)
from tests.distribution.helpers import check_grad, check_moments


def _t(x):
    return dygraph.to_tensor(np.asarray(x, dtype="float64"))


LOC = np.array([[0.0, 1.0, -1.0], [2.0, 0.5, 0.0]])
SCALE = np.array([[1.0, 2.0, 0.5], [1.5, 1.0, 3.0]])


def test_independent_sums_over_reinterpreted_axes():
    base = Normal(_t(LOC), _t(SCALE))
    d = Independent(base, 1)
    assert (d.batch_shape, d.event_shape) == ((2,), (3,))
    x = _t(LOC + 0.3)
    np.testing.assert_allclose(d.log_prob(x).numpy(), base.log_prob(x).numpy().sum(-1))
    np.testing.assert_allclose(d.entropy().numpy(), base.entropy().numpy().sum(-1))
    whole = Independent(base, 2)
    assert (whole.batch_shape, whole.event_shape) == ((), (2, 3))
    assert whole.log_prob(x).shape == []
    with pytest.raises(ValueError):
        Independent(base, 3)
    with pytest.raises(TypeError):
        Independent(1.0, 1)


def test_affine_of_a_normal_is_a_normal():
    t = AffineTransform(_t([1.0, -2.0, 0.0]), _t([2.0, 0.5, -3.0]))
    d = TransformedDistribution(Normal(_t(LOC), _t(SCALE)), [t])
    x = _t([[0.3, 1.0, -2.0], [5.0, -1.0, 0.1]])
    loc = np.array([1.0, -2.0, 0.0]) + np.array([2.0, 0.5, -3.0]) * LOC
    scale = np.abs(np.array([2.0, 0.5, -3.0])) * SCALE
    ref = Normal(_t(loc), _t(scale))
    np.testing.assert_allclose(d.log_prob(x).numpy(), ref.log_prob(x).numpy())
    dygraph.seed(0)
    check_moments(d.rsample([40000]), loc, scale ** 2)


def test_exp_of_a_normal_is_the_log_normal():
    d = TransformedDistribution(Normal(_t(LOC), _t(SCALE)), [ExpTransform()])
    x = _t([[0.3, 1.0, 2.0], [5.0, 0.1, 0.7]])
    np.testing.assert_allclose(d.log_prob(x).numpy(),
                               LogNormal(_t(LOC), _t(SCALE)).log_prob(x).numpy())


def test_stick_breaking_gives_a_distribution_on_the_simplex():
    base = Normal(_t([0.2, -0.3]), _t([1.0, 0.5]))
    d = TransformedDistribution(base, [StickBreakingTransform()])
    assert (d.batch_shape, d.event_shape) == ((), (3,))
    y = _t([0.2, 0.3, 0.5])
    x = StickBreakingTransform().inverse(y)
    expected = (base.log_prob(x).sum()
                - StickBreakingTransform().forward_log_det_jacobian(x))
    np.testing.assert_allclose(float(d.log_prob(y)), float(expected))
    dygraph.seed(1)
    np.testing.assert_allclose(d.sample([10]).numpy().sum(-1), 1.0, rtol=1e-12)


def test_gradients_through_rsample_and_log_prob():
    def terms(loc, scale):
        d = TransformedDistribution(Normal(loc, scale),
                                    [AffineTransform(_t(0.5), _t(2.0)), ExpTransform()])
        y = _t([[0.3, 1.0, 2.0], [5.0, 0.1, 0.7]])
        return d.log_prob(y).sum() + d.rsample([2]).sum()

    check_grad(terms, [LOC / 3, SCALE / 3], seed=2, rtol=1e-4)

    def independent_terms(loc, scale):
        d = Independent(Normal(loc, scale), 1)
        return d.log_prob(_t(LOC)).sum() + (d.rsample([2]) ** 2).sum()

    check_grad(independent_terms, [LOC, SCALE], seed=2)


class _Poisson(ExponentialFamily):
    """A Poisson distribution written as an exponential family: theta = log(rate),
    A(theta) = exp(theta), h(k) = 1 / k!."""

    def __init__(self, rate):
        self.rate = rate
        super().__init__(rate.shape)

    @property
    def _natural_parameters(self):
        return (self.rate.log(),)

    def _log_normalizer(self, theta):
        return theta.exp()

    @property
    def _mean_carrier_measure(self):
        k = np.arange(200)
        rate = self.rate.numpy()[..., None]
        pmf = np.exp(k * np.log(rate) - rate - np.array([math.lgamma(i + 1) for i in k]))
        return _t(-(pmf * [math.lgamma(i + 1) for i in k]).sum(-1))


def test_exponential_family_entropy_and_bregman_kl():
    rate = _t([0.5, 3.0])
    np.testing.assert_allclose(_Poisson(rate).entropy().numpy(),
                               Poisson(rate).entropy().numpy(), rtol=1e-8)
    other = _t([2.0, 1.0])
    np.testing.assert_allclose(kl_divergence(_Poisson(rate), _Poisson(other)).numpy(),
                               kl_divergence(Poisson(rate), Poisson(other)).numpy(),
                               rtol=1e-8)
