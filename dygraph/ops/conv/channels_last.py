"""2-D convolutions through channels-last columns: one row per output position.

The input is copied once into a zero-bordered (N, padded H, padded W, C) grid, and the
columns hold one row per output position, (N * L, k_h * k_w * C) with the channels
innermost; the weight is laid out to match, as rows (M, k_h * k_w * C). Then

    forward          y^T  (N*L, M)     = cols @ W^T, moved to (N, M, O) per sample
    data gradient    dcols (N*L, K*C)  = g^T @ W, added back into the grid (scatter)
    filter gradient  dW^T (K*C, M)     = cols^T @ g^T, moved to (M, C, kh, kw)

with g^T = g as (N * L, M), laid out once for both gradients. Every product has the
N * L output positions as the rows of its result, the orientation OpenBLAS runs fastest
for these shapes (faster than the batch-last layout's, ops/conv/batch_last.py, whose
products have the output channels as rows). Each filter row of a window is one contiguous
run of k_w * C values in both the grid and the columns, so the copies
(dygraph.kernels.numba.channels_last, compiled) run at memory speed, and the moves to and
from (N, C, H, W) are per-sample transposes of blocks that stay in cache.

The weight's reordering costs a copy of it each step, and the filter gradient's another:
that pays on small weights only (`kernel_for`), not on ResNet's last stages (512 x 512 x
3 x 3). On big maps the implicit GEMM (ops/conv/implicit_gemm.py) stays faster: it copies
the input once where these columns copy it once per tap. Figures:
docs/PERFORMANCE.md#conv-paths.

Example:
    >>> import numpy as np
    >>> from dygraph.ops.conv.im2col import Geometry
    >>> geo = Geometry((1, 1), (1, 1), ((0, 0), (0, 0)), 1)
    >>> x, w = np.ones((2, 1, 3, 3)), np.ones((1, 1, 2, 2))
    >>> on = compiled.kernels("channels_last", np, x) is not None
    >>> not on or forward(np, x, w, None, geo)[0][0, 0].tolist()
    [[4.0, 4.0], [4.0, 4.0]]
"""

import numpy as np

from dygraph.backend import compiled
from dygraph.backend.workspace import Lease, workspace
from dygraph.ops.conv.im2col import CHUNK_BYTES, prod
from dygraph.ops.conv.implicit_gemm import implicit_pays

__all__ = ["ChannelsLastColumns", "kernel_for", "forward", "grad_rows", "data", "filter_grad"]

# Where this path runs: small 2-D convs, where it beats batch-last, im2col per sample and
# the implicit GEMM. It loses where its two copies of the weight a step (rows, and the
# filter gradient's move) outweigh the products, so weights above _MAX_WEIGHT values stay
# off it (ResNet's last stages); with fewer than _MIN_ROW values per weight row the
# products are too thin (LeNet's first conv: one channel, 25 taps); and beyond
# _MAX_POSITIONS output positions the implicit GEMM wins wherever it pays: its grid is
# copied once where these columns copy the input once per tap. Figures, forward and
# backward per geometry: docs/PERFORMANCE.md#conv-paths.
_MAX_WEIGHT = 160_000
_MIN_ROW = 64
_MAX_POSITIONS = 200


class ChannelsLastColumns(Lease):
    """The forward's columns (N * L, K * C) with its weight as rows (M, K * C): the
    backward reads both."""

    __slots__ = ("weight",)

    def __init__(self, cols, weight):
        super().__init__(cols)
        self.weight = weight

    def __del__(self):
        super().__del__()
        if workspace is not None:  # None only while the interpreter shuts down
            workspace.give(self.weight)


def kernel_for(xp, a, w, geo, in_sizes, out_sizes, data=False):
    """The compiled channels_last kernels when this path should run the conv of w (M, C,
    kh, kw) from in_sizes to out_sizes, with `a` its input or output gradient (N, ...);
    with `data` for its data gradient alone (the transposed conv). Else None.

    Example:
        >>> import numpy as np
        >>> from dygraph.ops.conv.im2col import Geometry
        >>> geo = Geometry((1, 1), (1, 1), ((0, 0), (0, 0)), 2)  # groups: not here
        >>> kernel_for(np, np.ones((2, 2, 4, 4)), np.ones((2, 1, 3, 3)), geo, (4, 4),
        ...            (2, 2)) is None
        True
    """
    row = prod(w.shape[1:])
    if (xp is not np or geo.groups != 1 or len(out_sizes) != 2 or prod(w.shape[2:]) == 1
            or row < _MIN_ROW or w.size > _MAX_WEIGHT
            or a.shape[0] * prod(out_sizes) * row * a.itemsize > CHUNK_BYTES):
        return None
    if (prod(out_sizes) > _MAX_POSITIONS
            and implicit_pays(xp, a.dtype, in_sizes, w.shape, geo, data=data)):
        return None
    return compiled.kernels("channels_last", xp, a, w)


def _weight_rows(xp, w):
    """w (M, C, kh, kw) as rows (M, kh * kw * C), in a workspace buffer."""
    m, c, kh, kw = w.shape
    rows = workspace.take(xp, (m, kh * kw * c), w.dtype)
    rows.reshape(m, kh * kw, c)[...] = w.reshape(m, c, kh * kw).swapaxes(1, 2)
    return rows


def _kernel():
    """The compiled copies (dygraph.kernels.numba.channels_last): ops/conv/paths.py runs this
    path only where compiled.kernels offers them, so here they are imported without asking
    again."""
    from dygraph.kernels.numba import channels_last as kernel

    return kernel


