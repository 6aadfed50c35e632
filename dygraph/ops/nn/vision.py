"""Rearranging ops of dygraph.nn.functional: pixel_shuffle, pixel_unshuffle, unfold, fold,
channel_shuffle, temporal_shift, and affine_grid (the sampling grid of grid_sample).

pixel_(un)shuffle are a reshape, a transpose and a reshape. unfold (im2col) and fold
(col2im) are each other's adjoints: unfold copies one strided window per kernel tap
(kh * kw copies, each a whole-batch slice), fold adds them back; so the gradient of one is
the other, and double backward needs nothing more.
"""

import numpy as np

from dygraph import ops as P
from dygraph.autograd.backward_math import register
from dygraph.autograd.function import Op, apply
from dygraph.framework.errors import AssertedValueError, ValueTypeError, op_error
from dygraph.ops.common import as_tensor, float_operand
from dygraph.ops.device_constants import const
from dygraph.ops.manipulation.args import int_list
from dygraph.ops.manipulation.shape import reshape, transpose
from dygraph.tensor.tensor import Tensor

__all__ = ["pixel_shuffle", "pixel_unshuffle", "unfold", "fold", "channel_shuffle", "affine_grid",
           "temporal_shift"]
NONDIFF = set()


def _factor(value, op, name):
    if isinstance(value, bool) or not isinstance(value, int):
        raise op_error(op, f"{name} must be a positive int, got {value!r}", TypeError)
    if value < 1:
        raise op_error(op, f"{name} must be a positive int, got {value}")
    return value


def _check_4d(x, data_format, op):
    if x._data.ndim != 4:
        raise op_error(op, f"x must be a 4-D tensor, got shape {list(x._data.shape)}")
    if data_format not in ("NCHW", "NHWC"):
        raise op_error(op, f"data_format must be 'NCHW' or 'NHWC', got {data_format!r}")


def pixel_shuffle(x, upscale_factor, data_format="NCHW", name=None):
    """Move channel blocks into space: [N, C*r*r, H, W] -> [N, C, H*r, W*r] (NCHW) or
    [N, H, W, C*r*r] -> [N, H*r, W*r, C] (NHWC), r = upscale_factor.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x = dygraph.arange(4, dtype='float32').reshape([1, 4, 1, 1])
        >>> F.pixel_shuffle(x, 2).numpy()
        array([[[[0., 1.],
                 [2., 3.]]]], dtype=float32)
    """
    x = as_tensor(x, "pixel_shuffle")
    r = _factor(upscale_factor, "pixel_shuffle", "upscale_factor")
    _check_4d(x, data_format, "pixel_shuffle")
    _, *rest = x._data.shape
    h, w, c = (rest[1], rest[2], rest[0]) if data_format == "NCHW" else rest
    if c % (r * r):
        raise op_error("pixel_shuffle", f"the channel count {c} of x (shape "
                       f"{list(x._data.shape)}) is not divisible by upscale_factor^2 = {r * r}")
    c //= r * r
    n = -1  # (the batch as -1: a static program's batch is free)
    if data_format == "NCHW":
        y = transpose(reshape(x, [n, c, r, r, h, w]), [0, 1, 4, 2, 5, 3])
        return reshape(y, [n, c, h * r, w * r])
    y = transpose(reshape(x, [n, h, w, c, r, r]), [0, 1, 4, 2, 5, 3])
    return reshape(y, [n, h * r, w * r, c])


def pixel_unshuffle(x, downscale_factor, data_format="NCHW", name=None):
    """The inverse of pixel_shuffle: [N, C, H*r, W*r] -> [N, C*r*r, H, W] (NCHW) or
    [N, H*r, W*r, C] -> [N, H, W, C*r*r] (NHWC), r = downscale_factor.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x = dygraph.arange(4, dtype='float32').reshape([1, 1, 2, 2])
        >>> F.pixel_unshuffle(x, 2).numpy().ravel()
        array([0., 1., 2., 3.], dtype=float32)
    """
    x = as_tensor(x, "pixel_unshuffle")
    r = _factor(downscale_factor, "pixel_unshuffle", "downscale_factor")
    _check_4d(x, data_format, "pixel_unshuffle")
    n, *rest = x._data.shape
    h, w, c = (rest[1], rest[2], rest[0]) if data_format == "NCHW" else rest
    if h % r or w % r:
        raise op_error("pixel_unshuffle", f"the spatial size {h}x{w} of x (shape "
                       f"{list(x._data.shape)}) is not divisible by downscale_factor {r}")
    h, w = h // r, w // r
    if data_format == "NCHW":
        y = transpose(reshape(x, [n, c, h, r, w, r]), [0, 1, 3, 5, 2, 4])
        return reshape(y, [n, c * r * r, h, w])
    y = transpose(reshape(x, [n, h, r, w, r, c]), [0, 1, 3, 5, 2, 4])
    return reshape(y, [n, h, w, c * r * r])


