"""The scans and NaN-aware reductions (dygraph/ops/reduction/scans_and_nan.py) beyond the spec
table: cummax/cummin indices with ties and NaN and their gradient, a stable logcumsumexp,
nanmedian and nanquantile, trapezoid's arguments."""

import numpy as np
import pytest

import dygraph as D


def _t(values, dtype=None):
    return D.to_tensor(np.asarray(values), dtype=dtype)


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


def test_nanmedian_of_integers_keeps_their_dtype_as_paddle():
    # the average of the two middle values is cut toward zero, as Paddle does
    x = _t([[-1, -2, 5, 7], [3, 4, 1, 2]], "int64")
    out = D.nanmedian(x, axis=1)
    assert out.dtype == D.int64 and out.tolist() == [2, 2]
    assert D.nanmedian(_t([-1, -2], "int32")).dtype == D.int32
    assert D.nanmedian(_t([-1, -2], "int32")).item() == -1
    value, index = D.nanmedian(x, axis=1, mode="min")
    assert value.tolist() == [-1, 2] and index.tolist() == [0, 3]
    # no values: Paddle's NaN read as an integer, the dtype's lowest value
    empty = D.nanmedian(D.zeros([2, 0], dtype="int32"), axis=1)
    assert empty.dtype == D.int32 and empty.tolist() == [np.iinfo(np.int32).min] * 2
