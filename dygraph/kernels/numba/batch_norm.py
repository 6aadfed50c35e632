"""Batch norm's training forward and backward over (N, C, *S), compiled by Numba.

The NumPy path (dygraph.ops.normalization.normalize) makes the channel sums BLAS products
with vectors of ones, but still needs about six passes over x each way: the sums,
x - mean, the squares, the scaled output, the bias; in backward two sums and four
element-wise passes. Here:

- forward: one pass for the sums of (shifted) values and squares, one writing y;
- backward: one pass for the two gradient sums, one writing dx;

Each pass runs along x viewed as (N, C * S) rows: the channel of position k is k // S,
so the per-channel values are first spread over a row (C * S values) and every loop is a
long, flat, vectorized one, whatever the map size (MobileNetV2 has 1x1 maps with 960
channels). Sums accumulate in float64, row by row (N additions a position) over blocks of
positions that stay in cache, then per channel. Figures (a layer's forward and backward,
and the model steps): docs/PERFORMANCE.md#normalization.

Example:
    >>> import numpy as np
    >>> x = np.array([[[1.0], [2.0]], [[3.0], [6.0]]])
    >>> y, mean, var = forward(x, None, None, 0.0)
    >>> mean.ravel(), var.ravel(), y[:, 0, 0]
    (array([2., 4.]), array([1., 4.]), array([-1.,  1.]))
"""

import numpy as np
from numba import njit

from dygraph.backend.workspace import workspace

__all__ = ["fits", "forward", "backward"]


def fits(x, axes):
    """Whether this is a batch norm these loops take: statistics over every axis but 1,
    x C-ordered float32 or float64.

    Example:
        >>> import numpy as np
        >>> fits(np.ones((2, 3, 4, 4), np.float32), (0, 2, 3)), fits(np.ones((2, 3)), (1,))
        (True, False)
    """
    return (x.ndim >= 2 and x.flags.c_contiguous and tuple(axes) == (0,) + tuple(
        range(2, x.ndim)) and x.dtype in (np.float32, np.float64))


@njit(nogil=True, cache=True)
def _spread(per_channel, spatial, out):
    """out[c * spatial + j] = per_channel[c]."""
    for c in range(per_channel.size):
        v = per_channel[c]
        for j in range(spatial):
            out[c * spatial + j] = v


@njit(nogil=True, cache=True)
def _channel_sums(acc, spatial, out):
    for c in range(out.size):
        total = 0.0
        for j in range(spatial):
            total += acc[c * spatial + j]
        out[c] = total


# Positions summed at a time: the float64 accumulators of a block (16 KB) stay in L1 while
# the batch's rows stream past (whole-row accumulators of a big map would not; figures:
# docs/PERFORMANCE.md#normalization).
_BLOCK = 2048


