"""Behaviour of the unary math ops beyond the spec table: the pure-NumPy erf/erfinv fallback
(dygraph/ops/unary/erf.py) against math.erf and on the spec entries that use it, and clip,
nan_to_num and integer inputs (dygraph/ops/unary/core.py)."""

import math

import numpy as np
import pytest

import dygraph as D
from dygraph.autograd import gradcheck, gradgradcheck
from dygraph.ops.unary import erf as unary_special
from dygraph.ops.unary import special as special_functions
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
        monkeypatch.setitem(special_functions._MODULES, np, False)
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


@pytest.mark.parametrize("dtype", ["int32", "int64", "bool", "complex64"])
def test_nan_to_num_refuses_non_float_inputs_as_paddle(dtype):
    # Paddle asserts a float input (AssertionError), the in-place form too
    x = D.ones([2], dtype=dtype)
    with pytest.raises(AssertionError, match=f"nan_to_num: .*{dtype}"):
        D.nan_to_num(x)
    with pytest.raises(TypeError):
        x.nan_to_num_()
    assert D.nan_to_num(D.ones([2], dtype="float16")).dtype == D.float16


def test_integer_inputs_become_default_float():
    out = D.log2(D.to_tensor([1, 8]))
    assert out.dtype == D.float32
    np.testing.assert_allclose(out.numpy(), [0, 3])


def test_where_wants_both_x_and_y_or_neither():
    # ValueError, as Paddle; the in-place form needs an x to write into
    cond = D.to_tensor([True, False])
    with pytest.raises(ValueError, match="where: give both x and y"):
        D.where(cond, D.ones([2]))
    with pytest.raises(ValueError, match="where_: x and y are both required"):
        cond.where_()
    x = D.ones([2])
    assert cond.where_(x, D.zeros([2])) is x and x.tolist() == [1.0, 0.0]
