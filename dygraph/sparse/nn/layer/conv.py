"""Sparse convolution layers: Conv2D, Conv3D and the submanifold SubmConv2D, SubmConv3D.

Each holds a weight [*kernel, C_in, C_out] drawn from Normal(0, sqrt(2 / fan_in)) with
fan_in = kernel volume * C_in (Paddle's default) and a bias [C_out], and calls the
functional convolution (dygraph/sparse/nn/functional/conv.py).

Example:
    >>> import dygraph
    >>> conv = dygraph.sparse.nn.SubmConv3D(2, 4, 3, padding=1)
    >>> x = dygraph.sparse.sparse_coo_tensor([[0], [1], [1], [1]], [[1.0, 2.0]],
    ...                                      [1, 3, 3, 3, 2])
    >>> conv.weight.shape, conv(x).shape
    ([3, 3, 3, 2, 4], [1, 3, 3, 3, 4])
"""

import math

from dygraph.framework.dtype import get_default_dtype
from dygraph.framework.errors import op_error
from dygraph.nn.initializer import Normal
from dygraph.nn.layer.layers import Layer
from dygraph.sparse.nn.functional import conv as F

__all__ = ["Conv2D", "Conv3D", "SubmConv2D", "SubmConv3D"]


def _ints(value, nd, op, what):
    values = [value] * nd if isinstance(value, int) else [int(v) for v in value]
    if len(values) != nd:
        raise op_error(op, f"{what} must be an int or {nd} ints, got {value}")
    return values


class _SparseConv(Layer):
    """Shared constructor, parameters and repr of the sparse convolution layers."""

    _dims = 3
    _function = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode="zeros", key=None, weight_attr=None,
                 bias_attr=None, data_format="NDHWC", backend=None):
        super().__init__(dtype=get_default_dtype())
        op, nd = type(self).__name__, self._dims
        if padding_mode != "zeros":
            raise op_error(op, f"padding_mode must be 'zeros', got {padding_mode!r}")
        if groups != 1:
            raise op_error(op, f"groups must be 1, got {groups}")
        if backend not in (None, "igemm"):
            raise op_error(op, f"backend must be None or 'igemm', got {backend!r}")
        self._in_channels, self._out_channels = in_channels, out_channels
        self._kernel_size = _ints(kernel_size, nd, op, "kernel_size")
        self._stride = _ints(stride, nd, op, "stride")
        self._dilation = _ints(dilation, nd, op, "dilation")
        self._padding, self._padding_mode, self._groups = padding, padding_mode, groups
        self._key, self._backend, self._data_format = key, backend, data_format
        fan_in = math.prod(self._kernel_size) * in_channels
        self.weight = self.create_parameter(
            self._kernel_size + [in_channels, out_channels], attr=weight_attr,
            default_initializer=Normal(0.0, (2.0 / fan_in) ** 0.5))
        self.bias = self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x):
        return type(self)._function(x, self.weight, self.bias, self._stride, self._padding,
                                    self._dilation, self._groups, self._data_format)

    def extra_repr(self):
        nd = self._dims
        text = f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}"
        if self._stride != [1] * nd:
            text += f", stride={self._stride}"
        if self._padding != 0:
            text += f", padding={self._padding}"
        if self._dilation != [1] * nd:
            text += f", dilation={self._dilation}"
        return text + f", data_format={self._data_format}"


class Conv3D(_SparseConv):
    """3-D sparse convolution of COO point sets [N, D, H, W, C] (see functional.conv3d).

    Example:
        >>> import dygraph
        >>> dygraph.sparse.nn.Conv3D(2, 3, 2)
        Conv3D(2, 3, kernel_size=[2, 2, 2], data_format=NDHWC)
    """

    _function = staticmethod(F.conv3d)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NDHWC"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, padding_mode, None, weight_attr, bias_attr, data_format)


class Conv2D(Conv3D):
    """2-D sparse convolution of COO point sets [N, H, W, C] (see functional.conv2d).

    Example:
        >>> import dygraph
        >>> dygraph.sparse.nn.Conv2D(2, 3, 3, stride=2)
        Conv2D(2, 3, kernel_size=[3, 3], stride=[2, 2], data_format=NHWC)
    """

    _dims = 2
    _function = staticmethod(F.conv2d)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NHWC"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, padding_mode, weight_attr, bias_attr, data_format)


class SubmConv3D(_SparseConv):
    """Submanifold 3-D sparse convolution: outputs at the input's points (see
    functional.subm_conv3d); `backend='igemm'` selects the same computation here.

    Example:
        >>> import dygraph
        >>> dygraph.sparse.nn.SubmConv3D(2, 3, 3, padding=1)
        SubmConv3D(2, 3, kernel_size=[3, 3, 3], padding=1, data_format=NDHWC)
    """

    _function = staticmethod(F.subm_conv3d)


class SubmConv2D(_SparseConv):
    """Submanifold 2-D sparse convolution of COO point sets [N, H, W, C].

    Example:
        >>> import dygraph
        >>> dygraph.sparse.nn.SubmConv2D(2, 3, 3).weight.shape
        [3, 3, 2, 3]
    """

    _dims = 2
    _function = staticmethod(F.subm_conv2d)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode="zeros", key=None, weight_attr=None,
                 bias_attr=None, data_format="NHWC", backend=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, padding_mode, key, weight_attr, bias_attr, data_format,
                         backend)
