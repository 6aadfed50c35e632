"""softplus and log_sigmoid (dygraph/ops/activation/smooth.py) of complex inputs: Paddle 3.3's
formulas, log(1 + exp(z)) and -log(1 + exp(-z)) on the principal branch of log, softplus
taking x where the real part of beta x passes the threshold; gradients by the conjugate
derivative (the convention of dygraph/autograd/complex_grad.py)."""

import numpy as np
import pytest

import dygraph as D
import dygraph.nn.functional as F

Z = np.array([0.5 + 0.5j, -1.0 + 2.0j, 1.73 + 1.92j, -0.25 - 1.5j])


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def test_complex_softplus_is_log1p_exp():
    np.testing.assert_allclose(F.softplus(D.to_tensor(Z)).numpy(), np.log1p(np.exp(Z)))
    np.testing.assert_allclose(F.softplus(D.to_tensor(Z), beta=2.0).numpy(),
                               np.log1p(np.exp(2.0 * Z)) / 2.0)


def test_complex_softplus_threshold_reads_the_real_part():
    z = np.array([25.0 + 1.0j, 25.0 - 3.0j, 0.5 + 30.0j])
    y = F.softplus(D.to_tensor(z)).numpy()
    np.testing.assert_array_equal(y[:2], z[:2])
    np.testing.assert_allclose(y[2], np.log1p(np.exp(z[2])))


def test_complex_log_sigmoid_is_minus_log1p_exp():
    np.testing.assert_allclose(F.log_sigmoid(D.to_tensor(Z)).numpy(), -np.log1p(np.exp(-Z)))


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("fn, derivative", [
    (F.softplus, _sigmoid), (F.log_sigmoid, lambda z: _sigmoid(-z))])
def test_complex_gradient_is_the_conjugate_derivative(fn, derivative, create_graph):
    z = D.to_tensor(Z, stop_gradient=False)
    y = fn(z)
    (gz,) = D.grad(y, z, D.ones_like(y), create_graph=create_graph)
    np.testing.assert_allclose(gz.numpy(), np.conj(derivative(Z)))


def test_complex_soft_margin_losses_follow():
    x, y = Z[None], np.array([[1.0, -1.0, 1.0, -1.0]])
    got = F.soft_margin_loss(D.to_tensor(x), D.to_tensor(y.astype(complex)))
    np.testing.assert_allclose(got.numpy(), np.log1p(np.exp(-y * x)).mean())
