"""Soft-label cross entropy with labels that do not sum to 1.

The gradient of -sum(soft * log_softmax(x)) is softmax(x) * sum(soft) - soft; a label that
sums to 1 hides the sum(soft) factor, so every label here sums to something else. The loss is
checked against a float64 NumPy reference and against values printed by Paddle 3.3.1 for the
same inputs; the first and second derivatives against central differences of the reference.
"""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F

X = np.array([[0.3, -1.2, 0.8], [1.5, 0.1, -0.4], [-0.7, 0.9, 0.2], [0.0, 2.0, -1.0]])
# Row sums 1.5, 0.4, 1.7 and 0.9: none is 1.
SOFT = np.array([[0.5, 0.4, 0.6], [0.2, 0.1, 0.1], [1.0, 0.0, 0.7], [0.3, 0.3, 0.3]])
WEIGHT = np.array([0.5, 2.0, 1.5])
# paddle.nn.functional.cross_entropy(X, SOFT, soft_label=True, ...) in float64, Paddle 3.3.1.
PADDLE = {
    ("none", False): [1.8824353794629856, 0.46349184395523985, 2.990549170286389,
                      1.6528614176006569],
    ("none", True): [3.6707489899528216, 0.20857132977985796, 4.635351213943903,
                     1.983433701120788],
    ("sum", False): 6.989337811305271,
    ("sum", True): 10.49810523479737,
    ("mean", False): 1.7473344528263177,
    ("mean", True): 2.0384670358829844,
}
TOL = {"float32": {"rtol": 1e-5, "atol": 1e-6}, "float64": {"rtol": 1e-10, "atol": 1e-12}}


def _log_softmax(x, axis):
    z = x - x.max(axis=axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))


def _reference(x, soft, weight=None, reduction="mean", axis=-1):
    """The loss in float64: -sum(soft * log_softmax(x)), weighted by sum(weight * soft)."""
    per = -(soft * _log_softmax(x, axis)).sum(axis=axis, keepdims=True)
    if weight is None:
        weights = np.ones_like(per)
    else:
        line = [1] * x.ndim
        line[axis] = weight.size
        weights = (soft * weight.reshape(line)).sum(axis=axis, keepdims=True)
    per = per * weights
    if reduction == "none":
        return per
    if reduction == "sum":
        return per.sum()
    return per.sum() / (weights.sum() if weight is not None else per.size)


def _central_differences(f, x, h=1e-6):
    """d sum(f(x)) / dx by central differences, one element at a time."""
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = h
        grad[i] = (np.sum(f(x + step)) - np.sum(f(x - step))) / (2 * h)
    return grad


