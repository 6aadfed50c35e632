"""Behaviour of the element-wise math ops (dygraph/ops/math/elementwise.py) beyond the spec
table: integer- and bool-valued ops against NumPy, in-place forms, div's rounding modes, and
errors that name the op."""

import numpy as np
import pytest

import dygraph as D


def _t(values, dtype=None):
    return D.to_tensor(np.asarray(values), dtype=dtype)


def test_integer_and_bool_valued_ops_match_numpy():
    a, b = np.array([12, -3, 0, 7]), np.array([8, 6, 0, 2])
    np.testing.assert_array_equal(D.gcd(_t(a), _t(b)).numpy(), np.gcd(a, b))
    np.testing.assert_array_equal(D.lcm(_t(a), _t(b)).numpy(), np.lcm(a, b))
    np.testing.assert_array_equal(D.bitwise_left_shift(_t(a), _t(b)).numpy(), a << b)
    np.testing.assert_array_equal(D.bitwise_right_shift(_t(a), _t(b)).numpy(), a >> b)
    np.testing.assert_array_equal(D.bitwise_invert(_t(a)).numpy(), ~a)
    x = np.array([-1.0, -0.0, 0.0, np.inf, -np.inf, np.nan])
    np.testing.assert_array_equal(D.signbit(_t(x)).numpy(), np.signbit(x))
    np.testing.assert_array_equal(D.isneginf(_t(x)).numpy(), np.isneginf(x))
    np.testing.assert_array_equal(D.isposinf(_t(x)).numpy(), np.isposinf(x))
    assert D.isreal(_t([1, 2])).numpy().all()
    mantissa, exponent = D.frexp(_t([8.0, -3.0, 0.0]))
    np.testing.assert_array_equal(mantissa.numpy(), [0.5, -0.75, 0.0])
    np.testing.assert_array_equal(exponent.numpy(), [4.0, 2.0, 0.0])
    one = _t([1.0], "float64")
    assert D.nextafter(one, one + 1).item() == np.nextafter(1.0, 2.0)


def test_in_place_elementwise_forms():
    x = _t([3.0, -4.0])
    assert x.hypot_(_t([4.0, 3.0])) is x
    np.testing.assert_allclose(x.numpy(), [5.0, 5.0])
    y = _t([12, 9])
    D.gcd_(y, _t([8, 6]))
    assert y.tolist() == [4, 3]
    z = _t([1.5, -2.25])
    z.frac_()
    assert z.tolist() == [0.5, -0.25]
    g = _t([1.0, 2.0])
    D.lgamma_(g)
    np.testing.assert_allclose(g.numpy(), [0.0, 0.0], atol=1e-7)


def test_bad_inputs_name_the_op():
    with pytest.raises(TypeError, match="gcd"):
        D.gcd(_t([1j]), _t([2j]))
    with pytest.raises(TypeError, match="positive"):
        D.positive(_t([True]))
    with pytest.raises(ValueError, match="rounding_mode"):
        D.div(_t([1.0]), _t([2.0]), rounding_mode="round")
    with pytest.raises(TypeError, match="polygamma"):
        D.polygamma(_t([1.0]), -1)
    with pytest.raises(ValueError, match="multigammaln"):
        D.multigammaln(_t([0.5]), 2.5)
    with pytest.raises(AssertionError, match="multigammaln"):
        D.multigammaln(_t([0.5]), 0)
    with pytest.raises(ValueError, match="gammainc"):
        D.gammainc(_t([-1.0]), _t([1.0]))
    with pytest.raises(TypeError, match="ldexp"):
        D.ldexp(_t([1.0]), _t([1j]))


def test_gcd_lcm_and_ldexp_of_floats_as_paddle():
    x, y = _t([4.5, 6.0, -9.0, 0.0]), _t([6.0, 4.0, 6.0, 5.0])
    assert D.gcd(x, y).tolist() == [1.5, 2.0, 3.0, 5.0]
    assert D.lcm(x, y).tolist() == [18.0, 12.0, 18.0, 0.0]
    assert D.ldexp(_t([1.0, 3.0]), _t([1.5, -1.0])).numpy().tolist() == \
        pytest.approx([2 ** 1.5, 1.5])
    x = D.to_tensor([1.0, 2.0], stop_gradient=False)
    y = D.to_tensor([0.5, 1.0], stop_gradient=False)
    D.ldexp(x, y).sum().backward()
    assert y.grad.numpy() == pytest.approx(np.array([1.0, 2.0]) * 2 ** np.array([0.5, 1.0])
                                           * np.log(2))


def test_div_rounding_modes():
    x, y = _t([-7.0, 7.0]), _t([2.0, 2.0])
    assert D.div(x, y, rounding_mode="floor").tolist() == [-4.0, 3.0]
    assert D.div(x, y, rounding_mode="trunc").tolist() == [-3.0, 3.0]
    assert D.div(_t([-7]), _t([2]), rounding_mode="floor").tolist() == [-4]


def test_inputs_that_only_sign_or_select_get_a_zero_gradient_as_paddle():
    x = D.to_tensor([1.0, -2.0, 0.0], stop_gradient=False)
    y = D.to_tensor([-1.0, 3.0, 4.0], stop_gradient=False)
    D.copysign(x, y).sum().backward()
    assert x.grad.tolist() == [-1.0, -1.0, 0.0] and y.grad.tolist() == [0.0, 0.0, 0.0]
    x.clear_grad()
    y.clear_grad()
    D.heaviside(x, y).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0] and y.grad.tolist() == [0.0, 0.0, 1.0]


def test_frexp_mantissa_has_the_gradient_two_to_the_minus_exponent():
    x = D.to_tensor([8.0, -3.0, 0.0, 0.3], stop_gradient=False)
    mantissa, exponent = D.frexp(x)
    assert exponent.stop_gradient
    mantissa.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1 / 16, 1 / 4, 1.0, 2.0])


def test_logit_gradient_is_nan_outside_zero_one_as_its_value():
    x = D.to_tensor([0.5, 1.5, -0.5], "float64", stop_gradient=False)
    out = D.logit(x)
    out.sum().backward()
    assert np.isnan(out.numpy()[1:]).all() and np.isnan(x.grad.numpy()[1:]).all()
    assert x.grad.numpy()[0] == 4.0
    clipped = D.to_tensor([1.5], "float64", stop_gradient=False)
    D.logit(clipped, eps=0.1).sum().backward()
    assert clipped.grad.tolist() == [0.0]
