"""Behaviour of the extra elementwise, comparison, special and NaN-reduction ops beyond what
the spec table checks: integer/bool-valued ops, in-place forms, errors, SciPy fallbacks."""

import math

import numpy as np
import pytest

import dygraph as D
from dygraph.ops.unary import special


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


def test_logical_right_shift_fills_the_sign_bit_with_zero():
    x = _t([-8, 8], "int8")
    out = D.bitwise_right_shift(x, _t([1, 1], "int8"), is_arithmetic=False)
    assert out.numpy().tolist() == [124, 4] and out.dtype == D.int8


def test_comparison_aliases_and_in_place_comparisons():
    x, y = _t([1.0, 2.0, 3.0]), _t([2.0, 2.0, 2.0])
    for alias, op in (("eq", "equal"), ("ne", "not_equal"), ("gt", "greater_than"),
                      ("ge", "greater_equal"), ("lt", "less_than"), ("le", "less_equal"),
                      ("greater", "greater_than"), ("less", "less_than")):
        np.testing.assert_array_equal(getattr(D, alias)(x, y).numpy(),
                                      getattr(D, op)(x, y).numpy())
    z = _t([1.0, 2.0, 3.0])
    version = z.inplace_version
    assert z.less_equal_(y) is z
    assert z.dtype == D.bool and z.tolist() == [True, True, False]
    assert z.inplace_version == version + 1
    w = _t([True, False])
    D.logical_xor_(w, _t([True, True]))
    assert w.tolist() == [False, True]


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
        D.gcd(_t([1.0]), _t([2.0]))
    with pytest.raises(TypeError, match="positive"):
        D.positive(_t([True]))
    with pytest.raises(ValueError, match="rounding_mode"):
        D.div(_t([1.0]), _t([2.0]), rounding_mode="round")
    with pytest.raises(TypeError, match="polygamma"):
        D.polygamma(_t([1.0]), -1)
    with pytest.raises(ValueError, match="multigammaln"):
        D.multigammaln(_t([0.5]), 3)
    with pytest.raises(ValueError, match="gammainc"):
        D.gammainc(_t([-1.0]), _t([1.0]))
    with pytest.raises(TypeError, match="ldexp"):
        D.ldexp(_t([1.0]), _t([1.5]))


def test_div_rounding_modes():
    x, y = _t([-7.0, 7.0]), _t([2.0, 2.0])
    assert D.div(x, y, rounding_mode="floor").tolist() == [-4.0, 3.0]
    assert D.div(x, y, rounding_mode="trunc").tolist() == [-3.0, 3.0]
    assert D.div(_t([-7]), _t([2]), rounding_mode="floor").tolist() == [-4]


@pytest.fixture
def without_scipy():
    saved = dict(special._SPECIAL)
    special._SPECIAL[np] = False
    yield
    special._SPECIAL.clear()
    special._SPECIAL.update(saved)


def test_special_fallbacks_without_scipy(without_scipy):
    x = np.array([0.3, 1.0, 2.5, 7.0, 20.0, -0.5, -2.5])
    digamma = D.digamma(_t(x, "float64")).numpy()
    import scipy.special as sp

    np.testing.assert_allclose(digamma, sp.psi(x), rtol=1e-12)
    lgamma = D.lgamma(_t(x, "float64")).numpy()
    np.testing.assert_allclose(lgamma, [math.lgamma(v) for v in x], rtol=1e-12)
    np.testing.assert_allclose(D.i0(_t(x, "float64")).numpy(), sp.i0(x), rtol=1e-12)
    assert np.isnan(D.digamma(_t([-2.0], "float64")).item())
    with pytest.raises(ImportError, match="scipy"):
        D.i1(_t([1.0]))
    with pytest.raises(ImportError, match="scipy"):
        D.gammainc(_t([1.0]), _t([1.0]))


def test_cummax_cummin_indices_ties_and_nan():
    v, i = D.cummax(_t([1.0, 3.0, 3.0, 2.0, 3.0]))
    assert v.tolist() == [1.0, 3.0, 3.0, 3.0, 3.0] and i.tolist() == [0, 1, 2, 2, 4]
    v, i = D.cummin(_t([[3, 1], [1, 2]]), axis=0, dtype="int32")
    assert v.tolist() == [[3, 1], [1, 1]] and i.tolist() == [[0, 0], [1, 0]]
    assert i.dtype == D.int32
    v, i = D.cummax(_t([1.0, np.nan, 5.0]))
    assert np.isnan(v.numpy()[1:]).all() and i.tolist() == [0, 1, 1]


def test_cummax_gradient_adds_up_over_repeats():
    x = D.to_tensor([1.0, 3.0, 2.0, 0.0], stop_gradient=False)
    D.cummax(x)[0].sum().backward()
    assert x.grad.tolist() == [1.0, 3.0, 0.0, 0.0]


def test_logcumsumexp_is_stable_for_large_and_spread_values():
    x = np.array([-1000.0, 0.0, 1000.0])
    np.testing.assert_allclose(D.logcumsumexp(_t(x, "float64")).numpy(),
                               np.logaddexp.accumulate(x))


def test_nan_order_statistics():
    x = np.array([[1.0, np.nan, 3.0, 4.0, 2.0], [np.nan] * 5])
    value, index = D.nanmedian(_t(x), axis=1, mode="min")
    assert value.numpy()[0] == 2.0 and np.isnan(value.numpy()[1])
    assert index.tolist() == [4, -1]
    quartile = D.nanquantile(_t(x), 0.25, axis=1).numpy()
    np.testing.assert_allclose(quartile[0], np.nanquantile(x[0], 0.25), rtol=1e-6)
    assert np.isnan(quartile[1])
    assert D.nanmedian(_t(x), axis=1, keepdim=True).shape == [2, 1]
    with pytest.raises(ValueError, match="nanquantile"):
        D.nanquantile(_t(x), 1.5)
    with pytest.raises(ValueError, match="nanmedian"):
        D.nanmedian(_t(x), mode="max")


def test_trapezoid_rejects_x_and_dx_together():
    with pytest.raises(ValueError, match="trapezoid"):
        D.trapezoid(_t([1.0, 2.0]), x=_t([0.0, 1.0]), dx=1.0)


def test_dygraph_imports_and_runs_the_fallbacks_without_scipy():
    import subprocess
    import sys

    code = ("import sys; sys.modules['scipy'] = None; sys.modules['scipy.special'] = None\n"
            "import dygraph as D\n"
            "print(round(float(D.lgamma(D.to_tensor(4.0))), 5))\n"
            "try:\n    D.i1e(D.to_tensor(1.0))\n"
            "except ImportError as e:\n    print('scipy' in str(e))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout.split()
    assert out == ["1.79176", "True"]
