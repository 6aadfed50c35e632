"""Behaviour of the reductions beyond the spec table: ties, zeros, dtypes, NaN, the
non-differentiable reductions against NumPy, and errors."""

import numpy as np
import pytest

import dygraph as D
from dygraph.ops.reduction.statistics import norm

RNG = np.random.default_rng(3)
X = RNG.standard_normal((3, 4, 5))


def t(a, **kw):
    return D.to_tensor(a, **kw)


def grad_of(fn, data):
    x = t(data, dtype="float64", stop_gradient=False)
    fn(x).sum().backward()
    return x.grad.numpy()


# -- ties: max/min give every tie the full gradient, amax/amin split it -------------------

TIES = [[0.1, 0.9, 0.9, 0.9], [0.9, 0.9, 0.6, 0.7]]


def test_max_gives_each_tie_the_full_gradient_and_amax_splits_it():
    np.testing.assert_allclose(grad_of(D.max, TIES), [[0, 1, 1, 1], [1, 1, 0, 0]])
    np.testing.assert_allclose(grad_of(D.amax, TIES), [[0, .2, .2, .2], [.2, .2, 0, 0]])
    np.testing.assert_allclose(grad_of(lambda x: D.amax(x, axis=0), TIES),
                               [[0, .5, 1, 1], [1, .5, 0, 0]])
    low = -np.asarray(TIES)
    np.testing.assert_allclose(grad_of(lambda x: D.min(x, axis=1), low),
                               [[0, 1, 1, 1], [1, 1, 0, 0]])
    np.testing.assert_allclose(grad_of(lambda x: D.amin(x, axis=1), low),
                               [[0, 1 / 3, 1 / 3, 1 / 3], [.5, .5, 0, 0]])


def test_full_reductions_are_0d_and_keepdim_keeps_ones():
    for fn in (D.max, D.amin, D.prod, D.var, D.std, D.logsumexp, norm, D.median):
        assert fn(t(X)).shape == []
        assert fn(t(X), keepdim=True).shape == [1, 1, 1]
    out = D.sum(t(X))
    out.zero_()  # a full reduction holds a real 0-D array, writable in place
    assert float(out) == 0.0


# -- zeros: prod and cumprod gradients stay exact -------------------------------------------

def test_prod_gradient_with_zeros():
    np.testing.assert_allclose(grad_of(D.prod, [2.0, 0.0, 3.0]), [0.0, 6.0, 0.0])
    np.testing.assert_allclose(grad_of(D.prod, [2.0, 0.0, 0.0]), [0.0, 0.0, 0.0])
    np.testing.assert_allclose(grad_of(lambda x: D.prod(x, axis=1), [[2.0, 0.0], [3.0, 4.0]]),
                               [[0.0, 2.0], [4.0, 3.0]])


def test_cumprod_gradient_with_zeros():
    # y = [2, 0, 0, 0]: dy/dx summed over outputs.
    x = [2.0, 0.0, 3.0, 4.0]
    # d(sum y)/dx0 = 1; dx1 = 2 + 2*3 + 2*3*4 = 32; dx2 = dx3 = 0 (a zero before them).
    np.testing.assert_allclose(grad_of(lambda v: D.cumprod(v, dim=0), x), [1, 32, 0, 0])


@pytest.mark.parametrize("fn", [lambda x: D.prod(x, axis=1), lambda x: D.cumprod(x, dim=1)])
def test_zero_aware_gradients_agree_under_create_graph(fn):
    data = np.array([[0.5, 0.0, -1.5, 2.0], [0.0, 0.3, 0.0, -0.4], [1.2, -0.7, 0.9, 1.1]])
    x = t(data, stop_gradient=False)
    plain, = D.grad([fn(x).sum()], [x])
    graphed, = D.grad([fn(x).sum()], [x], create_graph=True)
    np.testing.assert_allclose(graphed.numpy(), plain.numpy())
    assert not graphed.stop_gradient


# -- dtypes ---------------------------------------------------------------------------

def test_integer_and_bool_dtype_rules():
    i32 = t(np.array([[1, 2], [3, 4]], np.int32))
    assert D.max(i32).dtype == D.int32
    assert D.prod(i32, axis=0).dtype == D.int32
    assert D.cumsum(i32, axis=1).dtype == D.int64  # as Paddle
    with pytest.raises(RuntimeError, match="cumsum: .*bool"):  # Paddle: no bool kernel
        D.cumsum(t([True, True, False]))
    assert D.cumsum(i32, dtype="float64").dtype == D.float64
    assert D.median(i32).dtype == D.float32 and float(D.median(i32)) == 2.5
    assert D.var(i32).dtype == D.int32 and int(D.var(i32)) == 2  # Paddle 3.3 gives 2
    assert D.quantile(t(X), 0.5).dtype == D.float64
    assert D.all(t([1, 0])).dtype == D.bool
    assert D.count_nonzero(t([1.0, 0.0])).dtype == D.int64


