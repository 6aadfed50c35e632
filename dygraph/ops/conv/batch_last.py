"""Convolutions on small maps through columns with the batch innermost: the data
gradient, and with it the forward and the filter gradient.

The im2col layout (C*K, N*L) puts the output positions of one sample last, so col2im adds
each tap back in runs of one output row (O_d values: 8 on LeNet's second conv), which
NumPy walks slowly. Here g is first laid out as (M, *O, N), so the one GEMM

    cols (C*K, L*N) = W^T (C*K, M) @ g (M, L*N)

writes columns whose rows run over (position, sample), the batch innermost. Each tap then
adds into a (C, *padded S, N) accumulator in runs of O_d * N values for a stride-1 last dim
(512 on LeNet's conv), and the accumulator is moved back to (N, C, *S) once. The GEMM is the
im2col path's, with no copy of the weight; the copies are g's and the result's (each a few
hundred kB on these shapes).

The forward builds its columns in the same layout: x copied once as (C, *padded S, N),
then one copy per tap in runs of O_d * N values (im2col's are O_d long), and
y (M, L*N) = W @ cols. It keeps the columns for the filter gradient, dW = g (M, L*N) @
cols^T, with g laid out as for the data gradient. Results are the same to the last bit as
the paths it replaces (the products sum in the same order).

With Numba, a 2-D conv's tap additions run compiled (dygraph.kernels.numba.batch_last), a
large share of this path's time otherwise.

ops/conv/paths.data_path chooses it for small maps (up to 64 output positions a sample,
16 with a stride), where it beats data_by_rows and im2col; on bigger ones the implicit
GEMM, with no columns at all, stays faster. Figures: docs/PERFORMANCE.md#conv-paths.
"""

import itertools

from dygraph.backend import compiled
from dygraph.backend.workspace import Lease, workspace
from dygraph.ops.conv.im2col import CHUNK_BYTES, prod

__all__ = ["data_batch_last", "forward_batch_last", "filter_batch_last", "batch_last_columns",
           "BatchLastColumns"]


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
        >>> from dygraph.ops.conv.im2col import Geometry
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
    inner = (slice(None),) + geo.unpadded(in_sizes)
    out = workspace.output(xp, (n, grp * cg) + tuple(in_sizes), g.dtype)
    out[...] = xp.moveaxis(acc[inner], -1, 0)
    workspace.give(g_last)
    workspace.give(acc)
    return out


class BatchLastColumns(Lease):
    """The forward's columns in the batch-last layout, (C*K, L*N) with the batch innermost:
    conv_filter reads them with g laid out as (M, *O, N) (filter_batch_last)."""

    __slots__ = ()


def batch_last_columns(xp, x, ksize, geo):
    """The (C*K, L*N) columns of x with the batch innermost, in a workspace buffer: x
    copied once as (C, *padded S, N), then one copy per tap whose runs are O_w * N values
    long (im2col's are O_w: 8 against 512 on LeNet's second conv; figures:
    docs/PERFORMANCE.md#conv-paths).

    Example:
        >>> import numpy as np
        >>> from dygraph.ops.conv.im2col import Geometry
        >>> geo = Geometry((1,), (1,), ((0, 0),), 1)
        >>> batch_last_columns(np, np.arange(6.0).reshape(2, 1, 3), (2,), geo)
        array([[0., 3., 1., 4.],
               [1., 4., 2., 5.]])
    """
    n, c = x.shape[:2]
    osz = geo.out_sizes(x.shape[2:], ksize)
    padded = workspace.take(xp, (c,) + geo.padded(x.shape[2:]) + (n,), x.dtype)
    padded.fill(0)
    inner = (slice(None),) + geo.unpadded(x.shape[2:]) + (slice(None),)
    padded[inner] = xp.moveaxis(x, 0, -1)
    cols = workspace.take(xp, (c * prod(ksize), prod(osz) * n), x.dtype)
    per_tap = cols.reshape((c,) + tuple(ksize) + tuple(osz) + (n,))
    for tap, index in _tap_windows(ksize, geo, osz):
        per_tap[(slice(None),) + tap] = padded[index]
    workspace.give(padded)
    return cols


def forward_batch_last(xp, x, w, b, geo, keep=False):
    """(y, kept) of conv(x, w) + b through batch-last columns, for the small maps where
    conv_data runs batch-last too: y (N, M, *O); kept is the columns as BatchLastColumns
    when `keep` (the filter gradient reads them), else None.

    Example:
        >>> import numpy as np
        >>> from dygraph.ops.conv.im2col import Geometry
        >>> geo = Geometry((1,), (1,), ((0, 0),), 1)
        >>> forward_batch_last(np, np.arange(6.0).reshape(2, 1, 3), np.ones((1, 1, 2)), None,
        ...                    geo)[0]
        array([[[1., 3.]],
        <BLANKLINE>
               [[7., 9.]]])
    """
    n, m, ksize, grp = x.shape[0], w.shape[0], tuple(w.shape[2:]), geo.groups
    osz = geo.out_sizes(x.shape[2:], ksize)
    cols = batch_last_columns(xp, x, ksize, geo)
    y = workspace.take(xp, (m, cols.shape[1]), x.dtype)
    xp.matmul(w.reshape(grp, m // grp, -1), cols.reshape(grp, -1, cols.shape[1]),
              out=y.reshape(grp, m // grp, -1))
    out = workspace.output(xp, (n, m) + osz, x.dtype)
    out[...] = xp.moveaxis(y.reshape((m,) + osz + (n,)), -1, 0)
    if b is not None:
        out += b.reshape((1, m) + (1,) * len(osz))
    workspace.give(y)
    if keep:
        return out, BatchLastColumns(cols)
    workspace.give(cols)
    return out, None


# From this many columns (output positions over the batch) the filter gradient's product
# runs as cols @ g^T and is transposed after, the orientation BLAS runs faster there (as in
# dygraph.ops.conv.columns.im2col_filter); below it, dW comes out in its own layout, where
# the transposing copy of a big filter would cost more than the product.
_FLIP_COLUMNS = 512


def filter_batch_last(xp, g, cols, ksize, groups=1):
    """dW (M, C/groups, *ksize) of a conv from g (N, M, *O) and its forward's batch-last
    columns (C*K, L*N).

    Example:
        >>> import numpy as np
        >>> cols = np.array([[0.0, 3.0, 1.0, 4.0], [1.0, 4.0, 2.0, 5.0]])  # (C*K, L*N)
        >>> filter_batch_last(np, np.ones((2, 1, 2)), cols, (2,))
        array([[[ 8., 12.]]])
    """
    n, m = g.shape[:2]
    columns = cols.shape[1]
    g_last = workspace.take(xp, (m,) + tuple(g.shape[2:]) + (n,), g.dtype)
    g_last[...] = xp.moveaxis(g, 0, -1)
    rows = g_last.reshape(groups, m // groups, columns)
    per_group = cols.reshape(groups, -1, columns)
    taps = per_group.shape[1]  # per group: C/groups * K
    dw = workspace.output(xp, (m, taps // prod(ksize)) + tuple(ksize), g.dtype)
    target = dw.reshape(groups, m // groups, taps)
    if columns >= _FLIP_COLUMNS:
        flipped = workspace.take(xp, (groups, taps, m // groups), g.dtype)
        xp.matmul(per_group, rows.swapaxes(1, 2), out=flipped)
        target[...] = flipped.swapaxes(1, 2)
        workspace.give(flipped)
    else:
        xp.matmul(rows, per_group.swapaxes(1, 2), out=target)
    workspace.give(g_last)
    return dw
