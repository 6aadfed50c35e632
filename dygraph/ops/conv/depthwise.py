"""Depthwise convolution channels-last, without im2col.

A depthwise conv (one input and one output channel per group, as in MobileNet) has one
weight per channel and tap, so im2col + GEMM spends its time on copies: columns of K times
the activations, a batched product of C tiny rows, and col2im passes. Here the input is
laid out channels-last (the per-channel weight runs along the contiguous last axis) and:

- the forward and the filter gradient are one einsum each over a windows view of the
  padded input, (n, *out, *taps, C), which sums the taps per channel without temporaries;
- the data gradient with stride 1 is the same kind of einsum: the correlation of the
  padded output gradient with the flipped filter; with a stride, the padded input splits
  into phases (positions mod the stride), and each phase is such a correlation with the
  taps that reach it.

The forward keeps its channels-last input for the filter gradient. On MobileNetV2's
shapes this beats im2col several times over, layout copies included (figures:
docs/PERFORMANCE.md#depthwise-convolution). The batch can be split into chunks that run on
several cores (dygraph.backend.parallel, off by default).

Example:
    >>> import numpy as np
    >>> from dygraph.ops.conv.im2col import Geometry
    >>> geo = Geometry((1,), (1,), ((1, 1),), 1)
    >>> depthwise_forward_last(np, np.ones((1, 1, 3)), np.ones((1, 1, 3)), None, geo)[0]
    array([[[2., 3., 2.]]])
"""

import itertools
import math

import numpy as np

from dygraph.backend.parallel import over_batch
from dygraph.backend.workspace import Lease, workspace
from dygraph.ops.conv.im2col import _as_strided

__all__ = ["is_depthwise", "depthwise_forward_last", "depthwise_data_last",
           "depthwise_filter_last"]


def _einsum_into(xp, spec, a, b, out):
    """xp.einsum(spec, a, b) written into `out` (CuPy's einsum takes no `out`)."""
    if xp is np:
        xp.einsum(spec, a, b, out=out)
    else:
        out[...] = xp.einsum(spec, a, b)


def is_depthwise(w, geo):
    """One input and one output channel per group (w is (C, 1, *k) with C groups).

    Example:
        >>> import numpy as np
        >>> from dygraph.ops.conv.im2col import Geometry
        >>> is_depthwise(np.ones((4, 1, 3, 3)), Geometry((1, 1), (1, 1), ((1, 1),) * 2, 4))
        True
    """
    return geo.groups > 1 and w.shape[0] == geo.groups and w.shape[1] == 1


def _taps(ksize, geo, osz):
    """For each tap: its index among the K taps and the window of input positions it reads
    (start at tap * dilation, step by the stride)."""
    for k, tap in enumerate(itertools.product(*(range(size) for size in ksize))):
        yield k, tuple(slice(t * d, t * d + s * (o - 1) + 1, s) for t, d, s, o in
                       zip(tap, geo.dilation, geo.stride, osz))


def _channels_last(xp, a, dst, pads):
    """Write (n, C, *S) `a` into `dst`, (n, *padded S, C), zero around the spatial dims
    (only the border is zeroed: the inside is written once)."""
    for d, (lo, hi) in enumerate(pads):
        before = (slice(None),) * (d + 1)
        if lo:
            dst[before + (slice(0, lo),)] = 0
        if hi:
            dst[before + (slice(dst.shape[d + 1] - hi, None),)] = 0
    inner = tuple(slice(lo, lo + s) for s, (lo, _) in zip(a.shape[2:], pads))
    dst[(slice(None),) + inner] = xp.moveaxis(a, 1, -1)


def _last_shape(a, pads):
    n, c = a.shape[:2]
    return (n,) + tuple(s + lo + hi for s, (lo, hi) in zip(a.shape[2:], pads)) + (c,)


