"""Deformable convolution (DCN v1 and, with a mask, v2) as one op: DeformConv.

Each kernel tap k of output pixel l reads the input at its regular position plus the
offset (dy, dx) of its deformable group, by bilinear interpolation over the four corners
(a corner outside the map reads 0, a position a pixel or more outside reads nothing), times
the mask where there is one. The samples are im2col columns [N, C * K, Ho * Wo]; one
product with the weight gives the output. The gradient is written out on arrays: the
weight's from the columns, the columns' from the weight, the mask's and the offsets' from
the samples and the corner weights' derivatives (DCN's rule, one-sided at whole pixels),
and x's by adding each sample's share back to its four corners (one bincount).
Under create_graph the gradient is taken through the same computation written with the
library's differentiable ops (deform_conv_tensors), so double backward holds too.

Example:
    >>> import dygraph
    >>> from dygraph.autograd.function import apply
    >>> op = DeformConv((1, 1), (0, 0), (1, 1), 1, 1, False, False)
    >>> x = dygraph.ones([1, 1, 3, 3])
    >>> offset = dygraph.zeros([1, 18, 1, 1]) + 0.5
    >>> apply(op, x, offset, dygraph.ones([1, 1, 3, 3])).numpy().ravel()
    array([6.25], dtype=float32)
"""

import numpy as np

from dygraph import ops as P
from dygraph.autograd.function import Op
from dygraph.backend import device_constant
from dygraph.backend.scatter_at import add_at
from dygraph.tensor.tensor import _new_tensor

__all__ = ["DeformConv", "deform_conv_tensors", "sampling_grid"]

# The four corners around a sample, as (row, column) steps from its floor corner.
_CORNERS = ((0, 0), (0, 1), (1, 0), (1, 1))


def sampling_grid(out_size, kernel, stride, padding, dilation):
    """Regular (row, column) positions [K, Ho * Wo] of each tap at each output pixel.

    Example:
        >>> ys, xs = sampling_grid((1, 2), (1, 2), (1, 1), (0, 0), (1, 1))
        >>> ys.tolist(), xs.tolist()
        ([[0, 0], [0, 0]], [[0, 1], [1, 2]])
    """
    (ho, wo), (kh, kw) = out_size, kernel
    ky, kx = np.divmod(np.arange(kh * kw), kw)
    oy, ox = np.divmod(np.arange(ho * wo), wo)
    ys = (oy * stride[0] - padding[0])[None, :] + (ky * dilation[0])[:, None]
    xs = (ox * stride[1] - padding[1])[None, :] + (kx * dilation[1])[:, None]
    return ys, xs


def _corner_terms(xp, py, px, h, w):
    """Per corner: flat pixel index [N, dg, K*L] (int64), its bilinear weight (0 where the
    corner reads nothing) and that weight's derivatives along rows and columns."""
    inside = (py > -1) & (px > -1) & (py < h) & (px < w)
    y0, x0 = xp.floor(py), xp.floor(px)
    ly, lx = py - y0, px - x0
    hy, hx = 1 - ly, 1 - lx
    terms = []
    for dy, dx in _CORNERS:
        yc, xc = y0 + dy, x0 + dx
        ok = inside & (yc >= 0) & (yc <= h - 1) & (xc >= 0) & (xc <= w - 1)
        ok = ok.astype(py.dtype)
        wy, wx = (ly if dy else hy), (lx if dx else hx)
        index = (xp.clip(yc, 0, h - 1) * w + xp.clip(xc, 0, w - 1)).astype(np.int64)
        terms.append((index, wy * wx * ok, (1 if dy else -1) * wx * ok,
                      (1 if dx else -1) * wy * ok))
    return terms


