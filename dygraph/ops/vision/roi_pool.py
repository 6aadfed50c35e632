"""RoI max pooling: the maximum of each bin of a box rounded to whole pixels.

A box's bins are integer windows (floor and ceil of the bin edges, so neighbours may share
a row or column); the op gathers each box's windows, padded to the box's largest window
and masked, and keeps the first maximum of each window in row-major order. The gradient
goes to the positions of the maxima (an empty bin outputs 0 and passes no gradient); it is
an index scatter, whose own gradient is the gather back (double backward).

Example:
    >>> import numpy as np
    >>> roi_pool_bins(np.array([[0.0, 0.0, 3.0, 1.0]], np.float32), 2, 4, 1.0, (1, 2))
    (array([[0]]), array([[2]]), array([[0, 2]]), array([[2, 4]]))
"""

import numpy as np

from dygraph.autograd.function import Op
from dygraph.ops.vision.boxes_input import batch_of_boxes, c_round, host_boxes

__all__ = ["RoiPool", "roi_pool_bins"]


def _axis_bins(starts, ends, size, pooled):
    t = starts.dtype.type
    extent = np.maximum(ends - starts + t(1), t(1))
    step = extent / t(pooled)
    bins = np.arange(pooled + 1, dtype=starts.dtype)[None, :]
    lo = np.floor(bins[:, :-1] * step[:, None]).astype(np.int64) + starts[:, None].astype(
        np.int64)
    hi = np.ceil(bins[:, 1:] * step[:, None]).astype(np.int64) + starts[:, None].astype(
        np.int64)
    return np.clip(lo, 0, size), np.clip(hi, 0, size)


def roi_pool_bins(boxes, height, width, scale, pooled):
    """(row starts, row ends) [R, ph] and (column starts, column ends) [R, pw] of every bin,
    for host boxes [R, 4] in the feature map's dtype (see the module example)."""
    corners = c_round(boxes * boxes.dtype.type(scale))
    rows = _axis_bins(corners[:, 1], corners[:, 3], height, pooled[0])
    cols = _axis_bins(corners[:, 0], corners[:, 2], width, pooled[1])
    return rows + cols


def _window_index(xp, lo, hi):
    """Offsets from the box's first row into each bin's rows, [bins, k], and their mask."""
    length = hi - lo
    k = max(int(length.max(initial=0)), 1)
    steps = np.arange(k)[None, :]
    mask = steps < length[:, None]
    index = np.minimum(lo[:, None] - lo.min() + steps, max(int(hi.max() - lo.min()) - 1, 0))
    return xp.asarray(index), xp.asarray(mask)


class RoiPool(Op):
    """out [R, C, ph, pw]: the maximum of each bin of each box of x [N, C, H, W]."""

    attrs = ("output_size", "spatial_scale")

    def __init__(self, output_size, spatial_scale):
        self.output_size, self.spatial_scale = tuple(output_size), float(spatial_scale)

    @property
    def name(self):
        return "roi_pool"

    def forward(self, xp, x, boxes, boxes_num):
        n, c, h, w = x.shape
        ph, pw = self.output_size
        out = xp.zeros((boxes.shape[0], c, ph, pw), x.dtype)
        self.in_shape, self.dtype = x.shape, x.dtype
        if getattr(self, "probing", False):  # a program's stand-ins: the shape is enough
            return out
        host = host_boxes(boxes, x.dtype)
        images = batch_of_boxes(boxes_num, host.shape[0], n, self.name)
        h_lo, h_hi, w_lo, w_hi = roi_pool_bins(host, h, w, self.spatial_scale, (ph, pw))
        # Flat positions of the maxima in x, and which output entries have one.
        where = xp.zeros(out.shape, np.int64)
        found = xp.zeros(out.shape, np.bool_)
        for r in range(host.shape[0]):
            b = int(images[r])
            rows, row_mask = _window_index(xp, h_lo[r], h_hi[r])
            cols, col_mask = _window_index(xp, w_lo[r], w_hi[r])
            top, left = int(h_lo[r].min()), int(w_lo[r].min())
            crop = x[b, :, top:int(h_hi[r].max()), left:int(w_hi[r].max())]
            if crop.size == 0:
                continue
            # One gather in the output's order, [C, ph, pw, kh, kw]; padding reads -inf.
            windows = crop[:, rows[:, None, :, None], cols[None, :, None, :]]
            mask = row_mask[:, None, :, None] & col_mask[None, :, None, :]
            windows[:, ~mask] = -np.inf
            windows = windows.reshape(c, ph, pw, -1)
            pick = xp.argmax(windows, axis=-1)
            out[r] = xp.take_along_axis(windows, pick[..., None], axis=-1)[..., 0]
            kw = cols.shape[1]
            at_row = rows[xp.arange(ph)[None, :, None], pick // kw]
            at_col = cols[xp.arange(pw)[None, None, :], pick % kw]
            found[r] = mask.any(axis=(2, 3))[None]
            channel = xp.arange(c)[:, None, None]
            where[r] = ((b * c + channel) * h + top + at_row) * w + left + at_col
        out[~found] = 0
        self.saved = (where[found], found)
        return out

    def backward(self, m, g):
        if self.edges[0] is None:
            return None, None, None
        where, found = self.saved
        shape = self.in_shape
        size = int(np.prod(shape))
        flat = m.index_put_zeros((size,), self.dtype, (where,), m.getitem(g, found))
        return m.reshape(flat, shape), None, None
