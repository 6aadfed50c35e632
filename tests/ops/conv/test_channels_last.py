"""The channels-last convolution (ops/conv/channels_last.py, with the compiled copies of
dygraph.kernels.numba.channels_last): the copies against NumPy's, the forward and all three
gradients through the op against the reference conv and against the paths it replaces
(run with the kernels off), the transposed conv through its data gradient, and the choice
conv_forward and conv_data make for it."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.backend import compiled
from dygraph.ops.conv import channels_last as conv_channels_last
from dygraph.ops.conv import products as conv_kernels
from dygraph.ops.conv.channels_last import ChannelsLastColumns
from tests.kernels.numba.helpers import kernels_off
from tests.op_specs.spec_conv import conv_ref, conv_transpose_ref
from tests.ops.conv.geometry import geometry

pytest.importorskip("numba")
channels_last = pytest.importorskip("dygraph.kernels.numba.channels_last")
pytestmark = pytest.mark.skipif(not compiled.enabled(),
                                reason="compiled kernels turned off (DYGRAPH_COMPILED=0)")

# (x shape, w shape, stride, padding, dilation): each with at least 64 values a weight row.
CASES = [
    ((4, 20, 12, 12), (10, 20, 5, 5), 1, 0, 1),  # LeNet's second conv, narrower
    ((3, 8, 7, 6), (5, 8, 3, 3), 1, 1, 1),
    ((2, 8, 9, 8), (6, 8, 3, 3), 2, 1, 1),
    ((2, 8, 10, 10), (4, 8, 3, 3), 3, 0, 1),  # input rows no window reads
    ((2, 11, 11, 10), (3, 11, 3, 2), (2, 1), ((2, 0), (1, 1)), (1, 2)),
    ((2, 8, 12, 12), (3, 8, 3, 3), 1, 2, 2),  # dilated both ways
    ((2, 16, 5, 6), (4, 16, 2, 2), 1, ((4, 4), (3, 3)), 1),  # padding past the kernel
    ((1, 3, 16, 16), (8, 3, 7, 7), 2, 3, 1),  # a ResNet stem: one sample, 3 channels
]


def _windows(grid, out_sizes, ksize, stride, dilation):
    """NumPy's (N, O_h, O_w, k_h, k_w, C) view of every window of a (N, H, W, C) grid."""
    s = grid.strides
    return np.lib.stride_tricks.as_strided(
        grid, (grid.shape[0],) + tuple(out_sizes) + tuple(ksize) + (grid.shape[3],),
        (s[0], s[1] * stride[0], s[2] * stride[1], s[1] * dilation[0], s[2] * dilation[1],
         s[3]), writeable=False)


@pytest.mark.parametrize("stride, dilation", [((1, 1), (1, 1)), ((2, 3), (1, 1)),
                                              ((1, 2), (2, 3))])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gather_and_scatter_match_numpy(stride, dilation, dtype):
    rng = np.random.default_rng(0)
    ksize, grid = (3, 2), rng.standard_normal((2, 13, 12, 5)).astype(dtype)
    out_sizes = tuple((size - d * (k - 1) - 1) // s + 1
                      for size, k, s, d in zip(grid.shape[1:3], ksize, stride, dilation))
    want = _windows(grid, out_sizes, ksize, stride, dilation).reshape(
        2 * out_sizes[0] * out_sizes[1], -1)
    cols = np.full(want.shape, np.nan, dtype)
    channels_last.gather(grid, cols, out_sizes, ksize, stride, dilation)
    np.testing.assert_array_equal(cols, want)
    # The scatter is the gather's adjoint: <gather(x), c> = <x, scatter(c)>.
    c = rng.standard_normal(want.shape).astype(dtype)
    back = np.zeros_like(grid)
    channels_last.scatter(c, back, out_sizes, ksize, stride, dilation)
    tol = 1e-4 if dtype == np.float32 else 1e-11
    np.testing.assert_allclose(np.sum(back * grid), np.sum(want * c), rtol=tol)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("x_shape, w_shape, stride, padding, dilation", CASES)
def test_forward_and_gradients_match_the_reference_and_the_paths_replaced(
        dtype, x_shape, w_shape, stride, padding, dilation):
    rng = np.random.default_rng(1)
    geo = geometry(stride, padding, dilation, 1, 2)
    conv = dict(stride=list(geo.stride), padding=[p for pair in geo.pads for p in pair],
                dilation=list(geo.dilation))
    x, w = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    b = rng.standard_normal(w_shape[0])
    out_sizes = conv_ref(x, w, **conv).shape[2:]
    assert conv_channels_last.kernel_for(np, x, w, geo, x_shape[2:], out_sizes) is not None
    g = rng.standard_normal((x_shape[0], w_shape[0]) + out_sizes)

    def run():
        ts = [dygraph.to_tensor(a.astype(dtype), stop_gradient=False) for a in (x, w, b)]
        y = F.conv2d(*ts, **conv)
        y.backward(dygraph.to_tensor(g.astype(dtype)))
        return [y.numpy()] + [t.grad.numpy() for t in ts]

    on = run()
    with kernels_off():
        off = run()
    tol = dict(rtol=2e-4, atol=2e-4) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(on[0], conv_ref(x, w, b, **conv), **tol)
    # The gradients by their adjoint identities against the reference conv.
    x2, w2 = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    np.testing.assert_allclose(np.sum(on[1] * x2), np.sum(conv_ref(x2, w, **conv) * g), **tol)
    np.testing.assert_allclose(np.sum(on[2] * w2), np.sum(conv_ref(x, w2, **conv) * g), **tol)
    np.testing.assert_allclose(on[3], g.sum(axis=(0, 2, 3)), **tol)
    for a, b_off in zip(on, off):
        assert a.dtype == dtype
        np.testing.assert_allclose(a, b_off, **tol)


