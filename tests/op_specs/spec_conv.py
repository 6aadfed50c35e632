"""Spec entries for the convolutions of dygraph.nn.functional.

The references sum one kernel tap at a time with einsum: a different route from the
im2col/GEMM kernels under test.
"""

import itertools

import numpy as np

import dygraph.nn.functional as F
from tests.op_specs import OpSpec


def _pairs(padding, d):
    if isinstance(padding, int):
        return [(padding, padding)] * d
    if len(padding) == d:
        return [(p, p) for p in padding]
    return [(padding[2 * i], padding[2 * i + 1]) for i in range(d)]


def conv_ref(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """Direct N-d convolution, channels first."""
    d = x.ndim - 2
    st = [stride] * d if isinstance(stride, int) else list(stride)
    dil = [dilation] * d if isinstance(dilation, int) else list(dilation)
    x = np.pad(x, [(0, 0), (0, 0)] + _pairs(padding, d))
    k = w.shape[2:]
    out = [(s - dl * (kk - 1) - 1) // t + 1 for s, kk, t, dl in zip(x.shape[2:], k, st, dil)]
    cg, mg = x.shape[1] // groups, w.shape[0] // groups
    y = np.zeros((x.shape[0], w.shape[0], *out))
    for tap in itertools.product(*(range(kk) for kk in k)):
        view = x[(slice(None), slice(None)) + tuple(
            slice(i * dl, i * dl + t * (o - 1) + 1, t) for i, dl, t, o in zip(tap, dil, st, out))]
        for g in range(groups):
            y[:, g * mg:(g + 1) * mg] += np.einsum(
                "nc...,mc->nm...", view[:, g * cg:(g + 1) * cg],
                w[(slice(g * mg, (g + 1) * mg), slice(None)) + tap])
    if b is not None:
        y += b.reshape((1, -1) + (1,) * d)
    return y


def conv_transpose_ref(x, w, b=None, stride=1, padding=0, output_padding=0, dilation=1,
                       groups=1):
    """Direct N-d transposed convolution: each input pixel scatters a scaled kernel over the
    full extent, output_padding adds zeros at the end, padding crops both ends."""
    d = x.ndim - 2
    st = [stride] * d if isinstance(stride, int) else list(stride)
    dil = [dilation] * d if isinstance(dilation, int) else list(dilation)
    extra = [output_padding] * d if isinstance(output_padding, int) else list(output_padding)
    pads = _pairs(padding, d)
    k = w.shape[2:]
    full = [(s - 1) * t + dl * (kk - 1) + 1 + e for s, t, dl, kk, e in
            zip(x.shape[2:], st, dil, k, extra)]
    cg, og = x.shape[1] // groups, w.shape[1]
    y = np.zeros((x.shape[0], og * groups, *full))
    for tap in itertools.product(*(range(kk) for kk in k)):
        index = (slice(None), slice(None)) + tuple(
            slice(i * dl, i * dl + t * (s - 1) + 1, t)
            for i, dl, t, s in zip(tap, dil, st, x.shape[2:]))
        for g in range(groups):
            y[:, g * og:(g + 1) * og][index] += np.einsum(
                "nc...,co->no...", x[:, g * cg:(g + 1) * cg],
                w[(slice(g * cg, (g + 1) * cg), slice(None)) + tap])
    crop = tuple(slice(lo, f - hi) for f, (lo, hi) in zip(full, pads))
    y = y[(slice(None), slice(None)) + crop]
    if b is not None:
        y = y + b.reshape((1, -1) + (1,) * d)
    return y


def _nhwc(fn):
    return lambda x, *rest: np.moveaxis(fn(np.moveaxis(x, -1, 1), *rest), 1, -1)


SPECS = [
    OpSpec("nn.functional.conv1d", lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1),
           lambda x, w, b: conv_ref(x, w, b, 2, 1), [(2, 3, 7), (4, 3, 3), (4,)]),
    OpSpec("nn.functional.conv1d", lambda x, w: F.conv1d(x, w, dilation=2, groups=2,
                                                         padding=[2, 1]),
           lambda x, w: conv_ref(x, w, None, 1, [2, 1], 2, 2), [(2, 4, 6), (4, 2, 2)],
           id="dilated-groups"),
    # Padding wider than the kernel: more output than input positions.
    OpSpec("nn.functional.conv1d", lambda x, w: F.conv1d(x, w, padding=[3, 1]),
           lambda x, w: conv_ref(x, w, None, 1, [3, 1]), [(2, 2, 4), (3, 2, 2)],
           id="wide-padding"),
    OpSpec("nn.functional.conv2d", lambda x, w, b: F.conv2d(x, w, b, padding=1),
           lambda x, w, b: conv_ref(x, w, b, 1, 1), [(2, 3, 5, 4), (4, 3, 3, 3), (4,)]),
    OpSpec("nn.functional.conv2d",
           lambda x, w: F.conv2d(x, w, stride=[2, 1], padding=[1, 0, 0, 2], dilation=[1, 2],
                                 groups=2),
           lambda x, w: conv_ref(x, w, None, [2, 1], [1, 0, 0, 2], [1, 2], 2),
           [(2, 4, 6, 5), (6, 2, 2, 2)], id="strided-groups"),
    # Depthwise convs: where Numba is installed the compiled kernels, those for 'same'
    # padding at stride 1 or 2 (dygraph.kernels.numba.depthwise2d_same, with the bias gradient
    # in the filter gradient's pass) on any map, the others (dygraph.kernels.numba.depthwise2d)
    # from 64 output positions a plane; else and below that the einsum channels-last
    # (conv_depthwise.py); with a stride, padding and dilation (tests/backend/test_parallel.py
    # runs them split over threads).
    OpSpec("nn.functional.conv2d", lambda x, w, b: F.conv2d(x, w, b, padding=1, groups=3),
           lambda x, w, b: conv_ref(x, w, b, 1, 1, 1, 3), [(2, 3, 5, 7), (3, 1, 3, 3), (3,)],
           id="depthwise-same"),
    OpSpec("nn.functional.conv2d",
           lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=2, groups=2),
           lambda x, w, b: conv_ref(x, w, b, 2, 2, 1, 2), [(2, 2, 7, 6), (2, 1, 5, 5), (2,)],
           id="depthwise-same-5x5-strided"),
    OpSpec("nn.functional.conv2d", lambda x, w: F.conv2d(x, w, stride=2, padding=1, groups=2),
           lambda x, w: conv_ref(x, w, None, 2, 1, 1, 2), [(1, 2, 18, 18), (2, 1, 3, 3)],
           id="depthwise-large-strided"),
    OpSpec("nn.functional.conv2d",
           lambda x, w, b: F.conv2d(x, w, b, padding=[2, 1], dilation=[2, 1], groups=2),
           lambda x, w, b: conv_ref(x, w, b, 1, [2, 1], [2, 1], 2),
           [(2, 2, 9, 8), (2, 1, 3, 3), (2,)], id="depthwise-dilated"),
    OpSpec("nn.functional.conv2d",
           lambda x, w, b: F.conv2d(x, w, b, stride=[2, 3], padding=[1, 2, 0, 1],
                                    dilation=[1, 2], groups=3),
           lambda x, w, b: conv_ref(x, w, b, [2, 3], [1, 2, 0, 1], [1, 2], 3),
           [(2, 3, 7, 8), (3, 1, 3, 2), (3,)], id="depthwise-strided"),
    OpSpec("nn.functional.conv2d",
           lambda x, w: F.conv2d(x, w, padding="same", data_format="NHWC"),
           _nhwc(lambda x, w: conv_ref(x, w, None, 1, [1, 1, 0, 1])),
           [(2, 4, 5, 3), (2, 3, 3, 2)], id="same-nhwc"),
    # At least 64 values a weight row (C * kh * kw), where Numba is installed: the
    # channels-last columns (conv_channels_last.py), the transposed conv's data gradient too.
    OpSpec("nn.functional.conv2d", lambda x, w, b: F.conv2d(x, w, b, padding=1),
           lambda x, w, b: conv_ref(x, w, b, 1, 1), [(2, 8, 5, 4), (3, 8, 3, 3), (3,)],
           id="channels-last"),
    OpSpec("nn.functional.conv2d",
           lambda x, w: F.conv2d(x, w, stride=[2, 1], padding=[1, 0, 0, 2], dilation=[1, 2]),
           lambda x, w: conv_ref(x, w, None, [2, 1], [1, 0, 0, 2], [1, 2]),
           [(2, 11, 6, 5), (3, 11, 3, 2)], id="channels-last-strided-dilated"),
    # Few output positions and many taps: the one-GEMM-per-batch path.
    OpSpec("nn.functional.conv2d", lambda x, w: F.conv2d(x, w),
           lambda x, w: conv_ref(x, w), [(3, 4, 3, 3), (2, 4, 3, 3)], id="batch-gemm"),
    # 1x1 (grouped): no columns, the products read x and write dx directly.
    OpSpec("nn.functional.conv2d", lambda x, w, b: F.conv2d(x, w, b, groups=2),
           lambda x, w, b: conv_ref(x, w, b, 1, 0, 1, 2), [(2, 4, 3, 3), (6, 2, 1, 1), (6,)],
           id="pointwise-groups"),
    # Many output positions over the batch but few per sample: the filter gradient as
    # (cols @ gT.T).T (conv_kernels._FILTER_FLIP_POSITIONS).
    OpSpec("nn.functional.conv2d", lambda x, w: F.conv2d(x, w),
           lambda x, w: conv_ref(x, w), [(60, 3, 4, 4), (2, 3, 2, 2)], id="many-positions"),
    # More output channels than output positions: the data gradient through col2im rather
    # than the folded last dim (conv_kernels._rows_pay).
    OpSpec("nn.functional.conv2d", lambda x, w: F.conv2d(x, w, padding=1),
           lambda x, w: conv_ref(x, w, None, 1, 1), [(1, 2, 2, 2), (8, 2, 3, 3)],
           id="wide-filter"),
    # A 1x1 conv under a sum: the pointwise path, its upstream gradient a broadcast view
    # (strides 0) of the scalar's, which the products must read as an array.
    OpSpec("nn.functional.conv2d", lambda x, w: F.conv2d(x, w).sum(),
           lambda x, w: conv_ref(x, w).sum(), [(4, 32, 8, 8), (48, 32, 1, 1)],
           id="pointwise-sum-grad"),
    # 16 channels in and out, 18x18 padded cells for 16x16 outputs: the implicit GEMM
    # (conv_implicit.py), one GEMM a tap on the shifted grid.
    OpSpec("nn.functional.conv2d", lambda x, w: F.conv2d(x, w, padding=1),
           lambda x, w: conv_ref(x, w, None, 1, 1), [(2, 16, 16, 16), (16, 16, 3, 3)],
           id="implicit-16x16"),
    # NHWC with a weight row of 8 * 3 * 3 values: channels_last where Numba is installed
    # (conv_channels_last.py), the layout already the one its products read.
    OpSpec("nn.functional.conv2d",
           lambda x, w: F.conv2d(x, w, padding=1, data_format="NHWC"),
           _nhwc(lambda x, w: conv_ref(x, w, None, 1, 1)), [(2, 6, 5, 8), (4, 8, 3, 3)],
           id="channels-last-nhwc"),
    # A depthwise 'same' conv on NHWC input: the compiled 'same' kernels where Numba is
    # installed (dygraph.kernels.numba.depthwise2d_same, the bias gradient in the filter
    # gradient's pass), else the einsum channels-last.
    OpSpec("nn.functional.conv2d",
           lambda x, w, b: F.conv2d(x, w, b, padding="same", groups=3, data_format="NHWC"),
           _nhwc(lambda x, w, b: conv_ref(x, w, b, 1, 1, 1, 3)),
           [(2, 5, 7, 3), (3, 1, 3, 3), (3,)], id="depthwise-nhwc"),
    OpSpec("nn.functional.conv3d", lambda x, w, b: F.conv3d(x, w, b, stride=[1, 2, 1],
                                                            padding=1),
           lambda x, w, b: conv_ref(x, w, b, [1, 2, 1], 1),
           [(1, 2, 3, 4, 3), (2, 2, 2, 2, 2), (2,)]),
    OpSpec("nn.functional.conv1d_transpose",
           lambda x, w, b: F.conv1d_transpose(x, w, b, stride=2, padding=1, output_padding=1),
           lambda x, w, b: conv_transpose_ref(x, w, b, 2, 1, 1), [(2, 3, 4), (3, 2, 3), (2,)]),
    OpSpec("nn.functional.conv2d_transpose",
           lambda x, w, b: F.conv2d_transpose(x, w, b, stride=2, padding=[1, 0],
                                              dilation=[1, 2], groups=2),
           lambda x, w, b: conv_transpose_ref(x, w, b, 2, [1, 0], 0, [1, 2], 2),
           [(2, 4, 3, 3), (4, 1, 3, 2), (2,)]),
    OpSpec("nn.functional.conv3d_transpose",
           lambda x, w: F.conv3d_transpose(x, w, stride=[2, 1, 1]),
           lambda x, w: conv_transpose_ref(x, w, None, [2, 1, 1]),
           [(1, 2, 2, 3, 2), (2, 2, 2, 2, 2)]),
]
