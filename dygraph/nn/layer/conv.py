"""The convolution layers of dygraph.nn: Conv1D/2D/3D and Conv1D/2D/3DTranspose.

Each holds `weight` ([out, in / groups, *k], or [in, out / groups, *k] when transposed) and
`bias` ([out]) and calls its dygraph.nn.functional op. Default initializers are Paddle's:
Normal(0, sqrt(2 / (prod(k) * in_channels))) for conv weights, XavierUniform for transposed
conv weights, zeros for biases. padding_mode other than 'zeros' pads the input explicitly
(reflect, replicate, circular) and convolves without padding.
"""

import math

from dygraph.framework.dtype import get_default_dtype
from dygraph.framework.errors import op_error
from dygraph.nn import functional as F
from dygraph.nn.initializer import Normal
from dygraph.nn.layer.layers import Layer
from dygraph.ops.conv.spatial_args import channel_last, conv_padding, ntuple

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose",
           "Conv3DTranspose"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


class _ConvNd(Layer):
    """Shared constructor, parameters, padding modes and repr of the conv layers."""

    _dims = 2
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode="zeros", weight_attr=None,
                 bias_attr=None, data_format="NCHW", output_padding=0):
        super().__init__(dtype=get_default_dtype())
        op = type(self).__name__
        d = self._dims
        if groups < 1 or in_channels % groups or out_channels % groups:
            raise op_error(op, f"groups={groups} must divide in_channels ({in_channels}) and "
                           f"out_channels ({out_channels})")
        if padding_mode not in _PADDING_MODES:
            raise op_error(op, f"padding_mode must be one of {_PADDING_MODES}, got "
                           f"{padding_mode!r}")
        self._last = channel_last(data_format, d, op)
        self._in_channels, self._out_channels = in_channels, out_channels
        self._kernel_size = list(ntuple(kernel_size, d, "kernel_size", op))
        self._stride = list(ntuple(stride, d, "stride", op))
        self._dilation = list(ntuple(dilation, d, "dilation", op))
        self._groups, self._padding, self._padding_mode = groups, padding, padding_mode
        self._data_format, self.output_padding = data_format, output_padding
        self._pad_list = None
        if padding_mode != "zeros":
            if isinstance(padding, str):
                raise op_error(op, f"padding_mode={padding_mode!r} needs numeric padding, got "
                               f"{padding!r}")
            pairs = conv_padding(padding, d, self._last, None, None, None, None, op)
            flat = [v for pair in pairs for v in pair]
            self._pad_list = [0, 0] + flat + [0, 0] if self._last else [0, 0, 0, 0] + flat
        if self._transposed:
            shape = [in_channels, out_channels // groups] + self._kernel_size
            init = None
        else:
            shape = [out_channels, in_channels // groups] + self._kernel_size
            init = Normal(0.0, math.sqrt(2.0 / (math.prod(self._kernel_size) * in_channels)))
        self.weight = self.create_parameter(shape, attr=weight_attr, default_initializer=init)
        self.bias = self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def _padded_input(self, x):
        if self._pad_list is None:
            return x, self._padding
        return F.pad(x, self._pad_list, mode=self._padding_mode), 0

    def extra_repr(self):
        d = self._dims
        text = f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}"
        if self._stride != [1] * d:
            text += f", stride={self._stride}"
        if self._padding != 0:
            text += f", padding={self._padding}"
        if self._padding_mode != "zeros":
            text += f", padding_mode={self._padding_mode}"
        if self.output_padding != 0:
            text += f", output_padding={self.output_padding}"
        if self._dilation != [1] * d:
            text += f", dilation={self._dilation}"
        if self._groups != 1:
            text += f", groups={self._groups}"
        return text + f", data_format={self._data_format}"


class _Conv(_ConvNd):
    _function = staticmethod(F.conv2d)

    def forward(self, x):
        x, padding = self._padded_input(x)
        return self._function(x, self.weight, self.bias, self._stride, padding,
                              self._dilation, self._groups, self._data_format)


class Conv1D(_Conv):
    """1-D convolution over x [N, C, L] (or [N, L, C] with data_format='NLC').

    Example:
        >>> import dygraph
        >>> conv = dygraph.nn.Conv1D(2, 4, 3, padding=1)
        >>> conv(dygraph.ones([1, 2, 5])).shape, conv.weight.shape
        ([1, 4, 5], [4, 2, 3])
    """

    _dims = 1
    _function = staticmethod(F.conv1d)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NCL"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, padding_mode, weight_attr, bias_attr, data_format)


class Conv2D(_Conv):
    """2-D convolution over x [N, C, H, W] (or NHWC).

    Example:
        >>> import dygraph
        >>> conv = dygraph.nn.Conv2D(1, 20, 5)
        >>> conv(dygraph.ones([2, 1, 28, 28])).shape, conv.weight.name.endswith('.w_0')
        ([2, 20, 24, 24], True)
    """

    _dims = 2
    _function = staticmethod(F.conv2d)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NCHW"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, padding_mode, weight_attr, bias_attr, data_format)


class Conv3D(_Conv):
    """3-D convolution over x [N, C, D, H, W] (or NDHWC).

    Example:
        >>> import dygraph
        >>> dygraph.nn.Conv3D(1, 2, 3, padding=1)(dygraph.ones([1, 1, 4, 4, 4])).shape
        [1, 2, 4, 4, 4]
    """

    _dims = 3
    _function = staticmethod(F.conv3d)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NCDHW"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, padding_mode, weight_attr, bias_attr, data_format)


class _ConvTranspose(_ConvNd):
    _transposed = True
    _function = staticmethod(F.conv2d_transpose)

    def forward(self, x, output_size=None):
        extra = 0 if output_size is not None else self.output_padding
        return self._function(x, self.weight, self.bias, stride=self._stride,
                              padding=self._padding, output_padding=extra,
                              dilation=self._dilation, groups=self._groups,
                              output_size=output_size, data_format=self._data_format)


class Conv1DTranspose(_ConvTranspose):
    """Transposed 1-D convolution; forward(x, output_size=None).

    Example:
        >>> import dygraph
        >>> dygraph.nn.Conv1DTranspose(2, 3, 3, stride=2)(dygraph.ones([1, 2, 4])).shape
        [1, 3, 9]
    """

    _dims = 1
    _function = staticmethod(F.conv1d_transpose)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, dilation=1, weight_attr=None, bias_attr=None,
                 data_format="NCL"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, "zeros", weight_attr, bias_attr, data_format, output_padding)


class Conv2DTranspose(_ConvTranspose):
    """Transposed 2-D convolution; forward(x, output_size=None).

    Example:
        >>> import dygraph
        >>> layer = dygraph.nn.Conv2DTranspose(2, 3, 3, stride=2, padding=1, output_padding=1)
        >>> layer(dygraph.ones([1, 2, 4, 4])).shape
        [1, 3, 8, 8]
    """

    _dims = 2
    _function = staticmethod(F.conv2d_transpose)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, dilation=1, groups=1, weight_attr=None, bias_attr=None,
                 data_format="NCHW"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, "zeros", weight_attr, bias_attr, data_format, output_padding)


class Conv3DTranspose(_ConvTranspose):
    """Transposed 3-D convolution; forward(x, output_size=None).

    Example:
        >>> import dygraph
        >>> dygraph.nn.Conv3DTranspose(1, 2, 2, stride=2)(dygraph.ones([1, 1, 2, 2, 2])).shape
        [1, 2, 4, 4, 4]
    """

    _dims = 3
    _function = staticmethod(F.conv3d_transpose)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, dilation=1, groups=1, weight_attr=None, bias_attr=None,
                 data_format="NCDHW"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, "zeros", weight_attr, bias_attr, data_format, output_padding)