def _windows(xp, a, osz, ksize, stride, dilation):
    """The (n, *osz, *ksize, C) view of channels-last `a` whose [.., o, t, c] element is
    a[.., o * stride + t * dilation, c]: every tap of every window, no copy."""
    st = a.strides
    inner = st[1:-1]
    return _as_strided(xp, a, a.shape[:1] + tuple(osz) + tuple(ksize) + a.shape[-1:],
                       st[:1] + tuple(x * s for x, s in zip(inner, stride)) +
                       tuple(x * d for x, d in zip(inner, dilation)) + st[-1:])


def _letters(d):
    """einsum letters: batch, output positions, taps, channel."""
    return "n", "pqr"[:d], "uvw"[:d], "z"


def _tap_sum_spec(d):
    """The einsum that sums the taps of a windows view per channel, weighted by a
    (*taps, C) filter: the forward and both data-gradient correlations."""
    b_, o, t, z = _letters(d)
    return f"{b_}{o}{t}{z},{t}{z}->{b_}{o}{z}"


def depthwise_forward_last(xp, x, w, b, geo, keep=False):
    """(y, kept) for a depthwise conv, computed channels-last: x (N, C, *S), w (C, 1, *k).
    One einsum over the windows view sums the taps per channel without temporaries.
    `kept`: with `keep`, a Lease of the padded channels-last x, which the filter gradient
    reads again (else None)."""
    ksize = w.shape[2:]
    n, c = x.shape[:2]
    osz = geo.out_sizes(x.shape[2:], ksize)
    xl = workspace.take(xp, _last_shape(x, geo.pads), x.dtype)
    out = workspace.output(xp, (n, c) + osz, x.dtype)
    w_last = xp.ascontiguousarray(xp.moveaxis(w.reshape((c,) + tuple(ksize)), 0, -1))
    spec = _tap_sum_spec(len(osz))
    # The channels-last result in workspace memory: a fresh multi-MB array per call cost
    # its page faults every step.
    yl = workspace.take(xp, (n,) + osz + (c,), x.dtype)

    def rows(lo, hi):
        part, y = xl[lo:hi], yl[lo:hi]
        _channels_last(xp, x[lo:hi], part, geo.pads)
        _einsum_into(xp, spec, _windows(xp, part, osz, ksize, geo.stride, geo.dilation),
                     w_last, y)
        if b is not None:
            y += b
        out[lo:hi] = xp.moveaxis(y, -1, 1)

    over_batch(xp, rows, n, xl.size + out.size * (1 + math.prod(ksize)))
    workspace.give(yl)
    if keep:
        return out, Lease(xl)
    workspace.give(xl)
    return out, None


def _correlation_pads(osz, ksize, in_sizes, geo):
    """For a stride-1 conv: the (lo, hi) padding of g such that dx is the correlation of
    the padded g with the flipped filter, or None when the conv's padding is wider than
    that allows (then the taps are scattered instead)."""
    pads = []
    for o, k, size, d, (lo, _) in zip(osz, ksize, in_sizes, geo.dilation, geo.pads):
        before = (k - 1) * d - lo
        after = size + (k - 1) * d - o - before
        if before < 0 or after < 0:
            return None
        pads.append((before, after))
    return tuple(pads)