def test_the_labels_do_not_sum_to_one():
    assert not np.allclose(SOFT.sum(-1), 1.0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_loss_and_gradient_match_the_reference(dtype, reduction, weighted):
    weight = WEIGHT if weighted else None
    # A non-uniform upstream gradient, so 'none' checks each sample's coefficient.
    upstream = np.array([[1.0], [-2.0], [0.5], [3.0]]) if reduction == "none" else 1.0
    x = dygraph.to_tensor(X.astype(dtype), stop_gradient=False)
    loss = F.cross_entropy(x, dygraph.to_tensor(SOFT.astype(dtype)), soft_label=True,
                           reduction=reduction,
                           weight=None if weight is None else dygraph.to_tensor(
                               weight.astype(dtype)))
    (loss * dygraph.to_tensor(np.asarray(upstream, dtype))).sum().backward()

    assert loss.dtype == x.dtype and x.grad.dtype == x.dtype
    expected = _reference(X, SOFT, weight, reduction)
    np.testing.assert_allclose(loss.numpy(), expected, **TOL[dtype])
    np.testing.assert_allclose(np.reshape(expected, -1), PADDLE[reduction, weighted],
                               rtol=1e-12)
    fd = _central_differences(lambda v: _reference(v, SOFT, weight, reduction) * upstream, X)
    np.testing.assert_allclose(x.grad.numpy(), fd, rtol=1e-5 if dtype == "float32" else 1e-7,
                               atol=1e-6 if dtype == "float32" else 1e-9)


def _analytic_grad(x, soft, axis=-1):
    """softmax(x) * sum(soft) - soft: the gradient of the 'sum' loss, checked below."""
    p = np.exp(_log_softmax(x, axis))
    return p * soft.sum(axis=axis, keepdims=True) - soft


def test_analytic_gradient_is_the_central_difference_of_the_reference():
    fd = _central_differences(lambda v: _reference(v, SOFT, reduction="sum"), X)
    np.testing.assert_allclose(_analytic_grad(X, SOFT), fd, rtol=1e-7, atol=1e-9)
    # Without the sum(soft) factor the gradient is visibly wrong for these labels.
    assert np.abs(np.exp(_log_softmax(X, -1)) - SOFT - fd).max() > 0.07


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_second_derivative_matches_the_reference(dtype):
    x = dygraph.to_tensor(X.astype(dtype), stop_gradient=False)
    loss = F.cross_entropy(x, dygraph.to_tensor(SOFT.astype(dtype)), soft_label=True,
                           reduction="sum")
    (grad,) = dygraph.grad(loss, x, create_graph=True)
    np.testing.assert_allclose(grad.numpy(), _analytic_grad(X, SOFT), **TOL[dtype])
    direction = np.array([[1.0, -0.5, 2.0], [0.3, 0.0, -1.0], [-2.0, 1.0, 0.5],
                          [0.7, -0.2, 0.1]])
    (grad * dygraph.to_tensor(direction.astype(dtype))).sum().backward()
    fd = _central_differences(lambda v: _analytic_grad(v, SOFT) * direction, X)
    np.testing.assert_allclose(x.grad.numpy(), fd, rtol=1e-5 if dtype == "float32" else 1e-7,
                               atol=1e-6 if dtype == "float32" else 1e-9)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_with_cross_entropy_and_class_axis_zero(dtype):
    x = dygraph.to_tensor(X.astype(dtype), stop_gradient=False)
    loss = F.softmax_with_cross_entropy(x, dygraph.to_tensor(SOFT.astype(dtype)),
                                        soft_label=True)
    np.testing.assert_allclose(loss.numpy(), _reference(X, SOFT, reduction="none"),
                               **TOL[dtype])
    loss.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), _analytic_grad(X, SOFT), **TOL[dtype])

    xt = dygraph.to_tensor(X.T.astype(dtype), stop_gradient=False)
    loss = F.cross_entropy(xt, dygraph.to_tensor(SOFT.T.astype(dtype)), soft_label=True,
                           axis=0, reduction="sum")
    np.testing.assert_allclose(float(loss), PADDLE["sum", False], **TOL[dtype])
    loss.backward()
    np.testing.assert_allclose(xt.grad.numpy(), _analytic_grad(X.T, SOFT.T, axis=0),
                               **TOL[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_label_that_needs_a_gradient_gets_both_gradients(dtype):
    # A label with stop_gradient=False takes the composed path; its gradient is
    # -log_softmax(x) times the per-sample weight.
    x = dygraph.to_tensor(X.astype(dtype), stop_gradient=False)
    soft = dygraph.to_tensor(SOFT.astype(dtype), stop_gradient=False)
    loss = F.cross_entropy(x, soft, soft_label=True, reduction="mean")
    np.testing.assert_allclose(float(loss), PADDLE["mean", False], **TOL[dtype])
    loss.backward()
    tol = {"rtol": 1e-5, "atol": 1e-6} if dtype == "float32" else {"rtol": 1e-7, "atol": 1e-9}
    np.testing.assert_allclose(
        x.grad.numpy(), _central_differences(lambda v: _reference(v, SOFT), X), **tol)
    np.testing.assert_allclose(
        soft.grad.numpy(), _central_differences(lambda s: _reference(X, s), SOFT), **tol)


def test_cross_entropy_loss_layer_uses_the_same_gradient():
    x = dygraph.to_tensor(X, stop_gradient=False)
    loss = dygraph.nn.CrossEntropyLoss(soft_label=True, reduction="sum")(
        x, dygraph.to_tensor(SOFT))
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), _analytic_grad(X, SOFT), rtol=1e-10,
                               atol=1e-12)
