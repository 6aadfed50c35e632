"""MultivariateNormal against SciPy for its three parameterisations and batches, its
samples, KL divergence and gradients through rsample and log_prob."""

import numpy as np
import pytest

import dygraph
from dygraph.distribution import MultivariateNormal, kl_divergence
from tests.distribution.helpers import assert_seeded, check_grad

# SciPy (in the test extra) gives the reference values; without it these tests skip.
stats = pytest.importorskip("scipy.stats")

LOC = np.array([[0.0, 1.0, -1.0], [2.0, 0.0, 0.5]])
COV = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.5]])
X = np.array([[0.5, 0.5, 0.0], [1.0, -1.0, 1.0]])


@pytest.mark.parametrize("kind", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_parameterisations_match_scipy(kind):
    matrix = {"covariance_matrix": COV, "precision_matrix": np.linalg.inv(COV),
              "scale_tril": np.linalg.cholesky(COV)}[kind]
    d = MultivariateNormal(dygraph.to_tensor(LOC), **{kind: dygraph.to_tensor(matrix)})
    assert d.batch_shape == (2,) and d.event_shape == (3,)
    for i in range(2):
        ref = stats.multivariate_normal(LOC[i], COV)
        np.testing.assert_allclose(d.log_prob(dygraph.to_tensor(X)).numpy()[i],
                                   ref.logpdf(X[i]))
        np.testing.assert_allclose(d.entropy().numpy()[i], ref.entropy())
    np.testing.assert_allclose(d.variance.numpy(), np.broadcast_to(np.diag(COV), (2, 3)))


def test_kl_closed_form():
    cov2 = np.diag([1.0, 2.0, 3.0])
    p = MultivariateNormal(dygraph.to_tensor(LOC[0]), covariance_matrix=dygraph.to_tensor(COV))
    q = MultivariateNormal(dygraph.to_tensor(LOC[1]), covariance_matrix=dygraph.to_tensor(cov2))
    inv2 = np.linalg.inv(cov2)
    diff = LOC[1] - LOC[0]
    kl = 0.5 * (np.trace(inv2 @ COV) + diff @ inv2 @ diff - 3
                + np.log(np.linalg.det(cov2) / np.linalg.det(COV)))
    np.testing.assert_allclose(float(kl_divergence(p, q)), kl)


def test_samples():
    d = MultivariateNormal(dygraph.to_tensor(LOC), covariance_matrix=dygraph.to_tensor(COV))
    dygraph.seed(0)
    x = d.sample([40000]).numpy()
    assert x.shape == (40000, 2, 3)
    np.testing.assert_allclose(x.mean(0), LOC, atol=0.03)
    np.testing.assert_allclose(np.cov(x[:, 1].T), COV, atol=0.04)
    assert_seeded(lambda: d.rsample([2]))


def test_gradients():
    tril = np.linalg.cholesky(COV)

    def terms(loc, scale_tril):
        d = MultivariateNormal(loc, scale_tril=scale_tril.tril())
        return (d.log_prob(dygraph.to_tensor(X)).sum() + d.entropy().sum()
                + (d.rsample([2]) ** 2).sum())

    check_grad(terms, [LOC, tril], seed=6, rtol=1e-4)

    def cov_terms(cov):
        d = MultivariateNormal(dygraph.to_tensor(LOC), covariance_matrix=(cov + cov.t()) / 2)
        return d.log_prob(dygraph.to_tensor(X)).sum()

    check_grad(cov_terms, [COV], rtol=1e-4)


def test_needs_exactly_one_matrix():
    with pytest.raises(ValueError):
        MultivariateNormal(dygraph.zeros([2]))
    with pytest.raises(ValueError):
        MultivariateNormal(dygraph.zeros([2]), covariance_matrix=dygraph.eye(2),
                           scale_tril=dygraph.eye(2))
