"""interpolate(antialias=True) (dygraph/ops/nn/interpolate.py): bilinear and bicubic resizing
whose filter widens by in / out when shrinking (the cubic kernel with a = -0.5), weights
normalized per output; values recorded from Paddle 3.3, and checked against a direct
loop over the filter."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F

X = np.arange(30.0).reshape(1, 1, 5, 6) ** 1.5

PADDLE = {  # F.interpolate(X, size=[2, 4], mode=..., antialias=True), Paddle 3.3
    "bilinear": [20.19896087, 25.31661636, 31.29591629, 37.66059143,
                 81.1599735, 90.26848024, 99.99088443, 109.75421019],
    "bicubic": [15.49091598, 20.30687428, 26.56827769, 32.82973275,
                84.82368648, 94.32276187, 105.27490288, 115.45074017],
}


def _filter(x, mode):
    x, a = abs(x), -0.5
    if mode == "bilinear":
        return max(0.0, 1.0 - x)
    if x < 1:
        return ((a + 2) * x - (a + 3)) * x * x + 1
    return (((x - 5) * x + 8) * x - 4) * a if x < 2 else 0.0


def _weights(n_in, n_out, mode):
    """The (n_out, n_in) resizing matrix, one output at a time."""
    scale = float(np.float32(n_in) / np.float32(n_out))  # in float32, as Paddle's kernels
    support = (1.0 if mode == "bilinear" else 2.0) * max(scale, 1.0)
    w = np.zeros((n_out, n_in))
    for i in range(n_out):
        centre = scale * (i + 0.5)
        lo, hi = max(int(centre - support + 0.5), 0), min(int(centre + support + 0.5), n_in)
        for j in range(lo, hi):
            w[i, j] = _filter((j - centre + 0.5) / max(scale, 1.0), mode)
        w[i] /= w[i].sum()
    return w


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_values_recorded_from_paddle(mode):
    y = F.interpolate(dygraph.to_tensor(X), size=[2, 4], mode=mode, antialias=True)
    np.testing.assert_allclose(y.numpy().ravel(), PADDLE[mode], rtol=1e-8)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("size", [[2, 3], [3, 7], [1, 4]])
def test_against_a_direct_loop_and_gradient(mode, size):
    x = np.random.default_rng(0).standard_normal((2, 3, 9, 7))
    t = dygraph.to_tensor(x, stop_gradient=False)
    y = F.interpolate(t, size=size, mode=mode, antialias=True)
    wh, ww = _weights(9, size[0], mode), _weights(7, size[1], mode)
    np.testing.assert_allclose(y.numpy(), np.einsum("oh,nchw,pw->ncop", wh, x, ww),
                               atol=1e-12)
    g = np.random.default_rng(1).standard_normal(y.shape)
    y.backward(dygraph.to_tensor(g))
    np.testing.assert_allclose(t.grad.numpy(), np.einsum("oh,ncop,pw->nchw", wh, g, ww),
                               atol=1e-12)


def test_single_output_with_align_corners_reads_near_the_first_pixel():
    # align_corners gives a step of 0: the triangle filter then picks the first pixel
    y = F.interpolate(dygraph.to_tensor(X), size=[1, 1], mode="bilinear", antialias=True,
                      align_corners=True)
    assert float(y.reshape([])) == X[0, 0, 0, 0]


@pytest.mark.parametrize("mode", ["nearest", "linear", "area", "trilinear"])
def test_other_modes_refuse_antialias(mode):
    x = dygraph.ones([1, 1, 4] if mode == "linear" else [1, 1, 4, 4, 4] if mode == "trilinear"
                     else [1, 1, 4, 4])
    with pytest.raises(ValueError, match="antialias needs mode 'bilinear' or 'bicubic'"):
        F.interpolate(x, scale_factor=0.5, mode=mode, antialias=True)
