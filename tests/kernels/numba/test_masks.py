"""The compiled ReLU and ReLU6 gradients (dygraph.kernels.numba.masks) against NumPy's
`g * mask`, bit for bit: both dtypes, NaN and inf gradients where the unit is off (NaN, as
Paddle's multiply gives), signed zeros, the edges 0 and 6; and the op choosing them only
for contiguous arrays of one shape."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.backend import compiled
from tests.kernels.numba.helpers import numpy_path

pytest.importorskip("numba")
masks = pytest.importorskip("dygraph.kernels.numba.masks")


def _special(dtype):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(5000).astype(dtype) * 4
    x[:8] = [0.0, -0.0, 6.0, np.nan, np.inf, -np.inf, 1e-45, 5.9999995]
    g = rng.standard_normal(5000).astype(dtype)
    g[8:12] = [np.inf, np.nan, -np.inf, -0.0]
    return x, g


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_grad_is_numpys_masked_product(dtype):
    x, g = _special(dtype)
    y = np.maximum(x, 0)
    with np.errstate(invalid="ignore"):
        want = g * (y > 0)
    got = masks.relu_grad(g, y, np.empty_like(g))
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    assert got.dtype == dtype


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu6_grad_is_numpys_masked_product(dtype):
    x, g = _special(dtype)
    with np.errstate(invalid="ignore"):
        want = g * ((x > 0) & (x < 6))
    got = masks.relu6_grad(g, x, np.empty_like(g))
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_flat_alike_wants_one_shape_and_c_order():
    a = np.ones((4, 3))
    assert compiled.flat_alike(a, a.copy())
    assert not compiled.flat_alike(a, np.ones((3, 4)).T)
    assert not compiled.flat_alike(a, np.ones(12))


@pytest.mark.parametrize("fn", [F.relu, F.relu6])
def test_the_ops_give_the_same_gradient_with_the_kernels_on_and_off(fn):
    rng = np.random.default_rng(1)
    data = (rng.standard_normal((16, 8, 40, 40)) * 4).astype(np.float32)  # above the pool size
    upstream = rng.standard_normal(data.shape).astype(np.float32)

    def grad(x_data):
        x = dygraph.to_tensor(x_data, stop_gradient=False)
        fn(x).backward(dygraph.to_tensor(upstream))
        return x.grad.numpy()

    on = grad(data)
    off = numpy_path(grad, data)
    np.testing.assert_array_equal(on, off)
    # A transposed (non-contiguous) gradient falls back to NumPy and agrees too.
    x = dygraph.to_tensor(data, stop_gradient=False)
    fn(x).backward(dygraph.to_tensor(upstream.T.copy()).T)
    np.testing.assert_array_equal(x.grad.numpy(), on)
