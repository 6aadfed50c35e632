"""Transforms: inverse(forward(x)) = x, log-det-Jacobians against the Jacobians autograd
and finite differences give, shape rules, composition and gradients."""

import numpy as np
import pytest

import dygraph
from dygraph.distribution import (
    AbsTransform,
    AffineTransform,
    ChainTransform,
    ExpTransform,
    IndependentTransform,
    Normal,
    PowerTransform,
    ReshapeTransform,
    SigmoidTransform,
    SoftmaxTransform,
    StackTransform,
    StickBreakingTransform,
    TanhTransform,
    TransformedDistribution,
)
from tests.distribution.helpers import check_grad

X = np.array([[0.5, -1.2, 2.0], [0.1, 0.7, -0.3]])


def _t(x):
    return dygraph.to_tensor(np.asarray(x, dtype="float64"))


ELEMENTWISE = {
    "affine": (lambda: AffineTransform(_t([0.0, 1.0, -1.0]), _t([2.0, -3.0, 0.5])), X),
    "exp": (ExpTransform, X),
    "power": (lambda: PowerTransform(_t(3.0)), np.abs(X) + 0.1),
    "sigmoid": (SigmoidTransform, X),
    "tanh": (TanhTransform, X),
}


@pytest.mark.parametrize("name", list(ELEMENTWISE))
def test_elementwise_round_trip_and_log_det(name):
    make, x = ELEMENTWISE[name]
    t = make()
    xt = dygraph.to_tensor(x, stop_gradient=False)
    y = t.forward(xt)
    np.testing.assert_allclose(t.inverse(y).numpy(), x, rtol=1e-10, atol=1e-12)
    # element-wise: the Jacobian is diagonal, its entries are dy_i/dx_i
    (dydx,) = dygraph.grad(y.sum(), [xt])
    ldj = np.broadcast_to(t.forward_log_det_jacobian(xt).numpy(), x.shape)
    np.testing.assert_allclose(ldj, np.log(np.abs(dydx.numpy())), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.broadcast_to(t.inverse_log_det_jacobian(y).numpy(), x.shape),
                               -ldj, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(t(xt).numpy(), y.numpy())


def _numeric_jacobian(f, x, eps=1e-6):
    cols = []
    for i in range(x.size):
        step = np.zeros_like(x)
        step[i] = eps
        cols.append((f(x + step) - f(x - step)) / (2 * eps))
    return np.stack(cols, -1)


def test_stick_breaking_maps_onto_the_simplex_with_the_right_log_det():
    t = StickBreakingTransform()
    x = X[0]
    y = t.forward(_t(x)).numpy()
    assert y.shape == (4,) and abs(y.sum() - 1) < 1e-12 and (y > 0).all()
    np.testing.assert_allclose(t.inverse(_t(y)).numpy(), x, rtol=1e-10)
    # the simplex has dimension 3: the Jacobian of x -> y[:3] is square
    jac = _numeric_jacobian(lambda v: t.forward(_t(v)).numpy()[:3], x)
    np.testing.assert_allclose(float(t.forward_log_det_jacobian(_t(x))),
                               np.log(abs(np.linalg.det(jac))), rtol=1e-6)
    assert t.forward_shape((2, 3)) == (2, 4) and t.inverse_shape((2, 4)) == (2, 3)


def test_softmax_and_abs_are_not_invertible():
    y = SoftmaxTransform().forward(_t(X))
    np.testing.assert_allclose(y.numpy(), np.exp(X) / np.exp(X).sum(-1, keepdims=True))
    with pytest.raises(NotImplementedError):
        SoftmaxTransform().forward_log_det_jacobian(_t(X))
    neg, pos = AbsTransform().inverse(_t([1.0, 2.0]))
    np.testing.assert_array_equal(neg.numpy(), [-1.0, -2.0])
    with pytest.raises(NotImplementedError):
        AbsTransform().forward_log_det_jacobian(_t(X))


def test_chain_independent_stack_and_reshape():
    chain = ChainTransform([AffineTransform(_t(1.0), _t(2.0)), ExpTransform()])
    np.testing.assert_allclose(chain.forward(_t(X)).numpy(), np.exp(1 + 2 * X))
    np.testing.assert_allclose(chain.forward_log_det_jacobian(_t(X)).numpy(),
                               np.log(2.0) + 1 + 2 * X)
    np.testing.assert_allclose(chain.inverse(chain.forward(_t(X))).numpy(), X, rtol=1e-10)
    assert isinstance(ExpTransform()(TanhTransform()), ChainTransform)
    independent = IndependentTransform(ExpTransform(), 1)
    np.testing.assert_allclose(independent.forward_log_det_jacobian(_t(X)).numpy(), X.sum(-1))
    stack = StackTransform([ExpTransform(), TanhTransform(), ExpTransform()], axis=1)
    np.testing.assert_allclose(stack.forward(_t(X)).numpy(),
                               np.stack([np.exp(X[:, 0]), np.tanh(X[:, 1]),
                                         np.exp(X[:, 2])], 1))
    with pytest.raises(ValueError):
        stack.forward(_t(X[:, :2]))
    reshape = ReshapeTransform((3,), (3, 1))
    assert reshape.forward(_t(X)).shape == [2, 3, 1]
    assert reshape.forward_log_det_jacobian(_t(X)).shape == [2]
    assert reshape.forward_shape((5, 3)) == (5, 3, 1)
    with pytest.raises(ValueError):
        ReshapeTransform((2, 3), (5,))
    with pytest.raises(TypeError):
        ExpTransform().forward([1.0])


def test_calling_a_transform_on_a_distribution():
    d = TanhTransform()(Normal(_t(0.0), _t(1.0)))
    assert isinstance(d, TransformedDistribution)
    y = _t([0.5])
    expected = Normal(_t(0.0), _t(1.0)).log_prob(_t(np.arctanh(0.5))) - np.log(1 - 0.25)
    np.testing.assert_allclose(d.log_prob(y).numpy(), expected.numpy())


def test_gradients_through_parameters():
    def affine_terms(loc, scale):
        t = AffineTransform(loc, scale)
        x = _t(X)
        return (t.forward(x) ** 2).sum() + t.forward_log_det_jacobian(x).sum() + t.inverse(
            x).sum()

    check_grad(affine_terms, [[0.0, 1.0, -1.0], [2.0, -3.0, 0.5]])

    def stick_terms(x):
        t = StickBreakingTransform()
        return (t.forward(x) ** 2).sum() + t.forward_log_det_jacobian(x).sum()

    check_grad(stick_terms, [X], rtol=1e-4)

    def power_terms(power):
        t = PowerTransform(power)
        x = _t(np.abs(X) + 0.1)
        return t.forward(x).sum() + t.forward_log_det_jacobian(x).sum()

    check_grad(power_terms, [2.5])
