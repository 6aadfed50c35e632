"""Convolutions of dygraph.nn.functional: conv1d/2d/3d and their transposes.

Three ops cover everything, each the gradient of the others (kernels: ops/conv/products.py):

    Conv(x, w[, b])        y = conv(x, w) + b
    ConvData(g, w[, b])    the data gradient of conv, which is also the transposed conv
    ConvFilter(x, g)       the filter gradient of conv

Their backward formulas call each other through `m.conv`, `m.conv_data` and `m.conv_filter`,
so gradients of gradients come out of the same kernels. Channels-last input is transposed to
channels-first around the op.

Each product runs on one of several paths (ops/conv/paths.py has the decision table); Conv
records its forward's path and its backward follows it. `force_path` (here, from
ops/conv/paths.py) makes every conv take a path of your choosing, to compare paths or to test one.
On CUDA GPUs cuDNN runs the products (dygraph/backend/cudnn/) unless a path is forced or
cuDNN declines the call; Conv then records the path "cudnn" and its backward asks cuDNN too.

Example:
    >>> import dygraph
    >>> import dygraph.nn.functional as F
    >>> x, w = dygraph.ones([2, 8, 5, 5]), dygraph.ones([4, 8, 3, 3])
    >>> with force_path("im2col"):
    ...     F.conv2d(x, w).shape
    [2, 4, 3, 3]
"""

import functools

import numpy as np

from dygraph.autograd import grad_mode
from dygraph.autograd.backward_math import register
from dygraph.autograd.function import Op, apply
from dygraph.backend import cudnn
from dygraph.framework.errors import UnsupportedDTypeError, op_error
from dygraph.ops.common import amp_casts, as_tensor
from dygraph.ops.conv.im2col import Geometry
from dygraph.ops.conv.paths import (
    force_path,  # noqa: F401 - dygraph.ops.conv.convolution.force_path
    forced_path,
    forward_path,
    log_choice,
)
from dygraph.ops.conv.products import (
    bias_grad,
    conv_backward,
    conv_data,
    conv_filter,
    conv_forward,
)
from dygraph.ops.conv.spatial_args import (
    channel_last,
    conv_padding,
    ntuple,
    same_padding,
    to_channels_first,
    to_channels_last,
)

__all__ = ["conv1d", "conv2d", "conv3d", "conv1d_transpose", "conv2d_transpose",
           "conv3d_transpose"]
NONDIFF = set()


def _reduce_axes(ndim):
    return (0,) + tuple(range(2, ndim))


def _on_cudnn(xp):
    """Whether cuDNN should run a product: CuPy arrays, no path forced, cuDNN on."""
    return xp is not np and forced_path() is None and cudnn.enabled()


def _forward(xp, x, w, b, geo, keep_cols=False):
    """(y, path, kept) of conv(x, w) + b: cuDNN's y where it runs it, else the path table's."""
    if _on_cudnn(xp):
        y = cudnn.conv_forward(xp, x, w, geo)
        if y is not None:
            if b is not None:
                y += b.reshape((1, -1) + (1,) * (y.ndim - 2))
            return y, log_choice("conv forward", "cudnn", x, w), None
    path = forward_path(xp, x, w, geo)
    y, kept = conv_forward(xp, x, w, b, geo, keep_cols, path)
    return y, path, kept


def _data(xp, g, w, in_sizes, geo):
    """The data gradient of conv, by cuDNN where it runs it (ops/conv/products.conv_data)."""
    dx = cudnn.conv_data(xp, g, w, in_sizes, geo) if _on_cudnn(xp) else None
    if dx is None:
        return conv_data(xp, g, w, in_sizes, geo)
    log_choice("conv data gradient", "cudnn", g, w)
    return dx


def _filter(xp, x, g, ksize, geo):
    """The filter gradient of conv, by cuDNN where it runs it (products.conv_filter)."""
    dw = cudnn.conv_filter(xp, x, g, ksize, geo) if _on_cudnn(xp) else None
    if dw is None:
        return conv_filter(xp, x, g, ksize, geo)
    log_choice("conv filter gradient", "cudnn", x, g)
    return dw


