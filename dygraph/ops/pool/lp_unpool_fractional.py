"""More pooling of dygraph.nn.functional: lp_pool1d/2d, max_unpool1d/2d/3d and
fractional_max_pool2d/3d, composed of differentiable ops.

lp pooling is a sum pooling (avg pooling times the tap count) of x ** p, then the 1/p
power.
max_unpool puts each value at its recorded flat index (put_along_axis). Fractional max
pooling computes its pseudo-random windows on the host (Paddle's rules: the paper's
sequence without a kernel size, evenly spread windows of that size with one) and takes
the maximum of the gathered window values, so the gradient flows to the winners.
"""

import math

import numpy as np

from dygraph import ops as P
from dygraph.framework.errors import op_error
from dygraph.framework.random import rng
from dygraph.ops.common import as_tensor
from dygraph.ops.conv.spatial_args import channel_last, ntuple
from dygraph.ops.device_constants import const, index
from dygraph.ops.pool.pooling import _avg_pool, _input, _regular
from dygraph.ops.pool.windows import avg_divisor

__all__ = ["lp_pool1d", "lp_pool2d", "max_unpool1d", "max_unpool2d", "max_unpool3d",
           "fractional_max_pool2d", "fractional_max_pool3d"]
NONDIFF = set()

_FIRST = {1: "NCL", 2: "NCHW", 3: "NCDHW"}


def _lp_pool(x, norm_type, kernel_size, stride, padding, ceil_mode, data_format, d, op):
    if norm_type == 0 or norm_type is None:
        raise op_error(op, f"norm_type must be a non-zero number, got {norm_type!r}")
    p = float(norm_type)
    x = as_tensor(x, op)
    first, last = _input(x, d, data_format, op)
    geo = _regular(first, d, kernel_size, stride, padding, ceil_mode, last, op)
    # The window sums are averages over the in-bounds taps times their count; a window
    # wholly in the padding (ceil_mode) has no taps and sums to 0.
    count = avg_divisor(geo, True, None)
    if last:
        count = count[..., None]
    mean = _avg_pool(x ** p, kernel_size, stride, padding, ceil_mode, True, None, data_format,
                     d, op)
    total = P.where(const(count > 0, x, bool), mean * const(count, x), P.zeros_like(mean))
    return total ** (1.0 / p)


def lp_pool1d(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
              data_format="NCL", name=None):
    """Power-average pooling over L: (sum of x ** p over each window) ** (1 / p).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.lp_pool1d(dygraph.to_tensor([[[3.0, 4.0, 1.0, 0.0]]]), 2, 2).numpy()
        array([[[5., 1.]]], dtype=float32)
    """
    return _lp_pool(x, norm_type, kernel_size, stride, padding, ceil_mode, data_format, 1,
                    "lp_pool1d")


def lp_pool2d(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
              data_format="NCHW", name=None):
    """Power-average pooling over H and W: (sum of x ** p over each window) ** (1 / p).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.lp_pool2d(dygraph.to_tensor([[[[1.0, 1.0], [1.0, 1.0]]]]), 1, 2).numpy()
        array([[[[4.]]]], dtype=float32)
    """
    return _lp_pool(x, norm_type, kernel_size, stride, padding, ceil_mode, data_format, 2,
                    "lp_pool2d")


def _unpool_sizes(in_sizes, ksize, stride, pads, output_size, d, op):
    default = [(s - 1) * st - 2 * p + k for s, st, p, k in zip(in_sizes, stride, pads, ksize)]
    if output_size is None:
        return default
    sizes = list(output_size)
    if len(sizes) == d + 2:
        sizes = sizes[2:]
    if len(sizes) != d:
        raise op_error(op, f"output_size must have {d} (or {d + 2}) entries, got "
                       f"{list(output_size)}")
    for got, want, st in zip(sizes, default, stride):
        if not want - st < got < want + st:
            raise op_error(op, f"output_size {sizes} must be within a stride of the default "
                           f"size {default}")
    return [int(s) for s in sizes]


