"""The compiled 2-D depthwise kernels (dygraph.kernels.numba.depthwise2d, and depthwise2d_same
for 'same' padding at stride 1 or 2) against the direct reference conv and against the
einsum path they replace (conv_depthwise), on strides, dilations, asymmetric and wide
paddings, rows no window reads, both float dtypes and a batch split over threads; and the
dispatch: on when Numba is installed, off by switch."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.backend import parallel
from dygraph.ops.conv import depthwise as conv_depthwise
from dygraph.ops.conv import paths as conv_paths
from dygraph.ops.conv.im2col import Geometry
from tests.kernels.numba.helpers import kernels_off
from tests.op_specs.spec_conv import conv_ref

pytest.importorskip("numba")
depthwise2d = pytest.importorskip("dygraph.kernels.numba.depthwise2d")
same = pytest.importorskip("dygraph.kernels.numba.depthwise2d_same")

# (x shape, kernel, stride, (lo, hi) pads per dim, dilation)
CASES = [
    ((2, 3, 16, 16), (3, 3), (1, 1), ((1, 1), (1, 1)), (1, 1)),
    ((2, 3, 16, 16), (3, 3), (2, 2), ((1, 1), (1, 1)), (1, 1)),
    ((1, 4, 15, 16), (3, 3), (2, 2), ((1, 1), (1, 1)), (1, 1)),
    ((1, 4, 18, 18), (3, 3), (2, 2), ((0, 0), (0, 0)), (1, 1)),  # a row no window reads
    ((1, 2, 11, 9), (3, 3), (3, 3), ((1, 1), (1, 1)), (1, 1)),
    ((1, 2, 12, 12), (5, 5), (2, 2), ((2, 2), (2, 2)), (1, 1)),
    ((1, 2, 12, 12), (3, 3), (1, 1), ((2, 2), (2, 2)), (2, 2)),
    ((1, 2, 10, 10), (2, 2), (3, 3), ((0, 0), (0, 0)), (1, 1)),  # phases no tap reaches
    ((1, 2, 13, 12), (3, 2), (2, 3), ((1, 2), (0, 1)), (2, 1)),
    ((2, 2, 5, 6), (3, 3), (1, 1), ((4, 4), (3, 0)), (1, 1)),  # padding past the kernel
    ((1, 3, 7, 7), (1, 1), (2, 2), ((0, 0), (0, 0)), (1, 1)),
    ((3, 2, 1, 1), (3, 3), (1, 1), ((1, 1), (1, 1)), (1, 1)),
    # 'same' padding at stride 1 or 2 (depthwise2d_same): planes stacked in groups with a
    # partial last group (31 16x16 planes: groups of 11), 7x7, odd and 1-wide maps.
    ((31, 2, 16, 16), (3, 3), (1, 1), ((1, 1), (1, 1)), (1, 1)),
    ((31, 2, 16, 16), (3, 3), (2, 2), ((1, 1), (1, 1)), (1, 1)),
    ((2, 2, 9, 11), (7, 7), (1, 1), ((3, 3), (3, 3)), (1, 1)),
    ((2, 2, 9, 11), (7, 7), (2, 2), ((3, 3), (3, 3)), (1, 1)),
    ((3, 2, 5, 1), (3, 3), (2, 2), ((1, 1), (1, 1)), (1, 1)),
    # 'same' at stride 2 onto more than 256 output positions: the phase kernels again.
    ((1, 2, 40, 36), (3, 3), (2, 2), ((1, 1), (1, 1)), (1, 1)),
]


def _conv_kwargs(stride, pads, dilation, c):
    return dict(stride=list(stride), padding=[p for pair in pads for p in pair],
                dilation=list(dilation), groups=c)


@pytest.mark.parametrize("x_shape, ksize, stride, pads, dilation", CASES)
def test_forward_and_both_gradients_match_the_reference_and_the_einsum_path(
        x_shape, ksize, stride, pads, dilation):
    rng = np.random.default_rng(0)
    n, c = x_shape[:2]
    geo = Geometry(stride, dilation, pads, c)
    x = rng.standard_normal(x_shape)
    w = rng.standard_normal((c, 1) + ksize)
    b = rng.standard_normal(c)
    conv = _conv_kwargs(stride, pads, dilation, c)
    y = depthwise2d.forward(x, w, b, geo)
    np.testing.assert_allclose(y, conv_ref(x, w, b, **conv), rtol=1e-12, atol=1e-12)
    g = rng.standard_normal(y.shape)
    # The gradients are the adjoints of the forward: <conv(x2, w), g> = <x2, dx(g)> and
    # <conv(x, w2), g> = <w2, dw(x, g)>.
    x2, w2 = rng.standard_normal(x_shape), rng.standard_normal(w.shape)
    dx = depthwise2d.data(g, w, x_shape[2:], geo)
    dw = depthwise2d.filter_grad(x, g, ksize, geo)
    np.testing.assert_allclose(np.sum(dx * x2), np.sum(conv_ref(x2, w, **conv) * g),
                               rtol=1e-10)
    np.testing.assert_allclose(np.sum(dw * w2), np.sum(conv_ref(x, w2, **conv) * g),
                               rtol=1e-10)
    np.testing.assert_allclose(dx, conv_depthwise.depthwise_data_last(np, g, w, x_shape[2:],
                                                                      geo), atol=1e-12)
    np.testing.assert_allclose(dw, conv_depthwise.depthwise_filter_last(np, x, g, ksize, geo),
                               atol=1e-11)


def test_float32_matches_float64_within_rounding():
    rng = np.random.default_rng(1)
    geo = Geometry((1, 1), (1, 1), ((1, 1), (1, 1)), 8)
    x = rng.standard_normal((4, 8, 12, 12))
    w = rng.standard_normal((8, 1, 3, 3))
    g = rng.standard_normal((4, 8, 12, 12))
    for fn, args in ((depthwise2d.forward, (x, w, None, geo)),
                     (depthwise2d.data, (g, w, (12, 12), geo)),
                     (depthwise2d.filter_grad, (x, g, (3, 3), geo))):
        single = fn(*(a.astype(np.float32) if isinstance(a, np.ndarray) else a
                      for a in args))
        assert single.dtype == np.float32
        np.testing.assert_allclose(single, fn(*args), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("stride", [2, 3])  # depthwise2d_same, then the phase kernels
def test_a_batch_split_over_threads_gives_the_same_result(stride):
    rng = np.random.default_rng(2)
    geo = Geometry((stride, stride), (1, 1), ((1, 1), (1, 1)), 32)
    x = rng.standard_normal((16, 32, 16, 16)).astype(np.float32)
    w = rng.standard_normal((32, 1, 3, 3)).astype(np.float32)
    g = rng.standard_normal((16, 32) + geo.out_sizes((16, 16), (3, 3))).astype(np.float32)
    serial = (depthwise2d.forward(x, w, None, geo), depthwise2d.data(g, w, (16, 16), geo),
              depthwise2d.filter_grad(x, g, (3, 3), geo))
    parallel.set_num_threads(2)
    try:
        split = (depthwise2d.forward(x, w, None, geo), depthwise2d.data(g, w, (16, 16), geo),
                 depthwise2d.filter_grad(x, g, (3, 3), geo))
    finally:
        parallel.set_num_threads(None)
    for a, b in zip(serial, split):
        np.testing.assert_array_equal(a, b)


def _depthwise_step(x, w):
    tx, tw = dygraph.to_tensor(x, stop_gradient=False), dygraph.to_tensor(w, stop_gradient=False)
    y = F.conv2d(tx, tw, stride=2, padding=1, groups=x.shape[1])
    y.backward(dygraph.to_tensor(np.cos(np.arange(y.size, dtype=x.dtype)).reshape(y.shape)))
    return y.numpy(), tx.grad.numpy(), tw.grad.numpy()


def test_conv2d_uses_the_compiled_kernels_when_on_and_the_einsum_path_when_off(monkeypatch):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 6, 16, 16)).astype(np.float32)
    w = rng.standard_normal((6, 1, 3, 3)).astype(np.float32)
    same_geo = Geometry((2, 2), (1, 1), ((1, 1), (1, 1)), 6)
    phase_geo = Geometry((3, 3), (1, 1), ((1, 1), (1, 1)), 6)

    def chosen(size, geo, ndim=2):
        shape = (2, 6) + (size,) * ndim
        return conv_paths.forward_path(np, np.zeros(shape, np.float32),
                                       np.zeros((6, 1) + (3,) * ndim, np.float32), geo)

    assert chosen(24, phase_geo) == "depthwise_compiled"  # 8x8 outputs
    assert chosen(16, Geometry((2,), (1,), ((1, 1),), 6), ndim=1) == "depthwise"  # 1-D
    # A small map: the phase kernels' set-up does not pay, the same-padding ones' does.
    assert chosen(12, phase_geo) == "depthwise"  # 4x4 outputs
    assert chosen(4, same_geo) == "depthwise_compiled"  # 2x2 outputs
    calls = []
    for name in ("forward", "data", "filter_grad"):
        real = getattr(depthwise2d, name)
        monkeypatch.setattr(depthwise2d, name,
                            lambda *a, _real=real, _name=name: calls.append(_name) or _real(*a))
    on = _depthwise_step(x, w)
    assert calls == ["forward", "data", "filter_grad"]
    with kernels_off():
        assert chosen(16, same_geo) == "depthwise"
        off = _depthwise_step(x, w)
    assert len(calls) == 3
    for a, b in zip(on, off):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("stride", [1, 2])
def test_the_same_padding_filter_gradient_matches_the_einsum_path(stride):
    rng = np.random.default_rng(4)
    geo = Geometry((stride, stride), (1, 1), ((1, 1), (1, 1)), 5)
    assert same.applies((3, 3), geo, geo.out_sizes((10, 9), (3, 3)))
    x = rng.standard_normal((3, 5, 10, 9))
    g = rng.standard_normal((3, 5) + geo.out_sizes((10, 9), (3, 3)))
    np.testing.assert_allclose(depthwise2d.filter_grad(x, g, (3, 3), geo),
                               conv_depthwise.depthwise_filter_last(np, x, g, (3, 3), geo),
                               atol=1e-12)


def test_an_infinite_input_reaches_only_the_outputs_whose_windows_hold_it():
    # The stacked planes put a row's last value next to the next row's first: a tap must
    # not carry it across (a masked product would make 0 * inf = NaN there).
    geo = Geometry((1, 1), (1, 1), ((1, 1), (1, 1)), 1)
    x = np.ones((2, 1, 6, 6))
    x[0, 0, 2, 5] = np.inf
    y = depthwise2d.forward(x, np.ones((1, 1, 3, 3)), None, geo)
    window = np.zeros((6, 6), bool)
    window[1:4, 4:6] = True
    assert np.isinf(y[0, 0][window]).all()
    assert np.isfinite(y[0, 0][~window]).all() and np.isfinite(y[1]).all()
    np.testing.assert_array_equal(y[1], conv_ref(x[1:], np.ones((1, 1, 3, 3)), None, 1, 1)[0])
