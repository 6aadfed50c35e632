"""The compiled batch norm (dygraph.kernels.numba.batch_norm) against the NumPy path of
dygraph.ops.normalization.normalize.Normalize: outputs, all three gradients and the running
statistics, on 2-D to 5-D inputs, maps of one position, blocks of positions, with and without weight
and bias, data far from zero; and the NumPy backward after the kernels were turned off."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from tests.kernels.numba.helpers import kernels_off, numpy_path

pytest.importorskip("numba")
batch_norm = pytest.importorskip("dygraph.kernels.numba.batch_norm")


def _run(x_data, g_data, affine, dtype):
    c = x_data.shape[1]
    x = dygraph.to_tensor(x_data.astype(dtype), stop_gradient=False)
    w = b = None
    if affine:
        rng = np.random.default_rng(5)
        w = dygraph.to_tensor(rng.uniform(0.5, 2, c).astype(dtype), stop_gradient=False)
        b = dygraph.to_tensor(rng.standard_normal(c).astype(dtype), stop_gradient=False)
    mean, var = dygraph.zeros([c], dtype), dygraph.ones([c], dtype)
    y = F.batch_norm(x, mean, var, w, b, training=True, momentum=0.8)
    y.backward(dygraph.to_tensor(g_data.astype(dtype)))
    grads = [x.grad.numpy()] + ([w.grad.numpy(), b.grad.numpy()] if affine else [])
    return [y.numpy(), mean.numpy(), var.numpy()] + grads


@pytest.mark.parametrize("shape", [(8, 3), (4, 5, 7), (3, 4, 1, 1), (2, 3, 40, 60),
                                   (2, 2, 3, 4, 5)])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("dtype, tol", [(np.float64, 1e-10), (np.float32, 2e-4)])
def test_outputs_gradients_and_running_statistics_match_thenumpy_path(shape, affine, dtype,
                                                                        tol):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape) * 3 + 1
    g = rng.standard_normal(shape)
    assert batch_norm.fits(x.astype(dtype), (0,) + tuple(range(2, len(shape))))
    got = _run(x, g, affine, dtype)
    want = numpy_path(_run, x, g, affine, dtype)
    for a, b in zip(got, want):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def test_data_far_from_zero_keeps_its_variance():
    # The shifted sums: a mean 1e4 standard deviations away loses nothing in float64 sums
    # of float32 values.
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((16, 4, 8, 8)) + 1e4).astype(np.float32)
    y, mean, var = batch_norm.forward(x, None, None, 0.0)
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(mean, x64.mean(axis=(0, 2, 3)), rtol=1e-12)
    np.testing.assert_allclose(var, x64.var(axis=(0, 2, 3)), rtol=1e-9)
    np.testing.assert_allclose(y.std(axis=(0, 2, 3)), 1.0, rtol=1e-4)


def test_it_takes_only_channel_first_batch_statistics():
    x = np.ones((2, 3, 4, 4), np.float32)
    assert batch_norm.fits(x, (0, 2, 3))
    assert not batch_norm.fits(x, (2, 3))  # instance norm
    assert not batch_norm.fits(x, (0, 1, 2))  # channels last
    assert not batch_norm.fits(np.ones((4, 4, 3, 2), np.float32).T, (0, 2, 3))
    assert not batch_norm.fits(x.astype(np.float16), (0, 2, 3))


def test_the_numpy_backward_runs_when_the_kernels_turn_off_after_the_forward():
    rng = np.random.default_rng(2)
    x_data = rng.standard_normal((4, 3, 5, 5)).astype(np.float32)
    g = rng.standard_normal(x_data.shape).astype(np.float32)
    x = dygraph.to_tensor(x_data, stop_gradient=False)
    y = F.batch_norm(x, dygraph.zeros([3]), dygraph.ones([3]), training=True)
    with kernels_off():
        y.backward(dygraph.to_tensor(g))
    want = numpy_path(_run, x_data, g, False, np.float32)[3]
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=2e-4, atol=2e-4)


def test_double_backward_differentiates_through_the_statistics():
    # create_graph recomputes xhat from x as Tensor ops (the kernels keep no xhat).
    rng = np.random.default_rng(3)
    x = dygraph.to_tensor(rng.standard_normal((4, 2, 3, 3)), stop_gradient=False)
    y = F.batch_norm(x, dygraph.zeros([2], "float64"), dygraph.ones([2], "float64"),
                     training=True)
    (gx,) = dygraph.grad((y * y * y).sum(), [x], create_graph=True)
    (ggx,) = dygraph.grad(gx.sum(), [x])
    with kernels_off():
        x2 = dygraph.to_tensor(x.numpy(), stop_gradient=False)
        y2 = F.batch_norm(x2, dygraph.zeros([2], "float64"), dygraph.ones([2], "float64"),
                          training=True)
        (gx2,) = dygraph.grad((y2 * y2 * y2).sum(), [x2], create_graph=True)
        (ggx2,) = dygraph.grad(gx2.sum(), [x2])
    np.testing.assert_allclose(gx.numpy(), gx2.numpy(), rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(ggx.numpy(), ggx2.numpy(), rtol=1e-8, atol=1e-9)
