"""2x2 max pooling with stride 2 (LeNet's, VGG's, U-Net's), compiled by Numba.

dygraph.ops.pool.windows pools through strided views, a compare, a maximum, a multiply
and a maximum per tap: twelve NumPy passes for a 2x2 window. Here one loop reads each
window's four values and writes its maximum and the index of the winning tap (figures:
docs/PERFORMANCE.md#pooling).

The results are NumPy path's exactly, NaN included: a tap wins when it is greater than
the running best (the first maximum wins ties), and a NaN tap becomes the running best,
after which no tap wins. The selects are written as bitwise `|` of comparisons, not `or`:
the short-circuit branch keeps the compiler from vectorizing the loop.

Example:
    >>> import numpy as np
    >>> y, arg = max_pool(np.arange(16.0).reshape(1, 1, 4, 4), True)
    >>> y[0, 0], arg[0, 0]
    (array([[ 5.,  7.],
           [13., 15.]]), array([[3, 3],
           [3, 3]], dtype=uint8))
"""

import numpy as np
from numba import njit

from dygraph.backend.workspace import workspace

__all__ = ["takes", "fits", "max_pool", "max_scatter"]


def takes(geo):
    """Whether a pooling geometry is this kernel's: 2-D 2x2 windows, stride 2, no padding
    (floor mode). Its arrays must be C-ordered too (`fits`).

    Example:
        >>> from dygraph.ops.pool.windows import PoolGeometry
        >>> takes(PoolGeometry.regular((5, 4), (2, 2), (2, 2), ((0, 0), (0, 0)), False))
        True
    """
    return (geo.ksize == (2, 2) and geo.stride == (2, 2)
            and not any(lo or e for (lo, _), e in zip(geo.pads, geo.ext)))


def fits(x, geo):
    """Whether a pooling of x (N, C, H, W) with geometry `geo` is this kernel's as x is:
    `takes(geo)` and x C-ordered.

    Example:
        >>> import numpy as np
        >>> from dygraph.ops.pool.windows import PoolGeometry
        >>> fits(np.ones((1, 1, 5, 4)), PoolGeometry.regular((5, 4), (2, 2), (2, 2),
        ...                                                  ((0, 0), (0, 0)), False))
        True
    """
    return x.ndim == 4 and x.flags.c_contiguous and takes(geo)


@njit(nogil=True, cache=True)
def _pool(x, out, arg):
    n_batch, n_ch, out_h, out_w = out.shape
    for n in range(n_batch):
        for c in range(n_ch):
            plane, o_plane, a_plane = x[n, c], out[n, c], arg[n, c]
            for oh in range(out_h):
                top, bottom = plane[2 * oh], plane[2 * oh + 1]
                o, a = o_plane[oh], a_plane[oh]
                for k in range(out_w):
                    best, idx = top[2 * k], 0
                    v = top[2 * k + 1]
                    wins = v > best
                    idx = 1 if wins else idx
                    best = v if (wins | (v != v)) else best
                    v = bottom[2 * k]
                    wins = v > best
                    idx = 2 if wins else idx
                    best = v if (wins | (v != v)) else best
                    v = bottom[2 * k + 1]
                    wins = v > best
                    idx = 3 if wins else idx
                    best = v if (wins | (v != v)) else best
                    o[k] = best
                    a[k] = idx


@njit(nogil=True, cache=True)
def _scatter(g, arg, dx):
    n_batch, n_ch, out_h, out_w = g.shape
    height, width = dx.shape[2], dx.shape[3]
    for n in range(n_batch):
        for c in range(n_ch):
            plane, g_plane, a_plane = dx[n, c], g[n, c], arg[n, c]
            # The row and column past the last window (an odd size) get no gradient.
            if height > 2 * out_h:
                for k in range(width):
                    plane[height - 1, k] = 0
            if width > 2 * out_w:
                for r in range(height):
                    plane[r, width - 1] = 0
            for oh in range(out_h):
                top, bottom = plane[2 * oh], plane[2 * oh + 1]
                gr, a = g_plane[oh], a_plane[oh]
                for k in range(out_w):
                    v, tap = gr[k], a[k]
                    top[2 * k] = v if tap == 0 else 0
                    top[2 * k + 1] = v if tap == 1 else 0
                    bottom[2 * k] = v if tap == 2 else 0
                    bottom[2 * k + 1] = v if tap == 3 else 0


def max_pool(x, need_arg):
    """(maximum of each 2x2 window, index of its winning tap as uint8 or None without
    need_arg) for x (N, C, H, W) in any layout (copied C-ordered when it is not); the
    geometry is one `takes` accepts.

    Example:
        >>> import numpy as np
        >>> max_pool(np.array([[[[1.0, 3.0], [2.0, 3.0]]]]), False)
        (array([[[[3.]]]]), None)
    """
    x = np.ascontiguousarray(x)
    n, c, h, w = x.shape
    out = workspace.output(np, (n, c, h // 2, w // 2), x.dtype)
    arg = (workspace.output(np, out.shape, np.uint8) if need_arg
           else workspace.take(np, out.shape, np.uint8))
    _pool(x, out, arg)
    if need_arg:
        return out, arg
    workspace.give(arg)
    return out, None


def max_scatter(g, arg, in_sizes):
    """The gradient of max_pool: g (N, C, OH, OW) goes to each window's winning tap of an
    (N, C, *in_sizes) array, zero elsewhere; g and arg in any layout.

    Example:
        >>> import numpy as np
        >>> max_scatter(np.ones((1, 1, 1, 1)), np.full((1, 1, 1, 1), 2, np.uint8), (2, 2))
        array([[[[0., 0.],
                 [1., 0.]]]])
    """
    g, arg = np.ascontiguousarray(g), np.ascontiguousarray(arg)
    dx = workspace.output(np, g.shape[:2] + tuple(in_sizes), g.dtype)
    _scatter(g, arg, dx)
    return dx
