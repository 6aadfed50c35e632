"""LKJCholesky: its samples are Cholesky factors of correlation matrices, both samplers
give the LKJ marginal Beta(c - 1 + dim/2, c - 1 + dim/2) on (r + 1) / 2, and log_prob is
normalised (checked by integration for dim 2)."""

import numpy as np
import pytest

import dygraph
from dygraph.distribution import LKJCholesky
from tests.distribution.helpers import assert_seeded, check_grad

# SciPy (in the test extra) gives the reference values; without it these tests skip.
integrate = pytest.importorskip("scipy.integrate")
stats = pytest.importorskip("scipy.stats")


@pytest.mark.parametrize("method", ["onion", "cvine"])
def test_samples_are_correlation_factors_with_the_lkj_marginal(method):
    dim, conc = 4, 2.0
    d = LKJCholesky(dim, conc, method)
    dygraph.seed(0)
    factors = d.sample([20000]).numpy()
    assert factors.shape == (20000, dim, dim)
    np.testing.assert_allclose(np.triu(factors, 1), 0)
    corr = factors @ factors.transpose(0, 2, 1)
    np.testing.assert_allclose(np.diagonal(corr, axis1=1, axis2=2), 1.0, atol=1e-5)
    shape = conc - 1 + dim / 2
    for i, j in [(1, 0), (3, 2)]:
        r = (corr[:, i, j] + 1) / 2
        assert stats.kstest(r, stats.beta(shape, shape).cdf).pvalue > 1e-3
    assert_seeded(lambda: d.sample([2]))


def test_log_prob_integrates_to_one_in_dim_2():
    for conc in (0.5, 1.0, 3.0):
        d = LKJCholesky(2, dygraph.to_tensor(conc, dtype="float64"))

        def density(r, d=d):
            factor = np.array([[1.0, 0.0], [r, np.sqrt(1 - r * r)]])
            # the density of L; dL/dr has Jacobian 1 in the free entry r = L[1, 0]
            return float(d.log_prob(dygraph.to_tensor(factor)).exp())

        assert abs(integrate.quad(density, -1, 1)[0] - 1) < 1e-6


def test_batch_and_gradient():
    d = LKJCholesky(3, dygraph.to_tensor([1.0, 2.5]))
    assert d.batch_shape == (2,) and d.event_shape == (3, 3)
    dygraph.seed(1)
    assert d.sample([5]).shape == [5, 2, 3, 3]
    value = np.linalg.cholesky(np.array([[1.0, 0.3, -0.2], [0.3, 1.0, 0.4], [-0.2, 0.4, 1.0]]))
    check_grad(lambda c: LKJCholesky(3, c).log_prob(dygraph.to_tensor(value)).sum(),
               [[1.0, 2.5]], rtol=1e-4)


def test_errors():
    with pytest.raises(ValueError):
        LKJCholesky(1)
    with pytest.raises(ValueError):
        LKJCholesky(2, 1.0, "other")
    with pytest.raises(ValueError):
        LKJCholesky(2, dygraph.to_tensor([-1.0]))
