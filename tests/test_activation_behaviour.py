"""Behaviour of the unary math and activation ops beyond the spec table: the pure-NumPy
erf/erfinv fallback, numerics at the extremes, Paddle's documented values, in-place forms,
randomness and errors."""

import math
import warnings

import numpy as np
import pytest

import dygraph as D
import dygraph.nn.functional as F
from dygraph.autograd import gradcheck, gradgradcheck
from dygraph.ops.unary import erf as unary_special
from tests.op_specs import spec_activation, spec_unary


def _f64(values, grad=False):
    return D.to_tensor(np.asarray(values, dtype=np.float64), stop_gradient=not grad)


# -- erf / erfinv without SciPy ----------------------------------------------------------

def test_erf_fallback_matches_math_erf_everywhere():
    x = np.concatenate([np.linspace(-30, 30, 20001), [0.0, 1e-300, -1e-20, 1.999999, 2.0]])
    got = unary_special.erf_fallback(np, x)
    want = np.array([math.erf(v) for v in x])
    np.testing.assert_allclose(got, want, rtol=5e-15, atol=1e-300)


def test_erfinv_fallback_inverts_erf_including_the_tails():
    y = np.concatenate([np.linspace(-0.999, 0.999, 4001), [1e-200, -1e-10]])
    x = unary_special.erfinv_fallback(np, y)
    np.testing.assert_allclose([math.erf(v) for v in x], y, rtol=1e-14, atol=1e-300)
    tails = 1.0 - np.array([1e-6, 1e-10, 1e-14])
    x = unary_special.erfinv_fallback(np, tails)
    np.testing.assert_allclose([math.erfc(v) for v in x], 1.0 - tails, rtol=1e-9)
    edges = unary_special.erfinv_fallback(np, np.array([1.0, -1.0, 1.5, np.nan]))
    assert edges[0] == np.inf and edges[1] == -np.inf and np.isnan(edges[2:]).all()


def test_fallback_keeps_float32():
    x = np.array([0.5, -0.25], dtype=np.float32)
    assert unary_special.erf_fallback(np, x).dtype == np.float32
    assert unary_special.erfinv_fallback(np, x).dtype == np.float32


@pytest.fixture(params=["fallback", "scipy"])
def special_path(request, monkeypatch):
    if request.param == "fallback":
        monkeypatch.setattr(unary_special, "_SCIPY", [False])
    else:
        pytest.importorskip("scipy.special")
    return request.param


@pytest.mark.parametrize("name", ["erf", "erfinv", "nn.functional.gelu"])
def test_erf_based_specs_pass_on_both_paths(special_path, name):
    specs = [s for s in spec_unary.SPECS + spec_activation.SPECS
             if s.name == name and not s.id]
    assert specs
    for spec in specs:
        arrays = spec.make_inputs()
        got = spec.fn(*[_f64(a, grad=True) for a in arrays]).numpy()
        np.testing.assert_allclose(got, spec.ref(*arrays), rtol=1e-12, atol=1e-14)
        assert gradcheck(spec.fn, [_f64(a, grad=True) for a in arrays])
        assert gradgradcheck(spec.fn, [_f64(a, grad=True) for a in spec.make_inputs(1)])


# -- unary math ---------------------------------------------------------------------------

def test_clip_keeps_integer_dtype_and_casts_bounds():
    out = D.clip(D.to_tensor([-3, 0, 7]), min=-1.5, max=2.5)
    assert out.dtype == D.int64
    np.testing.assert_array_equal(out.numpy(), [-1, 0, 2])


def test_clip_gradient_includes_the_bounds():
    x = _f64([-1.0, -0.5, 0.0, 0.5, 1.0], grad=True)
    D.clip(x, -0.5, 0.5).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0, 1, 1, 1, 0])


def test_clip_rejects_bounds_that_are_not_one_number():
    with pytest.raises(ValueError, match=r"clip: min .*shape \[2\]"):
        D.clip(D.ones([3]), min=D.to_tensor([0.0, 1.0]))
    with pytest.raises(TypeError, match="clip: max"):
        D.clip(D.ones([3]), max="1")


def test_clip_and_friends_are_tensor_methods_with_inplace_forms():
    x = D.to_tensor([-2.0, 0.5, 4.0])
    np.testing.assert_allclose(x.clip(0, 1).numpy(), [0, 0.5, 1])
    assert x.clip_(0, 1) is x
    np.testing.assert_allclose(x.numpy(), [0, 0.5, 1])
    np.testing.assert_allclose(D.to_tensor([4.0]).rsqrt().numpy(), [0.5])


def test_nan_to_num_defaults_and_gradient():
    x = D.to_tensor([np.nan, np.inf, -np.inf, 2.0], stop_gradient=False)
    out = D.nan_to_num(x)
    big = np.finfo(np.float32).max
    np.testing.assert_array_equal(out.numpy(), np.array([0, big, -big, 2], np.float32))
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0, 0, 0, 1])


def test_integer_inputs_become_default_float():
    out = D.log2(D.to_tensor([1, 8]))
    assert out.dtype == D.float32
    np.testing.assert_allclose(out.numpy(), [0, 3])


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
    (lambda: F.prelu(D.ones([2, 3, 4]), D.ones([4])), ValueError,
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


def test_activations_keep_float32_and_cast_integers():
    for name in ("relu", "sigmoid", "gelu", "softmax", "hardswish", "mish"):
        assert getattr(F, name)(D.ones([2])).dtype == D.float32
        assert getattr(F, name)(D.to_tensor([1, 2])).dtype == D.float32
