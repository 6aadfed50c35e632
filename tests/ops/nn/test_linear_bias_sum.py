"""The bias gradient sum of the Linear op (dygraph/ops/nn/linear.py _bias_grad) on every
layout, row count and dtype its upstream gradient arrives in: as accurate as np.sum's
pairwise sum of each column (tests/ops/test_float32_reductions.py measures it through F.linear
at training sizes), in the gradient's dtype."""

import numpy as np
import pytest

from dygraph.ops.nn.linear import _bias_grad

# Error over np.sum's pairwise error on the same columns, as in
# tests/ops/test_float32_reductions.py: on values of both signs another order as accurate
# (NumPy's pairwise sum of the rows reversed) measures up to 1.8 times; the running sum
# over 4096 rows 20 times.
MARGIN = 2.0


def _pairwise_error(g, exact):
    """np.sum's error on the columns of g each made contiguous (pairwise), at least one
    spacing of the result."""
    pairwise = np.ascontiguousarray(g.T).sum(axis=1)
    floor = np.spacing(np.abs(exact).astype(g.dtype)).max()
    return max(np.abs(pairwise.astype(np.float64) - exact).max(), floor)


def _layouts(rng):
    g = rng.uniform(0.0, 1.0, (4096, 64)).astype(np.float32)
    return {
        "c-order": g,
        "transposed": np.asfortranarray(g),   # columns contiguous: a transposed gradient
        "row-strided": g[::2],
        "column-strided": g[:, ::2],
        "broadcast": np.broadcast_to(np.float32(1.1), (4096, 64)),  # the grad of a sum
    }


@pytest.mark.parametrize("layout", ["c-order", "transposed", "row-strided",
                                    "column-strided", "broadcast"])
def test_bias_sum_as_accurate_as_pairwise_on_any_layout(layout):
    g = _layouts(np.random.default_rng(0))[layout]
    got = _bias_grad(g)
    exact = g.astype(np.float64).sum(axis=0)
    assert got.dtype == np.float32 and got.shape == (g.shape[1],)
    err = np.abs(got.astype(np.float64) - exact).max()
    assert err <= MARGIN * _pairwise_error(g, exact), err


@pytest.mark.parametrize("rows", [1, 2, 15, 16, 31, 127, 128, 129, 255, 256, 1000, 4099])
@pytest.mark.parametrize("cols", [1, 16, 17, 100])
def test_bias_sum_rows_and_columns(rows, cols):
    g = np.random.default_rng(rows * cols).uniform(-1.0, 1.0, (rows, cols)).astype(np.float32)
    got = _bias_grad(g)
    exact = g.astype(np.float64).sum(axis=0)
    assert got.dtype == np.float32 and got.shape == (cols,)
    assert np.abs(got - exact).max() <= MARGIN * _pairwise_error(g, exact)


@pytest.mark.parametrize("dtype", [np.float16, np.complex64])
def test_bias_sum_narrow_dtypes_add_in_wider_ones(dtype):
    """float16 and complex64 sums come out within one rounding of the exact sum."""
    rng = np.random.default_rng(1)
    g = rng.uniform(0.0, 1.0, (1000, 40))
    if np.dtype(dtype).kind == "c":
        g = g + 1j * rng.uniform(0.0, 1.0, g.shape)
    g = g.astype(dtype)
    got = _bias_grad(g)
    exact = g.astype(np.complex128).sum(axis=0)
    assert got.dtype == dtype and got.shape == (40,)
    spacing = np.spacing(np.abs(exact).astype(np.finfo(dtype).dtype))
    assert (np.abs(got.astype(np.complex128) - exact) <= spacing).all()


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_bias_sum_wide_dtypes_unchanged(dtype):
    """float64 and complex128 have no wider type to add in: NumPy's sum over the rows."""
    g = np.random.default_rng(2).uniform(0.0, 1.0, (1000, 40)).astype(dtype)
    got = _bias_grad(g)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, g.sum(axis=0))
