"""The three products every conv op is made of, each run on the path ops/conv/paths.py picks:

    conv_forward   y  = conv(x, w) + b
    conv_data      dx, the data gradient (also the transposed conv)
    conv_filter    dW, the filter gradient
    conv_backward  dx, dW and the bias gradient of one Conv op, sharing g's layouts

The paths live in ops/conv/columns.py (im2col, pointwise, rows), ops/conv/implicit_gemm.py,
ops/conv/batch_last.py, ops/conv/channels_last.py, ops/conv/depthwise.py and the compiled kernels of
dygraph.kernels.numba.depthwise2d. Here each product looks its path's function up by name. A
backward hands both gradient products one GradLayouts of g, so that a layout of g both
read (rows for channels-last, the shifted grid for the implicit GEMM, (M, N*L) for
im2col) is made once.

Every path accepts inputs and upstream gradients in any layout (broadcast, transposed,
reversed or sliced views) and gives the numbers it gives for C-ordered copies: the paths
copy what they read into their own buffers, and where a compiled kernel or BLAS would read
the caller's arrays directly they are made C-ordered first (np.ascontiguousarray, a copy
only when they are not).

Example:
    >>> import numpy as np
    >>> from dygraph.ops.conv.im2col import Geometry
    >>> geo = Geometry((1,), (1,), ((0, 0),), 1)
    >>> conv_forward(np, np.ones((1, 1, 4)), np.ones((1, 1, 2)), None, geo)[0]
    array([[[2., 2., 2.]]])
"""

import numpy as np

from dygraph.backend.workspace import workspace
from dygraph.ops.conv import channels_last, columns
from dygraph.ops.conv.batch_last import (
    batch_last_columns,
    data_batch_last,
    filter_batch_last,
    forward_batch_last,
)
from dygraph.ops.conv.depthwise import (
    depthwise_data_last,
    depthwise_filter_last,
    depthwise_forward_last,
)
from dygraph.ops.conv.im2col import prod
from dygraph.ops.conv.implicit_gemm import (
    grid_grad,
    implicit_data,
    implicit_filter,
    implicit_forward,
    shifted_grid,
)
from dygraph.ops.conv.paths import (
    data_path,
    depthwise_kernel,
    filter_path,
    forward_path,
    per_sample,
)

__all__ = ["GradLayouts", "bias_grad", "conv_forward", "conv_data", "conv_filter",
           "conv_backward"]

# From this many output positions per sample the bias gradient sums each sample's
# positions first (pairwise, over a contiguous run); below, it sums over the batch first,
# where each run would be too short to pay for a reduction call of its own (figures:
# docs/PERFORMANCE.md#conv-paths).
_BIAS_SAMPLE_FIRST = 256


class GradLayouts:
    """The upstream gradient g of one backward in the layouts its products read, each made
    once on first use and given back to the workspace by `release`.

    Example:
        >>> layouts = GradLayouts(np, np.arange(4.0).reshape(1, 2, 1, 2))
        >>> layouts.get("rows", channels_last.grad_rows).tolist()
        [[0.0, 2.0], [1.0, 3.0]]
        >>> layouts.release()
    """

    __slots__ = ("xp", "g", "made")

    def __init__(self, xp, g):
        self.xp, self.g, self.made = xp, g, {}

    def get(self, kind, make):
        """The layout called `kind`, made by make(xp, g) the first time."""
        layout = self.made.get(kind)
        if layout is None:
            layout = self.made[kind] = make(self.xp, self.g)
        return layout

    def release(self):
        for layout in self.made.values():
            workspace.give(layout)
        self.made.clear()


def bias_grad(xp, g):
    """The bias gradient of a conv: g (N, M, *O) summed over all but the channels, as
    accurately as NumPy's pairwise sum of each channel's values or better. The running sum
    of float32 rows that a positions-by-channels layout invites loses that accuracy (1.5e-4
    against 4.3e-5 on LeNet's second conv at batch 64); here the batch is summed in float64,
    and each sample's positions pairwise in g's dtype where there are many.

    Example:
        >>> bias_grad(np, np.ones((2, 3, 4, 4), np.float32))
        array([32., 32., 32.], dtype=float32)
    """
    n, m = g.shape[:2]
    per = g.reshape(n, m, prod(g.shape[2:]))
    if per.shape[2] >= _BIAS_SAMPLE_FIRST:
        total = per.sum(axis=2).sum(axis=0, dtype=np.float64)
    else:
        total = per.sum(axis=0, dtype=np.float64).sum(axis=1)
    return total.astype(g.dtype, copy=False)