class Conv(Op):
    """y = conv(x, w) (+ b) on channels-first arrays; `path` is the forward's path
    (dygraph.ops.conv.paths.forward_path), which the plain backward follows."""

    attrs = ("geo", "keep_cols")

    save_inputs = True

    def __init__(self, geo, keep_cols=False):
        self.geo, self.keep_cols = geo, keep_cols

    def forward(self, xp, x, w, b=None):
        self.in_sizes = x.shape[2:]
        y, self.path, self.cols = _forward(xp, x, w, b, self.geo, self.keep_cols)
        return y

    def backward(self, m, g):
        e = self.edges
        x, w = self.x(0, m), self.x(1, m)
        if m.tensor_mode:
            ksize = m.data(w).shape[2:]
            return (m.conv_data(g, w, self.in_sizes, self.geo) if e[0] is not None else None,
                    m.conv_filter(x, g, ksize, self.geo) if e[1] is not None else None,
                    *([m.sum(g, axis=_reduce_axes(g._data.ndim)) if e[2] is not None else None]
                      if len(e) > 2 else []))
        if self.path == "cudnn":
            xp = m.xp
            return (_data(xp, g, w, self.in_sizes, self.geo) if e[0] is not None else None,
                    _filter(xp, x, g, w.shape[2:], self.geo) if e[1] is not None else None,
                    *([bias_grad(xp, g) if e[2] is not None else None] if len(e) > 2 else []))
        return conv_backward(m.xp, x, w, g, self.in_sizes, self.geo, self.path, self.cols,
                             tuple(edge is not None for edge in e))


class ConvData(Op):
    """The data gradient of conv: maps (N, M, *O) to (N, C, *in_sizes); the transposed conv."""

    attrs = ("geo", "in_sizes")

    save_inputs = True

    def __init__(self, geo, in_sizes):
        self.geo, self.in_sizes = geo, tuple(in_sizes)

    def forward(self, xp, g, w, b=None):
        y = _data(xp, g, w, self.in_sizes, self.geo)
        if b is not None:
            y += b.reshape((1, -1) + (1,) * len(self.in_sizes))
        return y

    def backward(self, m, gy):
        e = self.edges
        g, w = self.x(0, m), self.x(1, m)
        grads = (m.conv(gy, w, self.geo) if e[0] is not None else None,
                 m.conv_filter(gy, g, m.data(w).shape[2:], self.geo)
                 if e[1] is not None else None)
        if len(e) > 2:
            grads += (m.sum(gy, axis=_reduce_axes(m.data(gy).ndim))
                      if e[2] is not None else None,)
        return grads


class ConvFilter(Op):
    """The filter gradient of conv: (x, g) -> (M, C/groups, *ksize)."""

    attrs = ("geo", "ksize")

    save_inputs = True

    def __init__(self, geo, ksize):
        self.geo, self.ksize = geo, tuple(ksize)

    def forward(self, xp, x, g):
        self.in_sizes = x.shape[2:]
        return _filter(xp, x, g, self.ksize, self.geo)

    def backward(self, m, gw):
        e = self.edges
        x, g = self.x(0, m), self.x(1, m)
        return (m.conv_data(g, gw, self.in_sizes, self.geo) if e[0] is not None else None,
                m.conv(x, gw, self.geo) if e[1] is not None else None)


register("conv", array_fn=lambda xp: lambda x, w, geo: _forward(xp, x, w, None, geo)[0],
         tensor_fn=lambda x, w, geo: apply(Conv(geo), x, w))
register("conv_data", array_fn=lambda xp: functools.partial(_data, xp),
         tensor_fn=lambda g, w, in_sizes, geo: apply(ConvData(geo, in_sizes), g, w))
register("conv_filter", array_fn=lambda xp: functools.partial(_filter, xp),
         tensor_fn=lambda x, g, ksize, geo: apply(ConvFilter(geo, ksize), x, g))


