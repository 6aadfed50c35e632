"""Behaviour of the activation ops beyond the spec table: numerics at the extremes, Paddle's
documented values, in-place forms, randomness and errors."""

import math
import warnings

import numpy as np
import pytest

import dygraph as D
import dygraph.nn.functional as F
from dygraph.framework.errors import AssertedValueError


def _f64(values, grad=False):
    return D.to_tensor(np.asarray(values, dtype=np.float64), stop_gradient=not grad)


# -- activations: numerics ---------------------------------------------------------------

def test_extreme_inputs_stay_finite_and_silent():
    x = D.to_tensor([-1000.0, -50.0, 0.0, 50.0, 1000.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        outs = {f: getattr(F, f)(x).numpy() for f in
                ("sigmoid", "log_sigmoid", "softplus", "silu", "mish", "elu", "selu",
                 "celu", "softmax", "log_softmax", "gelu")}
    for name, value in outs.items():
        assert np.isfinite(value).all(), name
    np.testing.assert_allclose(outs["log_sigmoid"], [-1000, -50, -math.log(2), 0, 0],
                               atol=1e-6)
    np.testing.assert_allclose(outs["softplus"], [0, 0, math.log(2), 50, 1000], atol=1e-6)
    np.testing.assert_allclose(outs["sigmoid"][:2], [0, 1.9287498e-22], rtol=1e-6)


def test_softmax_of_large_logits_and_of_a_scalar():
    out = F.softmax(D.to_tensor([[1000.0, 1000.0, -1000.0]]))
    np.testing.assert_allclose(out.numpy(), [[0.5, 0.5, 0.0]])
    assert float(F.softmax(D.to_tensor(3.0))) == 1.0
    assert float(F.log_softmax(D.to_tensor(3.0))) == 0.0


def test_softmax_dtype_argument_casts_first():
    out = F.log_softmax(D.to_tensor([1.0, 2.0]), dtype="float64")
    assert out.dtype == D.float64
    np.testing.assert_allclose(out.numpy(), [-1.3132616875182228, -0.3132616875182228])


def test_softmax_bad_axis_names_the_problem():
    with pytest.raises(ValueError, match="softmax: axis 2 is out of range"):
        F.softmax(D.ones([2, 3]), axis=2)


def test_paddle_documented_values():
    x = D.to_tensor([[[[-2.0, 3.0, -4.0, 5.0], [3.0, -4.0, 5.0, -6.0],
                       [-7.0, -8.0, 8.0, 9.0]],
                      [[1.0, -2.0, -3.0, 4.0], [-5.0, 6.0, 7.0, -8.0], [6.0, 7.0, 8.0, 9.0]]]])
    out = F.prelu(x, D.to_tensor([0.25]))
    np.testing.assert_allclose(out.numpy()[0, 0, 2], [-1.75, -2.0, 8.0, 9.0])
    np.testing.assert_allclose(F.hardswish(D.to_tensor([-4.0, 5.0, 1.0])).numpy(),
                               [0, 5, 0.6666667], rtol=1e-6)
    np.testing.assert_allclose(F.thresholded_relu(D.to_tensor([2.0, 0.0, 1.0])).numpy(),
                               [2, 0, 0])
    np.testing.assert_allclose(F.gelu(D.to_tensor([-1.0, 0.5, 1.0])).numpy(),
                               [-0.15865529, 0.34573123, 0.8413447], rtol=1e-6)
    np.testing.assert_allclose(F.gelu(D.to_tensor([-1.0, 0.5, 1.0]), True).numpy(),
                               [-0.15880796, 0.34571401, 0.841192], rtol=1e-6)


# -- activations: in place, randomness, errors -------------------------------------------

def test_relu_inplace_returns_its_input_and_keeps_the_gradient():
    x = D.to_tensor([-1.0, 2.0], stop_gradient=False)
    y = x * 3.0
    assert F.relu_(y) is y
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0, 3])


def test_gumbel_softmax_is_reproducible_and_hard_samples_are_one_hot():
    logits = D.to_tensor(np.linspace(-1, 1, 12).reshape(3, 4))
    D.seed(5)
    a = F.gumbel_softmax(logits).numpy()
    D.seed(5)
    b = F.gumbel_softmax(logits).numpy()
    np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(a.sum(-1), 1, rtol=1e-6)
    hard = F.gumbel_softmax(logits, hard=True, axis=0).numpy()
    assert set(np.unique(hard)) <= {0.0, 1.0}
    np.testing.assert_array_equal(hard.sum(0), [1, 1, 1, 1])


def test_hard_gumbel_softmax_has_the_soft_gradient():
    weights = D.to_tensor(np.arange(8.0).reshape(2, 4))
    grads = []
    for hard in (False, True):
        x = _f64(np.linspace(-1, 1, 8).reshape(2, 4), grad=True)
        D.seed(11)
        (F.gumbel_softmax(x, 0.7, hard=hard) * weights).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1])
    assert np.abs(grads[0]).max() > 0


@pytest.mark.parametrize("call, error, pattern", [
    (lambda: F.prelu(D.ones([2, 3, 4]), D.ones([4])), AssertedValueError,  # Paddle asserts
     r"prelu: weight has 4 elements but x of shape \[2, 3, 4\]"),
    (lambda: F.prelu(D.ones([2, 3]), D.ones([3]), data_format="CN"), ValueError,
     "prelu: data_format"),
    (lambda: F.glu(D.ones([2, 3])), ValueError, r"glu: .*even, got shape \[2, 3\]"),
    (lambda: F.celu(D.ones([2]), alpha=0), ZeroDivisionError, "celu: alpha"),
    (lambda: F.selu(D.ones([2]), scale=0.5), ValueError, "selu: scale"),
    (lambda: F.softshrink(D.ones([2]), threshold=-1), ValueError, "softshrink: threshold"),
    (lambda: F.gumbel_softmax(D.ones([2]), temperature=0), ValueError, "temperature"),
])
def test_bad_arguments_raise_clear_errors(call, error, pattern):
    with pytest.raises(error, match=pattern) as info:
        call()
    assert "test_activation_behaviour.py" in str(info.value)


def test_activations_keep_float32_and_take_integers_where_paddle_does():
    for name in ("relu", "sigmoid", "gelu", "softmax", "hardswish", "mish"):
        assert getattr(F, name)(D.ones([2])).dtype == D.float32
    # Paddle 3.3 casts integers to float for sigmoid and tanh, and has no integer kernel
    # for the others: DyGraph refuses what Paddle refuses (framework/kernel_dtypes.py)
    assert F.sigmoid(D.to_tensor([1, 2])).dtype == D.float32
    assert F.tanh(D.to_tensor([1, 2])).dtype == D.float32
    for name in ("relu", "gelu", "softmax", "hardswish", "mish"):
        with pytest.raises(RuntimeError, match=f"{name}: .*int64"):
            getattr(F, name)(D.to_tensor([1, 2]))
