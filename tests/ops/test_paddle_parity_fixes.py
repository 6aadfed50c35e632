"""Behaviours matched to Paddle 3.3 (parity round 4): the expected numbers are NumPy's or
SciPy's, or Paddle 3.3's own answers where Paddle's integer arithmetic decides them."""

import math

import numpy as np
import pytest
import scipy.special as sp

import dygraph as D
from dygraph.framework.errors import IntegerDivisionByZero

FLOATS = ["float32", "float64"]


def t(values, dtype=None, stop_gradient=True):
    return D.to_tensor(np.array(values, dtype=dtype), stop_gradient=stop_gradient)


# -- gammainc_ / gammaincc_ / multigammaln_ ------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
def test_in_place_incomplete_gamma_takes_negatives_as_paddle(dtype):
    a = np.array([-1.0, 0.0, 0.5, 2.0, 1.5, 3.0], dtype)
    y = np.array([1.0, 1.0, -0.5, 0.0, 1.0, 2.5], dtype)
    inside = (a >= 0) & (y >= 0)  # SciPy's values, its limits at 0 included
    for name, fn, outside in (("gammainc_", sp.gammainc, 0.0), ("gammaincc_", sp.gammaincc, 1.0)):
        x = t(a)
        out = getattr(x, name)(t(y))
        assert out is x and x.dtype == getattr(D, dtype)
        want = np.where(inside, fn(np.where(inside, a, 1), np.where(inside, y, 1)), outside)
        np.testing.assert_allclose(x.numpy(), want, rtol=1e-6)
        with pytest.raises(ValueError, match=name[:-1]):  # the out-of-place form refuses
            getattr(D, name[:-1])(t(a), t(y))


@pytest.mark.parametrize("dtype", FLOATS)
def test_in_place_incomplete_gamma_broadcasts_y_into_x_only(dtype):
    a = np.array([[1.0, 2.0], [0.5, 3.0]], dtype)
    y = np.array([1.0, 2.0], dtype)
    x = t(a)
    D.gammainc_(x, t(y))
    np.testing.assert_allclose(x.numpy(), sp.gammainc(a, y), rtol=1e-6)
    with pytest.raises(ValueError, match="gammaincc_"):  # x cannot grow to y's shape
        D.gammaincc_(t(np.ones([2, 1], dtype)), t(np.ones([1, 3], dtype)))


def test_multigammaln_in_place_on_a_leaf_that_requires_grad_as_paddle():
    values = np.array([1.5, 2.5, 0.27136])
    x = t(values, stop_gradient=False)
    assert D.multigammaln_(x, 2) is x
    assert not x.is_leaf and not x.stop_gradient
    want = sp.multigammaln(values[:2], 2)
    np.testing.assert_allclose(x.numpy()[:2], want, rtol=1e-12)
    (x * 2).sum().backward()
    grad = 2 * (sp.digamma(values) + sp.digamma(values - 0.5))  # d/dx of the old x
    np.testing.assert_allclose(x.grad.numpy(), grad, rtol=1e-10)


def test_other_in_place_special_functions_still_refuse_a_leaf():
    with pytest.raises(ValueError, match="lgamma_"):
        t([1.5], stop_gradient=False).lgamma_()


# -- poisson / standard_gamma -------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
def test_poisson_draws_zero_for_negative_and_nan_rates(dtype):
    D.seed(3)
    out = D.poisson(t([-5.0, -1e-3, np.nan, 0.0], dtype))
    assert out.dtype == getattr(D, dtype) and out.numpy().tolist() == [0, 0, 0, 0]
    with pytest.raises(ValueError, match="poisson"):
        D.poisson(t([np.inf], dtype))


def test_poisson_gives_its_input_a_zero_gradient():
    x = t([1.0, 4.0], stop_gradient=False)
    out = D.poisson(x)
    assert not out.stop_gradient
    out.sum().backward()
    assert x.grad.numpy().tolist() == [0.0, 0.0]