def _operands(x, weight, bias, d, data_format, op):
    """Checked tensors, with x moved to channels-first; also whether to move back."""
    x, weight = as_tensor(x, op), as_tensor(weight, op)
    last = channel_last(data_format, d, op)
    if x._data.ndim != d + 2:
        raise op_error(op, f"x must be {d + 2}-D ({_FORMAT_NAMES[d][last]}), got shape "
                       f"{x.shape}")
    if weight._data.ndim != d + 2:
        raise op_error(op, f"weight must be {d + 2}-D, got shape {weight.shape}")
    if x._data.dtype != weight._data.dtype and not amp_casts():
        raise op_error(op, f"x ({x._data.dtype}) and weight ({weight._data.dtype}) must have one "
                       "dtype", TypeError)
    if x._data.dtype.kind != "f":
        raise op_error(op, f"x must be a float tensor, got {x._data.dtype}",
                       UnsupportedDTypeError)
    if last:
        x = to_channels_first(x, d)
    if bias is not None:
        bias = as_tensor(bias, op)
        if bias._data.ndim != 1:
            raise op_error(op, f"bias must be 1-D, got shape {bias.shape}")
        if bias._data.dtype != x._data.dtype and not amp_casts():
            from dygraph.ops.common import cast

            bias = cast(bias, x._data.dtype)
    return x, weight, bias, last


_FORMAT_NAMES = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _conv(x, weight, bias, stride, padding, dilation, groups, data_format, d, op):
    x, weight, bias, last = _operands(x, weight, bias, d, data_format, op)
    n, c = x._data.shape[:2]
    in_sizes = x._data.shape[2:]
    m, cg = weight._data.shape[:2]
    ksize = weight._data.shape[2:]
    if m == 0:
        raise op_error(op, f"weight must have at least one output channel (axis 0), got "
                       f"shape {weight.shape}")
    groups = int(groups)
    if groups < 1 or c % groups or m % groups:
        raise op_error(op, f"groups={groups} must divide the input channels ({c}) and the "
                       f"output channels ({m})")
    if cg * groups != c:
        raise op_error(op, f"x has {c} channels but weight of shape {weight.shape} expects "
                       f"{cg * groups} (weight.shape[1] * groups)")
    if bias is not None and bias._data.shape[0] != m:
        raise op_error(op, f"bias must have {m} values (one per output channel), got shape "
                       f"{bias.shape}")
    stride = ntuple(stride, d, "stride", op)
    dilation = ntuple(dilation, d, "dilation", op)
    if min(stride) < 1 or min(dilation) < 1:
        raise op_error(op, f"stride {stride} and dilation {dilation} must be positive")
    pads = conv_padding(padding, d, last, in_sizes, ksize, stride, dilation, op)
    geo = Geometry(stride, dilation, pads, groups)
    out = geo.out_sizes(in_sizes, ksize)
    if min(out) < 1:
        raise op_error(op, f"the output would be empty: input size {list(in_sizes)} with "
                       f"padding {[list(p) for p in pads]} is smaller than the dilated kernel "
                       f"{[dil * (k - 1) + 1 for k, dil in zip(ksize, dilation)]}")
    keep = grad_mode.state.grad_on and not weight._sg
    inputs = (x, weight) if bias is None else (x, weight, bias)
    y = apply(Conv(geo, keep), *inputs)
    return to_channels_last(y, d) if last else y


