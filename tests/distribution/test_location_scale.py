"""The location-scale families Laplace, Cauchy, Gumbel and StudentT against SciPy, their
samples and gradients."""

import numpy as np
import pytest

import dygraph
from dygraph.distribution import Cauchy, Gumbel, Laplace, StudentT, kl_divergence
from tests.distribution.helpers import assert_seeded, check_grad, check_moments

# SciPy (in the test extra) gives the reference values; without it these tests skip.
stats = pytest.importorskip("scipy.stats")

LOC, SCALE = np.array([0.0, 1.0, -2.0]), np.array([1.0, 0.5, 2.0])
DF = np.array([3.5, 6.0, 10.0])
X = np.array([0.3, 2.0, -1.5])


def _t(x):
    return dygraph.to_tensor(x)


CASES = {
    "laplace": (lambda: Laplace(_t(LOC), _t(SCALE)), stats.laplace(LOC, SCALE)),
    "cauchy": (lambda: Cauchy(_t(LOC), _t(SCALE)), stats.cauchy(LOC, SCALE)),
    "gumbel": (lambda: Gumbel(_t(LOC), _t(SCALE)), stats.gumbel_r(LOC, SCALE)),
    "student_t": (lambda: StudentT(_t(DF), _t(LOC), _t(SCALE)), stats.t(DF, LOC, SCALE)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_matches_scipy(name):
    make, ref = CASES[name]
    d = make()
    np.testing.assert_allclose(d.log_prob(_t(X)).numpy(), ref.logpdf(X))
    np.testing.assert_allclose(d.prob(_t(X)).numpy(), ref.pdf(X))
    np.testing.assert_allclose(d.entropy().numpy(), ref.entropy())
    if hasattr(d, "cdf"):
        np.testing.assert_allclose(d.cdf(_t(X)).numpy(), ref.cdf(X))
    if name != "cauchy":
        np.testing.assert_allclose(d.mean.numpy(), ref.mean())
        np.testing.assert_allclose(d.variance.numpy(), ref.var())
    if name == "laplace":
        q = np.array([0.1, 0.5, 0.95])
        np.testing.assert_allclose(d.icdf(_t(q)).numpy(), ref.ppf(q))


@pytest.mark.parametrize("name", list(CASES))
def test_samples(name):
    make, ref = CASES[name]
    d = make()
    dygraph.seed(0)
    x = d.sample([40000])
    assert_seeded(lambda: d.sample([3]))
    if name == "cauchy":  # no moments: compare quartiles
        np.testing.assert_allclose(np.percentile(x.numpy(), [25, 50, 75], axis=0),
                                   ref.ppf(np.array([[0.25], [0.5], [0.75]])), atol=0.06)
    elif name == "student_t":  # heavy tails: the variance test is too loose to be useful
        np.testing.assert_allclose(x.numpy().mean(0), ref.mean(), atol=0.05)
        np.testing.assert_allclose(x.numpy().var(0), ref.var(), rtol=0.1)
    else:
        check_moments(x, ref.mean(), ref.var())


def test_kl_against_monte_carlo():
    for cls in (Laplace, Cauchy):
        p, q = cls(_t(LOC), _t(SCALE)), cls(_t(LOC + 1), _t(SCALE * 1.5))
        dygraph.seed(2)
        x = p.sample([200000])
        estimate = (p.log_prob(x) - q.log_prob(x)).numpy().mean(0)
        np.testing.assert_allclose(kl_divergence(p, q).numpy(), estimate, rtol=0.05,
                                   atol=0.01)


@pytest.mark.parametrize("cls", [Laplace, Cauchy, Gumbel])
def test_gradients_of_log_prob_and_rsample(cls):
    def terms(loc, scale):
        d = cls(loc, scale)
        return (d.log_prob(dygraph.to_tensor(X)).sum() + d.entropy().sum()
                + d.rsample([2]).sum())

    check_grad(terms, [LOC, SCALE], seed=3, rtol=1e-4)


def test_student_t_gradients_and_checks():
    def terms(df, loc, scale):
        d = StudentT(df, loc, scale)
        return d.log_prob(dygraph.to_tensor(X)).sum() + d.entropy().sum()

    check_grad(terms, [DF, LOC, SCALE], rtol=1e-4)
    with pytest.raises(ValueError):
        StudentT(dygraph.to_tensor([-1.0]), dygraph.to_tensor([0.0]), dygraph.to_tensor([1.0]))
    with pytest.raises(ValueError):
        _ = Cauchy(0.0, 1.0).mean
