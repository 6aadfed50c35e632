"""The batch-last convolution (ops/conv/batch_last.py): the data gradient against the
reference conv through its adjoint identity, <conv(x', w), g> = <x', dx(g)>, the forward
and the filter gradient from the kept columns, and the choice conv_paths makes for it."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.backend import blas
from dygraph.ops.conv import batch_last as conv_batch_last
from dygraph.ops.conv import paths as conv_paths
from dygraph.ops.conv import products as conv_kernels
from dygraph.ops.conv.batch_last import (
    BatchLastColumns,
    data_batch_last,
    filter_batch_last,
    forward_batch_last,
)
from dygraph.ops.conv.implicit_gemm import implicit_data
from tests.kernels.numba.helpers import kernels_off
from tests.op_specs.spec_conv import conv_ref
from tests.ops.conv.geometry import geometry

# (x shape, w shape, stride, padding, dilation, groups)
CASES = [
    ((3, 4, 7, 7), (5, 4, 3, 3), 1, 1, 1, 1),
    ((2, 4, 8, 9), (6, 4, 3, 3), 2, 1, 1, 1),
    ((2, 3, 10, 10), (4, 3, 3, 3), 3, 0, 1, 1),
    ((2, 4, 9, 9), (4, 2, 3, 3), 1, 1, 2, 2),  # dilated, two groups
    ((2, 2, 11, 10), (3, 2, 3, 2), (2, 1), ((2, 0), (1, 1)), (1, 2), 1),
    ((2, 2, 6, 6), (3, 2, 2, 2), 2, 0, 1, 1),  # odd input positions no window reads
    ((4, 2, 5, 5), (2, 2, 5, 5), 1, 2, 1, 1),
    ((2, 3, 12), (4, 3, 3), 2, 1, 1, 1),  # conv1d
    ((2, 2, 5, 4, 6), (3, 2, 3, 2, 3), 1, 1, 1, 1),  # conv3d
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("x_shape, w_shape, stride, padding, dilation, groups", CASES)
def test_data_gradient_is_the_adjoint_of_the_reference_conv(dtype, x_shape, w_shape, stride,
                                                            padding, dilation, groups):
    rng = np.random.default_rng(2)
    geo = geometry(stride, padding, dilation, groups, len(x_shape) - 2)
    conv = dict(stride=list(geo.stride), padding=[p for pair in geo.pads for p in pair],
                dilation=list(geo.dilation), groups=groups)
    w = rng.standard_normal(w_shape)
    y_shape = conv_ref(np.zeros(x_shape), w, **conv).shape
    g, x2 = rng.standard_normal(y_shape), rng.standard_normal(x_shape)
    dx = data_batch_last(np, g.astype(dtype), w.astype(dtype), x_shape[2:], geo)
    assert dx.shape == x_shape and dx.dtype == dtype
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.sum(dx * x2), np.sum(conv_ref(x2, w, **conv) * g), **tol)
    if blas.available(np, np.float64):  # elementwise, against the implicit GEMM's
        np.testing.assert_allclose(dx, implicit_data(np, g, w, x_shape[2:], geo), **tol)


@pytest.mark.parametrize("x_shape, w_shape, stride, padding, dilation, groups",
                         [c for c in CASES if len(c[0]) == 4])
def test_compiled_tap_additions_give_the_numpy_loops_sums(x_shape, w_shape, stride, padding,
                                                          dilation, groups):
    pytest.importorskip("numba")
    # dygraph.kernels.numba.batch_last adds the taps in NumPy's order: the same sums, bit for bit.
    rng = np.random.default_rng(4)
    geo = geometry(stride, padding, dilation, groups, 2)
    w = rng.standard_normal(w_shape).astype(np.float32)
    y_shape = conv_ref(np.zeros(x_shape), w.astype(np.float64), stride=list(geo.stride),
                       padding=[p for pair in geo.pads for p in pair],
                       dilation=list(geo.dilation), groups=groups).shape
    g = rng.standard_normal(y_shape).astype(np.float32)
    on = data_batch_last(np, g, w, x_shape[2:], geo)
    with kernels_off():
        off = data_batch_last(np, g, w, x_shape[2:], geo)
    np.testing.assert_array_equal(on, off)


def test_channel_chunks_give_the_same_gradient(monkeypatch):
    # Columns over the chunk limit run a few channels at a time into the accumulator.
    rng = np.random.default_rng(3)
    g, w = rng.standard_normal((3, 4, 4, 4)), rng.standard_normal((4, 5, 3, 3))
    geo = geometry(1, 1, 1, 1, 2)
    whole = data_batch_last(np, g, w, (4, 4), geo)
    per_tap_columns = 9 * 4 * 4 * 3 * 8  # one channel's columns, in bytes
    monkeypatch.setattr(conv_batch_last, "CHUNK_BYTES", 2 * per_tap_columns)
    np.testing.assert_allclose(data_batch_last(np, g, w, (4, 4), geo), whole, rtol=1e-12)


def test_conv_data_takes_it_for_small_maps_only():
    same = geometry(1, 1, 1, 1, 2)
    w = np.zeros((64, 64, 3, 3))
    assert conv_paths._batch_last_pays(np, 16, (8, 8), w, same)  # 64 positions
    assert not conv_paths._batch_last_pays(np, 16, (9, 9), w, same)
    assert not conv_paths._batch_last_pays(np, 1, (4, 4), w, same)  # one sample
    strided = geometry(2, 1, 1, 1, 2)
    assert conv_paths._batch_last_pays(np, 16, (4, 4), w, strided)
    assert not conv_paths._batch_last_pays(np, 16, (8, 8), w, strided)
    assert not conv_paths._batch_last_pays(np, 16, (4, 4), np.zeros((64, 64, 1, 1)), same)
    assert not conv_paths._batch_last_pays(np, 16, (4, 4), np.zeros((64, 16, 3, 3)),
                                             geometry(1, 1, 1, 4, 2))  # groups


def test_lenet_conv_gradient_through_the_op():
    # LeNet's second conv (8x8 outputs, 5x5 filter) takes this path; the op's gradient
    # must equal the reference conv's adjoint.
    rng = np.random.default_rng(4)
    x = dygraph.to_tensor(rng.standard_normal((4, 6, 12, 12)), stop_gradient=False)
    w = dygraph.to_tensor(rng.standard_normal((5, 6, 5, 5)))
    g = rng.standard_normal((4, 5, 8, 8))
    (F.conv2d(x, w) * dygraph.to_tensor(g)).sum().backward()
    x2 = rng.standard_normal((4, 6, 12, 12))
    np.testing.assert_allclose(np.sum(x.grad.numpy() * x2),
                               np.sum(conv_ref(x2, w.numpy()) * g), rtol=1e-10)


@pytest.mark.parametrize("x_shape, w_shape, stride, padding, dilation, groups", CASES)
def test_forward_and_filter_gradient_through_batch_last_columns(x_shape, w_shape, stride,
                                                                padding, dilation, groups):
    # The forward against the reference conv; the filter gradient from the kept columns
    # through its adjoint identity, <conv(x, w2), g> = <w2, dW(x, g)>.
    rng = np.random.default_rng(5)
    geo = geometry(stride, padding, dilation, groups, len(x_shape) - 2)
    conv = dict(stride=list(geo.stride), padding=[p for pair in geo.pads for p in pair],
                dilation=list(geo.dilation), groups=groups)
    x, w = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    b = rng.standard_normal(w_shape[0])
    y, kept = forward_batch_last(np, x, w, b, geo, keep=True)
    np.testing.assert_allclose(y, conv_ref(x, w, b, **conv), rtol=1e-10, atol=1e-10)
    assert isinstance(kept, BatchLastColumns)
    g, w2 = rng.standard_normal(y.shape), rng.standard_normal(w_shape)
    want = np.sum(conv_ref(x, w2, **conv) * g)
    for columns in (500, 1):  # both orientations of the product
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(conv_batch_last, "_FLIP_COLUMNS", columns)
            dw = filter_batch_last(np, g, kept.array, w_shape[2:], groups)
        assert dw.shape == w_shape
        np.testing.assert_allclose(np.sum(dw * w2), want, rtol=1e-10)
        np.testing.assert_allclose(dw, conv_kernels.conv_filter(np, x, g, w_shape[2:], geo),
                                   rtol=1e-10, atol=1e-10)
    assert forward_batch_last(np, x, w, None, geo)[1] is None


def test_conv_forward_keeps_batch_last_columns_where_the_data_gradient_runs_batch_last():
    rng = np.random.default_rng(6)
    geo = geometry(1, 0, 1, 1, 2)
    x, w = rng.standard_normal((4, 3, 12, 12)), rng.standard_normal((5, 3, 5, 5))
    assert conv_paths._batch_last_pays(np, 4, (8, 8), w, geo)
    # With Numba the channels-last path (test_conv_channels_last.py) takes this conv first.
    with kernels_off():
        assert conv_paths.forward_path(np, x, w, geo) == "batch_last"
        y, kept = conv_kernels.conv_forward(np, x, w, None, geo, keep_cols=True)
    assert isinstance(kept, BatchLastColumns)
    np.testing.assert_allclose(y, conv_ref(x, w), rtol=1e-10, atol=1e-10)