def depthwise_data_last(xp, g, w, in_sizes, geo):
    """dx for a depthwise conv, computed channels-last: g (N, C, *O) -> (N, C, *in_sizes).
    Stride 1: the correlation of the padded gradient with the flipped filter (one einsum);
    with a stride, one such correlation per phase of the padded input (_phase_data), or
    on small maps a scatter of each tap's weighted gradient (_scatter_data)."""
    n, c = g.shape[:2]
    osz, ksize = g.shape[2:], w.shape[2:]
    out = workspace.output(xp, (n, c) + tuple(in_sizes), g.dtype)
    pads = _correlation_pads(osz, ksize, in_sizes, geo) if all(
        s == 1 for s in geo.stride) else None
    if pads is not None:
        gl = workspace.take(xp, _last_shape(g, pads), g.dtype)
        flipped = w.reshape((c,) + tuple(ksize))[(slice(None),) + (slice(None, None, -1),) *
                                                  len(ksize)]
        w_last = xp.ascontiguousarray(xp.moveaxis(flipped, 0, -1))
        spec = _tap_sum_spec(len(osz))
        ones = (1,) * len(osz)
        dxl = workspace.take(xp, (n,) + tuple(in_sizes) + (c,), g.dtype)

        def rows(lo, hi):
            part, dx = gl[lo:hi], dxl[lo:hi]
            _channels_last(xp, g[lo:hi], part, pads)
            _einsum_into(xp, spec, _windows(xp, part, in_sizes, ksize, ones, geo.dilation),
                         w_last, dx)
            out[lo:hi] = xp.moveaxis(dx, -1, 1)

        over_batch(xp, rows, n, gl.size + out.size * (1 + math.prod(ksize)))
        workspace.give(gl)
        workspace.give(dxl)
        return out
    if n * c * math.prod(geo.padded(in_sizes)) >= _PHASE_MIN_ELEMENTS:
        return _phase_data(xp, g, w, in_sizes, geo, out)
    return _scatter_data(xp, g, w, in_sizes, geo, out)


def _scatter_data(xp, g, w, in_sizes, geo, out):
    """dx of a strided depthwise conv by scattering: each tap's weighted gradient is added
    into its strided window of the padded input (fewer, cheaper calls on small maps)."""
    n, c = g.shape[:2]
    osz, ksize = g.shape[2:], w.shape[2:]
    taps = w.reshape(c, -1)
    gl = workspace.take(xp, (n,) + osz + (c,), g.dtype)
    dxl = workspace.take(xp, (n,) + geo.padded(in_sizes) + (c,), g.dtype)
    term = workspace.take(xp, gl.shape, g.dtype)
    windows = list(_taps(ksize, geo, osz))
    inner = geo.unpadded(in_sizes)

    def scatter(lo, hi):
        part, d, t = gl[lo:hi], dxl[lo:hi], term[lo:hi]
        part[...] = xp.moveaxis(g[lo:hi], 1, -1)
        d.fill(0)
        for k, window in windows:
            xp.multiply(part, taps[:, k], out=t)
            d[(slice(None),) + window] += t
        out[lo:hi] = xp.moveaxis(d[(slice(None),) + inner], -1, 1)

    over_batch(xp, scatter, n, dxl.size + 2 * len(windows) * gl.size)
    for buf in (gl, dxl, term):
        workspace.give(buf)
    return out


# From this many padded input elements per call the per-phase correlations beat the
# scatter, which wins on small maps because it makes fewer calls (figures:
# docs/PERFORMANCE.md#depthwise-convolution).
_PHASE_MIN_ELEMENTS = 1 << 18