def _max_unpool(x, indices, kernel_size, stride, padding, data_format, output_size, d, op):
    x = as_tensor(x, op)
    if channel_last(data_format, d, op):
        raise op_error(op, f"only the channels-first data_format {_FIRST[d]!r} is supported, "
                       f"got {data_format!r}")
    idx = as_tensor(indices, op)
    if x._data.ndim != d + 2 or idx._data.shape != x._data.shape:
        raise op_error(op, f"x and indices must be {d + 2}-D of one shape, got "
                       f"{list(x._data.shape)} and {list(idx._data.shape)}")
    if idx._data.dtype.kind not in "iu":
        raise op_error(op, f"indices must be integers, got {idx._data.dtype}", TypeError)
    ksize = ntuple(kernel_size, d, "kernel_size", op)
    stride = ksize if stride is None else ntuple(stride, d, "stride", op)
    pads = ntuple(padding, d, "padding", op)
    n, c = x._data.shape[:2]
    sizes = _unpool_sizes(x._data.shape[2:], ksize, stride, pads, output_size, d, op)
    flat = math.prod(sizes)
    if idx._data.size and (int(idx._data.min()) < 0 or int(idx._data.max()) >= flat):
        raise op_error(op, f"indices must be in [0, {flat}) for output size {sizes}, got "
                       f"[{int(idx._data.min())}, {int(idx._data.max())}]")
    out = P.put_along_axis(P.zeros([n, c, flat], dtype=x.dtype),
                           P.reshape(P.cast(idx, "int64"), [n, c, -1]),
                           P.reshape(x, [n, c, -1]), axis=2)
    return P.reshape(out, [n, c, *sizes])


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, data_format="NCL",
                 output_size=None, name=None):
    """The inverse of max_pool1d: each value goes to the position its index names (the mask
    of max_pool1d(return_mask=True)); the rest is zero.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> y, idx = F.max_pool1d(dygraph.to_tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2,
        ...                       return_mask=True)
        >>> F.max_unpool1d(y, idx, 2).numpy()
        array([[[0., 3., 2., 0.]]], dtype=float32)
    """
    return _max_unpool(x, indices, kernel_size, stride, padding, data_format, output_size, 1,
                       "max_unpool1d")


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, data_format="NCHW",
                 output_size=None, name=None):
    """The inverse of max_pool2d: each value goes to the flat H*W position its index names.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x = dygraph.to_tensor([[[[1.0, 2.0], [4.0, 3.0]]]])
        >>> y, idx = F.max_pool2d(x, 2, return_mask=True)
        >>> F.max_unpool2d(y, idx, 2).numpy()
        array([[[[0., 0.],
                 [4., 0.]]]], dtype=float32)
    """
    return _max_unpool(x, indices, kernel_size, stride, padding, data_format, output_size, 2,
                       "max_unpool2d")


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, data_format="NCDHW",
                 output_size=None, name=None):
    """The inverse of max_pool3d: each value goes to the flat D*H*W position its index names.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x = dygraph.arange(8, dtype='float32').reshape([1, 1, 2, 2, 2])
        >>> y, idx = F.max_pool3d(x, 2, return_mask=True)
        >>> F.max_unpool3d(y, idx, 2).numpy().ravel()
        array([0., 0., 0., 0., 0., 0., 0., 7.], dtype=float32)
    """
    return _max_unpool(x, indices, kernel_size, stride, padding, data_format, output_size, 3,
                       "max_unpool3d")


def _fractional_windows(size, out, u, k):
    """[start, end) of each of `out` windows over `size` positions."""
    if k:
        if out == 1:
            return [0], [k]
        alpha = (size - k) / (out - 1)
        starts = [int((i + u) * alpha) - int(u * alpha) for i in range(out - 1)] + [size - k]
        return starts, [s + k for s in starts]
    alpha = size / out
    base = size // out
    u *= min((base + 2) / alpha - 1, (size + 1 - base) / alpha - (out - 1))
    # Paddle keeps the sequence's offset below one step (a shift past it would skip the
    # first position).
    u = math.fmod(u, 1 / alpha)
    starts = [max(math.ceil(alpha * (i + u) - 1), 0) for i in range(out)]
    ends = [min(math.ceil(alpha * (i + 1 + u) - 1), size) for i in range(out)]
    return starts, ends


