"""2-D depthwise convolution (one filter per channel, as in MobileNet), compiled by Numba.

Each (sample, channel) plane is copied into a small zero-bordered buffer split into the
stride's phases (rows and columns by position mod the stride), so that every tap reads a
phase at a fixed flat offset; the planes of one channel are stacked in groups of about
4096 values. A tap is then one loop over the whole group, `acc[i] += phase[i + offset] *
w`: long enough for the compiler's SIMD loop (a 16-wide row alone is not; LLVM's vector
loop takes 64 float32 values a turn). The output grid is as wide as a phase and each
plane has a spare row, so there are a few spare positions that the copies skip.

- forward: per group, the taps' multiply-adds into the grid, then its rows out;
- data gradient: the same adds the other way, each tap's weighted gradient into the
  phases at its offset (spare positions hold zeros), then the phases back into the planes;
- filter gradient: per channel and group, one dot product per tap of the phases at its
  offset with the gradient grid.

The 'same' case at stride 1 or 2 (an odd square filter, (k - 1) / 2 zeros a side, no
dilation) goes to dygraph.kernels.numba.depthwise2d_same, whose planes need no phases and
which runs faster still. The einsum path (dygraph.ops.conv.depthwise, several times slower
than either where both run) runs without Numba, for 1-D and 3-D convs, and for output maps
under 64 positions outside the 'same' case (`pays`: there these kernels' set-up costs more
than it saves). Figures: docs/PERFORMANCE.md#depthwise-convolution.

Example:
    >>> import numpy as np
    >>> from dygraph.ops.conv.im2col import Geometry
    >>> geo = Geometry((1, 1), (1, 1), ((1, 1), (1, 1)), 1)
    >>> x, w = np.ones((1, 1, 2, 2), np.float32), np.ones((1, 1, 3, 3), np.float32)
    >>> forward(x, w, None, geo)
    array([[[[4., 4.],
             [4., 4.]]]], dtype=float32)
"""

import numpy as np
from numba import njit

from dygraph.backend.parallel import over_batch
from dygraph.backend.workspace import workspace
from dygraph.kernels.numba import depthwise2d_same as same

__all__ = ["pays", "forward", "data", "filter_grad"]


# Output positions per plane from which these kernels beat the einsum path: from 8x8
# outputs on; on 4x4 and smaller the per-plane set-up loses. The same-padding kernels win
# on every map size they take, down to 1x1. Figures, on MobileNetV2's shapes:
# docs/PERFORMANCE.md#depthwise-convolution.
_MIN_POSITIONS = 64

# Planes stacked per group: a tap's loop then runs over about this many values (16 KB of
# float32, which stays in L1 with the group's phases).
_GROUP_VALUES = 4096