@pytest.mark.parametrize("dtype", FLOATS)
def test_standard_gamma_at_every_shape_as_paddle(dtype):
    D.seed(5)
    tiny = np.finfo(dtype).tiny
    alpha = np.array([-5.0, -1.0, -0.7, 0.0, np.nan, -0.5, -0.1, 1e-3, 0.5, 3.0, np.inf],
                     dtype)
    out = D.standard_gamma(t(alpha)).numpy()
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out[:5], tiny)  # alpha <= -2/3, 0 and NaN
    assert np.all(out[5:] >= tiny) and out[-1] == np.inf
    many = D.standard_gamma(t(np.full(20000, 3.0, dtype))).numpy()
    assert abs(many.mean() - 3.0) < 0.1 and abs(many.var() - 3.0) < 0.3


# -- integer mean / var / std ------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_mean_var_std_follow_paddles_integer_arithmetic(dtype):
    x = t([[-1, -2, 5], [7, -8, 2]], dtype)
    assert D.mean(x).dtype == getattr(D, dtype) and int(D.mean(x)) == 0
    assert D.mean(x, axis=0, keepdim=True).numpy().tolist() == [[3, -5, 3]]
    assert int(D.mean(t([-1, -2], dtype))) == -1  # cut toward zero, not down
    assert int(D.mean(t([-5, -5, -1], dtype))) == -3
    assert D.var(x).dtype == getattr(D, dtype) and int(D.var(x)) == 29
    assert D.var(x, axis=1).numpy().tolist() == [15, 58]
    assert D.var(x, axis=1, unbiased=False).numpy().tolist() == [10, 39]
    assert int(D.var(t([1, 5, 9, 2], dtype), correction=2)) == 19
    std = D.std(x, axis=1)
    assert std.dtype == D.float32
    np.testing.assert_allclose(std.numpy(), np.sqrt([15, 58], dtype=np.float32))
    assert x.mean().dtype == getattr(D, dtype) and x.var().dtype == getattr(D, dtype)


def test_integer_mean_and_var_round_through_float32_and_wrap_as_paddle():
    # Paddle 3.3's answers: elements become float32 before the sum, squares wrap around
    assert int(D.mean(t([2 ** 24 + 1, 2 ** 24 + 1], "int32"))) == 2 ** 24
    assert int(D.mean(t([2 ** 30 + 1, 2 ** 30 + 1], "int64"))) == 2 ** 30
    assert int(D.mean(t([16777216] + [1] * 1000, "int32"))) == 16761
    assert int(D.mean(t([2 ** 31 - 1] * 2 + [2 ** 31 - 3], "int32"))) == -2 ** 31
    assert int(D.var(t([100000, -100000, 3], "int32"))) == -737418240
    assert int(D.var(t([16777217 * 3, 0, 0], "int32"), unbiased=False)) == 67108872
    assert int(D.var(t([16777217 * 2, 0, 0], "int32"))) == -671088640
    assert int(D.var(t([2 ** 40 + 1, 0, 0], "int64"))) == -3074456612610506752


def test_integer_moments_without_values_are_the_lowest_integer():
    low = np.iinfo(np.int32).min
    assert int(D.mean(t(np.zeros((0, 3)), "int32"))) == low
    assert D.mean(t(np.zeros((0, 3)), "int32"), axis=0).numpy().tolist() == [low] * 3
    assert int(D.var(t(3, "int32"))) == low and int(D.var(t(3, "int32"), unbiased=False)) == 0
    assert math.isnan(float(D.std(t(3, "int64"))))
    assert D.var(t(np.zeros((0, 3)), "int32"), axis=1).shape == [0]


def test_bool_mean_is_true_where_the_mean_is_not_zero():
    assert D.mean(t([True, False, False])).dtype == D.bool
    assert bool(D.mean(t([True, False, False]))) and not bool(D.mean(t([False, False])))
    assert bool(D.mean(t(np.zeros(0, bool))))  # NaN reads as True
    assert D.mean(t([1, 2], "int32"), dtype="float64").numpy() == 1.5


