"""The data gradient of strided depthwise convs: per-phase correlations (_phase_data) and
the scatter of weighted taps (_scatter_data) against each other and against the adjoint
of the direct reference conv, <conv(x', w), g> = <x', dx(g)>."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.ops.conv import depthwise as conv_depthwise
from dygraph.ops.conv.im2col import Geometry
from tests.op_specs.spec_conv import conv_ref

# (x shape, kernel, stride, (lo, hi) pads per dim, dilation)
CASES = [
    ((2, 5, 16, 16), (3, 3), (2, 2), ((1, 1), (1, 1)), (1, 1)),
    ((2, 5, 15, 16), (3, 3), (2, 2), ((1, 1), (1, 1)), (1, 1)),
    ((1, 4, 11, 9), (3, 3), (3, 3), ((1, 1), (1, 1)), (1, 1)),
    ((1, 4, 12, 12), (5, 5), (2, 2), ((2, 2), (2, 2)), (1, 1)),
    ((1, 4, 12, 12), (3, 3), (2, 2), ((2, 2), (2, 2)), (2, 2)),
    ((1, 4, 10, 10), (2, 2), (3, 3), ((0, 0), (0, 0)), (1, 1)),  # phases no tap reaches
    ((1, 4, 13, 12), (3, 2), (2, 3), ((1, 2), (0, 1)), (2, 1)),
    ((2, 3, 17), (3,), (2,), ((1, 1),), (1,)),
    ((1, 3, 7, 8, 9), (3, 3, 3), (2, 2, 2), ((1, 1),) * 3, (1, 1, 1)),
]


@pytest.mark.parametrize("x_shape, ksize, stride, pads, dilation", CASES)
def test_phase_and_scatter_data_gradients_match_the_adjoint(x_shape, ksize, stride, pads,
                                                             dilation):
    rng = np.random.default_rng(0)
    n, c = x_shape[:2]
    geo = Geometry(stride, dilation, pads, c)
    w = rng.standard_normal((c, 1) + ksize)
    osz = geo.out_sizes(x_shape[2:], ksize)
    g = rng.standard_normal((n, c) + osz)
    x2 = rng.standard_normal(x_shape)
    conv = dict(stride=list(stride), padding=[p for pair in pads for p in pair],
                dilation=list(dilation), groups=c)
    want = np.sum(conv_ref(x2, w, **conv) * g)
    for kernel in (conv_depthwise._phase_data, conv_depthwise._scatter_data):
        dx = kernel(np, g, w, x_shape[2:], geo, np.empty(x_shape))
        np.testing.assert_allclose(np.sum(dx * x2), want, rtol=1e-10)
    np.testing.assert_allclose(
        conv_depthwise._phase_data(np, g, w, x_shape[2:], geo, np.empty(x_shape)),
        conv_depthwise._scatter_data(np, g, w, x_shape[2:], geo, np.empty(x_shape)),
        rtol=1e-10, atol=1e-12)


def test_a_large_strided_depthwise_conv_takes_the_phase_path():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 32, 62, 62)).astype(np.float32)
    assert 2 * 32 * 64 * 64 >= conv_depthwise._PHASE_MIN_ELEMENTS
    w = rng.standard_normal((32, 1, 3, 3)).astype(np.float32)
    tx = dygraph.to_tensor(x, stop_gradient=False)
    y = F.conv2d(tx, dygraph.to_tensor(w), stride=2, padding=1, groups=32)
    g = rng.standard_normal(y.shape).astype(np.float32)
    y.backward(dygraph.to_tensor(g))
    x2 = rng.standard_normal(x.shape)
    want = np.sum(conv_ref(x2, w.astype(np.float64), stride=2, padding=1, groups=32) * g)
    np.testing.assert_allclose(np.sum(tx.grad.numpy() * x2), want, rtol=1e-4)