def _window_index(sizes, outs, u, ksize):
    """Flat input index of every window element, [prod(outs), window taps]. Windows are
    products of per-dim ranges; a range shorter than its dim's widest repeats its last
    position (which leaves the maximum unchanged)."""
    d = len(sizes)
    strides = [math.prod(sizes[i + 1:]) for i in range(d)]
    total = np.zeros([1] * (2 * d), dtype=np.int64)
    for axis, (size, out, k) in enumerate(zip(sizes, outs, ksize)):
        starts, ends = (np.array(v) for v in _fractional_windows(size, out, u, k))
        width = int((ends - starts).max())
        taps = np.minimum(starts[:, None] + np.arange(width)[None, :], ends[:, None] - 1)
        shape = [1] * (2 * d)
        shape[axis], shape[d + axis] = out, width
        total = total + (taps * strides[axis]).reshape(shape)
    return total.reshape(math.prod(outs), -1)


def _fractional(x, output_size, kernel_size, random_u, return_mask, d, op):
    x = as_tensor(x, op)
    if x._data.ndim != d + 2 or x._data.dtype.kind != "f":
        raise op_error(op, f"x must be a {d + 2}-D float tensor ({_FIRST[d]}), got "
                       f"{x._data.dtype} {list(x._data.shape)}")
    sizes = list(x._data.shape[2:])
    if isinstance(output_size, (list, tuple)):
        output_size = [s if s is not None else sizes[i] for i, s in enumerate(output_size)]
    outs = ntuple(output_size, d, "output_size", op)
    ksize = (0,) * d if kernel_size is None else ntuple(kernel_size, d, "kernel_size", op)
    for size, out, k in zip(sizes, outs, ksize):
        if not 0 < out <= size or (k and (k > size or out + k - 1 > size)):
            raise op_error(op, f"output_size {list(outs)} (kernel_size {kernel_size}) does "
                           f"not fit the input size {sizes}")
    u = float(rng().uniform(0.0, 1.0)) if random_u is None else float(random_u)
    if not 0.0 < u < 1.0:
        raise op_error(op, f"random_u must be in (0, 1), got {random_u}")
    taps = _window_index(sizes, outs, u, ksize)
    n, c = x._data.shape[:2]
    cells, width = taps.shape
    full = np.broadcast_to(taps.reshape(1, 1, -1), (n, c, cells * width))
    # Explicit sizes: a -1 is ambiguous when n or c is 0 (an empty batch pools to empty).
    flat = P.reshape(x, [n, c, math.prod(sizes)])
    picked = P.take_along_axis(flat, index(full, x), axis=2)
    windows = P.reshape(picked, [n, c, cells, width])
    y = P.reshape(P.amax(windows, axis=3), [n, c, *outs])
    if not return_mask:
        return y
    win = np.asarray(windows.numpy()).argmax(axis=3)
    mask = np.take_along_axis(np.broadcast_to(taps, (n, c, cells, width)), win[..., None],
                              axis=3)
    # int32, as max_pool's masks and Paddle's
    return y, const(mask.reshape(n, c, *outs), x, "int32")


def fractional_max_pool2d(x, output_size, kernel_size=None, random_u=None, return_mask=False,
                          name=None):
    """Fractional max pooling of an NCHW input to `output_size` with pseudo-random windows
    (drawn from random_u in (0, 1), or from the global generator when None); with
    kernel_size, windows of that size spread evenly. return_mask adds flat H*W indices.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x = dygraph.arange(16, dtype='float32').reshape([1, 1, 4, 4])
        >>> F.fractional_max_pool2d(x, 2, random_u=0.5).numpy()
        array([[[[ 5.,  7.],
                 [13., 15.]]]], dtype=float32)
    """
    return _fractional(x, output_size, kernel_size, random_u, return_mask, 2,
                       "fractional_max_pool2d")


def fractional_max_pool3d(x, output_size, kernel_size=None, random_u=None, return_mask=False,
                          name=None):
    """Fractional max pooling of an NCDHW input to `output_size` (see fractional_max_pool2d).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x = dygraph.arange(8, dtype='float32').reshape([1, 1, 2, 2, 2])
        >>> F.fractional_max_pool3d(x, 1, random_u=0.5).numpy().ravel()
        array([7.], dtype=float32)
    """
    return _fractional(x, output_size, kernel_size, random_u, return_mask, 3,
                       "fractional_max_pool3d")