@njit(nogil=True, cache=True)
def _statistics(x2, spatial, mean, var, mean_row):
    """Per-channel mean and (biased) variance of x2 (N, C * S) in one pass, mean_row the
    mean spread over a row. The values are shifted by each channel's first value before
    they are summed and squared: var = E[d^2] - E[d]^2 with d = x - shift then has no
    cancellation to speak of unless the shift is far from the mean in units of the
    standard deviation (a first sample is not), and a second pass over x is saved."""
    n, width = x2.shape
    count = n * spatial
    shift = np.empty(width // spatial)
    for c in range(shift.size):
        shift[c] = x2[0, c * spatial]
    _spread(shift, spatial, mean_row)
    acc = np.empty(width, np.float64)
    acc_sq = np.empty(width, np.float64)
    for lo in range(0, width, _BLOCK):
        hi = min(lo + _BLOCK, width)
        a, a_sq, shifts = acc[lo:hi], acc_sq[lo:hi], mean_row[lo:hi]
        a[:] = 0.0
        a_sq[:] = 0.0
        for i in range(n):
            row = x2[i][lo:hi]
            for k in range(hi - lo):
                a[k] += row[k] - shifts[k]
            for k in range(hi - lo):
                d = row[k] - shifts[k]
                a_sq[k] += d * d
    _channel_sums(acc, spatial, mean)
    _channel_sums(acc_sq, spatial, var)
    mean /= count
    var /= count
    var -= mean * mean
    mean += shift
    _spread(mean, spatial, mean_row)


@njit(nogil=True, cache=True)
def _scale(x2, mean_row, scale_row, shift_row, y2):
    n, width = x2.shape
    for i in range(n):
        row, out = x2[i], y2[i]
        for k in range(width):
            out[k] = (row[k] - mean_row[k]) * scale_row[k] + shift_row[k]


@njit(nogil=True, cache=True)
def _gradient_sums(g2, x2, mean_row, spatial, sum_g, sum_gc):
    """Per channel: the sum of g and of g * (x - mean), by blocks of positions."""
    n, width = g2.shape
    acc_g = np.empty(width, np.float64)
    acc_gc = np.empty(width, np.float64)
    for lo in range(0, width, _BLOCK):
        hi = min(lo + _BLOCK, width)
        a_g, a_gc, means = acc_g[lo:hi], acc_gc[lo:hi], mean_row[lo:hi]
        a_g[:] = 0.0
        a_gc[:] = 0.0
        for i in range(n):
            gr, xr = g2[i][lo:hi], x2[i][lo:hi]
            for k in range(hi - lo):
                a_g[k] += gr[k]
            for k in range(hi - lo):
                a_gc[k] += gr[k] * (xr[k] - means[k])
    _channel_sums(acc_g, spatial, sum_g)
    _channel_sums(acc_gc, spatial, sum_gc)


@njit(nogil=True, cache=True)
def _gradient_products(g2, x2, spatial, sum_g, sum_gx):
    """Per channel: the sum of g and of g * x, by blocks of positions, for float32 g and x.
    Each product is exact in float64 (24-bit significands), and backward takes mean *
    sum(g) off in float64: centering on a float32 mean instead errs by the mean's rounding
    times sum(g), and float32 differences x - mean round alike for every x in a binade
    beyond the mean (110x and 2.5x np.sum's pairwise error on a 64x16x28x28 batch of
    mean 2). A single loop over the block (no mean row to read) is also the faster one."""
    n, width = g2.shape
    acc_g = np.empty(width, np.float64)
    acc_gx = np.empty(width, np.float64)
    for lo in range(0, width, _BLOCK):
        hi = min(lo + _BLOCK, width)
        a_g, a_gx = acc_g[lo:hi], acc_gx[lo:hi]
        a_g[:] = 0.0
        a_gx[:] = 0.0
        for i in range(n):
            gr, xr = g2[i][lo:hi], x2[i][lo:hi]
            for k in range(hi - lo):
                gk = np.float64(gr[k])
                a_g[k] += gk
                a_gx[k] += gk * np.float64(xr[k])
    _channel_sums(acc_g, spatial, sum_g)
    _channel_sums(acc_gx, spatial, sum_gx)


@njit(nogil=True, cache=True)
def _data_grad(g2, x2, mean_row, scale_row, mean_g_row, slope_row, dx2):
    n, width = g2.shape
    for i in range(n):
        gr, xr, out = g2[i], x2[i], dx2[i]
        for k in range(width):
            out[k] = (scale_row[k] * (gr[k] - mean_g_row[k])
                      - slope_row[k] * (xr[k] - mean_row[k]))


def _rows(a):
    return a.reshape(a.shape[0], -1)


def _spread_row(values, spatial, dtype):
    row = np.empty(values.size * spatial, dtype)
    _spread(np.ascontiguousarray(values, dtype=dtype), spatial, row)
    return row


def forward(x, w, b, eps):
    """(y, mean, var) of batch norm in training: statistics over all axes but 1 of x,
    y = (x - mean) / sqrt(var + eps) * w + b (w and b (C,) or None). mean and var are
    float64 (C,) arrays, var biased.

    Example:
        >>> import numpy as np
        >>> y, _, _ = forward(np.array([[0.0], [2.0]]), np.array([2.0]), np.array([1.0]), 0.0)
        >>> y.ravel()
        array([-1.,  3.])
    """
    n, c = x.shape[:2]
    spatial = x[0, 0].size
    mean, var = np.empty(c), np.empty(c)
    mean_row = np.empty(c * spatial)
    x2 = _rows(x)
    _statistics(x2, spatial, mean, var, mean_row)
    scale = 1.0 / np.sqrt(var + eps)
    if w is not None:
        scale = scale * w
    shift = np.zeros(c) if b is None else b.astype(np.float64)
    y = workspace.output(np, x.shape, x.dtype)
    _scale(x2, mean_row.astype(x.dtype), _spread_row(scale, spatial, x.dtype),
           _spread_row(shift, spatial, x.dtype), _rows(y))
    return y, mean, var


def backward(g, x, mean, rstd, w, need_dx):
    """(dx or None, sum of g, sum of g * xhat) per channel, for the forward above with
    rstd = 1 / sqrt(var + eps) (float64 (C,) arrays, as forward's statistics). The sums
    are float64 (C,): db and, as dw = sum(g * xhat), the weight's gradient.

    Example:
        >>> import numpy as np
        >>> dx, sg, sgx = backward(np.array([[1.0], [0.0]]), np.array([[0.0], [2.0]]),
        ...                        np.array([1.0]), np.array([1.0]), None, True)
        >>> dx.ravel(), sg, sgx
        (array([0., 0.]), array([1.]), array([-1.]))
    """
    n, c = x.shape[:2]
    spatial = x[0, 0].size
    count = n * spatial
    g = np.ascontiguousarray(g)
    g2, x2 = _rows(g), _rows(x)
    mean_row = _spread_row(mean, spatial, x.dtype)
    sum_g, sum_gc = np.empty(c), np.empty(c)
    if x.dtype == np.float32:
        # sum(g * (x - mean)) as sum(g * x) - mean * sum(g), both exact enough in float64
        # (the cancellation costs a float64 sum's error times |mean| / std, far below a
        # float32 rounding of the result).
        _gradient_products(g2, x2, spatial, sum_g, sum_gc)
        sum_gc -= mean * sum_g
    else:
        _gradient_sums(g2, x2, mean_row, spatial, sum_g, sum_gc)
    sum_gx = sum_gc * rstd
    if not need_dx:
        return None, sum_g, sum_gx
    scale = rstd if w is None else rstd * w
    dx = workspace.output(np, x.shape, x.dtype)
    _data_grad(g2, x2, mean_row, _spread_row(scale, spatial, x.dtype),
               _spread_row(sum_g / count, spatial, x.dtype),
               _spread_row(scale * rstd * sum_gx / count, spatial, x.dtype), _rows(dx))
    return dx, sum_g, sum_gx