def test_the_forward_keeps_its_columns_and_weight_rows_for_the_backward():
    rng = np.random.default_rng(2)
    geo = geometry(1, 0, 1, 1, 2)
    x, w = rng.standard_normal((4, 20, 12, 12)), rng.standard_normal((10, 20, 5, 5))
    y, kept = conv_kernels.conv_forward(np, x, w, None, geo, keep_cols=True)
    assert isinstance(kept, ChannelsLastColumns)
    assert kept.array.shape == (4 * 64, 500) and kept.weight.shape == (10, 500)
    np.testing.assert_allclose(y, conv_ref(x, w), rtol=1e-10, atol=1e-10)
    assert conv_kernels.conv_forward(np, x, w, None, geo)[1] is None


@pytest.mark.parametrize("needs", [(True, False, False), (False, True, True),
                                   (True, True, False)])
def test_only_the_gradients_asked_for(needs):
    rng = np.random.default_rng(3)
    arrays = (rng.standard_normal((2, 8, 6, 6)), rng.standard_normal((4, 8, 3, 3)),
              rng.standard_normal(4))
    ts = [dygraph.to_tensor(a, stop_gradient=not need) for a, need in zip(arrays, needs)]
    y = F.conv2d(*ts, padding=1)
    g = rng.standard_normal(y.shape)
    y.backward(dygraph.to_tensor(g))
    with kernels_off():
        ref = [dygraph.to_tensor(a, stop_gradient=not need) for a, need in zip(arrays, needs)]
        F.conv2d(*ref, padding=1).backward(dygraph.to_tensor(g))
    for t, r, need in zip(ts, ref, needs):
        assert (t.grad is None) == (not need)
        if need:
            np.testing.assert_allclose(t.grad.numpy(), r.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_transposed_conv_runs_its_data_gradient_here():
    # conv2d_transpose's forward is the data gradient of a conv whose weight rows are the
    # transposed conv's output channels times its taps: 8 x 9 = 72 here.
    rng = np.random.default_rng(4)
    x, w, b = (rng.standard_normal((2, 4, 5, 5)), rng.standard_normal((4, 8, 3, 3)),
               rng.standard_normal(8))
    geo = geometry(2, 1, 1, 1, 2)
    assert conv_channels_last.kernel_for(np, x, w, geo, (9, 9), (5, 5), data=True)
    y = F.conv2d_transpose(dygraph.to_tensor(x), dygraph.to_tensor(w), dygraph.to_tensor(b),
                           stride=2, padding=1)
    np.testing.assert_allclose(y.numpy(), conv_transpose_ref(x, w, b, 2, 1), rtol=1e-10,
                               atol=1e-10)


def test_the_choice_of_path():
    same, valid = geometry(1, 1, 1, 1, 2), geometry(1, 0, 1, 1, 2)

    def chosen(x_shape, w_shape, geo, data=False):
        x, w = np.zeros(x_shape, np.float32), np.zeros(w_shape, np.float32)
        out_sizes = geo.out_sizes(x_shape[2:], w_shape[2:])
        return conv_channels_last.kernel_for(np, x, w, geo, x_shape[2:], out_sizes,
                                             data) is not None

    assert chosen((64, 20, 12, 12), (50, 20, 5, 5), valid)  # LeNet's conv2
    assert chosen((16, 64, 8, 8), (64, 64, 3, 3), same)  # ResNet-18's first stage
    assert chosen((64, 32, 14, 14), (64, 32, 3, 3), same)  # 196 positions a sample
    assert not chosen((64, 1, 28, 28), (20, 1, 5, 5), valid)  # 25 values a row
    assert not chosen((16, 128, 4, 4), (256, 128, 3, 3), geometry(2, 1, 1, 1, 2))  # weight
    assert not chosen((16, 64, 16, 16), (64, 64, 3, 3), same)  # the implicit GEMM's map
    assert not chosen((16, 64, 8, 8), (64, 64, 1, 1), valid)  # 1x1: no columns to build
    assert not chosen((16, 64, 8, 8), (64, 32, 3, 3), geometry(1, 1, 1, 2, 2))  # groups
    assert not chosen((512, 64, 12, 12), (64, 64, 3, 3), valid)  # columns over 64 MB
    assert not conv_channels_last.kernel_for(np, np.zeros((4, 8, 12)), np.zeros((4, 8, 9)),
                                             geometry(1, 0, 1, 1, 1), (12,), (4,))  # 1-D
    with kernels_off():
        assert not chosen((64, 20, 12, 12), (50, 20, 5, 5), valid)
