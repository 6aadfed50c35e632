"""Builders of convolutions (Paddle's paddle.static.nn.conv2d, conv2d_transpose, conv3d,
conv3d_transpose, deform_conv2d): each call makes its filter (`conv2d_<n>.w_0`, Normal(0,
sqrt(2 / (kernel elements * input channels))) at the start as in Paddle; the transposed
ones Xavier) and bias (`.b_0`, zeros) and applies the functional op.

Example:
    >>> import dygraph
    >>> conv2d(dygraph.ones([1, 3, 8, 8]), num_filters=4, filter_size=3).shape
    [1, 4, 6, 6]
"""

import math

from dygraph.nn.initializer import Normal
from dygraph.static.nn.layer_helper import LayerHelper, activation, channels

__all__ = ["conv2d", "conv2d_transpose", "conv3d", "conv3d_transpose", "deform_conv2d"]


def _sizes(value, n, what):
    values = list(value) if isinstance(value, (list, tuple)) else [value] * n
    if len(values) != n:
        raise ValueError(f"{what} must be one int or {n} ints, got {value!r}")
    return [int(v) for v in values]


def _groups(groups, c_in, num_filters, api):
    groups = 1 if groups is None else int(groups)
    if groups < 1 or c_in % groups or num_filters % groups:
        raise ValueError(f"{api}: groups={groups} must divide the input channels ({c_in}) "
                         f"and num_filters ({num_filters})")
    return groups


def _bias_shape(out, bias, data_format):
    """The [C] bias broadcast along the channel axis of `out`."""
    if data_format.startswith("NC"):
        return bias.reshape([1, -1] + [1] * (out.ndim - 2))
    return bias


def _conv(api, n, input, num_filters, filter_size, stride, padding, dilation, groups,  # noqa: A002
          param_attr, bias_attr, act, name, data_format):
    import dygraph.nn.functional as F

    c_in = channels(input, data_format, api)
    groups = _groups(groups, c_in, num_filters, api)
    kernel = _sizes(filter_size, n, f"{api}: filter_size")
    std = (2.0 / (math.prod(kernel) * c_in)) ** 0.5
    helper = LayerHelper(api, name)
    dtype = input._data.dtype
    w = helper.parameter([num_filters, c_in // groups] + kernel, param_attr, dtype,
                         default_initializer=Normal(0.0, std))
    b = helper.parameter([num_filters], bias_attr, dtype, is_bias=True)
    fn = F.conv2d if n == 2 else F.conv3d
    out = fn(input, w, None, stride, padding, dilation, groups, data_format=data_format)
    if b is not None:
        out = out + _bias_shape(out, b, data_format)
    return activation(out, act)


def conv2d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None,  # noqa: A002
           param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
           data_format="NCHW"):
    """A 2-D convolution with a new [num_filters, C / groups, kh, kw] filter and bias.

    Example:
        >>> import dygraph
        >>> conv2d(dygraph.ones([1, 2, 5, 5]), 3, 3, padding=1, bias_attr=False).shape
        [1, 3, 5, 5]
    """
    return _conv("conv2d", 2, input, num_filters, filter_size, stride, padding, dilation,
                 groups, param_attr, bias_attr, act, name, data_format)


def conv3d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None,  # noqa: A002
           param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
           data_format="NCDHW"):
    """A 3-D convolution with a new [num_filters, C / groups, kd, kh, kw] filter and bias.

    Example:
        >>> import dygraph
        >>> conv3d(dygraph.ones([1, 2, 4, 4, 4]), 3, 3).shape
        [1, 3, 2, 2, 2]
    """
    return _conv("conv3d", 3, input, num_filters, filter_size, stride, padding, dilation,
                 groups, param_attr, bias_attr, act, name, data_format)


def _transpose_kernel(output_size, filter_size, sizes, stride, padding, dilation, n, api):
    """The filter size: given, or the one that makes `output_size` from the input sizes."""
    if filter_size is not None:
        return _sizes(filter_size, n, f"{api}: filter_size")
    if output_size is None:
        raise ValueError(f"{api}: output_size and filter_size cannot both be None")
    if isinstance(padding, str) or any(d == -1 for d in sizes):
        raise ValueError(f"{api}: filter_size is needed with padding {padding!r} or free "
                         f"spatial sizes")
    out = _sizes(output_size, n, f"{api}: output_size")
    stride, dilation = _sizes(stride, n, "stride"), _sizes(dilation, n, "dilation")
    pads = _sizes(padding, n, "padding") if not (isinstance(padding, (list, tuple))
                                                  and len(padding) == 2 * n) else None
    if pads is None:
        raise ValueError(f"{api}: give filter_size with asymmetric padding {padding!r}")
    return [(o - (int(i) - 1) * s + 2 * p - 1) // d + 1
            for o, i, s, p, d in zip(out, sizes, stride, pads, dilation)]