# -- search: histogram, histogramdd, topk, unique ---------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_histogram_of_an_empty_input_is_zeros_in_its_dtype(dtype):
    out = D.histogram(t(np.zeros((0, 4)), dtype), bins=5)
    assert out.dtype == getattr(D, dtype) and out.numpy().tolist() == [0] * 5


def test_histogramdd_of_integers_keeps_their_dtype_and_cuts_the_edges():
    x = t([[0, 0], [1, 5], [2, 7], [3, 9], [3, 1]], "int64")
    hist, edges = D.histogramdd(x, bins=[4, 2])
    assert hist.dtype == D.int64 and all(e.dtype == D.int64 for e in edges)
    assert hist.numpy().tolist() == [[0, 0], [1, 0], [0, 1], [1, 2]]  # Paddle's
    assert [e.numpy().tolist() for e in edges] == [[0, 0, 1, 2, 3], [0, 4, 9]]
    hist, edges = D.histogramdd(x, bins=4, ranges=[-2.5, 2.5, -1.7, 10.2])
    assert [e.numpy().tolist() for e in edges] == [[-2, -1, 0, 1, 2], [-1, 1, 4, 7, 10]]
    assert hist.numpy().tolist() == [[0, 0, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0], [0, 0, 1, 1]]
    with pytest.raises(TypeError, match="density"):
        D.histogramdd(x, bins=3, density=True)


@pytest.mark.parametrize("dtype", FLOATS)
def test_topk_of_a_0d_tensor_takes_any_k(dtype):
    x = t(-0.5, dtype, stop_gradient=False)
    for k in (1, 2, 5):
        value, index = D.topk(x, k)
        assert value.shape == [] and float(value) == -0.5 and int(index) == 0
    value.backward()
    assert float(x.grad) == 1.0
    with pytest.raises(ValueError, match="topk"):
        D.topk(x, 0)


@pytest.mark.parametrize("shape,axis", [((0,), None), ((0, 4), None), ((0, 4), 1),
                                        ((3, 0, 2), 2)])
def test_unique_of_an_empty_input_gives_it_back(shape, axis):
    x = t(np.zeros(shape), "float32")
    assert D.unique(x, axis=axis).shape == list(shape)
    out, index, inverse, counts = D.unique(x, True, True, True, axis=axis, dtype="int32")
    assert out.shape == list(shape)
    assert all(a.shape == [0] and a.dtype == D.int32 for a in (index, inverse, counts))


# -- quantile / nanquantile ------------------------------------------------------------------

@pytest.mark.parametrize("fn", [D.quantile, D.nanquantile])
@pytest.mark.parametrize("dtype", FLOATS)
def test_quantiles_over_an_empty_axis_are_zero(fn, dtype):
    z = t(np.zeros((0, 4)), dtype)
    out = fn(z, 0.5)
    assert out.shape == [] and out.dtype == getattr(D, dtype) and float(out) == 0.0
    assert fn(z, [0.2, 0.7], axis=0, keepdim=True).numpy().tolist() == [[[0.0] * 4]] * 2
    assert fn(z, 0.5, axis=1).shape == [0]


# -- unary and arithmetic dtypes ----------------------------------------------------------

def test_neg_of_bool_and_the_angle_conversions_keep_the_dtype():
    b = t([True, False])
    for out in (D.neg(b), -b, D.deg2rad(b), D.rad2deg(b), b.clone().neg_()):
        assert out.dtype == D.bool and out.numpy().tolist() == [True, False]
    with pytest.raises(TypeError, match="negative"):
        D.negative(b)
    # narrower integers scale by the factor cut to their dtype, wrapping around
    assert D.rad2deg(t([1, 2, -1, -3], "int8")).numpy().tolist() == [57, 114, -57, 85]
    assert D.deg2rad(t([100, 200], "uint8")).numpy().tolist() == [0, 0]
    assert D.deg2rad(t([180], "int64")).dtype == D.float32


def test_bool_division_stays_bool_and_refuses_a_false_divisor():
    x, y = t([True, False]), t([True, True])
    for out in (D.divide(x, y), x / y, D.true_divide(x, y), D.div(x, y)):
        assert out.dtype == D.bool and out.numpy().tolist() == [True, False]
    assert x.clone().divide_(y).dtype == D.bool
    with pytest.raises(IntegerDivisionByZero, match="divide"):
        D.divide(x, t([True, False]))


