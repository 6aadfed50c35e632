"""Spec entries for the differentiable ops of dygraph.vision.ops: roi_align, roi_pool,
psroi_pool and deform_conv2d.

The references are the definitions, one bin or one output pixel at a time in scalar loops:
RoIAlign's bilinear samples, the max and mean over integer windows, DCN's bilinear sampling
of each tap. The ops under test compute them as separable maps, masked gathers and one
matrix product. Boxes and boxes_num are fixed inputs without gradients (as in Paddle).
The ops are reached through `dygraph.vision.ops` at call time, so that
tools/record_error_walk.py, which imports Paddle under DyGraph's name, calls Paddle's.
"""

import math

import numpy as np

import dygraph
from tests.op_specs import OpSpec

BOXES = np.array([[0.4, 0.7, 4.6, 3.9], [1.2, 0.3, 6.8, 5.7], [2.0, 1.0, 3.5, 2.2]])
NUM = np.array([2, 1], np.int32)


def _image_of(num):
    return np.repeat(np.arange(len(num)), num)


def _bilinear(plane, y, x):
    """RoIAlign's sample of a [H, W] plane (edges clamped, 0 beyond a pixel outside)."""
    h, w = plane.shape
    if y < -1.0 or y > h or x < -1.0 or x > w:
        return 0.0
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    if y0 >= h - 1:
        y0 = y1 = h - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= w - 1:
        x0 = x1 = w - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    return ((1 - ly) * (1 - lx) * plane[y0, x0] + (1 - ly) * lx * plane[y0, x1]
            + ly * (1 - lx) * plane[y1, x0] + ly * lx * plane[y1, x1])


def roi_align_ref(x, boxes, num, size, scale=1.0, ratio=-1, aligned=True):
    ph, pw = size
    out = np.zeros((len(boxes), x.shape[1], ph, pw))
    shift = 0.5 if aligned else 0.0
    for r, (b, box) in enumerate(zip(_image_of(num), boxes)):
        x1, y1, x2, y2 = box * scale - shift
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / ph, rw / pw
        gh = ratio if ratio > 0 else math.ceil(rh / ph)
        gw = ratio if ratio > 0 else math.ceil(rw / pw)
        for c in range(x.shape[1]):
            for i in range(ph):
                for j in range(pw):
                    total = sum(_bilinear(x[b, c], y1 + i * bh + (iy + 0.5) * bh / gh,
                                          x1 + j * bw + (ix + 0.5) * bw / gw)
                                for iy in range(gh) for ix in range(gw))
                    out[r, c, i, j] = total / max(gh * gw, 1)
    return out


def _c_round(v):
    return math.floor(v + 0.5) if v >= 0 else -math.floor(-v + 0.5)


def roi_pool_ref(x, boxes, num, size, scale=1.0):
    ph, pw = size
    h, w = x.shape[2:]
    out = np.zeros((len(boxes), x.shape[1], ph, pw))
    for r, (b, box) in enumerate(zip(_image_of(num), boxes)):
        x1, y1, x2, y2 = (_c_round(v * scale) for v in box)
        bh, bw = max(y2 - y1 + 1, 1) / ph, max(x2 - x1 + 1, 1) / pw
        for i in range(ph):
            h0 = min(max(math.floor(i * bh) + y1, 0), h)
            h1 = min(max(math.ceil((i + 1) * bh) + y1, 0), h)
            for j in range(pw):
                w0 = min(max(math.floor(j * bw) + x1, 0), w)
                w1 = min(max(math.ceil((j + 1) * bw) + x1, 0), w)
                if h1 > h0 and w1 > w0:
                    out[r, :, i, j] = x[b, :, h0:h1, w0:w1].max(axis=(1, 2))
    return out


def psroi_pool_ref(x, boxes, num, size, scale=1.0):
    ph, pw = size
    h, w = x.shape[2:]
    out_c = x.shape[1] // (ph * pw)
    out = np.zeros((len(boxes), out_c, ph, pw))
    for r, (b, box) in enumerate(zip(_image_of(num), boxes)):
        x1, y1, x2, y2 = (_c_round(v) for v in box)
        sx, sy = x1 * scale, y1 * scale
        bh = max((y2 + 1) * scale - sy, 0.1) / ph
        bw = max((x2 + 1) * scale - sx, 0.1) / pw
        for c in range(out_c):
            for i in range(ph):
                h0 = min(max(math.floor(bh * i + sy), 0), h)
                h1 = min(max(math.ceil(bh * (i + 1) + sy), 0), h)
                for j in range(pw):
                    w0 = min(max(math.floor(bw * j + sx), 0), w)
                    w1 = min(max(math.ceil(bw * (j + 1) + sx), 0), w)
                    if h1 > h0 and w1 > w0:
                        out[r, c, i, j] = x[b, (c * ph + i) * pw + j, h0:h1, w0:w1].mean()
    return out