def _phase_plan(ksize, geo, padded):
    """Per phase of the padded input (its position mod the stride, per dim): per dim, the
    phase's cells, the taps that write there (ascending) and the step between their reads
    of g. Tap i writes padded position o * s + i * d: phase (i * d) mod s, cell
    o + (i * d) div s, so cell A of a phase gets sum over its taps of w[i] g[A - r_i]."""
    per_dim = []
    for k, s, d, size in zip(ksize, geo.stride, geo.dilation, padded):
        options = []
        for ph in range(s):
            taps = [i for i in range(k) if (i * d) % s == ph]
            shifts = [(i * d) // s for i in taps]
            step = shifts[1] - shifts[0] if len(shifts) > 1 else 1
            options.append((ph, -(-(size - ph) // s), taps, shifts, step))
        per_dim.append(options)
    return list(itertools.product(*per_dim))


def _phase_data(xp, g, w, in_sizes, geo, out):
    """dx of a strided depthwise conv as one correlation per phase of the padded input:
    each phase's cells are a stride-1 correlation of g with that phase's taps (reversed),
    an einsum over a windows view of the padded g, written straight into the phase's
    strided cells; phases no tap reaches stay zero. No scatter of K weighted copies."""
    n, c = g.shape[:2]
    osz, ksize = g.shape[2:], w.shape[2:]
    padded = geo.padded(in_sizes)
    plan = _phase_plan(ksize, geo, padded)
    # g sits `lead` cells into each dim of its padded copy: the furthest any tap shifts.
    lead = [(k - 1) * d // s for k, d, s in zip(ksize, geo.dilation, geo.stride)]
    span = tuple(r - (-size // s) for r, size, s in zip(lead, padded, geo.stride))
    taps = w.reshape((c,) + tuple(ksize))
    spec = _tap_sum_spec(len(osz))
    inner = geo.unpadded(in_sizes)
    gl = workspace.take(xp, (n,) + span + (c,), g.dtype)
    dxl = workspace.take(xp, (n,) + padded + (c,), g.dtype)
    weights = []
    for dims in plan:
        if any(not tap_list for _, _, tap_list, _, _ in dims):
            weights.append(None)
            continue
        index = (slice(None),) + tuple(slice(None, None, -1) for _ in dims)
        picked = taps[xp.ix_(range(c), *(tap_list for _, _, tap_list, _, _ in dims))]
        weights.append(xp.ascontiguousarray(xp.moveaxis(picked[index], 0, -1)))

    def rows(lo, hi):
        part, d = gl[lo:hi], dxl[lo:hi]
        part.fill(0)
        part[(slice(None),) + tuple(slice(r, r + size) for r, size in zip(lead, osz))] = \
            xp.moveaxis(g[lo:hi], 1, -1)
        for dims, w_phase in zip(plan, weights):
            cells = d[(slice(None),) + tuple(slice(ph, None, s) for (ph, *_), s in
                                             zip(dims, geo.stride))]
            if w_phase is None:
                cells.fill(0)
                continue
            start = part[(slice(None),) + tuple(slice(r - shifts[-1], None) for r, (
                _, _, _, shifts, _) in zip(lead, dims))]
            view = _windows(xp, start, tuple(count for _, count, *_ in dims),
                            tuple(len(tap_list) for _, _, tap_list, _, _ in dims),
                            (1,) * len(dims), tuple(step for *_, step in dims))
            _einsum_into(xp, spec, view, w_phase, cells)
        out[lo:hi] = xp.moveaxis(d[(slice(None),) + inner], -1, 1)

    over_batch(xp, rows, n, dxl.size + gl.size * (1 + math.prod(ksize)))
    workspace.give(gl)
    workspace.give(dxl)
    return out


def depthwise_filter_last(xp, x, g, ksize, geo, kept=None):
    """dw for a depthwise conv, computed channels-last: -> (C, 1, *ksize). One einsum per
    chunk of the batch over the windows view; the chunks' sums are added in batch order.
    `kept`: the forward's Lease of the padded channels-last x, when it kept one."""
    n, c = x.shape[:2]
    osz = g.shape[2:]
    own = kept is None
    xl = workspace.take(xp, _last_shape(x, geo.pads), x.dtype) if own else kept.array
    gl = workspace.take(xp, (n,) + osz + (c,), g.dtype)
    b_, o, t, z = _letters(len(osz))
    spec = f"{b_}{o}{t}{z},{b_}{o}{z}->{t}{z}"
    parts = {}

    def rows(lo, hi):
        xpart, gpart = xl[lo:hi], gl[lo:hi]
        if own:
            _channels_last(xp, x[lo:hi], xpart, geo.pads)
        gpart[...] = xp.moveaxis(g[lo:hi], 1, -1)
        parts[lo] = xp.einsum(spec, _windows(xp, xpart, osz, ksize, geo.stride,
                                             geo.dilation), gpart)

    over_batch(xp, rows, n, xl.size + gl.size * (1 + math.prod(ksize)))
    workspace.give(gl)
    if own:
        workspace.give(xl)
    ordered = [parts[lo] for lo in sorted(parts)]
    dw = ordered[0]
    for part in ordered[1:]:
        dw += part
    return xp.moveaxis(dw, -1, 0).reshape((c, 1) + tuple(ksize))
