"""2-D depthwise convolution with 'same' padding at stride 1 or 2, compiled by Numba.

The case MobileNet-style blocks run most: an odd k x k filter, dilation 1 and (k - 1) / 2
zeros on every side, so that at stride 1 the output map has the input's size. The data
gradient is then the same convolution of the output gradient with the flipped filter.
Stride 2 is the stride-1 convolution read at every other position: the forward keeps
those outputs, and both gradients spread the output gradient over the input's grid (zeros
between) and run as at stride 1. That is 4x the taps, which pays on small maps only
(`applies`).

The planes of one channel are stacked in a flat buffer, each row followed by p = (k - 1)
/ 2 zeros and each plane by p zero rows (a row's zeros are also the next row's left
border). A tap (kh, kw) then reads the stack at one fixed offset from every output
position, and whatever lies past a plane's edge is zero. With the planes stacked, every
loop runs over about 4096 values: long enough for the compiler's SIMD loop. Nothing is
masked, so an infinite input reaches only the outputs whose windows hold it.

- forward: per channel and group of planes, the taps' sums into an accumulator, 3x3 in
  one pass, larger filters in passes of up to three taps of one filter row; then each
  plane's rows out;
- data gradient: the forward on the (spread) output gradient with the flipped filter;
- filter gradient: per channel and group, each tap's dot product with the gradient, 3x3
  in one pass. The bias gradient is not summed here: a float32 running sum over a group
  lost 2-3x the accuracy of NumPy's pairwise sum, and a float64 one slowed the pass more
  than a separate sum costs (dygraph.ops.conv.products.bias_grad).

These kernels are faster than the phase-split kernels of dygraph.kernels.numba.depthwise2d,
which stay for larger strides, dilations, other paddings and strided convs on bigger maps
(figures: docs/PERFORMANCE.md#depthwise-convolution).

Example:
    >>> import numpy as np
    >>> x, w = np.ones((1, 1, 2, 2), np.float32), np.ones((1, 1, 3, 3), np.float32)
    >>> forward(x, w, None)
    array([[[[4., 4.],
             [4., 4.]]]], dtype=float32)
"""

import numpy as np
from numba import njit

from dygraph.backend.parallel import over_batch
from dygraph.backend.workspace import workspace

__all__ = ["applies", "forward", "data", "filter_grad"]

# Values per stacked group: 16 KB of float32, which stays in L1 with the accumulator.
_GROUP_VALUES = 4096


# At stride 2 these kernels compute the stride-1 output and keep every other position: 4x
# the taps. That pays on small maps, where the phase kernels' set-up dominates, ties at
# 32x32 inputs and loses above, so strided convs come here up to this many output positions
# (16x16; figures: docs/PERFORMANCE.md#depthwise-convolution).
_STRIDED_MAX_POSITIONS = 256


def applies(ksize, geo, out_sizes):
    """True when these kernels run the conv: a square odd filter at dilation 1 with
    (k - 1) / 2 zeros on every side, at stride 1, or at stride 2 (both ways) onto an output
    map of at most 256 positions.

    Example:
        >>> from dygraph.ops.conv.im2col import Geometry
        >>> applies((3, 3), Geometry((1, 1), (1, 1), ((1, 1), (1, 1)), 8), (56, 56))
        True
        >>> strided = Geometry((2, 2), (1, 1), ((1, 1), (1, 1)), 8)
        >>> applies((3, 3), strided, (8, 8)), applies((3, 3), strided, (28, 28))
        (True, False)
    """
    k = ksize[0]
    p = (k - 1) // 2
    if not (len(ksize) == 2 and ksize[1] == k and k % 2 == 1
            and tuple(geo.dilation) == (1, 1) and all(tuple(pad) == (p, p) for pad in geo.pads)):
        return False
    stride = tuple(geo.stride)
    return stride == (1, 1) or (stride == (2, 2)
                                and out_sizes[0] * out_sizes[1] <= _STRIDED_MAX_POSITIONS)