def _dcn_sample(plane, y, x):
    """DCN's bilinear sample: corners outside the map read 0."""
    h, w = plane.shape
    if not (y > -1 and x > -1 and y < h and x < w):
        return 0.0
    y0, x0 = math.floor(y), math.floor(x)
    ly, lx = y - y0, x - x0
    total = 0.0
    for yy, xx, weight in ((y0, x0, (1 - ly) * (1 - lx)), (y0, x0 + 1, (1 - ly) * lx),
                           (y0 + 1, x0, ly * (1 - lx)), (y0 + 1, x0 + 1, ly * lx)):
        if 0 <= yy < h and 0 <= xx < w:
            total += weight * plane[yy, xx]
    return total


def deform_conv_ref(x, offset, weight, bias=None, mask=None, stride=(1, 1),
                    padding=(0, 0), dilation=(1, 1), dg=1, groups=1):
    n, c, h, w = x.shape
    out_c, cg, kh, kw = weight.shape
    ho, wo = offset.shape[2:]
    og, cd = out_c // groups, c // dg
    out = np.zeros((n, out_c, ho, wo))
    for b in range(n):
        for ch in range(c):
            g, d = ch // cg, ch // cd
            for i in range(kh):
                for j in range(kw):
                    k = i * kw + j
                    for oy in range(ho):
                        for ox in range(wo):
                            y = oy * stride[0] - padding[0] + i * dilation[0] + offset[
                                b, 2 * (d * kh * kw + k), oy, ox]
                            xx = ox * stride[1] - padding[1] + j * dilation[1] + offset[
                                b, 2 * (d * kh * kw + k) + 1, oy, ox]
                            v = _dcn_sample(x[b, ch], y, xx)
                            if mask is not None:
                                v *= mask[b, d * kh * kw + k, oy, ox]
                            out[b, g * og:(g + 1) * og, oy, ox] += (
                                weight[g * og:(g + 1) * og, ch - g * cg, i, j] * v)
    if bias is not None:
        out += bias[None, :, None, None]
    return out


def _distinct(shape):
    return lambda rng: rng.permutation(int(np.prod(shape))).reshape(shape) * 0.05 - 1.0


SPECS = [
    OpSpec("vision.ops.roi_align", lambda x, b, n: dygraph.vision.ops.roi_align(x, b, n, 2),
           lambda x, b, n: roi_align_ref(x, b, n, (2, 2)), [(2, 3, 6, 7), BOXES, NUM],
           grad_inputs=[0], family="pooling"),
    OpSpec("vision.ops.roi_align",
           lambda x, b, n: dygraph.vision.ops.roi_align(x, b, n, (3, 2), 0.5, 2, aligned=False),
           lambda x, b, n: roi_align_ref(x, b, n, (3, 2), 0.5, 2, False),
           [(2, 2, 5, 6), BOXES * 2, NUM], grad_inputs=[0], id="unaligned", family="pooling"),
    OpSpec("vision.ops.roi_pool", lambda x, b, n: dygraph.vision.ops.roi_pool(x, b, n, (2, 3)),
           lambda x, b, n: roi_pool_ref(x, b, n, (2, 3)),
           [_distinct((2, 3, 6, 7)), BOXES, NUM], grad_inputs=[0], family="pooling"),
    OpSpec("vision.ops.psroi_pool", lambda x, b, n: dygraph.vision.ops.psroi_pool(x, b, n, 2, 0.8),
           lambda x, b, n: psroi_pool_ref(x, b, n, (2, 2), 0.8),
           [(2, 8, 6, 7), BOXES, NUM], grad_inputs=[0], family="pooling"),
    OpSpec("vision.ops.deform_conv2d",
           lambda x, o, w, b: dygraph.vision.ops.deform_conv2d(x, o, w, b),
           lambda x, o, w, b: deform_conv_ref(x, o, w, b),
           [(1, 2, 4, 5), (1, 18, 2, 3), (3, 2, 3, 3), (3,)], family="conv"),
    OpSpec("vision.ops.deform_conv2d",
           lambda x, o, m, w: dygraph.vision.ops.deform_conv2d(x, o, w, None, 2, 1, 1, 2, 2, m),
           lambda x, o, m, w: deform_conv_ref(x, o, w, None, m, (2, 2), (1, 1), (1, 1), 2, 2),
           [(1, 4, 4, 5), (1, 36, 2, 3), (1, 18, 2, 3), (2, 2, 3, 3)], domain=(-1.5, 1.5),
           id="mask-groups", family="conv"),
]