class DeformConv(Op):
    """out [N, O, Ho, Wo] from x [N, C, H, W], offset [N, 2 dg K, Ho, Wo], weight
    [O, C / groups, kh, kw], then mask [N, dg K, Ho, Wo] and bias [O] where the flags say."""

    attrs = ("stride", "padding", "dilation", "deformable_groups", "groups", "has_mask",
             "has_bias")
    save_inputs = True

    def __init__(self, stride, padding, dilation, deformable_groups, groups, has_mask,
                 has_bias):
        self.stride, self.padding = tuple(stride), tuple(padding)
        self.dilation = tuple(dilation)
        self.deformable_groups, self.groups = int(deformable_groups), int(groups)
        self.has_mask, self.has_bias = bool(has_mask), bool(has_bias)

    @property
    def name(self):
        return "deform_conv2d"

    def _split(self, arrays):
        x, offset, weight = arrays[:3]
        rest = list(arrays[3:])
        mask = rest.pop(0) if self.has_mask else None
        bias = rest.pop(0) if self.has_bias else None
        return x, offset, weight, mask, bias

    def _layout(self, x, offset, weight):
        n, c, h, w = x.shape
        out_c, _, kh, kw = weight.shape
        ho, wo = offset.shape[2:]
        return n, c, h, w, out_c, kh * kw, ho, wo

    def _positions(self, xp, x, offset, weight):
        n, c, h, w, _, taps, ho, wo = self._layout(x, offset, weight)
        grid = ((ho, wo), tuple(weight.shape[2:]), tuple(self.stride), tuple(self.padding),
                tuple(self.dilation))
        # (made once per GPU and layout: a copy from the host cannot be in a CUDA graph)
        ys = device_constant(xp, ("deform_conv rows", x.dtype.str) + grid,
                             lambda: sampling_grid(*grid)[0].astype(x.dtype))
        xs = device_constant(xp, ("deform_conv columns", x.dtype.str) + grid,
                             lambda: sampling_grid(*grid)[1].astype(x.dtype))
        shifts = offset.reshape(n, self.deformable_groups, taps, 2, ho * wo)
        py = (shifts[:, :, :, 0] + ys).reshape(n, -1, taps * ho * wo)
        px = (shifts[:, :, :, 1] + xs).reshape(n, -1, taps * ho * wo)
        return py, px

    def forward(self, xp, *arrays):
        x, offset, weight, mask, bias = self._split(arrays)
        n, c, h, w, out_c, taps, ho, wo = self._layout(x, offset, weight)
        dg, groups = self.deformable_groups, self.groups
        py, px = self._positions(xp, x, offset, weight)
        planes = x.reshape(n, dg, c // dg, h * w)
        sampled = xp.zeros((n, dg, c // dg, taps * ho * wo), x.dtype)
        for index, weight_yx, _, _ in _corner_terms(xp, py, px, h, w):
            sampled += xp.take_along_axis(planes, index[:, :, None, :], axis=3) * (
                weight_yx[:, :, None, :])
        self.saved = sampled
        columns = sampled if mask is None else sampled * mask.reshape(n, dg, 1, -1)
        columns = columns.reshape(n, groups, c // groups * taps, ho * wo)
        kernels = weight.reshape(groups, out_c // groups, -1)
        out = xp.matmul(kernels, columns).reshape(n, out_c, ho, wo)
        return out if bias is None else out + bias.reshape(1, out_c, 1, 1)

    def backward(self, m, g):
        if m.tensor_mode:
            return self._recorded_backward(m, g)
        xp = m.xp
        x, offset, weight, mask, bias = self._split([self.x(i, m) for i in
                                                     range(len(self.inputs))])
        n, c, h, w, out_c, taps, ho, wo = self._layout(x, offset, weight)
        dg, groups = self.deformable_groups, self.groups
        cells = taps * ho * wo
        sampled = self.saved
        gm = g.reshape(n, groups, out_c // groups, ho * wo)
        kernels = weight.reshape(groups, out_c // groups, -1)
        grads = [None] * len(self.inputs)
        scale = None if mask is None else mask.reshape(n, dg, 1, cells)
        if self.edges[2] is not None:
            columns = sampled if scale is None else sampled * scale
            columns = columns.reshape(n, groups, c // groups * taps, ho * wo)
            grads[2] = xp.matmul(gm, columns.transpose(0, 1, 3, 2)).sum(axis=0).reshape(
                weight.shape)
        if self.has_bias and self.edges[-1] is not None:
            grads[-1] = g.sum(axis=(0, 2, 3))
        sampling = (0, 1, 3) if self.has_mask else (0, 1)
        if all(self.edges[i] is None for i in sampling):
            return tuple(grads)
        g_cols = xp.matmul(kernels.transpose(0, 2, 1), gm).reshape(n, dg, c // dg, cells)
        if self.has_mask and self.edges[3] is not None:
            grads[3] = (g_cols * sampled).sum(axis=2).reshape(mask.shape)
        g_samples = g_cols if scale is None else g_cols * scale
        py, px = self._positions(xp, x, offset, weight)
        planes = x.reshape(n, dg, c // dg, h * w)
        g_planes = xp.zeros(planes.size, np.float64 if xp is np else x.dtype)
        base = (xp.arange(n * c).reshape(n, dg, c // dg, 1) * (h * w))
        g_py = xp.zeros(py.shape, x.dtype)
        g_px = xp.zeros(px.shape, x.dtype)
        for index, weight_yx, d_row, d_col in _corner_terms(xp, py, px, h, w):
            at = index[:, :, None, :]
            if self.edges[0] is not None:
                share = g_samples * weight_yx[:, :, None, :]
                if xp is np:
                    g_planes += np.bincount((base + at).ravel(), weights=share.ravel(),
                                            minlength=planes.size)
                else:  # CuPy's bincount reads the largest index on the host
                    add_at(xp, g_planes, (base + at).ravel(), share.ravel())
            if self.edges[1] is not None:
                read = (xp.take_along_axis(planes, at, axis=3) * g_samples).sum(axis=2)
                g_py += read * d_row
                g_px += read * d_col
        if self.edges[0] is not None:
            grads[0] = g_planes.astype(x.dtype, copy=False).reshape(x.shape)
        if self.edges[1] is not None:
            grads[1] = xp.stack([g_py.reshape(n, dg, taps, ho * wo),
                                 g_px.reshape(n, dg, taps, ho * wo)], axis=3).reshape(
                offset.shape)
        return tuple(grads)

    def _recorded_backward(self, m, g):
        """create_graph: the gradient through deform_conv_tensors, itself differentiable."""
        from dygraph.autograd.engine import grad
        from dygraph.autograd.grad_mode import enable_grad

        tensors = [self.x(i, m) for i in range(len(self.inputs))]
        wanted = [i for i, e in enumerate(self.edges) if e is not None]
        x, offset, weight, mask, bias = self._split(tensors)
        with enable_grad():
            out = deform_conv_tensors(x, offset, weight, bias, mask, self.stride,
                                      self.padding, self.dilation, self.deformable_groups,
                                      self.groups)
            got = grad([out], [tensors[i] for i in wanted], [g], create_graph=True,
                       allow_unused=True)
        grads = [None] * len(tensors)
        for i, gi in zip(wanted, got):
            grads[i] = gi
        return tuple(grads)


def _constant(array, like):
    from dygraph.backend import get_array_module

    return _new_tensor(get_array_module(like._data).asarray(array.astype(like._data.dtype)),
                       None, 0, True)


def deform_conv_tensors(x, offset, weight, bias, mask, stride, padding, dilation, dg, groups):
    """DeformConv's output written with differentiable library ops (floor, take_along_axis,
    matmul, ...): the graph that create_graph differentiates.

    Example:
        >>> import dygraph
        >>> out = deform_conv_tensors(dygraph.ones([1, 1, 2, 2]), dygraph.zeros([1, 2, 2, 2]),
        ...                           dygraph.ones([1, 1, 1, 1]), None, None, (1, 1), (0, 0),
        ...                           (1, 1), 1, 1)
        >>> out.numpy().ravel()
        array([1., 1., 1., 1.], dtype=float32)
    """
    n, c, h, w = x.shape
    out_c, _, kh, kw = weight.shape
    ho, wo = offset.shape[2:]
    taps, cells = kh * kw, kh * kw * ho * wo
    ys, xs = sampling_grid((ho, wo), (kh, kw), stride, padding, dilation)
    shifts = P.reshape(offset, [n, dg, taps, 2, ho * wo])
    py = P.reshape(shifts[:, :, :, 0] + _constant(ys, x), [n, dg, cells])
    px = P.reshape(shifts[:, :, :, 1] + _constant(xs, x), [n, dg, cells])
    inside = (py > -1) & (px > -1) & (py < h) & (px < w)
    y0, x0 = P.floor(py), P.floor(px)
    ly, lx = py - y0, px - x0
    hy, hx = 1 - ly, 1 - lx
    planes = P.reshape(x, [n, dg, c // dg, h * w])
    sampled = 0
    for dy, dx in _CORNERS:
        yc, xc = y0 + dy, x0 + dx
        ok = inside & (yc >= 0) & (yc <= h - 1) & (xc >= 0) & (xc <= w - 1)
        flat = P.clip(yc, 0, h - 1) * w + P.clip(xc, 0, w - 1)
        index = P.unsqueeze(P.cast(flat, "int64"), 2)
        share = (ly if dy else hy) * (lx if dx else hx) * P.cast(ok, x.dtype)
        sampled = sampled + P.take_along_axis(planes, index, 3) * P.unsqueeze(share, 2)
    if mask is not None:
        sampled = sampled * P.reshape(mask, [n, dg, 1, cells])
    columns = P.reshape(sampled, [n, groups, c // groups * taps, ho * wo])
    kernels = P.reshape(weight, [groups, out_c // groups, c // groups * taps])
    out = P.reshape(P.matmul(kernels, columns), [n, out_c, ho, wo])
    if bias is not None:
        out = out + P.reshape(bias, [1, out_c, 1, 1])
    return out
