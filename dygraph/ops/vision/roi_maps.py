"""RoIAlign and position-sensitive RoI pooling as separable linear maps, and their adjoints.

Each output bin of RoIAlign averages bilinear samples taken on a grid inside the bin; a
sample's weight on pixel (h, w) is a product wy(h) * wx(w) (the out-of-map test too is one
test per axis), so one box's output is Ay @ x[b, c] @ Ax^T with Ay [ph, H] and Ax [pw, W],
each row the summed sample weights of one bin row or column over the grid count. A bin of
psroi_pool is the mean over an integer window, the same kind of product, read from the
channel of its own position. The maps are built on the host for all boxes at once; the
op then takes two products per box over the crop of rows and columns where its maps are
nonzero, so the work follows the box's area, not the map's. RoiMapAdjoint applies the
transposed maps (the gradient); its own gradient is RoiMap again, so double backward needs
nothing more.

Example:
    >>> import numpy as np
    >>> ay, window = align_maps(np.array([[0.0, 0.0, 2.0, 2.0]], np.float32), 4, 2, 1.0,
    ...                         1, True)[0]
    >>> ay.tolist(), window.tolist()
    ([[[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]], [[0, 2]])
"""

import numpy as np

from dygraph.autograd.function import Op, apply
from dygraph.ops.vision.boxes_input import batch_of_boxes, c_round, host_boxes

__all__ = ["RoiMap", "RoiMapAdjoint", "align_maps", "psroi_maps"]


def _windows(maps):
    """[R, 2]: the first and one-past-last column where each box's map is nonzero
    (equal when the map is zero: the box reads nothing)."""
    used = maps.any(axis=1)
    size = used.shape[1]
    first = np.argmax(used, axis=1)
    last = size - np.argmax(used[:, ::-1], axis=1)
    empty = ~used.any(axis=1)
    first[empty], last[empty] = 0, 0
    return np.stack([first, last], axis=1)


def _align_axis(starts, ends, size, pooled, ratio, aligned):
    """One axis of RoIAlign's maps: [R, pooled, size] and the nonzero windows."""
    t = starts.dtype.type
    n = starts.shape[0]
    extent = ends - starts
    if not aligned:
        extent = np.maximum(extent, t(1))
    step = extent / t(pooled)
    if ratio > 0:
        grid = np.full(n, ratio, np.int64)
    else:
        grid = np.maximum(np.ceil(extent / t(pooled)), 0).astype(np.int64)
    g = max(int(grid.max(initial=0)), 1)
    count = np.maximum(grid, 1).astype(starts.dtype)[:, None, None]
    bins = np.arange(pooled, dtype=starts.dtype)[None, :, None]
    taps = np.arange(g, dtype=starts.dtype)[None, None, :]
    step3 = step[:, None, None]
    pos = starts[:, None, None] + bins * step3 + (taps + t(0.5)) * step3 / count
    take = (np.arange(g)[None, None, :] < grid[:, None, None]) & (pos >= -1) & (pos <= size)
    pos = np.maximum(pos, t(0))
    low = np.floor(pos).astype(np.int64)
    top = low >= size - 1
    low = np.where(top, size - 1, low)
    high = np.where(top, size - 1, low + 1)
    frac = np.where(top, t(0), pos - low.astype(starts.dtype))
    weight = take.astype(starts.dtype) / count
    maps = np.zeros((n, pooled, size), starts.dtype)
    rows = np.broadcast_to(np.arange(n)[:, None, None], pos.shape)
    cols = np.broadcast_to(np.arange(pooled)[None, :, None], pos.shape)
    np.add.at(maps, (rows, cols, low), (t(1) - frac) * weight)
    np.add.at(maps, (rows, cols, high), frac * weight)
    return maps, _windows(maps)


def align_maps(boxes, height, width, scale, ratio, aligned, pooled=None):
    """RoIAlign's ((Ay, rows), (Ax, cols)) for host boxes [R, 4] (x1, y1, x2, y2) in the
    feature map's dtype; `pooled` is (ph, pw) (default (2, 2)) and `ratio` the sampling
    ratio (<= 0: ceil(bin size) samples per bin and axis). See the module example."""
    ph, pw = pooled or (2, 2)
    offset = boxes.dtype.type(0.5 if aligned else 0.0)
    b = boxes * boxes.dtype.type(scale) - offset
    return (_align_axis(b[:, 1], b[:, 3], height, ph, ratio, aligned),
            _align_axis(b[:, 0], b[:, 2], width, pw, ratio, aligned))