@njit(nogil=True, cache=True)
def _layout(size_h, size_w, out_h, out_w, k_h, k_w, geom):
    """(rows, cols, read_h, read_w, group) for one plane in a phase: the rows and columns
    it takes there, how much of the input a window reads (rows past the last window
    never are) and how many planes a group stacks. geom: stride h, w; pad top, left;
    dilation h, w."""
    sh, sw, pt, pl, dh, dw = geom
    hp = (out_h - 1) * sh + (k_h - 1) * dh + 1
    wp = (out_w - 1) * sw + (k_w - 1) * dw + 1
    # One spare row: the spare columns of the plane's last grid row read a row further.
    rows, cols = -(-hp // sh) + 1, -(-wp // sw)
    return (rows, cols, max(0, min(size_h, hp - pt)), max(0, min(size_w, wp - pl)),
            max(1, _GROUP_VALUES // (rows * cols)))


@njit(nogil=True, cache=True)
def _tap_offset(kh, kw, phase_size, cols, geom):
    """Where tap (kh, kw) starts reading in the flat phase buffers."""
    sh, sw, _, _, dh, dw = geom
    phase = ((kh * dh) % sh) * sw + (kw * dw) % sw
    return phase * phase_size + ((kh * dh) // sh) * cols + (kw * dw) // sw


@njit(nogil=True, cache=True)
def _zero(a):
    flat = a.reshape(a.size)
    for i in range(flat.size):
        flat[i] = 0


@njit(nogil=True, cache=True)
def _offsets(read_h, phase_size, cols, geom):
    """Where each read input row starts in the flat phase buffers, and where column
    residue r (input columns r, r + stride, ...) starts from there: computed once a
    call, not per row of every plane."""
    sh, sw, pt, pl = geom[0], geom[1], geom[2], geom[3]
    bases = np.empty(read_h, np.int64)
    for ih in range(read_h):
        r = ih + pt
        bases[ih] = ((r % sh) * sw) * phase_size + (r // sh) * cols
    starts = np.empty(sw, np.int64)
    for r in range(sw):
        starts[r] = ((r + pl) % sw) * phase_size + (r + pl) // sw
    return bases, starts


@njit(nogil=True, cache=True)
def _run(buf, start, length):
    """A bounded segment of a phase row. Bounded slices let the compiler see that two
    segments do not overlap: with open-ended ones it assumed they might."""
    return buf[start:start + length]


# One loop per column stride, chosen once a plane: a branch on the stride inside the row
# loop keeps the compiler from vectorizing the stride-1 copy.
@njit(nogil=True, cache=True)
def _load(plane, buf, at, bases, starts, read_w):
    """Copy the read part of a plane into its phases from flat offset `at` (the border
    keeps its zeros)."""
    sw = starts.size
    if sw == 1:
        for ih in range(bases.size):
            start = at + bases[ih] + starts[0]
            dst, src = buf[start:start + read_w], plane[ih]
            for k in range(read_w):
                dst[k] = src[k]
    elif sw == 2:
        half = read_w // 2
        for ih in range(bases.size):
            even = _run(buf, at + bases[ih] + starts[0], half)
            odd = _run(buf, at + bases[ih] + starts[1], half)
            src = plane[ih]
            # Both residues in one loop of constant stride, which the compiler vectorizes.
            for k in range(half):
                even[k] = src[2 * k]
                odd[k] = src[2 * k + 1]
        if read_w % 2:  # in its own pass: inside the row loop it cost 5x
            for ih in range(bases.size):
                buf[at + bases[ih] + starts[0] + half] = plane[ih, read_w - 1]
    else:
        for ih in range(bases.size):
            src = plane[ih]
            for r in range(min(sw, read_w)):
                dst = _run(buf, at + bases[ih] + starts[r], (read_w - r + sw - 1) // sw)
                for k in range(dst.size):
                    dst[k] = src[r + k * sw]


@njit(nogil=True, cache=True)
def _store(buf, plane, at, bases, starts, read_w):
    """The inverse of _load; positions no window reads get zero."""
    size_h, size_w = plane.shape
    read_h, sw = bases.size, starts.size
    for ih in range(size_h):
        row = plane[ih]
        for k in range(read_w if ih < read_h else 0, size_w):
            row[k] = 0
    if sw == 1:
        for ih in range(read_h):
            start = at + bases[ih] + starts[0]
            src, dst = buf[start:start + read_w], plane[ih]
            for k in range(read_w):
                dst[k] = src[k]
    elif sw == 2:
        half = read_w // 2
        for ih in range(read_h):
            even = _run(buf, at + bases[ih] + starts[0], half)
            odd = _run(buf, at + bases[ih] + starts[1], half)
            dst = plane[ih]
            for k in range(half):
                dst[2 * k] = even[k]
                dst[2 * k + 1] = odd[k]
        if read_w % 2:
            for ih in range(read_h):
                plane[ih, read_w - 1] = buf[at + bases[ih] + starts[0] + half]
    else:
        for ih in range(read_h):
            dst = plane[ih]
            for r in range(min(sw, read_w)):
                src = _run(buf, at + bases[ih] + starts[r], (read_w - r + sw - 1) // sw)
                for k in range(src.size):
                    dst[r + k * sw] = src[k]


@njit(nogil=True, cache=True)
def _grid_in(plane, grid, at, cols):
    """A gradient plane into the grid's rows from `at` (spare rows and columns stay
    zero)."""
    for oh in range(plane.shape[0]):
        dst = grid[at + oh * cols:at + oh * cols + plane.shape[1]]
        src = plane[oh]
        for ow in range(plane.shape[1]):
            dst[ow] = src[ow]


@njit(nogil=True, cache=True)
def _plan(x_plane, g_plane, n_batch, k_h, k_w, geom):
    """What a kernel over these planes (an input and an output plane's shapes) needs:
    (rows, cols, read_w, group, phase_size, bases, starts) from _layout and _offsets, the
    group of planes evened out over the batch."""
    out_h, out_w = g_plane
    rows, cols, read_h, read_w, most = _layout(x_plane[0], x_plane[1], out_h, out_w, k_h,
                                               k_w, geom)
    groups = -(-n_batch // most)
    group = -(-n_batch // groups)
    phase_size = group * rows * cols
    bases, starts = _offsets(read_h, phase_size, cols, geom)
    return rows, cols, read_w, group, phase_size, bases, starts


@njit(nogil=True, cache=True)
def _forward_channels(x, w, b, out, geom, lo, hi):
    n_batch, out_h, out_w = x.shape[0], out.shape[2], out.shape[3]
    k_h, k_w = w.shape[2], w.shape[3]
    rows, cols, read_w, group, phase_size, bases, starts = _plan(
        x.shape[2:], out.shape[2:], n_batch, k_h, k_w, geom)
    buf = np.zeros(geom[0] * geom[1] * phase_size, x.dtype)
    acc = np.empty(phase_size, x.dtype)
    for c in range(lo, hi):
        for n0 in range(0, n_batch, group):
            count = min(group, n_batch - n0)
            # The last plane needs only its output rows: the taps then read inside the
            # phase.
            span = ((count - 1) * rows + out_h) * cols
            for j in range(count):
                _load(x[n0 + j, c], buf, j * rows * cols, bases, starts, read_w)
            bias = b[c]
            for i in range(span):
                acc[i] = bias
            for kh in range(k_h):
                for kw in range(k_w):
                    wv = w[c, 0, kh, kw]
                    off = _tap_offset(kh, kw, phase_size, cols, geom)
                    src = buf[off:off + span]
                    for i in range(span):
                        acc[i] += src[i] * wv
            for j in range(count):
                o = out[n0 + j, c]
                for oh in range(out_h):
                    row, src = o[oh], acc[(j * rows + oh) * cols:]
                    for ow in range(out_w):
                        row[ow] = src[ow]


@njit(nogil=True, cache=True)
def _data_channels(g, w, dx, geom, lo, hi):
    n_batch, out_h = dx.shape[0], g.shape[2]
    k_h, k_w = w.shape[2], w.shape[3]
    rows, cols, read_w, group, phase_size, bases, starts = _plan(
        dx.shape[2:], g.shape[2:], n_batch, k_h, k_w, geom)
    buf = np.empty(geom[0] * geom[1] * phase_size, g.dtype)
    grid = np.zeros(phase_size, g.dtype)
    for c in range(lo, hi):
        for n0 in range(0, n_batch, group):
            count = min(group, n_batch - n0)
            span = ((count - 1) * rows + out_h) * cols
            for j in range(count):
                _grid_in(g[n0 + j, c], grid, j * rows * cols, cols)
            _zero(buf)
            for kh in range(k_h):
                for kw in range(k_w):
                    wv = w[c, 0, kh, kw]
                    off = _tap_offset(kh, kw, phase_size, cols, geom)
                    dst = buf[off:off + span]
                    for i in range(span):
                        dst[i] += grid[i] * wv
            for j in range(count):
                _store(buf, dx[n0 + j, c], j * rows * cols, bases, starts, read_w)


@njit(nogil=True, cache=True, fastmath={"reassoc"})
def _dot(a, b, n):
    """sum(a[:n] * b[:n]) in SIMD partial sums (reassociated: the order is fixed by the
    code, not by threads, so a result repeats exactly)."""
    total = a.dtype.type(0)  # of a.dtype: a[0] * 0 would be float64
    for i in range(n):
        total += a[i] * b[i]
    return total


@njit(nogil=True, cache=True)
def _filter_channels(x, g, dw, geom, lo, hi):
    n_batch, out_h = x.shape[0], g.shape[2]
    k_h, k_w = dw.shape[2], dw.shape[3]
    rows, cols, read_w, group, phase_size, bases, starts = _plan(
        x.shape[2:], g.shape[2:], n_batch, k_h, k_w, geom)
    buf = np.zeros(geom[0] * geom[1] * phase_size, x.dtype)
    grid = np.zeros(phase_size, x.dtype)
    for c in range(lo, hi):
        for kh in range(k_h):
            for kw in range(k_w):
                dw[c, 0, kh, kw] = 0
        for n0 in range(0, n_batch, group):
            count = min(group, n_batch - n0)
            span = ((count - 1) * rows + out_h) * cols
            for j in range(count):
                _load(x[n0 + j, c], buf, j * rows * cols, bases, starts, read_w)
                _grid_in(g[n0 + j, c], grid, j * rows * cols, cols)
            for kh in range(k_h):
                for kw in range(k_w):
                    off = _tap_offset(kh, kw, phase_size, cols, geom)
                    dw[c, 0, kh, kw] += _dot(buf[off:off + span], grid, span)


def pays(ksize, geo, out_sizes):
    """Whether these kernels beat the einsum path on a conv with an output map of
    `out_sizes`.

    Example:
        >>> from dygraph.ops.conv.im2col import Geometry
        >>> geo = Geometry((3, 3), (1, 1), ((1, 1), (1, 1)), 8)
        >>> pays((3, 3), geo, (4, 4)), pays((3, 3), geo, (8, 8))
        (False, True)
    """
    return same.applies(ksize, geo, out_sizes) or out_sizes[0] * out_sizes[1] >= _MIN_POSITIONS


def _geom(geo):
    (sh, sw), (dh, dw) = geo.stride, geo.dilation
    # A tuple, not an array: its values are constants to the compiled loops, where an
    # array's might alias the outputs and be re-read after every store.
    return tuple(int(v) for v in (sh, sw, geo.pads[0][0], geo.pads[1][0], dh, dw))


def forward(x, w, b, geo):
    """y = depthwise conv(x, w) + b for x (N, C, H, W), w (C, 1, kh, kw), b (C,) or None.

    Example:
        >>> import numpy as np
        >>> from dygraph.ops.conv.im2col import Geometry
        >>> geo = Geometry((1, 1), (1, 1), ((0, 0), (0, 0)), 1)
        >>> forward(np.ones((1, 1, 2, 2)), np.ones((1, 1, 2, 2)), np.ones(1), geo)
        array([[[[5.]]]])
    """
    if same.applies(w.shape[2:], geo, geo.out_sizes(x.shape[2:], w.shape[2:])):
        return same.forward(x, w, b, geo.stride[0])
    x, w = np.ascontiguousarray(x), np.ascontiguousarray(w)
    n, c = x.shape[:2]
    out = workspace.output(np, (n, c) + geo.out_sizes(x.shape[2:], w.shape[2:]), x.dtype)
    b = np.zeros(c, x.dtype) if b is None else np.ascontiguousarray(b)
    geom = _geom(geo)
    over_batch(np, lambda lo, hi: _forward_channels(x, w, b, out, geom, lo, hi), c,
               x.size + out.size * w[0].size)
    return out


def data(g, w, in_sizes, geo):
    """dx for a depthwise conv: g (N, C, OH, OW), w (C, 1, kh, kw) -> (N, C, *in_sizes).

    Example:
        >>> import numpy as np
        >>> from dygraph.ops.conv.im2col import Geometry
        >>> geo = Geometry((1, 1), (1, 1), ((0, 0), (0, 0)), 1)
        >>> data(np.ones((1, 1, 1, 1)), np.arange(4.0).reshape(1, 1, 2, 2), (2, 2), geo)
        array([[[[0., 1.],
                 [2., 3.]]]])
    """
    if same.applies(w.shape[2:], geo, g.shape[2:]):
        return same.data(g, w, in_sizes, geo.stride[0])
    g, w = np.ascontiguousarray(g), np.ascontiguousarray(w)
    n, c = g.shape[:2]
    dx = workspace.output(np, (n, c) + tuple(in_sizes), g.dtype)
    geom = _geom(geo)
    over_batch(np, lambda lo, hi: _data_channels(g, w, dx, geom, lo, hi), c,
               dx.size + g.size * w[0].size)
    return dx


def filter_grad(x, g, ksize, geo):
    """dw for a depthwise conv: x (N, C, H, W), g (N, C, OH, OW) -> (C, 1, *ksize).

    Example:
        >>> import numpy as np
        >>> from dygraph.ops.conv.im2col import Geometry
        >>> geo = Geometry((1, 1), (1, 1), ((0, 0), (0, 0)), 1)
        >>> filter_grad(np.arange(4.0).reshape(1, 1, 2, 2), np.ones((1, 1, 1, 1)), (2, 2), geo)
        array([[[[0., 1.],
                 [2., 3.]]]])
    """
    if same.applies(ksize, geo, g.shape[2:]):
        return same.filter_grad(x, g, ksize, geo.stride[0])
    x, g = np.ascontiguousarray(x), np.ascontiguousarray(g)
    c = x.shape[1]
    dw = workspace.output(np, (c, 1) + tuple(ksize), x.dtype)
    geom = _geom(geo)
    over_batch(np, lambda lo, hi: _filter_channels(x, g, dw, geom, lo, hi), c,
               x.size + g.size * dw[0].size)
    return dw
