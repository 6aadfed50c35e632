"""kl_divergence for every pair Paddle registers, against E_p[log p - log q] (Monte Carlo
for continuous distributions, exact sums for discrete ones), and register_kl's dispatch."""

import numpy as np
import pytest

import dygraph
from dygraph.distribution import (
    Bernoulli,
    Beta,
    Binomial,
    Categorical,
    Cauchy,
    Chi2,
    ContinuousBernoulli,
    Dirichlet,
    Distribution,
    Exponential,
    Gamma,
    Geometric,
    Laplace,
    LogNormal,
    MultivariateNormal,
    Normal,
    Poisson,
    Uniform,
    kl_divergence,
    register_kl,
)


def _t(x):
    return dygraph.to_tensor(np.asarray(x, dtype="float64"))


COV = _t([[2.0, 0.3], [0.3, 1.0]])
CONTINUOUS = {
    "normal": (Normal(_t([0.0, 1.0]), _t([1.0, 2.0])), Normal(_t([1.0, 0.0]), _t([2.0, 1.0]))),
    "lognormal": (LogNormal(_t([0.0, 0.5]), _t([0.5, 0.3])),
                  LogNormal(_t([0.2, 0.0]), _t([0.6, 0.5]))),
    "uniform": (Uniform(_t([0.0, 1.0]), _t([1.0, 2.0])), Uniform(_t([-1.0, 0.0]),
                                                                   _t([2.0, 3.0]))),
    "laplace": (Laplace(_t([0.0, 1.0]), _t([1.0, 2.0])), Laplace(_t([1.0, 0.0]),
                                                                   _t([2.0, 1.0]))),
    "cauchy": (Cauchy(_t([0.0, 1.0]), _t([1.0, 2.0])), Cauchy(_t([1.0, 0.0]), _t([2.0, 1.0]))),
    "gamma": (Gamma(_t([2.0, 5.0]), _t([1.0, 2.0])), Gamma(_t([3.0, 4.0]), _t([2.0, 1.0]))),
    "chi2": (Chi2(_t([3.0, 6.0])), Chi2(_t([4.0, 5.0]))),
    "exponential": (Exponential(_t([1.0, 3.0])), Exponential(_t([2.0, 1.0]))),
    "beta": (Beta(_t([2.0, 0.8]), _t([3.0, 1.5])), Beta(_t([1.0, 2.0]), _t([1.0, 2.0]))),
    "dirichlet": (Dirichlet(_t([[1.0, 2.0, 3.0]])), Dirichlet(_t([[2.0, 2.0, 2.0]]))),
    "continuous_bernoulli": (ContinuousBernoulli(_t([0.2, 0.7])),
                             ContinuousBernoulli(_t([0.6, 0.4]))),
    "mvn": (MultivariateNormal(_t([0.0, 1.0]), covariance_matrix=COV),
            MultivariateNormal(_t([1.0, 0.0]), scale_tril=_t([[1.0, 0.0], [0.5, 2.0]]))),
}


@pytest.mark.parametrize("name", list(CONTINUOUS))
def test_continuous_pairs_match_monte_carlo(name):
    p, q = CONTINUOUS[name]
    dygraph.seed(0)
    x = p.sample([200000])
    log_ratio = (p.log_prob(x) - q.log_prob(x)).numpy()
    estimate = log_ratio.mean(0)
    stderr = log_ratio.std(0) / np.sqrt(len(log_ratio))
    got = kl_divergence(p, q).numpy()
    np.testing.assert_array_less(np.abs(got - estimate), 5 * stderr + 1e-9)


def _exact(p, q, support):
    log_p, log_q = p.log_prob(support).numpy(), q.log_prob(support).numpy()
    return (np.exp(log_p) * (log_p - log_q)).sum(0)


def test_discrete_pairs_match_exact_sums():
    p, q = Bernoulli(_t([0.2, 0.7])), Bernoulli(_t([0.5, 0.1]))
    support = _t([[0.0, 0.0], [1.0, 1.0]])
    np.testing.assert_allclose(kl_divergence(p, q).numpy(), _exact(p, q, support))
    p, q = Poisson(_t([1.0, 4.0])), Poisson(_t([2.0, 3.0]))
    support = _t(np.arange(80.0)[:, None].repeat(2, 1))
    np.testing.assert_allclose(kl_divergence(p, q).numpy(), _exact(p, q, support), rtol=1e-8)
    p, q = Binomial(_t([5.0, 8.0]), _t([0.3, 0.6])), Binomial(_t([5.0, 8.0]), _t([0.5, 0.2]))
    for i, n in enumerate([5, 8]):  # column by column: each over its own support 0..n
        support = _t(np.arange(n + 1.0)[:, None].repeat(2, 1))
        np.testing.assert_allclose(kl_divergence(p, q).numpy()[i], _exact(p, q, support)[i])
    p, q = Geometric(_t([0.3, 0.6])), Geometric(_t([0.5, 0.2]))
    k = np.arange(400.0)[:, None]
    pk, qk = 0.7 ** k * 0.3, 0.5 ** k * 0.5
    np.testing.assert_allclose(float(kl_divergence(p, q)[0]), (pk * np.log(pk / qk)).sum())
    logits = np.array([[1.0, 2.0, 0.5]])
    p, q = Categorical(_t(logits)), Categorical(_t(logits[:, ::-1].copy()))
    sp = np.exp(logits) / np.exp(logits).sum()
    sq = sp[:, ::-1]
    np.testing.assert_allclose(kl_divergence(p, q).numpy(), (sp * np.log(sp / sq)).sum(
        -1, keepdims=True))


def test_dispatch_uses_the_most_specific_registration():
    class MyNormal(Normal):
        pass

    p, q = MyNormal(0.0, 1.0), MyNormal(1.0, 1.0)
    assert float(kl_divergence(p, q)) == pytest.approx(0.5)  # falls back to (Normal, Normal)

    @register_kl(MyNormal, MyNormal)
    def _kl(p, q):
        return dygraph.to_tensor(42.0)

    assert float(kl_divergence(p, q)) == 42.0
    assert float(kl_divergence(p, Normal(1.0, 1.0))) == pytest.approx(0.5)


def test_unregistered_pairs_and_bad_registrations():
    with pytest.raises(NotImplementedError):
        kl_divergence(Normal(0.0, 1.0), Laplace(0.0, 1.0))
    with pytest.raises(TypeError):
        register_kl(int, Normal)

    class A(Distribution):
        pass

    class B(Distribution):
        pass

    class AB(A, B):
        pass

    register_kl(A, Distribution)(lambda p, q: dygraph.to_tensor(1.0))
    register_kl(Distribution, B)(lambda p, q: dygraph.to_tensor(2.0))
    with pytest.warns(RuntimeWarning, match="Ambiguous"):
        kl_divergence(AB(), AB())