def _psroi_axis(starts, ends, size, pooled):
    t = starts.dtype.type
    extent = np.maximum(ends - starts, t(0.1))
    step = extent / t(pooled)
    bins = np.arange(pooled + 1, dtype=starts.dtype)[None, :]
    lo = np.clip(np.floor(step[:, None] * bins[:, :-1] + starts[:, None]), 0, size)
    hi = np.clip(np.ceil(step[:, None] * bins[:, 1:] + starts[:, None]), 0, size)
    cols = np.arange(size)[None, None, :]
    inside = (cols >= lo[..., None]) & (cols < hi[..., None])
    maps = inside / np.maximum(hi - lo, 1)[..., None].astype(starts.dtype)
    return maps.astype(starts.dtype, copy=False), _windows(maps)


def psroi_maps(boxes, height, width, scale, pooled):
    """psroi_pool's ((Ay, rows), (Ax, cols)): the mean over the integer window of each bin
    of the box rounded to whole pixels (its far edge included), then scaled.

    Example:
        >>> import numpy as np
        >>> (ay, rows), _ = psroi_maps(np.array([[0.0, 0.0, 1.0, 1.0]]), 4, 4, 1.0, (1, 1))
        >>> ay.tolist(), rows.tolist()
        ([[[0.5, 0.5, 0.0, 0.0]]], [[0, 2]])
    """
    t = boxes.dtype.type
    rounded = c_round(boxes)
    starts = rounded * t(scale)
    ends = (rounded + t(1)) * t(scale)
    return (_psroi_axis(starts[:, 1], ends[:, 3], height, pooled[0]),
            _psroi_axis(starts[:, 0], ends[:, 2], width, pooled[1]))


class _RoiMapBase(Op):
    """What RoiMap and its adjoint share: the settings, the maps and the box windows."""

    @property
    def name(self):
        # (read from __dict__: backward frees a node's attributes, and errors still name it)
        return {"align": "roi_align", "psroi": "psroi_pool"}.get(self.__dict__.get("kind"),
                                                                 "roi_align or psroi_pool")

    def _maps(self, xp, boxes, boxes_num, batch, height, width):
        """Device maps Ay [R, ph, H], Ax [R, pw, W], and host windows and image indices."""
        host = host_boxes(boxes, self.dtype)
        images = batch_of_boxes(boxes_num, host.shape[0], batch, self.name)
        if self.kind == "align":
            (ay, rows), (ax, cols) = align_maps(host, height, width, self.spatial_scale,
                                                self.sampling_ratio, self.aligned,
                                                self.output_size)
        else:
            (ay, rows), (ax, cols) = psroi_maps(host, height, width, self.spatial_scale,
                                                self.output_size)
        return xp.asarray(ay), xp.asarray(ax), rows, cols, images

    def _boxes(self, xp, boxes, boxes_num, batch, height, width):
        """(image, Ay crop, Ax crop, row slice, column slice) of each box that reads pixels."""
        ay, ax, rows, cols, images = self._maps(xp, boxes, boxes_num, batch, height, width)
        for r in range(images.shape[0]):
            (h0, h1), (w0, w1) = rows[r], cols[r]
            if h1 > h0 and w1 > w0:
                yield (r, int(images[r]), ay[r, :, h0:h1], ax[r, :, w0:w1], slice(h0, h1),
                       slice(w0, w1))

    def _forward(self, xp, x, boxes, boxes_num):
        n, c, h, w = x.shape
        ph, pw = self.output_size
        self.dtype = x.dtype
        out_c = c if self.kind == "align" else c // (ph * pw)
        out = xp.zeros((boxes.shape[0], out_c, ph, pw), x.dtype)
        if getattr(self, "probing", False):  # a program's stand-ins: the shape is enough
            return out
        for r, b, ay, ax, rs, cs in self._boxes(xp, boxes, boxes_num, n, h, w):
            crop = x[b, :, rs, cs]
            if self.kind == "align":  # [C, kh, kw] . [ph, kh] -> [C, kw, ph] . [pw, kw]
                out[r] = xp.tensordot(xp.tensordot(crop, ay, axes=([1], [1])), ax,
                                      axes=([1], [1]))
            else:  # each bin (i, j) reads its own channel block: [C', ph, pw, kh, kw]
                blocks = crop.reshape(out_c, ph, pw, crop.shape[1], crop.shape[2])
                cols = (blocks * ax[None, None, :, None, :]).sum(axis=-1)
                out[r] = (cols * ay[None, :, None, :]).sum(axis=-1)
        return out

    def _adjoint(self, xp, g, boxes, boxes_num, shape):
        n, c, h, w = shape
        ph, pw = self.output_size
        self.dtype = g.dtype
        gx = xp.zeros(shape, g.dtype)
        if getattr(self, "probing", False):
            return gx
        for r, b, ay, ax, rs, cs in self._boxes(xp, boxes, boxes_num, n, h, w):
            if self.kind == "align":  # [C, ph, pw] . [pw, kw] -> [C, ph, kw] . [ph, kh]
                part = xp.tensordot(xp.tensordot(g[r], ax, axes=([2], [0])), ay,
                                    axes=([1], [0])).transpose(0, 2, 1)
            else:
                part = (g[r][:, :, :, None, None] * ay[None, :, None, :, None]
                        * ax[None, None, :, None, :]).reshape(c, ay.shape[1], ax.shape[1])
            gx[b, :, rs, cs] += part
        return gx