@pytest.mark.parametrize("dtype", FLOATS)
def test_sinc_in_place_writes_x_and_returns_another_tensor(dtype):
    x = t([0.0, 0.5, np.nan, 1.0], dtype)
    out = D.sinc_(x)
    assert out is not x
    want = np.sinc(np.array([0.0, 0.5, 0.0, 1.0], dtype))
    np.testing.assert_allclose(out.numpy(), np.where([1, 1, 0, 1], want, 1.0), atol=1e-7)
    assert np.isnan(x.numpy()[2]) and x.numpy()[1] == out.numpy()[1]
    y = t([0.0, 0.5], dtype, stop_gradient=False)
    D.sinc_(y * 2).sum().backward()  # d/dy sinc(2y) = 2 sinc'(2y): 0 and -2
    np.testing.assert_allclose(y.grad.numpy(), [0.0, -2.0], atol=1e-5)


# -- views ----------------------------------------------------------------------------------

@pytest.mark.parametrize("axis,shape,want", [
    (-1, [2, 3], [0, 2, 3]), (0, [0, 3], [0, 3, 4]), (0, [-1, 3], [0, 3, 4]),
    (1, [-1, 2], [0, 2, 2]), (1, [0, 5], [0, 0, 5]), (1, [], [0])])
def test_unflatten_of_an_empty_tensor_as_paddle(axis, shape, want):
    assert D.unflatten(t(np.zeros((0, 4)), "float32"), axis, shape).shape == want


@pytest.mark.parametrize("axis,shape", [(0, [2, 3]), (1, [-1, 3]), (1, [-1, -1])])
def test_unflatten_of_an_empty_tensor_refuses_what_paddle_refuses(axis, shape):
    with pytest.raises(ValueError, match="unflatten"):
        D.unflatten(t(np.zeros((0, 4)), "float32"), axis, shape)


def test_unflatten_with_zeros_elsewhere_infers_from_the_non_zero_sizes():
    x = t(np.zeros((2, 0)), "float32")
    assert D.unflatten(x, 1, [-1, 3]).shape == [2, 0, 3]
    assert D.unflatten(x, 1, [0, -1]).shape == [2, 0, 1]


def test_views_of_an_empty_tensor_are_refused_as_paddle():
    z = t(np.zeros((0, 4)), "float32")
    with pytest.raises(RuntimeError, match="view_as"):
        D.view_as(z, t(np.zeros((0, 4)), "float32"))
    with pytest.raises(RuntimeError, match="view"):
        D.view(z, [4, 0])
    assert D.view(z, "int32").shape == [0, 4]  # a dtype view is not refused


# -- scatter, autocast ------------------------------------------------------------------------

def test_scatter_gives_unused_update_rows_a_zero_gradient():
    # Paddle leaves those rows of its gradient uninitialised; DyGraph's are 0
    x = t(np.ones((3, 2)), stop_gradient=False)
    updates = t(np.arange(6.0).reshape(3, 2), stop_gradient=False)
    out = D.scatter(x, t([0, 2], "int64"), updates)
    _, grad = D.grad([(out * t(np.arange(1.0, 7.0).reshape(3, 2))).sum()], [x, updates])
    assert grad.numpy().tolist() == [[1.0, 2.0], [5.0, 6.0], [0.0, 0.0]]


def test_autocast_queries_take_a_device_type():
    assert D.amp.is_autocast_enabled(device_type="cpu") is False
    assert D.amp.get_autocast_dtype(device_type=None) == "float16"
    assert D.amp.get_autocast_cpu_dtype(None) == D.amp.get_autocast_gpu_dtype("gpu")
    with D.amp.auto_cast(dtype="bfloat16"):
        assert D.amp.is_autocast_enabled("gpu")
        assert D.amp.get_autocast_cpu_dtype(device_type="cpu") == "bfloat16"