# -- NaN -------------------------------------------------------------------------------

def test_median_and_quantile_give_nan_for_lines_with_nan():
    data = np.array([[1.0, np.nan, 2.0], [3.0, 1.0, 2.0]])
    np.testing.assert_array_equal(D.median(t(data), axis=1).numpy(), [np.nan, 2.0])
    np.testing.assert_array_equal(D.quantile(t(data), [0.0, 1.0], axis=1).numpy(),
                                  [[np.nan, 1.0], [np.nan, 3.0]])


def test_logsumexp_does_not_overflow():
    out = D.logsumexp(t([[1000.0, 1000.0], [-1000.0, -1000.0]]), axis=1)
    np.testing.assert_allclose(out.numpy(), [1000 + np.log(2), -1000 + np.log(2)], rtol=1e-6)


# -- the reductions without gradients, against NumPy ----------------------------------------

@pytest.mark.parametrize("axis", [None, 0, 2, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_argmax_argmin_match_numpy(axis, keepdim):
    got = D.argmax(t(X), axis=axis, keepdim=keepdim)
    np.testing.assert_array_equal(got.numpy(), np.argmax(X, axis=axis, keepdims=keepdim))
    assert got.dtype == D.int64 and got.stop_gradient
    got = D.argmin(t(X), axis=axis, keepdim=keepdim, dtype="int32")
    np.testing.assert_array_equal(got.numpy(), np.argmin(X, axis=axis, keepdims=keepdim))
    assert got.dtype == D.int32


def test_argmax_takes_the_first_of_equal_maxima():
    assert int(D.argmax(t([1, 5, 5, 2]))) == 1
    assert t([[3.0, 1.0], [0.0, 4.0]]).argmax(axis=1).tolist() == [0, 1]


@pytest.mark.parametrize("axis", [None, 1, [0, 2]])
@pytest.mark.parametrize("keepdim", [False, True])
def test_all_any_count_nonzero_match_numpy(axis, keepdim):
    data = RNG.integers(0, 2, (3, 4, 5))
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    for fn, ref in ((D.all, np.all), (D.any, np.any)):
        got = fn(t(data.astype(bool)), axis=axis, keepdim=keepdim)
        np.testing.assert_array_equal(got.numpy(), ref(data, axis=np_axis, keepdims=keepdim))
    got = D.count_nonzero(t(data), axis=axis, keepdim=keepdim)
    np.testing.assert_array_equal(got.numpy(),
                                  np.count_nonzero(data, axis=np_axis, keepdims=keepdim))


def test_tensor_methods():
    x = t(X)
    np.testing.assert_allclose(x.max(axis=1).numpy(), X.max(1))
    np.testing.assert_allclose(x.cumsum(axis=0).numpy(), X.cumsum(0))
    assert bool(t([True, True]).all())


# -- errors ----------------------------------------------------------------------------

def test_errors_name_what_was_wrong():
    with pytest.raises(ValueError, match=r"axis 3 is out of range.*3 dimension"):
        D.max(t(X), axis=3)
    with pytest.raises(ValueError, match=r"length 0.*\[2, 0\]"):
        D.max(t(np.zeros((2, 0))), axis=1)
    with pytest.raises(TypeError, match="int32 or int64"):
        D.argmax(t(X), dtype="float32")
    with pytest.raises(ValueError, match="axis 5"):
        D.argmin(t(X), axis=5)
    with pytest.raises(ValueError, match="'nuc' is not supported"):
        norm(t(X), p="nuc")
    with pytest.raises(ValueError, match="-1"):
        norm(t(X), p=-1)
    with pytest.raises(ValueError, match="one or two ints"):
        norm(t(X), axis=[0, 1, 2])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        D.quantile(t(X), 1.5)
    with pytest.raises(ValueError, match="interpolation"):
        D.quantile(t(X), 0.5, interpolation="cubic")
    with pytest.raises(TypeError, match="int or None"):
        D.median(t(X), axis=[0, 1])
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        D.cumsum(t([[1.0]]), axis=2)


@pytest.mark.parametrize("reduce", ["sum", "mean"])
@pytest.mark.parametrize("shape", [(3, 4), (1,), (), (70, 70)])  # filled vs broadcast
def test_full_reduction_gradient_fills_the_input_shape(reduce, shape):
    # A small input's gradient is a filled array, a big one's a broadcast view; both must
    # give every element the same value, and a second backward adds into the leaf's own.
    data = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    x = D.to_tensor(data, stop_gradient=False)
    expected = 1.0 if reduce == "sum" else 1.0 / max(data.size, 1)
    for times in (1, 2):
        getattr(x, reduce)().backward()
        np.testing.assert_allclose(x.grad.numpy(), np.full(shape, times * expected, np.float32))


def test_reductions_of_nothing_that_have_a_value():
    # As Paddle: the log of an empty sum is -inf, the median of no values NaN (as their
    # mean); max and quantile of nothing stay refused (Paddle returns uninitialised memory)
    empty = t(np.zeros((0, 4), np.float32))
    assert D.logsumexp(empty).tolist() == -np.inf
    assert D.logsumexp(empty, axis=0).tolist() == [-np.inf] * 4
    for median in (D.median, D.nanmedian):
        assert np.isnan(median(empty).numpy()) and median(empty).shape == []
        assert median(empty, axis=0, keepdim=True).shape == [1, 4]
    with pytest.raises(ValueError, match="length 0"):
        D.max(empty, axis=0)


def test_cumsum_of_integers_runs_in_int64_and_in_place_keeps_x_dtype():
    x = D.to_tensor([1, 2, 3], dtype="int32")
    assert D.cumsum(x).dtype == D.int64 and D.cumsum(x).tolist() == [1, 3, 6]
    assert D.cumsum(x, dtype="int32").dtype == D.int32
    assert D.cumsum(D.to_tensor([1.0, 2.0])).dtype == D.float32
    assert x.cumsum_() is x and x.dtype == D.int32 and x.tolist() == [1, 3, 6]


@pytest.mark.parametrize("median", [D.median, D.nanmedian])
@pytest.mark.parametrize("keepdim", [False, True])
def test_median_over_an_axis_of_a_0_size_input(median, keepdim):
    # [0, 4] over axis 1: no lines, so a [0] (or [0, 1]) result; it crashed inside reshape,
    # which reads a 0 in the target shape as "keep the input's dim"
    x = t(np.zeros((0, 4), np.float32), stop_gradient=False)
    out = median(x, axis=1, keepdim=keepdim)
    assert out.shape == ([0, 1] if keepdim else [0]) and out.dtype == D.float32
    out.sum().backward()
    assert x.grad.shape == [0, 4]
    assert median(x, axis=-1).shape == [0]
    assert D.quantile(t(np.zeros((3, 0, 4))), [0.5, 0.2], axis=[0, 2]).shape == [2, 0]


def test_median_of_complex_is_that_of_the_real_parts_as_paddle():
    z = t(np.array([1 + 5j, 2 + 0j, 3 - 1j, 0.5 + 9j], np.complex64), stop_gradient=False)
    out = D.median(z)
    assert out.dtype == D.float32 and float(out) == 1.5
    out.backward()
    np.testing.assert_array_equal(z.grad.numpy(), [0.5, 0.5, 0, 0])
    assert D.median(z.reshape([2, 2]), axis=1).numpy().tolist() == [1.5, 1.75]


def test_norm_of_complex_is_real_the_norm_of_the_moduli():
    z = t(np.array([[3 + 4j, 1j]], np.complex64))
    for p, want in ((2.0, np.sqrt(26)), (1.0, 6.0), (np.inf, 5.0), (0.0, 2.0)):
        out = norm(z, p=p, axis=-1)
        assert out.dtype == D.float32
        np.testing.assert_allclose(out.numpy(), [want], rtol=1e-6)


@pytest.mark.parametrize("fn", ["sum", "mean", "prod", "amax", "max", "min", "logsumexp"])
def test_a_0d_tensor_reduces_over_axis_minus_1_or_0_as_paddle(fn):
    """Paddle 3.3: a 0-D input takes axis -1, 0, [0] or [] (all of it: the value back) and
    refuses any other axis with ValueError."""
    x = D.to_tensor(np.float32(2.5))
    for axis in (-1, 0, [0], []):
        got = getattr(D, fn)(x, axis=axis)
        assert got.shape == [] and float(got) == pytest.approx(2.5)
    with pytest.raises(ValueError, match="out of range"):
        getattr(D, fn)(x, axis=1)