@njit(nogil=True, cache=True)
def _stack(n_batch, h, w, p):
    """(row, pitch, group, lead): the values from one row's start to the next (w and p
    zeros), from one plane's to the next (h rows and p zero rows), how many planes a
    group stacks (evened out over the batch), and where the first plane starts (after
    p zero rows and the p values a tap reaches left of a row)."""
    row = w + p
    pitch = (h + p) * row
    most = max(1, _GROUP_VALUES // pitch)
    groups = -(-n_batch // most)
    return row, pitch, -(-n_batch // groups), p * row + p


@njit(nogil=True, cache=True, inline="always")
def _planes_in(src, c, n0, count, buf, at, pitch, row, up):
    """Planes [n0, n0 + count) of channel c (src is (N, C, H, W)) into buf from `at`, one
    every `pitch` values, a row every `row`; with up = 2 a value every other position of
    every other row (a strided conv's output gradient, spread over its input's grid). The
    zeros between stay."""
    h, w = src.shape[2], src.shape[3]
    for j in range(count):
        plane = src[n0 + j, c]
        for r in range(h):
            line, start = plane[r], at + j * pitch + up * r * row
            if up == 1:
                dst = buf[start:start + w]
                for i in range(w):
                    dst[i] = line[i]
            else:
                dst = buf[start:start + up * w]
                for i in range(w):
                    dst[up * i] = line[i]


@njit(nogil=True, cache=True, inline="always")
def _window(buf, start, span):
    """buf[start:start + span] (a bounded slice: the compiler then sees that two windows
    do not overlap the accumulator)."""
    return buf[start:start + span]


@njit(nogil=True, cache=True, inline="always")
def _windows3x3(buf, lead, row, span):
    """The nine 3x3 taps' windows of the stack, in the filter's order (returned as a
    tuple and bound to names: a list of views runs markedly slower; figures:
    docs/PERFORMANCE.md#depthwise-convolution)."""
    return (_window(buf, lead - row - 1, span), _window(buf, lead - row, span),
            _window(buf, lead - row + 1, span), _window(buf, lead - 1, span),
            _window(buf, lead, span), _window(buf, lead + 1, span),
            _window(buf, lead + row - 1, span), _window(buf, lead + row, span),
            _window(buf, lead + row + 1, span))


@njit(nogil=True, cache=True)
def _sum3x3(acc, buf, lead, row, f, span):
    """acc[:span] += the 3x3 taps at every position, one pass."""
    s0, s1, s2, s3, s4, s5, s6, s7, s8 = _windows3x3(buf, lead, row, span)
    f0, f1, f2, f3, f4, f5, f6, f7, f8 = (f[0, 0], f[0, 1], f[0, 2], f[1, 0], f[1, 1],
                                          f[1, 2], f[2, 0], f[2, 1], f[2, 2])
    a = acc[:span]
    for i in range(span):
        a[i] += (s0[i] * f0 + s1[i] * f1 + s2[i] * f2 + s3[i] * f3 + s4[i] * f4
                 + s5[i] * f5 + s6[i] * f6 + s7[i] * f7 + s8[i] * f8)


@njit(nogil=True, cache=True)
def _sum_taps(acc, buf, lead, row, f, span):
    """acc[:span] += every tap at every position, in passes of up to three taps of one
    filter row (missing ones weigh zero)."""
    k = f.shape[0]
    p = (k - 1) // 2
    a = acc[:span]
    for kh in range(k):
        base = lead + (kh - p) * row - p
        for kw in range(0, k, 3):
            f0 = f[kh, kw]
            f1 = f[kh, kw + 1] if kw + 1 < k else f.dtype.type(0)
            f2 = f[kh, kw + 2] if kw + 2 < k else f.dtype.type(0)
            s0 = _window(buf, base + kw, span)
            s1 = _window(buf, base + min(kw + 1, k - 1), span)
            s2 = _window(buf, base + min(kw + 2, k - 1), span)
            for i in range(span):
                a[i] += s0[i] * f0 + s1[i] * f1 + s2[i] * f2


@njit(nogil=True, cache=True)
def _correlate(x, f, b, out, h, w, up, down, lo, hi):
    """out[n, c] = b[c] + the same-padded correlation of plane x[n, c] with f[c] for the
    channels [lo, hi), on an h x w grid that holds x spread by `up` (_planes_in), read
    every `down` positions."""
    n_batch = x.shape[0]
    out_h, out_w = out.shape[2], out.shape[3]
    k = f.shape[2]
    row, pitch, group, lead = _stack(n_batch, h, w, (k - 1) // 2)
    buf = np.zeros(2 * lead + group * pitch, x.dtype)
    acc = np.empty(group * pitch, x.dtype)
    for c in range(lo, hi):
        fc = f[c, 0]
        for n0 in range(0, n_batch, group):
            count = min(group, n_batch - n0)
            span = (count - 1) * pitch + h * row
            _planes_in(x, c, n0, count, buf, lead, pitch, row, up)
            acc[:span] = b[c]
            if k == 3:
                _sum3x3(acc, buf, lead, row, fc, span)
            else:
                _sum_taps(acc, buf, lead, row, fc, span)
            for j in range(count):
                plane = out[n0 + j, c]
                for r in range(out_h):
                    dst, src = plane[r], acc[j * pitch + down * r * row:]
                    if down == 1:
                        for i in range(out_w):
                            dst[i] = src[i]
                    else:
                        for i in range(out_w):
                            dst[i] = src[down * i]


@njit(nogil=True, cache=True, fastmath={"reassoc"})
def _dots3x3(buf, grid, lead, row, span, dw, c):
    """dw[c, 0] += each 3x3 tap's dot product with the gradient grid, one pass
    (reassociated into SIMD partial sums, in an order the code fixes)."""
    s0, s1, s2, s3, s4, s5, s6, s7, s8 = _windows3x3(buf, lead, row, span)
    g = grid[:span]
    d0 = d1 = d2 = d3 = d4 = d5 = d6 = d7 = d8 = g.dtype.type(0)
    for i in range(span):
        gi = g[i]
        d0 += s0[i] * gi
        d1 += s1[i] * gi
        d2 += s2[i] * gi
        d3 += s3[i] * gi
        d4 += s4[i] * gi
        d5 += s5[i] * gi
        d6 += s6[i] * gi
        d7 += s7[i] * gi
        d8 += s8[i] * gi
    f = dw[c, 0]
    f[0, 0] += d0
    f[0, 1] += d1
    f[0, 2] += d2
    f[1, 0] += d3
    f[1, 1] += d4
    f[1, 2] += d5
    f[2, 0] += d6
    f[2, 1] += d7
    f[2, 2] += d8


@njit(nogil=True, cache=True, fastmath={"reassoc"})
def _dots(buf, grid, lead, row, span, dw, c):
    """_dots3x3 for any odd k: one pass per tap."""
    k = dw.shape[2]
    p = (k - 1) // 2
    g = grid[:span]
    for kh in range(k):
        for kw in range(k):
            s = _window(buf, lead + (kh - p) * row + kw - p, span)
            d = g.dtype.type(0)
            for i in range(span):
                d += s[i] * g[i]
            dw[c, 0, kh, kw] += d


@njit(nogil=True, cache=True)
def _filter_channels(x, g, dw, up, lo, hi):
    n_batch, _, h, w = x.shape
    k = dw.shape[2]
    row, pitch, group, lead = _stack(n_batch, h, w, (k - 1) // 2)
    buf = np.zeros(2 * lead + group * pitch, x.dtype)
    grid = np.zeros(group * pitch, x.dtype)
    dw[lo:hi] = 0
    for c in range(lo, hi):
        for n0 in range(0, n_batch, group):
            count = min(group, n_batch - n0)
            span = (count - 1) * pitch + h * row
            _planes_in(x, c, n0, count, buf, lead, pitch, row, 1)
            _planes_in(g, c, n0, count, grid, 0, pitch, row, up)
            if k == 3:
                _dots3x3(buf, grid, lead, row, span, dw, c)
            else:
                _dots(buf, grid, lead, row, span, dw, c)


def forward(x, w, b, stride=1):
    """y = depthwise conv(x, w) + b with 'same' padding, for x (N, C, H, W), w (C, 1, k, k)
    with k odd, b (C,) or None; at stride 2 the stride-1 output's even positions.

    Example:
        >>> import numpy as np
        >>> forward(np.ones((1, 1, 1, 3)), np.ones((1, 1, 3, 3)), np.ones(1))
        array([[[[3., 4., 3.]]]])
        >>> forward(np.ones((1, 1, 1, 3)), np.ones((1, 1, 3, 3)), None, stride=2)
        array([[[[2., 2.]]]])
    """
    n, c, h, wd = x.shape
    out = workspace.output(np, (n, c, -(-h // stride), -(-wd // stride)), x.dtype)
    b = np.zeros(c, x.dtype) if b is None else np.ascontiguousarray(b)
    x, w = np.ascontiguousarray(x), np.ascontiguousarray(w)
    over_batch(np, lambda lo, hi: _correlate(x, w, b, out, h, wd, 1, stride, lo, hi), c,
               x.size * w[0].size)
    return out


def data(g, w, in_sizes, stride=1):
    """dx (N, C, *in_sizes) for forward's conv: the output gradient g (N, C, OH, OW),
    spread over the input's grid at a stride, correlated with the flipped filter.

    Example:
        >>> import numpy as np
        >>> data(np.ones((1, 1, 1, 2)), np.arange(9.0).reshape(1, 1, 3, 3), (1, 2))
        array([[[[7., 9.]]]])
    """
    n, c = g.shape[:2]
    dx = workspace.output(np, (n, c) + tuple(in_sizes), g.dtype)
    flipped, g = np.ascontiguousarray(w[:, :, ::-1, ::-1]), np.ascontiguousarray(g)
    zeros = np.zeros(c, g.dtype)
    over_batch(np, lambda lo, hi: _correlate(g, flipped, zeros, dx, *in_sizes, stride, 1,
                                             lo, hi), c, dx.size * w[0].size)
    return dx


def filter_grad(x, g, ksize, stride=1):
    """The filter gradient (C, 1, k, k) of forward's conv from x (N, C, H, W) and
    g (N, C, OH, OW).

    Example:
        >>> import numpy as np
        >>> dw = filter_grad(np.arange(2.0).reshape(1, 1, 1, 2), np.ones((1, 1, 1, 2)), (3, 3))
        >>> dw[0, 0].tolist()
        [[0.0, 0.0, 0.0], [0.0, 1.0, 1.0], [0.0, 0.0, 0.0]]
    """
    c = x.shape[1]
    dw = workspace.output(np, (c, 1) + tuple(ksize), x.dtype)
    x, g = np.ascontiguousarray(x), np.ascontiguousarray(g)
    over_batch(np, lambda lo, hi: _filter_channels(x, g, dw, stride, lo, hi), c,
               x.size * dw[0].size)
    return dw