def _columns(xp, x, ksize, geo):
    """The columns (N * L, K * C) of x (N, C, H, W): x copied once into a zero-bordered
    channels-last grid, then every window's rows gathered (compiled)."""
    n, c = x.shape[:2]
    osz = geo.out_sizes(x.shape[2:], ksize)
    grid = workspace.take(xp, (n,) + geo.padded(x.shape[2:]) + (c,), x.dtype)
    if any(lo or hi for lo, hi in geo.pads):
        grid.fill(0)
    grid[(slice(None),) + geo.unpadded(x.shape[2:])] = x.transpose(0, 2, 3, 1)
    cols = workspace.take(xp, (n * prod(osz), prod(ksize) * c), x.dtype)
    _kernel().gather(grid, cols, osz, ksize, geo.stride, geo.dilation)
    workspace.give(grid)
    return cols


def forward(xp, x, w, b, geo, keep=False):
    """(y, kept): y = conv(x, w) + b as (N, M, O_h, O_w); kept is a ChannelsLastColumns for
    the backward when `keep`, else None. (Example: the module's.)"""
    n = x.shape[0]
    m, ksize = w.shape[0], tuple(w.shape[2:])
    osz = geo.out_sizes(x.shape[2:], ksize)
    positions = prod(osz)
    cols = _columns(xp, x, ksize, geo)
    rows = _weight_rows(xp, w)
    yt = workspace.take(xp, (n * positions, m), x.dtype)
    xp.matmul(cols, rows.T, out=yt)
    out = workspace.output(xp, (n, m) + osz, x.dtype)
    per_sample = yt.reshape(n, positions, m).swapaxes(1, 2)
    if b is None:
        out.reshape(n, m, positions)[...] = per_sample
    else:
        xp.add(per_sample, b.reshape(1, m, 1), out=out.reshape(n, m, positions))
    workspace.give(yt)
    if keep:
        return out, ChannelsLastColumns(cols, rows)
    workspace.give(cols)
    workspace.give(rows)
    return out, None


def grad_rows(xp, g):
    """g (N, M, O_h, O_w) as rows (N * L, M), one per output position, in a workspace
    buffer (give it back after).

    Example:
        >>> import numpy as np
        >>> grad_rows(np, np.arange(4.0).reshape(1, 2, 1, 2))
        array([[0., 2.],
               [1., 3.]])
    """
    n, m = g.shape[:2]
    positions = prod(g.shape[2:])
    gt = workspace.take(xp, (n * positions, m), g.dtype)
    gt.reshape(n, positions, m)[...] = g.reshape(n, m, positions).swapaxes(1, 2)
    return gt


def data(xp, gt, w, in_sizes, geo, kept=None):
    """dx (N, C, H, W) of the conv of w (M, C, kh, kw) from its gradient rows gt
    (grad_rows); `kept` is the forward's ChannelsLastColumns, whose weight rows it reads.

    Example:
        >>> import numpy as np
        >>> from dygraph.ops.conv.im2col import Geometry
        >>> geo = Geometry((1, 1), (1, 1), ((0, 0), (0, 0)), 1)
        >>> gt, w = np.ones((2, 1)), np.ones((1, 1, 1, 2))
        >>> on = compiled.kernels("channels_last", np, gt) is not None
        >>> not on or data(np, gt, w, (1, 3), geo)[0, 0].tolist()
        [[1.0, 2.0, 1.0]]
    """
    ksize = tuple(w.shape[2:])
    out_sizes = geo.out_sizes(in_sizes, ksize)
    n = gt.shape[0] // prod(out_sizes)
    rows = kept.weight if kept is not None else _weight_rows(xp, w)
    c = rows.shape[1] // prod(ksize)
    dcols = workspace.take(xp, (gt.shape[0], rows.shape[1]), gt.dtype)
    xp.matmul(gt, rows, out=dcols)
    if kept is None:
        workspace.give(rows)
    grid = workspace.take(xp, (n,) + geo.padded(in_sizes) + (c,), gt.dtype)
    grid.fill(0)
    _kernel().scatter(dcols, grid, out_sizes, ksize, geo.stride, geo.dilation)
    workspace.give(dcols)
    out = workspace.output(xp, (n, c) + tuple(in_sizes), gt.dtype)
    out[...] = grid[(slice(None),) + geo.unpadded(in_sizes)].transpose(0, 3, 1, 2)
    workspace.give(grid)
    return out


def filter_grad(xp, gt, x, ksize, geo, kept=None):
    """dW (M, C, kh, kw) from the gradient rows gt (N * L, M) and the columns of x (the
    forward's, `kept`, or built here): cols^T @ gt, the orientation BLAS runs faster
    here, then moved into the filter's layout (a copy of a small weight; `kernel_for`
    keeps big ones away).

    Example:
        >>> import numpy as np
        >>> from dygraph.ops.conv.im2col import Geometry
        >>> geo = Geometry((1, 1), (1, 1), ((0, 0), (0, 0)), 1)
        >>> x = np.arange(3.0).reshape(1, 1, 1, 3)
        >>> on = compiled.kernels("channels_last", np, x) is not None
        >>> not on or filter_grad(np, np.ones((2, 1)), x, (1, 2), geo).tolist()
        [[[[1.0, 3.0]]]]
    """
    cols = kept.array if kept is not None else _columns(xp, x, tuple(ksize), geo)
    m, taps = gt.shape[1], prod(ksize)
    flipped = workspace.take(xp, (cols.shape[1], m), gt.dtype)
    xp.matmul(cols.T, gt, out=flipped)
    if kept is None:
        workspace.give(cols)
    c = cols.shape[1] // taps
    dw = workspace.output(xp, (m, c) + tuple(ksize), gt.dtype)
    dw.reshape(m, c, taps)[...] = flipped.reshape(taps, c, m).transpose(2, 1, 0)
    workspace.give(flipped)
    return dw
