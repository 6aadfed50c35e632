"""Which input points each output point of a sparse convolution or pooling reads.

The input is a COO tensor [N, *spatial, C] whose indices are (batch, *position) and whose
values are the [nnz, C] features. A window geometry (kernel, stride, padding, dilation)
gives the output positions: for a submanifold convolution the input's own points (the
kernel centred on each), otherwise every output position whose window holds at least one
input point. The neighbour table [outputs, kernel volume] holds the input row each kernel
tap reads, or -1 where no point is there; kernel taps are numbered row-major, the order
of the weight's leading dims [*kernel, C_in, C_out].

Example:
    >>> import numpy as np
    >>> g = window_geometry("conv1d", [4], [3], 1, 0, 1)
    >>> points = np.array([[0, 0], [0, 3]])
    >>> out = output_points(points, g)
    >>> out.tolist(), neighbour_table(points, out, g, submanifold=False).tolist()
    ([[0, 0], [0, 1]], [[0, -1, -1], [-1, -1, 1]])
"""

import itertools
import math

import numpy as np

from dygraph.framework.errors import op_error
from dygraph.sparse.formats import linear_index, unravel, xp_of

__all__ = ["Window", "window_geometry", "output_points", "neighbour_table"]


class Window:
    """A window geometry over `nd` spatial dims (tuples, one entry per dim)."""

    __slots__ = ("in_size", "kernel", "stride", "pad", "dilation", "out_size")

    def __init__(self, in_size, kernel, stride, pad, dilation, out_size):
        self.in_size, self.kernel, self.stride = in_size, kernel, stride
        self.pad, self.dilation, self.out_size = pad, dilation, out_size

    def offsets(self):
        """Each kernel tap's offset (in taps), row-major: [kernel volume, nd]."""
        return np.array(list(itertools.product(*(range(k) for k in self.kernel))),
                        dtype=np.int64).reshape(-1, len(self.kernel))


def _tuple(value, nd, op, what):
    if isinstance(value, int):
        return (value,) * nd
    value = tuple(int(v) for v in value)
    if len(value) != nd:
        raise op_error(op, f"{what} must be an int or {nd} ints, got {list(value)}")
    return value


def _pads(padding, nd, in_size, kernel, stride, dilation, op):
    """Paddle's padding forms: an int, nd ints, 2 * nd ints (before/after per dim), nd
    pairs, or 'VALID' / 'SAME' -> (before, after) per dim."""
    if isinstance(padding, str):
        mode = padding.upper()
        if mode == "VALID":
            return (0,) * nd, (0,) * nd
        if mode != "SAME":
            raise op_error(op, f"padding must be 'SAME', 'VALID' or sizes, got {padding!r}")
        lo, hi = [], []
        for size, k, s, d in zip(in_size, kernel, stride, dilation):
            total = max(0, (math.ceil(size / s) - 1) * s + d * (k - 1) + 1 - size)
            lo.append(total // 2)
            hi.append(total - total // 2)
        return tuple(lo), tuple(hi)
    if isinstance(padding, int):
        return (padding,) * nd, (padding,) * nd
    flat = [p for item in padding for p in (item if isinstance(item, (list, tuple))
                                             else (item,))]
    if len(flat) == nd:
        return tuple(flat), tuple(flat)
    if len(flat) == 2 * nd:
        return tuple(flat[0::2]), tuple(flat[1::2])
    raise op_error(op, f"padding must be an int, {nd} ints or {2 * nd} ints, got {padding}")


def window_geometry(op, in_size, kernel, stride, padding, dilation, ceil_mode=False):
    """The Window of a convolution or pooling over spatial size `in_size`."""
    nd = len(in_size)
    kernel = _tuple(kernel, nd, op, "kernel_size")
    stride = _tuple(stride, nd, op, "stride")
    dilation = _tuple(dilation, nd, op, "dilation")
    if min(kernel + stride + dilation) < 1:
        raise op_error(op, f"kernel {list(kernel)}, stride {list(stride)} and dilation "
                       f"{list(dilation)} must be positive")
    lo, hi = _pads(padding, nd, in_size, kernel, stride, dilation, op)
    out = []
    for size, k, s, d, a, b in zip(in_size, kernel, stride, dilation, lo, hi):
        span = size + a + b - d * (k - 1) - 1
        steps = -(-span // s) if ceil_mode else span // s
        if span < 0:
            raise op_error(op, f"the window ({list(kernel)} dilated {list(dilation)}) is "
                           f"larger than the padded input {list(in_size)}")
        out.append(steps + 1)
    return Window(tuple(in_size), kernel, stride, lo, dilation, tuple(out))


def output_points(points, window):
    """The sorted output points [n_out, 1 + nd] (batch first) whose window holds an input
    point of `points` [n_in, 1 + nd]."""
    xp = xp_of(points)
    offsets = xp.asarray(window.offsets()) * xp.asarray(window.dilation)
    stride = xp.asarray(window.stride)
    spatial = points[:, None, 1:] + xp.asarray(window.pad) - offsets[None]
    hit = ((spatial % stride == 0).all(-1) & (spatial >= 0).all(-1)
           & (spatial // stride < xp.asarray(window.out_size)).all(-1))
    where = xp.nonzero(hit)
    found = xp.concatenate([points[where[0], :1], spatial[where] // stride], axis=1)
    grid = (1 << 62,) + window.out_size  # the batch bound only has to exceed every batch
    unique = xp.unique(linear_index(found.T, grid))
    return unravel(unique, grid).T


def neighbour_table(points, out_points, window, submanifold):
    """For each output point and kernel tap, the row of `points` it reads, or -1.

    A submanifold convolution centres the kernel on each output point, tap k // 2 of a
    kernel of k taps on the point (its padding and stride are not used); otherwise tap t
    of output o reads o * stride - pad + t * dilation.
    """
    xp = xp_of(points)
    offsets = xp.asarray(window.offsets()) * xp.asarray(window.dilation)
    if submanifold:
        centre = xp.asarray([k // 2 for k in window.kernel]) * xp.asarray(window.dilation)
        spatial = out_points[:, None, 1:] - centre + offsets[None]
    else:
        spatial = (out_points[:, None, 1:] * xp.asarray(window.stride)
                   - xp.asarray(window.pad) + offsets[None])
    size = xp.asarray(window.in_size)
    inside = ((spatial >= 0) & (spatial < size)).all(-1)
    grid = (1 << 62,) + window.in_size
    keys = linear_index(points.T, grid)
    order = xp.argsort(keys)
    ordered = keys[order]
    taps = spatial.shape[1]
    batch = xp.repeat(out_points[:, :1], taps, axis=1)
    query = xp.concatenate([batch[..., None], xp.where(inside[..., None], spatial, 0)], -1)
    wanted = linear_index(query.reshape(-1, query.shape[-1]).T, grid)
    slot = xp.minimum(xp.searchsorted(ordered, wanted), max(ordered.shape[0] - 1, 0))
    if ordered.shape[0] == 0:
        return xp.full(inside.shape, -1, dtype=np.int64)
    hit = inside.reshape(-1) & (ordered[slot] == wanted)
    return xp.where(hit, order[slot], -1).reshape(inside.shape)