def _grid(layouts, in_sizes, ksize, geo):
    grid = shifted_grid(in_sizes, ksize, geo)
    return layouts.get("grid", lambda xp, g: grid_grad(xp, g, grid))


# The paths of each product, by name (ops/conv/paths.py): f(xp, ...) with the forward's
# columns or grid (`kept`, or None) and the GradLayouts of g for the gradients.
_FORWARD = {
    "depthwise_compiled": lambda xp, x, w, b, geo, keep: (
        depthwise_kernel(xp, x).forward(x, w, b, geo), None),
    "depthwise": depthwise_forward_last,
    "channels_last": channels_last.forward,
    "implicit": implicit_forward,
    "batch_last": forward_batch_last,
    "pointwise": lambda xp, x, w, b, geo, keep: columns.pointwise_forward(xp, x, w, b, geo),
    "im2col": columns.im2col_forward,
}

_DATA = {
    "depthwise_compiled": lambda xp, g, w, in_sizes, geo, kept, layouts:
        depthwise_kernel(xp, g).data(g, w, in_sizes, geo),
    "depthwise": lambda xp, g, w, in_sizes, geo, kept, layouts:
        depthwise_data_last(xp, g, w, in_sizes, geo),
    "channels_last": lambda xp, g, w, in_sizes, geo, kept, layouts: channels_last.data(
        xp, layouts.get("rows", channels_last.grad_rows), w, in_sizes, geo, kept),
    "batch_last": lambda xp, g, w, in_sizes, geo, kept, layouts:
        data_batch_last(xp, g, w, in_sizes, geo),
    "implicit": lambda xp, g, w, in_sizes, geo, kept, layouts: implicit_data(
        xp, g, w, in_sizes, geo, gq=_grid(layouts, in_sizes, w.shape[2:], geo)),
    "pointwise": lambda xp, g, w, in_sizes, geo, kept, layouts:
        columns.pointwise_data(xp, g, w, in_sizes, geo),
    "rows": lambda xp, g, w, in_sizes, geo, kept, layouts:
        columns.data_by_rows(xp, g, w, in_sizes, geo),
    "im2col": lambda xp, g, w, in_sizes, geo, kept, layouts: columns.im2col_data(
        xp, g, w, in_sizes, geo, gt=_im2col_grad(layouts, w.shape[1] * geo.groups, w.shape[2:],
                                                geo)),
}


def _im2col_grad(layouts, channels, ksize, geo):
    """g as (M, N*L) for im2col's batch-wide GEMMs, None where they run per sample."""
    taps, positions = channels * prod(ksize), prod(layouts.g.shape[2:])
    if per_sample(taps, geo.groups, positions):
        return None
    return layouts.get("transposed", columns.transpose_grad)


def _batch_last_filter(xp, x, g, ksize, geo, kept, layouts):
    cols = kept.array if kept is not None else batch_last_columns(xp, x, ksize, geo)
    dw = filter_batch_last(xp, g, cols, ksize, geo.groups)
    if kept is None:
        workspace.give(cols)
    return dw


_FILTER = {
    "depthwise_compiled": lambda xp, x, g, ksize, geo, kept, layouts:
        depthwise_kernel(xp, x).filter_grad(x, g, ksize, geo),
    "depthwise": lambda xp, x, g, ksize, geo, kept, layouts:
        depthwise_filter_last(xp, x, g, ksize, geo, kept),
    "channels_last": lambda xp, x, g, ksize, geo, kept, layouts: channels_last.filter_grad(
        xp, layouts.get("rows", channels_last.grad_rows), x, ksize, geo, kept),
    "batch_last": _batch_last_filter,
    "implicit": lambda xp, x, g, ksize, geo, kept, layouts: implicit_filter(
        xp, x, g, ksize, geo, kept=kept, gq=_grid(layouts, x.shape[2:], ksize, geo)),
    "pointwise": lambda xp, x, g, ksize, geo, kept, layouts:
        columns.pointwise_filter(xp, x, g, ksize, geo),
    "im2col": lambda xp, x, g, ksize, geo, kept, layouts: columns.im2col_filter(
        xp, x, g, ksize, geo, cols=kept, gt=_im2col_grad(layouts, x.shape[1], ksize, geo)),
}