def _conv_transpose(api, n, input, num_filters, output_size, filter_size, padding, stride,  # noqa: A002
                    dilation, groups, param_attr, bias_attr, act, name, data_format):
    import dygraph.nn.functional as F

    c_in = channels(input, data_format, api)
    groups = _groups(groups, c_in, num_filters, api)
    sizes = list(input.shape[2:] if data_format.startswith("NC") else input.shape[1:-1])
    kernel = _transpose_kernel(output_size, filter_size, sizes, stride, padding, dilation,
                               n, api)
    helper = LayerHelper(api, name)
    dtype = input._data.dtype
    w = helper.parameter([c_in, num_filters // groups] + kernel, param_attr, dtype)
    b = helper.parameter([num_filters], bias_attr, dtype, is_bias=True)
    fn = F.conv2d_transpose if n == 2 else F.conv3d_transpose
    out = fn(input, w, None, stride, padding, 0, dilation, groups, output_size,
             data_format=data_format)
    if b is not None:
        out = out + _bias_shape(out, b, data_format)
    return activation(out, act)


def conv2d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0,  # noqa: A002
                     stride=1, dilation=1, groups=None, param_attr=None, bias_attr=None,
                     use_cudnn=True, act=None, name=None, data_format="NCHW"):
    """A 2-D transposed convolution with a new [C, num_filters / groups, kh, kw] filter
    (its size derived from `output_size` when `filter_size` is None) and bias.

    Example:
        >>> import dygraph
        >>> conv2d_transpose(dygraph.ones([1, 3, 4, 4]), 2, filter_size=3).shape
        [1, 2, 6, 6]
    """
    return _conv_transpose("conv2d_transpose", 2, input, num_filters, output_size,
                           filter_size, padding, stride, dilation, groups, param_attr,
                           bias_attr, act, name, data_format)


def conv3d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0,  # noqa: A002
                     stride=1, dilation=1, groups=None, param_attr=None, bias_attr=None,
                     use_cudnn=True, act=None, name=None, data_format="NCDHW"):
    """A 3-D transposed convolution with a new [C, num_filters / groups, kd, kh, kw]
    filter and bias.

    Example:
        >>> import dygraph
        >>> conv3d_transpose(dygraph.ones([1, 2, 3, 3, 3]), 2, filter_size=2).shape
        [1, 2, 4, 4, 4]
    """
    return _conv_transpose("conv3d_transpose", 3, input, num_filters, output_size,
                           filter_size, padding, stride, dilation, groups, param_attr,
                           bias_attr, act, name, data_format)


def deform_conv2d(x, offset, mask, num_filters, filter_size, stride=1, padding=0,
                  dilation=1, groups=1, deformable_groups=1, im2col_step=1, weight_attr=None,
                  bias_attr=None, name=None):
    """A deformable 2-D convolution (v2 with `mask`, v1 with mask None) with a new
    `deformable_conv_<n>.w_0` filter and bias (dygraph.vision.ops.deform_conv2d computes).

    Example:
        >>> import dygraph
        >>> x, off = dygraph.ones([1, 2, 4, 4]), dygraph.zeros([1, 8, 3, 3])
        >>> deform_conv2d(x, off, None, num_filters=3, filter_size=2).shape
        [1, 3, 3, 3]
    """
    from dygraph.vision.ops import deform_conv2d as deform

    c_in = channels(x, "NCHW", "deform_conv2d")
    groups = _groups(groups, c_in, num_filters, "deform_conv2d")
    kernel = _sizes(filter_size, 2, "deform_conv2d: filter_size")
    std = (2.0 / (math.prod(kernel) * c_in)) ** 0.5
    helper = LayerHelper("deformable_conv", name)
    w = helper.parameter([num_filters, c_in // groups] + kernel, weight_attr, x._data.dtype,
                         default_initializer=Normal(0.0, std))
    b = helper.parameter([num_filters], bias_attr, x._data.dtype, is_bias=True)
    return deform(x, offset, w, b, stride, padding, dilation, deformable_groups, groups, mask)