class RoiMap(_RoiMapBase):
    """out [R, C', ph, pw] from x [N, C, H, W], boxes [R, 4] and boxes_num [N]: RoIAlign
    (kind 'align') or position-sensitive RoI pooling ('psroi'); linear in x, no gradient
    for the boxes."""

    attrs = ("kind", "output_size", "spatial_scale", "sampling_ratio", "aligned")
    save_inputs = True

    def __init__(self, kind, output_size, spatial_scale, sampling_ratio=-1, aligned=True):
        self.kind, self.output_size = kind, tuple(output_size)
        self.spatial_scale, self.sampling_ratio = float(spatial_scale), int(sampling_ratio)
        self.aligned = bool(aligned)

    def forward(self, xp, x, boxes, boxes_num):
        self.in_shape = x.shape
        return self._forward(xp, x, boxes, boxes_num)

    def backward(self, m, g):
        if self.edges[0] is None:
            return None, None, None
        boxes, boxes_num = self.x(1, m), self.x(2, m)
        if m.tensor_mode:
            adjoint = RoiMapAdjoint(self.kind, self.output_size, self.spatial_scale,
                                    self.sampling_ratio, self.aligned, self.in_shape)
            return apply(adjoint, g, boxes, boxes_num), None, None
        xp = m.xp
        return self._adjoint(xp, g, boxes, boxes_num, self.in_shape), None, None


class RoiMapAdjoint(_RoiMapBase):
    """The transposed maps of RoiMap: gradient [N, C, H, W] of x from the output's."""

    attrs = ("kind", "output_size", "spatial_scale", "sampling_ratio", "aligned", "in_shape")
    save_inputs = True

    def __init__(self, kind, output_size, spatial_scale, sampling_ratio, aligned, in_shape):
        self.kind, self.output_size = kind, tuple(output_size)
        self.spatial_scale, self.sampling_ratio = float(spatial_scale), int(sampling_ratio)
        self.aligned, self.in_shape = bool(aligned), tuple(in_shape)

    def forward(self, xp, g, boxes, boxes_num):
        return self._adjoint(xp, g, boxes, boxes_num, self.in_shape)

    def backward(self, m, gg):
        if self.edges[0] is None:
            return None, None, None
        boxes, boxes_num = self.x(1, m), self.x(2, m)
        if m.tensor_mode:
            forward = RoiMap(self.kind, self.output_size, self.spatial_scale,
                             self.sampling_ratio, self.aligned)
            return apply(forward, gg, boxes, boxes_num), None, None
        return self._forward(m.xp, gg, boxes, boxes_num), None, None