def _conv_transpose(x, weight, bias, stride, padding, output_padding, dilation, groups,
                    output_size, data_format, d, op):
    x, weight, bias, last = _operands(x, weight, bias, d, data_format, op)
    c_in = x._data.shape[1]
    in_sizes = x._data.shape[2:]
    ksize = weight._data.shape[2:]
    groups = int(groups)
    if weight._data.shape[0] != c_in:
        raise op_error(op, f"x has {c_in} channels but weight of shape {weight.shape} expects "
                       f"{weight._data.shape[0]} (weight.shape[0])")
    if groups < 1 or c_in % groups:
        raise op_error(op, f"groups={groups} must divide the input channels ({c_in})")
    c_out = weight._data.shape[1] * groups
    if bias is not None and bias._data.shape[0] != c_out:
        raise op_error(op, f"bias must have {c_out} values (one per output channel), got "
                       f"shape {bias.shape}")
    stride = ntuple(stride, d, "stride", op)
    dilation = ntuple(dilation, d, "dilation", op)
    if min(stride) < 1 or min(dilation) < 1:
        raise op_error(op, f"stride {stride} and dilation {dilation} must be positive")
    if isinstance(padding, str) and padding.upper() == "SAME":
        # Paddle's transposed conv drops the dilation under 'SAME' (its conv keeps it).
        dilation = (1,) * d
        pads = same_padding(in_sizes, ksize, stride, dilation)
    else:
        pads = conv_padding(padding, d, last, in_sizes, ksize, stride, dilation, op)
    base = tuple((s - 1) * st - lo - hi + dil * (k - 1) + 1 for s, st, (lo, hi), dil, k in
                 zip(in_sizes, stride, pads, dilation, ksize))
    if output_size is not None:
        size = ntuple(output_size, d, "output_size", op)
        for s, b, st in zip(size, base, stride):
            if not b <= s < b + st:
                raise op_error(op, f"output_size {list(size)} must lie in [{list(base)}, "
                               f"{[b + st for b, st in zip(base, stride)]}) for this input, "
                               "stride and padding")
    else:
        extra = ntuple(output_padding, d, "output_padding", op)
        for e, st, dil in zip(extra, stride, dilation):
            if not 0 <= e < max(st, dil):
                raise op_error(op, f"output_padding {list(extra)} must be smaller than the "
                               f"stride {list(stride)} or the dilation {list(dilation)}")
        size = tuple(b + e for b, e in zip(base, extra))
    if min(size) < 1:
        raise op_error(op, f"the output would be empty (size {list(size)})")
    geo = Geometry(stride, dilation, pads, groups)
    inputs = (x, weight) if bias is None else (x, weight, bias)
    y = apply(ConvData(geo, size), *inputs)
    return to_channels_last(y, d) if last else y


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCL",
           name=None):
    """1-D convolution of x (N, C, L) with weight (M, C/groups, k).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.conv1d(dygraph.ones([1, 2, 5]), dygraph.ones([3, 2, 3]), padding=1).shape
        [1, 3, 5]
    """
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, 1, "conv1d")


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NCHW", name=None):
    """2-D convolution of x (N, C, H, W) with weight (M, C/groups, kh, kw).

    padding: 'same', 'valid', an int, [ph, pw], [top, bottom, left, right] or four pairs.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.conv2d(dygraph.ones([1, 1, 4, 4]), dygraph.ones([2, 1, 3, 3])).numpy()[0, 0]
        array([[9., 9.],
               [9., 9.]], dtype=float32)
    """
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, 2, "conv2d")


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NCDHW", name=None):
    """3-D convolution of x (N, C, D, H, W) with weight (M, C/groups, kd, kh, kw).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.conv3d(dygraph.ones([1, 1, 3, 3, 3]), dygraph.ones([1, 1, 2, 2, 2])).shape
        [1, 1, 2, 2, 2]
    """
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, 3, "conv3d")


def conv1d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, output_size=None, data_format="NCL", name=None):
    """Transposed 1-D convolution (the gradient of conv1d) with weight (C_in, C_out/groups, k).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.conv1d_transpose(dygraph.ones([1, 2, 4]), dygraph.ones([2, 3, 3]), stride=2).shape
        [1, 3, 9]
    """
    return _conv_transpose(x, weight, bias, stride, padding, output_padding, dilation, groups,
                           output_size, data_format, 1, "conv1d_transpose")


def conv2d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, dilation=1,
                     groups=1, output_size=None, data_format="NCHW", name=None):
    """Transposed 2-D convolution with weight (C_in, C_out/groups, kh, kw).

    The output size is (in - 1) * stride - pad_before - pad_after + dilation * (k - 1) + 1
    + output_padding, or `output_size` when given (within stride of that).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x, w = dygraph.ones([1, 1, 2, 2]), dygraph.ones([1, 1, 2, 2])
        >>> F.conv2d_transpose(x, w).numpy()[0, 0]
        array([[1., 2., 1.],
               [2., 4., 2.],
               [1., 2., 1.]], dtype=float32)
    """
    return _conv_transpose(x, weight, bias, stride, padding, output_padding, dilation, groups,
                           output_size, data_format, 2, "conv2d_transpose")


def conv3d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, output_size=None, data_format="NCDHW", name=None):
    """Transposed 3-D convolution with weight (C_in, C_out/groups, kd, kh, kw).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.conv3d_transpose(dygraph.ones([1, 1, 2, 2, 2]), dygraph.ones([1, 2, 2, 2, 2])).shape
        [1, 2, 3, 3, 3]
    """
    return _conv_transpose(x, weight, bias, stride, padding, output_padding, dilation, groups,
                           output_size, data_format, 3, "conv3d_transpose")
