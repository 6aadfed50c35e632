"""The data gradient of a convolution through columns with the batch innermost.

The im2col layout (C*K, N*L) puts the output positions of one sample last, so col2im adds
each tap back in runs of one output row (O_d values: 8 on LeNet's second conv), which
NumPy walks slowly. Here g is first laid out as (M, *O, N), so the one GEMM

    cols (C*K, L*N) = W^T (C*K, M) @ g (M, L*N)

writes columns whose rows run over (position, sample), the batch innermost. Each tap then
adds into a (C, *padded S, N) accumulator in runs of O_d * N values for a stride-1 last dim
(512 on LeNet's conv), and the accumulator is moved back to (N, C, *S) once. The GEMM is the
im2col path's, with no copy of the weight; the copies are g's and the result's (each a few
hundred kB on these shapes).

Measured against the paths it replaces (2026-11-27, 2 cores, fwd-shaped g, ms):

    LeNet conv2  (64, 20->50, 12x12, 5x5)          data_by_rows 2.14  this 1.54
    ResNet-18 layer2 (16, 128, 4x4, 3x3)           data_by_rows 0.63  this 0.37
    ResNet-18 layer3 (16, 256, 2x2, 3x3)           im2col 1.22        this 0.37
    ResNet-18 layer4 (16, 512, 1x1, 3x3)           im2col 0.69        this 0.51

With Numba, a 2-D conv's tap additions run compiled (dygraph.kernels.batch_last): on
LeNet's conv2 they took 0.65 of the 1.5 ms, and take 0.27.

conv_kernels.conv_data chooses it for small maps (up to 64 output positions a sample, 16
with a stride); on bigger ones the implicit GEMM, with no columns at all, stays faster.
"""

import itertools

from dygraph.backend import compiled
from dygraph.ops.im2col import CHUNK_BYTES, prod
from dygraph.ops.workspace import workspace

__all__ = ["data_batch_last"]


def _tap_windows(ksize, geo, osz):
    """(tap, the index of the accumulator's positions that tap adds into) for every tap:
    (channels, *padded positions, batch)."""
    for tap in itertools.product(*(range(k) for k in ksize)):
        yield tap, (slice(None),) + tuple(
            slice(t * d, t * d + s * (o - 1) + 1, s)
            for t, d, s, o in zip(tap, geo.dilation, geo.stride, osz)) + (slice(None),)


def data_batch_last(xp, g, w, in_sizes, geo):
    """dx (N, C, *in_sizes) of conv(x, w) from g (N, M, *O), w (M, C/groups, *k).

    Channels are taken in chunks whose columns stay under im2col.CHUNK_BYTES.

    Example:
        >>> import numpy as np
        >>> from dygraph.ops.im2col import Geometry
        >>> geo = Geometry((2,), (1,), ((1, 1),), 1)
        >>> data_batch_last(np, np.ones((1, 1, 2)), np.ones((1, 1, 3)), (4,), geo)
        array([[[1., 2., 1., 1.]]])
    """
    n, m = g.shape[:2]
    osz, ksize = tuple(g.shape[2:]), tuple(w.shape[2:])
    grp, cg = geo.groups, w.shape[1]
    mg, taps, columns = m // grp, prod(ksize), prod(osz) * n
    g_last = workspace.take(xp, (m,) + osz + (n,), g.dtype)
    g_last[...] = xp.moveaxis(g, 0, -1)
    gl = g_last.reshape(grp, mg, columns)
    wt = w.reshape(grp, mg, cg * taps).swapaxes(1, 2)  # W^T per group, a view
    acc = workspace.take(xp, (grp * cg,) + geo.padded(in_sizes) + (n,), g.dtype)
    acc.fill(0)
    step = max(1, min(cg, CHUNK_BYTES // max(taps * columns * g.itemsize, 1)))
    windows = list(_tap_windows(ksize, geo, osz))
    # 2-D convs add the taps through a compiled loop where Numba is installed.
    kernel = compiled.kernels("batch_last", xp, g) if len(osz) == 2 else None
    for group in range(grp):
        for c0 in range(0, cg, step):
            cc = min(step, cg - c0)
            cols = workspace.take(xp, (cc * taps, columns), g.dtype)
            xp.matmul(wt[group, c0 * taps:(c0 + cc) * taps], gl[group], out=cols)
            per_tap = cols.reshape((cc,) + ksize + osz + (n,))
            first = group * cg + c0
            target = acc[first:first + cc]
            if kernel is not None and kernel.fits(per_tap, target):
                kernel.add_taps(per_tap, target, geo)
            else:
                for tap, index in windows:
                    target[index] += per_tap[(slice(None),) + tap]
            workspace.give(cols)
    inner = (slice(None),) + tuple(slice(lo, lo + s) for (lo, _), s in zip(geo.pads, in_sizes))
    out = workspace.output(xp, (n, grp * cg) + tuple(in_sizes), g.dtype)
    out[...] = xp.moveaxis(acc[inner], -1, 0)
    workspace.give(g_last)
    workspace.give(acc)
    return out