def conv_forward(xp, x, w, b, geo, keep_cols=False, path=None):
    """y = conv(x, w) + b for x (N, C, *S), w (M, C/groups, *k), b (M,) or None, on `path`
    (dygraph.ops.conv.paths.forward_path's choice when None).

    Returns (y, kept): kept is what the path keeps for the filter gradient when keep_cols
    (its columns or grid; conv_backward reads it when the filter gradient runs on the same
    path), else None.
    """
    path = path or forward_path(xp, x, w, geo)
    return _FORWARD[path](xp, x, w, b, geo, keep_cols)


def conv_data(xp, g, w, in_sizes, geo, path=None):
    """The data gradient of conv (equally: the transposed convolution of g with w) on
    `path` (dygraph.ops.conv.paths.data_path's choice when None).

    g (N, M, *O), w (M, C/groups, *k) -> (N, C, *in_sizes).

    Example:
        >>> import numpy as np
        >>> from dygraph.ops.conv.im2col import Geometry
        >>> geo = Geometry((1,), (1,), ((0, 0),), 1)
        >>> conv_data(np, np.ones((1, 1, 3)), np.ones((1, 1, 2)), (4,), geo)
        array([[[1., 2., 2., 1.]]])
    """
    path = path or data_path(xp, g, w, in_sizes, geo)
    layouts = GradLayouts(xp, g)
    dx = _DATA[path](xp, g, w, tuple(in_sizes), geo, None, layouts)
    layouts.release()
    return dx


def conv_filter(xp, x, g, ksize, geo, path=None):
    """The filter gradient of conv: x (N, C, *S), g (N, M, *O) -> (M, C/groups, *ksize), on
    `path` (dygraph.ops.conv.paths.filter_path's choice when None).

    Example:
        >>> import numpy as np
        >>> from dygraph.ops.conv.im2col import Geometry
        >>> geo = Geometry((1,), (1,), ((0, 0),), 1)
        >>> conv_filter(np, np.arange(4.0).reshape(1, 1, 4), np.ones((1, 1, 3)), (2,), geo)
        array([[[3., 6.]]])
    """
    path = path or filter_path(xp, x, g, ksize, geo)
    layouts = GradLayouts(xp, g)
    dw = _FILTER[path](xp, x, g, tuple(ksize), geo, None, layouts)
    layouts.release()
    return dw


def conv_backward(xp, x, w, g, in_sizes, geo, forward, kept, wanted):
    """(dx, dW[, db]) of a conv whose forward ran on path `forward` and kept `kept`;
    `wanted` says which of the three to compute (the others are None; db only when the
    conv has a bias, len(wanted) == 3). The gradient products follow the forward's path
    (dygraph.ops.conv.paths.data_path, filter_path) and share g's layouts.

    Example:
        >>> import numpy as np
        >>> from dygraph.ops.conv.im2col import Geometry
        >>> geo = Geometry((1,), (1,), ((0, 0),), 1)
        >>> dx, dw, db = conv_backward(np, np.ones((1, 1, 4)), np.ones((1, 1, 2)),
        ...                            np.ones((1, 1, 3)), (4,), geo, "im2col", None,
        ...                            (True, True, True))
        >>> dx.tolist(), dw.tolist(), db.tolist()
        ([[[1.0, 2.0, 2.0, 1.0]]], [[[3.0, 3.0]]], [3.0])
    """
    layouts = GradLayouts(xp, g)
    grads = [None, None]
    if wanted[0]:
        name = data_path(xp, g, w, in_sizes, geo, after=forward)
        grads[0] = _DATA[name](xp, g, w, tuple(in_sizes), geo,
                               kept if name == forward else None, layouts)
    if wanted[1]:
        ksize = tuple(w.shape[2:])
        name = filter_path(xp, x, g, ksize, geo, after=forward)
        grads[1] = _FILTER[name](xp, x, g, ksize, geo, kept if name == forward else None,
                                 layouts)
    layouts.release()
    if len(wanted) > 2:
        grads.append(bias_grad(xp, g) if wanted[2] else None)
    return tuple(grads)
