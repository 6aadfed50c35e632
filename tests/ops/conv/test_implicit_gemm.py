"""The implicit-GEMM convolution (ops/conv/implicit_gemm.py) and the BLAS call under it
(backend/blas.py, tested in tests/backend/test_blas.py).

The kernels are checked against the direct reference of the conv spec entries (one einsum
per tap), and the two gradients through the adjoint identities that define them:
<conv(x', w), g> = <x', dx(g)> and <conv(x, w'), g> = <w', dw(g)> for random x', w'.
Through the ops, the implicit path must give what the im2col path gives.
"""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.backend import blas
from dygraph.ops.conv import paths as conv_paths
from dygraph.ops.conv.implicit_gemm import (
    implicit_data,
    implicit_filter,
    implicit_forward,
    implicit_pays,
    shifted_grid,
)
from tests.op_specs.spec_conv import conv_ref, conv_transpose_ref
from tests.ops.conv.geometry import geometry

needs_blas = pytest.mark.skipif(not blas.available(np, np.float32),
                                reason="NumPy's BLAS is not OpenBLAS")


def test_gemm_is_unavailable_off_numpy_and_for_other_dtypes():
    assert not blas.available(object(), np.float32)
    assert not blas.available(np, np.float16)
    assert not blas.available(np, np.int64)


# (x shape, w shape, stride, padding, dilation, groups)
CASES = [
    ((2, 4, 7, 7), (5, 4, 3, 3), 1, 1, 1, 1),
    ((2, 4, 8, 9), (6, 4, 3, 3), 2, 1, 1, 1),
    ((1, 3, 10, 10), (4, 3, 3, 3), 3, 0, 1, 1),
    ((2, 4, 9, 9), (4, 2, 3, 3), 1, 1, 2, 2),
    ((1, 2, 11, 10), (3, 2, 3, 2), (2, 1), ((2, 0), (1, 1)), (1, 2), 1),
    ((2, 2, 6, 6), (3, 2, 2, 2), 2, 0, 1, 1),  # odd input positions no window reads
    ((1, 2, 5, 5), (2, 2, 5, 5), 1, 2, 1, 1),
    ((2, 3, 12), (4, 3, 3), 2, 1, 1, 1),  # conv1d
    ((1, 2, 5, 4, 6), (3, 2, 3, 2, 3), 1, 1, 1, 1),  # conv3d
    ((2, 4, 9, 9), (5, 4, 1, 1), 2, 0, 1, 1),  # a strided 1x1 conv: one phase, no shift
]


@needs_blas
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("x_shape, w_shape, stride, padding, dilation, groups", CASES)
def test_kernels_match_the_reference_and_their_adjoints(dtype, x_shape, w_shape, stride,
                                                        padding, dilation, groups):
    rng = np.random.default_rng(1)
    d = len(x_shape) - 2
    geo = geometry(stride, padding, dilation, groups, d)
    x, w = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    b = rng.standard_normal(w_shape[0])
    ref_pad = [p for pair in geo.pads for p in pair]
    y_ref = conv_ref(x, w, b, stride=list(geo.stride), padding=ref_pad,
                     dilation=list(geo.dilation), groups=groups)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-10)
    y, kept = implicit_forward(np, x.astype(dtype), w.astype(dtype), b.astype(dtype), geo,
                               keep=True)
    assert y.dtype == dtype
    np.testing.assert_allclose(y, y_ref, **tol)

    g = rng.standard_normal(y.shape)
    dx = implicit_data(np, g.astype(dtype), w.astype(dtype), x_shape[2:], geo)
    dw = implicit_filter(np, x.astype(dtype), g.astype(dtype), w_shape[2:], geo, kept=kept)
    x2, w2 = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    conv = dict(stride=list(geo.stride), padding=ref_pad, dilation=list(geo.dilation),
                groups=groups)
    np.testing.assert_allclose(np.sum(dx * x2), np.sum(conv_ref(x2, w, **conv) * g), **tol)
    np.testing.assert_allclose(np.sum(dw * w2), np.sum(conv_ref(x, w2, **conv) * g), **tol)
    # The filter gradient from a fresh grid equals the one from the kept grid.
    np.testing.assert_allclose(
        implicit_filter(np, x.astype(dtype), g.astype(dtype), w_shape[2:], geo), dw, **tol)


def test_grid_geometry():
    grid = shifted_grid((16, 16), (3, 3), geometry(2, 1, 1, 1, 2))
    assert grid.osz == (8, 8) and grid.grid == (9, 9)
    assert grid.phases == [(0, 0), (0, 1), (1, 0), (1, 1)]
    # Tap (2, 2) reads phase (0, 0) one cell down and one right.
    assert grid.taps[8] == (0, 9 + 1)
    assert grid.covers_input
    assert not shifted_grid((6, 6), (2, 2), geometry(3, 0, 1, 1, 2)).covers_input
    # Filter-gradient groups: a kernel row of taps one cell apart is one group.
    same = shifted_grid((8, 8), (3, 3), geometry(1, 1, 1, 1, 2))
    assert [taps for *_, taps in same.filter_groups] == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    assert [taps for *_, taps in grid.filter_groups] == [[0, 2], [6, 8], [1], [7], [3, 5],
                                                         [4]]
    dilated = shifted_grid((8, 8), (1, 3), geometry(1, 1, 2, 1, 2))  # shifts 0, 2, 4
    assert [taps for *_, taps in dilated.filter_groups] == [[0], [1], [2]]