# -- unfold / fold ---------------------------------------------------------------------------
class Window:
    """Kernel size, stride, (top, left, bottom, right) padding and dilation of unfold/fold."""

    __slots__ = ("kernel", "stride", "pads", "dilation")

    def __init__(self, kernel, stride, pads, dilation):
        self.kernel, self.stride, self.pads, self.dilation = kernel, stride, pads, dilation

    def out_size(self, h, w):
        (kh, kw), (sh, sw), (dh, dw) = self.kernel, self.stride, self.dilation
        pt, pl, pb, pr = self.pads
        return ((h + pt + pb - dh * (kh - 1) - 1) // sh + 1,
                (w + pl + pr - dw * (kw - 1) - 1) // sw + 1)

    def taps(self, oh, ow):
        """(i, j, rows, cols): the padded-input slices that kernel tap (i, j) reads."""
        (kh, kw), (sh, sw), (dh, dw) = self.kernel, self.stride, self.dilation
        for i in range(kh):
            rows = slice(i * dh, i * dh + sh * (oh - 1) + 1, sh)
            for j in range(kw):
                yield i, j, rows, slice(j * dw, j * dw + sw * (ow - 1) + 1, sw)


def _unfold(xp, x, win):
    n, c, h, w = x.shape
    oh, ow = win.out_size(h, w)
    pt, pl, pb, pr = win.pads
    if pt or pl or pb or pr:
        padded = xp.zeros((n, c, h + pt + pb, w + pl + pr), x.dtype)
        padded[:, :, pt:pt + h, pl:pl + w] = x
        x = padded
    kh, kw = win.kernel
    out = xp.empty((n, c, kh, kw, oh, ow), x.dtype)
    for i, j, rows, cols in win.taps(oh, ow):
        out[:, :, i, j] = x[:, :, rows, cols]
    return out.reshape(n, c * kh * kw, oh * ow)


def _fold(xp, cols, win, size):
    h, w = size
    oh, ow = win.out_size(h, w)
    kh, kw = win.kernel
    n = cols.shape[0]
    c = cols.shape[1] // (kh * kw)
    blocks = cols.reshape(n, c, kh, kw, oh, ow)
    pt, pl, pb, pr = win.pads
    out = xp.zeros((n, c, h + pt + pb, w + pl + pr), cols.dtype)
    for i, j, rows, cols_ in win.taps(oh, ow):
        out[:, :, rows, cols_] += blocks[:, :, i, j]
    if pt or pl or pb or pr:
        return out[:, :, pt:pt + h, pl:pl + w].copy()
    return out


class Unfold(Op):
    attrs = ("win",)

    complex_grad = "same"

    def __init__(self, win):
        self.win = win

    def forward(self, xp, x):
        self.size = x.shape[2:]
        return _unfold(xp, x, self.win)

    def backward(self, m, g):
        return (m.nn_fold(g, self.win, self.size),)


class Fold(Op):
    attrs = ("size", "win")

    complex_grad = "same"

    def __init__(self, win, size):
        self.win, self.size = win, size

    def forward(self, xp, cols):
        return _fold(xp, cols, self.win, self.size)

    def backward(self, m, g):
        return (m.nn_unfold(g, self.win),)


register("nn_unfold", lambda xp: (lambda x, win: _unfold(xp, x, win)),
         lambda x, win: apply(Unfold(win), x))
register("nn_fold", lambda xp: (lambda g, win, size: _fold(xp, g, win, size)),
         lambda g, win, size: apply(Fold(win, size), g))


# The error for a list of the wrong length: Paddle's unfold raises a TypeError (its
# NotSupportedTensorArgumentError), its fold asserts.
_COUNT_ERRORS = {"unfold": ValueTypeError, "fold": AssertedValueError}


def _pair(value, op, name):
    values = int_list(value, op, name)
    if len(values) == 1:
        values *= 2
    if len(values) != 2:
        raise op_error(op, f"{name} must be an int or a list of 2 ints, got {value!r}",
                       _COUNT_ERRORS[op])
    if min(values) < 1:
        raise op_error(op, f"{name} must be positive, got {value!r}")
    return tuple(values)


def _window(kernel_sizes, strides, paddings, dilations, op):
    pads = int_list(paddings, op, "paddings")
    if len(pads) in (1, 2):
        pads = pads * (4 // len(pads))  # [p] -> 4 x p; [ph, pw] -> [ph, pw, ph, pw]
    if len(pads) != 4 or min(pads) < 0:
        raise op_error(op, f"paddings must be an int or a list of 2 or 4 ints >= 0 "
                       f"(top, left, bottom, right), got {paddings!r}")
    return Window(_pair(kernel_sizes, op, "kernel_sizes"), _pair(strides, op, "strides"),
                  tuple(pads), _pair(dilations, op, "dilations"))


def unfold(x, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """im2col: the sliding kh x kw blocks of a 4-D [N, C, H, W] input as columns, giving
    [N, C*kh*kw, L] with L the number of block positions. paddings is an int, [ph, pw] or
    [top, left, bottom, right].

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x = dygraph.arange(9, dtype='float32').reshape([1, 1, 3, 3])
        >>> F.unfold(x, 2).numpy()[0]
        array([[0., 1., 3., 4.],
               [1., 2., 4., 5.],
               [3., 4., 6., 7.],
               [4., 5., 7., 8.]], dtype=float32)
    """
    x = float_operand(x, "unfold")
    if x._data.ndim != 4:
        raise op_error("unfold", f"x must be a 4-D [N, C, H, W] tensor, got shape "
                       f"{list(x._data.shape)}")
    win = _window(kernel_sizes, strides, paddings, dilations, "unfold")
    oh, ow = win.out_size(*x._data.shape[2:])
    if oh < 1 or ow < 1:
        raise op_error("unfold", f"kernel {list(win.kernel)} with dilation "
                       f"{list(win.dilation)} does not fit the padded input (x shape "
                       f"{list(x._data.shape)}, paddings {list(win.pads)})")
    return apply(Unfold(win), x)


def fold(x, output_sizes, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """col2im, the adjoint of unfold: sum [N, C*kh*kw, L] columns back into an
    [N, C, H, W] image of size output_sizes (overlapping blocks add up).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.fold(dygraph.ones([1, 4, 4]), [3, 3], 2).numpy()[0, 0]
        array([[1., 2., 1.],
               [2., 4., 2.],
               [1., 2., 1.]], dtype=float32)
    """
    x = float_operand(x, "fold")
    size = _pair(output_sizes, "fold", "output_sizes")
    win = _window(kernel_sizes, strides, paddings, dilations, "fold")
    shape = x._data.shape
    kh, kw = win.kernel
    oh, ow = win.out_size(*size)
    if len(shape) != 3 or shape[1] % (kh * kw) or oh < 1 or ow < 1 or shape[2] != oh * ow:
        raise op_error("fold", f"x of shape {list(shape)} does not fit output_sizes "
                       f"{list(size)} with kernel {list(win.kernel)}: expected [N, C*{kh * kw}, "
                       f"{max(oh, 0) * max(ow, 0)}]")
    return apply(Fold(win, size), x)


def channel_shuffle(x, groups, data_format="NCHW", name=None):
    """Interleave the channels of `groups` equal groups (ShuffleNet): channel g * (C / groups)
    + i moves to i * groups + g.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x = dygraph.arange(4, dtype='float32').reshape([1, 4, 1, 1])
        >>> F.channel_shuffle(x, 2).numpy().ravel()
        array([0., 2., 1., 3.], dtype=float32)
    """
    op = "channel_shuffle"
    x = as_tensor(x, op)
    if data_format not in ("NCHW", "NHWC"):
        raise op_error(op, f"data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    if x._data.ndim != 4:
        raise op_error(op, f"x must be 4-D, got shape {list(x._data.shape)}")
    axis = 1 if data_format == "NCHW" else 3
    shape = list(x._data.shape)
    c = shape[axis]
    if not isinstance(groups, (int, np.integer)) or groups <= 0 or c % groups:
        raise op_error(op, f"groups must be a positive divisor of the channel count {c}, "
                       f"got {groups}")
    shape[0] = -1  # (a static program's batch is free)
    split = shape[:axis] + [int(groups), c // groups] + shape[axis + 1:]
    perm = list(range(5))
    perm[axis], perm[axis + 1] = axis + 1, axis
    return P.reshape(P.transpose(P.reshape(x, split), perm), shape)


def _base_coords(n, align_corners):
    if align_corners:
        return np.linspace(-1.0, 1.0, n) if n > 1 else np.zeros(1)
    return (np.arange(n) * 2.0 + 1.0) / n - 1.0


def affine_grid(theta, out_shape, align_corners=True, name=None):
    """The sampling grid of an affine map, for grid_sample: theta [N, 2, 3] and out_shape
    [N, C, H, W] give [N, H, W, 2] (x, y); theta [N, 3, 4] and [N, C, D, H, W] give
    [N, D, H, W, 3]. Coordinates are normalised to [-1, 1].

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> theta = dygraph.to_tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
        >>> F.affine_grid(theta, [1, 1, 2, 2]).numpy()[0, 0]
        array([[-1., -1.],
               [ 1., -1.]], dtype=float32)
    """
    op = "affine_grid"
    theta = float_operand(theta, op)
    if isinstance(out_shape, Tensor):
        out_shape = np.asarray(out_shape.numpy()).ravel().tolist()
    out_shape = [int(v) for v in out_shape]
    ts = list(theta._data.shape)
    if len(out_shape) == 4 and ts[1:] == [2, 3]:
        spatial = out_shape[2:]
    elif len(out_shape) == 5 and ts[1:] == [3, 4]:
        spatial = out_shape[2:]
    else:
        raise op_error(op, f"theta must be [N, 2, 3] with a 4-D out_shape or [N, 3, 4] with a "
                       f"5-D one, got theta {ts} and out_shape {out_shape}")
    if ts[0] != out_shape[0]:
        raise op_error(op, f"theta's batch {ts[0]} differs from out_shape's {out_shape[0]}")
    # Coordinates in (x, y[, z]) order: x runs along the last spatial dim.
    axes = [_base_coords(s, align_corners) for s in spatial[::-1]]
    mesh = list(np.meshgrid(*axes[::-1], indexing="ij"))[::-1]
    base = np.stack(mesh + [np.ones(spatial)], axis=-1).reshape(-1, len(spatial) + 1)
    base_t = const(base, theta)
    grid = P.matmul(base_t, theta, transpose_y=True)
    return P.reshape(grid, [ts[0], *spatial, len(spatial)])


def temporal_shift(x, seg_num, shift_ratio=0.25, name=None, data_format="NCHW"):
    """Temporal Shift Module: x is [N * seg_num, C, H, W]; along the segment axis the first
    C * shift_ratio channels take the previous segment's values and the next
    C * shift_ratio channels the following segment's (zeros at the ends).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x = dygraph.arange(8, dtype='float32').reshape([2, 4, 1, 1])
        >>> F.temporal_shift(x, 2, 0.25).numpy().reshape(2, 4)
        array([[0., 5., 2., 3.],
               [0., 0., 6., 7.]], dtype=float32)
    """
    op = "temporal_shift"
    x = float_operand(x, op)
    if data_format not in ("NCHW", "NHWC"):
        raise op_error(op, f"data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    shape = list(x._data.shape)
    if len(shape) != 4 or not isinstance(seg_num, (int, np.integer)) or seg_num <= 0 \
            or shape[0] % seg_num:
        raise op_error(op, f"x must be 4-D with a batch divisible by seg_num, got shape "
                       f"{shape} and seg_num {seg_num}")
    if data_format == "NHWC":
        x = P.transpose(x, [0, 3, 1, 2])
    n, c, h, w = x._data.shape
    v = P.reshape(x, [n // seg_num, seg_num, c, h, w])
    c1, c2 = int(c * shift_ratio), int(c * shift_ratio * 2)
    pieces = []
    if c1:
        past = v[:, :, :c1]
        pieces.append(P.concat([P.zeros_like(past[:, :1]), past[:, :-1]], axis=1))
    if c2 > c1:
        future = v[:, :, c1:c2]
        pieces.append(P.concat([future[:, 1:], P.zeros_like(future[:, :1])], axis=1))
    if c2 < c:
        pieces.append(v[:, :, c2:])
    out = P.reshape(P.concat(pieces, axis=2), [n, c, h, w])
    return P.transpose(out, [0, 2, 3, 1]) if data_format == "NHWC" else out
