"""Deformable convolution (DCN v1, and v2 with a modulation mask): deform_conv2d and
DeformConv2D.

Each kernel tap reads the input at its regular position plus a learned offset, by bilinear
interpolation (corners outside the map read 0, a sample beyond a pixel outside reads
nothing), optionally scaled by a mask; the samples form im2col columns that one matrix
product with the weight turns into the output. Gradients reach x, offset, mask, weight and
bias, double backward included (the op is dygraph/ops/vision/deform_conv.py).

Example:
    >>> import dygraph
    >>> from dygraph.vision.ops import deform_conv2d
    >>> x = dygraph.ones([1, 2, 4, 4])
    >>> offset = dygraph.zeros([1, 2 * 9, 2, 2])
    >>> deform_conv2d(x, offset, dygraph.ones([3, 2, 3, 3])).numpy()[0, :, 0, 0]
    array([18., 18., 18.], dtype=float32)
"""

import math

from dygraph.autograd.function import apply
from dygraph.framework.errors import op_error
from dygraph.nn.initializer import Normal
from dygraph.nn.layer.layers import Layer
from dygraph.ops.common import as_tensor, cast
from dygraph.ops.conv.spatial_args import ntuple
from dygraph.ops.vision.deform_conv import DeformConv

__all__ = ["deform_conv2d", "DeformConv2D"]


def _check(x, offset, weight, bias, mask, stride, padding, dilation, dg, groups):
    """Check every shape against the others (the offset's against the output's size)."""
    op = "deform_conv2d"
    if x._data.ndim != 4:
        raise op_error(op, f"x must be a 4-D tensor [N, C, H, W], got shape {x.shape}")
    if x._data.dtype.kind != "f" or x._data.dtype.itemsize < 4:
        raise op_error(op, f"x must be float32 or float64, got {x._data.dtype.name}",
                       TypeError)
    if weight._data.ndim != 4:
        raise op_error(op, f"weight must be 4-D [out, in / groups, kh, kw], got shape "
                       f"{weight.shape}")
    n, c, h, w = x._data.shape
    out_c, group_c, kh, kw = weight._data.shape
    if groups < 1 or dg < 1 or c % groups or out_c % groups or c % dg:
        raise op_error(op, f"groups ({groups}) must divide the {c} input and {out_c} output "
                       f"channels, and deformable_groups ({dg}) the {c} input channels")
    if group_c * groups != c:
        raise op_error(op, f"weight {weight.shape} wants {group_c * groups} input channels "
                       f"with groups={groups}, x {x.shape} has {c}")
    size = []
    for extent, k, s, p, d in zip((h, w), (kh, kw), stride, padding, dilation):
        if s < 1 or d < 1 or p < 0:
            raise op_error(op, f"stride {list(stride)} and dilation {list(dilation)} must be "
                           f"positive, padding {list(padding)} non-negative")
        size.append((extent + 2 * p - (d * (k - 1) + 1)) // s + 1)
    if min(size) < 1:
        raise op_error(op, f"the kernel {kh}x{kw} (dilation {list(dilation)}) does not fit x "
                       f"{x.shape} with padding {list(padding)}")
    taps = kh * kw
    want = [n, 2 * dg * taps, *size]
    if list(offset._data.shape) != want:
        raise op_error(op, f"offset must have shape {want} (2 * deformable_groups * kh * kw "
                       f"channels over the output's size), got {offset.shape}")
    if mask is not None and list(mask._data.shape) != [n, dg * taps, *size]:
        raise op_error(op, f"mask must have shape {[n, dg * taps, *size]}, got {mask.shape}")
    if bias is not None and list(bias._data.shape) != [out_c]:
        raise op_error(op, f"bias must have shape [{out_c}], got {bias.shape}")


def deform_conv2d(x, offset, weight, bias=None, stride=1, padding=0, dilation=1,
                  deformable_groups=1, groups=1, mask=None, name=None):
    """Deformable 2-D convolution of x [N, C, H, W] with weight [O, C / groups, kh, kw].

    offset [N, 2 * deformable_groups * kh * kw, Ho, Wo] holds, for each deformable group g
    and tap k, the (dy, dx) added to that tap's sampling position (channels 2 (g K + k) and
    2 (g K + k) + 1); mask [N, deformable_groups * kh * kw, Ho, Wo], when given, scales each
    sample (DCN v2). Output [N, O, Ho, Wo].

    Example:
        >>> import dygraph
        >>> from dygraph.vision.ops import deform_conv2d
        >>> x = dygraph.arange(16, dtype='float32').reshape([1, 1, 4, 4])
        >>> offset = dygraph.zeros([1, 2, 4, 4]) + 0.5  # a 1x1 kernel, half a pixel down-right
        >>> deform_conv2d(x, offset, dygraph.ones([1, 1, 1, 1])).numpy()[0, 0, 0]
        array([2.5, 3.5, 4.5, 2.5], dtype=float32)
    """
    op = "deform_conv2d"
    x, offset, weight = (as_tensor(t, op) for t in (x, offset, weight))
    bias = None if bias is None else as_tensor(bias, op)
    mask = None if mask is None else as_tensor(mask, op)
    stride, padding = ntuple(stride, 2, "stride", op), ntuple(padding, 2, "padding", op)
    dilation = ntuple(dilation, 2, "dilation", op)
    dg = int(deformable_groups)
    _check(x, offset, weight, bias, mask, stride, padding, dilation, dg, groups)
    inputs = [x, offset, weight] + [t for t in (mask, bias) if t is not None]
    dtype = x._data.dtype
    inputs = [t if t._data.dtype == dtype else cast(t, dtype) for t in inputs]
    op = DeformConv(stride, padding, dilation, dg, groups, mask is not None, bias is not None)
    return apply(op, *inputs)


class DeformConv2D(Layer):
    """deform_conv2d as a layer with its weight [O, C / groups, kh, kw] (Normal(0,
    sqrt(2 / (kh kw C))), as Paddle's) and bias [O] (zeros); forward(x, offset, mask=None).

    Example:
        >>> import dygraph
        >>> from dygraph.vision.ops import DeformConv2D
        >>> layer = DeformConv2D(2, 4, 3, padding=1)
        >>> x = dygraph.ones([1, 2, 5, 5])
        >>> layer(x, dygraph.zeros([1, 18, 5, 5])).shape
        [1, 4, 5, 5]
        >>> layer.weight.name.startswith('deform_conv2d_'), layer.weight.name.endswith('.w_0')
        (True, True)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, deformable_groups=1, groups=1, weight_attr=None,
                 bias_attr=None):
        super().__init__()
        op = "DeformConv2D"
        self._in_channels, self._out_channels = in_channels, out_channels
        self._kernel_size = list(ntuple(kernel_size, 2, "kernel_size", op))
        self._stride = list(ntuple(stride, 2, "stride", op))
        self._padding = list(ntuple(padding, 2, "padding", op))
        self._dilation = list(ntuple(dilation, 2, "dilation", op))
        self._deformable_groups, self._groups = deformable_groups, groups
        if groups < 1 or in_channels % groups:
            raise op_error(op, f"groups ({groups}) must divide in_channels ({in_channels})")
        std = math.sqrt(2.0 / (math.prod(self._kernel_size) * in_channels))
        self.weight = self.create_parameter(
            [out_channels, in_channels // groups, *self._kernel_size], attr=weight_attr,
            default_initializer=Normal(0.0, std))
        self.bias = self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x, offset, mask=None):
        return deform_conv2d(x, offset, self.weight, self.bias, self._stride, self._padding,
                             self._dilation, self._deformable_groups, self._groups, mask)