def test_implicit_pays_where_copies_cost_more_than_extra_cells():
    same = geometry(1, 1, 1, 1, 2)
    if not blas.available(np, np.float32):
        assert not implicit_pays(np, np.float32, (56, 56), (64, 64, 3, 3), same)
        return
    assert implicit_pays(np, np.float32, (56, 56), (64, 64, 3, 3), same)
    assert implicit_pays(np, np.float64, (28, 28), (128, 128, 3, 3), same)
    assert implicit_pays(np, np.float32, (56, 56), (128, 64, 3, 3), geometry(2, 1, 1, 1, 2))
    assert not implicit_pays(np, np.float32, (4, 4), (256, 256, 3, 3), same)  # waste 2.25
    assert not implicit_pays(np, np.float32, (56, 56), (64, 3, 3, 3), same)  # 3 channels in
    assert not implicit_pays(np, np.float32, (56, 56), (64, 64, 1, 1), same)  # one tap
    assert implicit_pays(np, np.float32, (56, 56), (64, 64, 1, 1), geometry(2, 0, 1, 1, 2))
    # A strided conv's data gradient (col2im's slowest case) takes the grid up to 2.5x.
    down = geometry(2, 1, 1, 1, 2)
    assert not implicit_pays(np, np.float32, (4, 4), (256, 128, 3, 3), down)  # waste 2.25
    assert implicit_pays(np, np.float32, (4, 4), (256, 128, 3, 3), down, data=True)
    assert not implicit_pays(np, np.float32, (2, 2), (512, 256, 3, 3), down, data=True)
    assert not implicit_pays(np, np.float16, (56, 56), (64, 64, 3, 3), same)
    assert not implicit_pays(np, np.float32, (56, 56), (64, 2, 3, 3), geometry(1, 1, 1, 32, 2))


def _run_conv(x, w, b, create_graph=False, **kwargs):
    tx, tw, tb = (dygraph.to_tensor(a, stop_gradient=False) for a in (x, w, b))
    y = F.conv2d(tx, tw, tb, **kwargs)
    g = dygraph.to_tensor(np.random.default_rng(5).standard_normal(y.shape))
    if not create_graph:
        y.backward(g)
        return [a.numpy() for a in (y, tx.grad, tw.grad, tb.grad)]
    dx, dw = dygraph.grad([y], [tx, tw], [g], create_graph=True)
    # Second order: the gradient of sum(dx^2) + sum(dw^2) with respect to x and w.
    second = dygraph.grad([(dx * dx).sum() + (dw * dw).sum()], [tx, tw])
    return [a.numpy() for a in (y, dx, dw, *second)]


@needs_blas
@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("size, stride, padding, groups",
                         [(14, 1, 1, 1), (14, 2, 1, 1), (16, 1, 0, 2)])
def test_conv_op_takes_the_implicit_path_and_matches_im2col(create_graph, size, stride,
                                                            padding, groups):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 32, size, size))
    w, b = rng.standard_normal((32, 32 // groups, 3, 3)), rng.standard_normal(32)
    geo = geometry(stride, padding, 1, groups, 2)
    assert implicit_pays(np, np.float64, (size, size), w.shape, geo)
    kwargs = dict(stride=stride, padding=padding, groups=groups)
    # Forced: with Numba the channels-last path takes the 14x14 maps first.
    with conv_paths.force_path("implicit"):
        implicit = _run_conv(x, w, b, create_graph, **kwargs)
    with conv_paths.force_path("im2col"):
        reference = _run_conv(x, w, b, create_graph, **kwargs)
    for got, want in zip(implicit, reference):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


@needs_blas
def test_kept_grid_serves_a_second_backward_after_other_convs():
    rng = np.random.default_rng(3)
    x = dygraph.to_tensor(rng.standard_normal((2, 16, 16, 16)).astype(np.float32),
                          stop_gradient=False)
    conv = dygraph.nn.Conv2D(16, 16, 3, padding=1)
    assert implicit_pays(np, np.float32, (16, 16), (16, 16, 3, 3), geometry(1, 1, 1, 1, 2))
    y = conv(x).sum()
    y.backward(retain_graph=True)
    first = conv.weight.grad.numpy().copy()
    conv(dygraph.randn([2, 16, 16, 16])).sum().backward()  # reuses workspace buffers
    conv.clear_gradients()
    y.backward()
    np.testing.assert_allclose(conv.weight.grad.numpy(), first, rtol=1e-5)


@needs_blas
def test_transposed_conv_through_the_implicit_data_gradient():
    rng = np.random.default_rng(4)
    x, w = rng.standard_normal((2, 32, 8, 8)), rng.standard_normal((32, 16, 3, 3))
    assert implicit_pays(np, np.float64, (15, 15), w.shape, geometry(2, 1, 1, 1, 2))
    y = F.conv2d_transpose(dygraph.to_tensor(x), dygraph.to_tensor(w), stride=2, padding=1)
    np.testing.assert_allclose(y.numpy(), conv_transpose_ref(x, w, stride=2, padding=1),
                               rtol=1e-10, atol=1e-10)


@needs_blas
@pytest.mark.parametrize("stride", [1, 2])
def test_empty_batch_through_the_implicit_path(stride):
    x = dygraph.zeros([0, 32, 16, 16])
    x.stop_gradient = False
    w = dygraph.randn([32, 32, 3, 3])
    w.stop_gradient = False
    assert implicit_pays(np, np.float32, (16, 16), (32, 32, 3, 3), geometry(stride, 1, 1, 1, 2))
    y = F.conv2d(x, w, padding=1, stride=stride)
    assert y.shape == [0, 32, 16 // stride, 16 // stride]
    y.sum().backward()
    assert x.grad.shape == [0, 32, 16, 16]
    np.testing.assert_array_equal(w.grad.numpy(), np.zeros((32, 32, 3, 3), np.float32))
