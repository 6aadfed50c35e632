"""The compiled 2x2 max pooling (dygraph.kernels.numba.pool2d) against the NumPy path of
dygraph.ops.pool.windows, exactly: values, winning taps (ties, NaN anywhere in a window),
the gradient scatter, odd sizes whose last row and column no window reads, both dtypes;
and which poolings it takes."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.ops.pool import windows as pool_kernels
from dygraph.ops.pool.windows import PoolGeometry
from tests.kernels.numba.helpers import numpy_path

pytest.importorskip("numba")
pool2d = pytest.importorskip("dygraph.kernels.numba.pool2d")


def _geometry(shape, ksize=(2, 2), stride=(2, 2), pads=((0, 0), (0, 0)), ceil=False):
    return PoolGeometry.regular(shape[2:], ksize, stride, pads, ceil)


@pytest.mark.parametrize("shape", [(2, 3, 8, 8), (1, 2, 7, 9), (3, 1, 2, 2), (1, 1, 5, 1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_values_taps_and_scatter_are_the_numpy_paths(shape, dtype):
    rng = np.random.default_rng(0)
    # Few distinct values: many ties, where the first maximum must win.
    x = rng.integers(0, 3, shape).astype(dtype)
    flat = x.reshape(-1)
    flat[::7] = np.nan  # NaN at every tap position somewhere
    flat[3::11] = -np.inf
    geo = _geometry(shape)
    assert pool2d.fits(x, geo)
    y, arg = pool_kernels.max_pool(np, x, geo)
    y_ref, arg_ref = numpy_path(pool_kernels.max_pool, np, x, geo)
    np.testing.assert_array_equal(y, y_ref)
    np.testing.assert_array_equal(arg, arg_ref)
    assert arg.dtype == arg_ref.dtype == np.uint8
    g = rng.standard_normal(y.shape).astype(dtype)
    dx = pool_kernels.max_scatter(np, g, arg, geo)
    np.testing.assert_array_equal(dx, numpy_path(pool_kernels.max_scatter, np, g, arg, geo))


def test_without_arg_the_values_alone():
    x = np.random.default_rng(1).standard_normal((2, 2, 6, 6)).astype(np.float32)
    y, arg = pool2d.max_pool(x, False)
    assert arg is None
    np.testing.assert_array_equal(y, x.reshape(2, 2, 3, 2, 3, 2).max(axis=(3, 5)))


def test_it_takes_only_unpadded_2x2_stride_2_windows_on_c_ordered_input():
    x = np.ones((1, 1, 8, 8))
    assert pool2d.fits(x, _geometry(x.shape))
    assert not pool2d.fits(x, _geometry(x.shape, (3, 3), (2, 2)))
    assert not pool2d.fits(x, _geometry(x.shape, (2, 2), (1, 1)))
    assert not pool2d.fits(x, _geometry(x.shape, pads=((1, 1), (1, 1))))
    assert not pool2d.fits(np.ones((1, 1, 7, 7)), _geometry((1, 1, 7, 7), ceil=True))
    assert not pool2d.fits(np.ones((8, 8, 1, 1)).T, _geometry(x.shape))
    assert not pool2d.fits(np.ones((1, 1, 8)), PoolGeometry.regular((8,), (2,), (2,),
                                                                    ((0, 0),), False))


def test_max_pool2d_and_its_gradient_agree_with_the_kernels_on_and_off():
    rng = np.random.default_rng(2)
    data = rng.standard_normal((4, 3, 10, 10)).astype(np.float32)
    upstream = rng.standard_normal((4, 3, 5, 5)).astype(np.float32)

    def run():
        x = dygraph.to_tensor(data, stop_gradient=False)
        y, mask = F.max_pool2d(x, 2, return_mask=True)
        y.backward(dygraph.to_tensor(upstream))
        return y.numpy(), mask.numpy(), x.grad.numpy()

    on = run()
    off = numpy_path(run)
    for a, b in zip(on, off):
        np.testing.assert_array_equal(a, b)
