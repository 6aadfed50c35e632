"""Region-of-interest features: roi_align, roi_pool, psroi_pool and their layers.

Each takes a feature map x [N, C, H, W], boxes [R, 4] as (x1, y1, x2, y2) in image
coordinates (multiplied by `spatial_scale` to reach the map) and boxes_num [N], how many of
the boxes belong to each image (in order). The gradient flows to x only, as in Paddle; the
ops are in dygraph/ops/vision/.

Example:
    >>> import dygraph
    >>> from dygraph.vision.ops import roi_pool
    >>> x = dygraph.arange(16, dtype='float32').reshape([1, 1, 4, 4])
    >>> boxes = dygraph.to_tensor([[0.0, 0.0, 3.0, 3.0]])
    >>> roi_pool(x, boxes, dygraph.to_tensor([1], dtype='int32'), 2).numpy()[0, 0]
    array([[ 5.,  7.],
           [13., 15.]], dtype=float32)
"""

from dygraph.autograd.function import apply
from dygraph.framework.errors import AssertedValueError, op_error
from dygraph.nn.layer.layers import Layer
from dygraph.ops.common import as_tensor, cast
from dygraph.ops.vision.boxes_input import check_roi_inputs
from dygraph.ops.vision.roi_maps import RoiMap
from dygraph.ops.vision.roi_pool import RoiPool

__all__ = ["roi_align", "RoIAlign", "roi_pool", "RoIPool", "psroi_pool", "PSRoIPool"]


def _pair(output_size, op):
    size = (output_size, output_size) if isinstance(output_size, int) else output_size
    try:
        if isinstance(size, str):
            raise TypeError
        size = tuple(int(v) for v in size)
    except (TypeError, ValueError):
        raise op_error(op, f"output_size must be an int or a pair of ints, got "
                       f"{output_size!r}", TypeError) from None
    if len(size) != 2 or min(size) < 1:
        raise op_error(op, f"output_size must be a positive int or pair, got {output_size!r}")
    return size


def _inputs(op, x, boxes, boxes_num):
    x, boxes = as_tensor(x, op), as_tensor(boxes, op)
    boxes_num = None if boxes_num is None else as_tensor(boxes_num, op)
    check_roi_inputs(op, x, boxes, boxes_num)
    if boxes._data.dtype != x._data.dtype:  # the box arithmetic runs in x's dtype
        boxes = cast(boxes, x._data.dtype)
    return x, boxes, boxes_num


def roi_align(x, boxes, boxes_num, output_size, spatial_scale=1.0, sampling_ratio=-1,
              aligned=True, name=None):
    """RoIAlign: each bin of each box is the mean of bilinear samples of x on a regular grid
    (`sampling_ratio` per axis, or ceil(bin size) when <= 0); out [R, C, ph, pw]. With
    `aligned` the box is shifted by half a pixel, so that pixel centres sit at .5.

    Example:
        >>> import dygraph
        >>> from dygraph.vision.ops import roi_align
        >>> x = dygraph.arange(16, dtype='float32').reshape([1, 1, 4, 4])
        >>> boxes = dygraph.to_tensor([[0.0, 0.0, 2.0, 2.0]])
        >>> roi_align(x, boxes, dygraph.to_tensor([1], dtype='int32'), 2).numpy()[0, 0]
        array([[0., 1.],
               [4., 5.]], dtype=float32)
    """
    x, boxes, boxes_num = _inputs("roi_align", x, boxes, boxes_num)
    size = _pair(output_size, "roi_align")
    return apply(RoiMap("align", size, spatial_scale, sampling_ratio, aligned), x, boxes,
                 boxes_num)


def psroi_pool(x, boxes, boxes_num, output_size, spatial_scale=1.0, name=None):
    """Position-sensitive RoI pooling: bin (i, j) of output channel c is the mean of input
    channel (c * ph + i) * pw + j over the bin's window; x has C' * ph * pw channels and the
    output [R, C', ph, pw].

    Example:
        >>> import dygraph
        >>> from dygraph.vision.ops import psroi_pool
        >>> x = dygraph.ones([1, 8, 6, 6])
        >>> boxes = dygraph.to_tensor([[0.0, 0.0, 3.0, 3.0]])
        >>> psroi_pool(x, boxes, dygraph.to_tensor([1], dtype='int32'), 2).shape
        [1, 2, 2, 2]
    """
    x = as_tensor(x, "psroi_pool")
    if x._data.ndim != 4:
        raise op_error("psroi_pool", f"x must be a 4-D tensor [N, C, H, W], got shape "
                       f"{x.shape}", AssertedValueError)
    x, boxes, boxes_num = _inputs("psroi_pool", x, boxes, boxes_num)
    size = _pair(output_size, "psroi_pool")
    channels = x._data.shape[1]
    if channels % (size[0] * size[1]) or channels // (size[0] * size[1]) < 2:
        raise op_error("psroi_pool", f"the {channels} channels of x (shape {x.shape}) must be "
                       f"C' x {size[0]} x {size[1]} (output_size) with C' > 1 output "
                       "channels")
    return apply(RoiMap("psroi", size, spatial_scale), x, boxes, boxes_num)


def roi_pool(x, boxes, boxes_num, output_size, spatial_scale=1.0, name=None):
    """RoI max pooling: each bin of each box (rounded to whole pixels) is the maximum of x
    over the bin's window (0 for an empty bin); out [R, C, ph, pw].

    Example:
        >>> import dygraph
        >>> from dygraph.vision.ops import roi_pool
        >>> x = dygraph.ones([1, 3, 8, 8])
        >>> boxes = dygraph.to_tensor([[1.0, 1.0, 6.0, 6.0], [0.0, 0.0, 2.0, 3.0]])
        >>> roi_pool(x, boxes, dygraph.to_tensor([2], dtype='int32'), 3).shape
        [2, 3, 3, 3]
    """
    x, boxes, boxes_num = _inputs("roi_pool", x, boxes, boxes_num)
    size = _pair(output_size, "roi_pool")
    return apply(RoiPool(size, spatial_scale), x, boxes, boxes_num)


class RoIAlign(Layer):
    """roi_align as a layer: forward(x, boxes, boxes_num, aligned=True).

    Example:
        >>> import dygraph
        >>> from dygraph.vision.ops import RoIAlign
        >>> layer = RoIAlign(output_size=(2, 3), spatial_scale=0.5)
        >>> boxes = dygraph.to_tensor([[0.0, 0.0, 8.0, 8.0]])
        >>> layer(dygraph.ones([1, 4, 6, 6]), boxes, dygraph.to_tensor([1], dtype='int32')).shape
        [1, 4, 2, 3]
    """

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self._output_size, self._spatial_scale = output_size, spatial_scale

    def forward(self, x, boxes, boxes_num, aligned=True):
        return roi_align(x, boxes, boxes_num, self._output_size, self._spatial_scale,
                         aligned=aligned)


class RoIPool(Layer):
    """roi_pool as a layer: forward(x, boxes, boxes_num).

    Example:
        >>> import dygraph
        >>> from dygraph.vision.ops import RoIPool
        >>> RoIPool(output_size=2)
        RoIPool(output_size=2, spatial_scale=1.0)
    """

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self._output_size, self._spatial_scale = output_size, spatial_scale

    def forward(self, x, boxes, boxes_num):
        return roi_pool(x, boxes, boxes_num, self._output_size, self._spatial_scale)

    def extra_repr(self):
        return f"output_size={self._output_size}, spatial_scale={self._spatial_scale}"


class PSRoIPool(Layer):
    """psroi_pool as a layer: forward(x, boxes, boxes_num).

    Example:
        >>> import dygraph
        >>> from dygraph.vision.ops import PSRoIPool
        >>> layer = PSRoIPool(2, 1.0)
        >>> boxes = dygraph.to_tensor([[0.0, 0.0, 4.0, 4.0]])
        >>> layer(dygraph.ones([1, 8, 5, 5]), boxes, dygraph.to_tensor([1], dtype='int32')).shape
        [1, 2, 2, 2]
    """

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self._output_size, self._spatial_scale = output_size, spatial_scale

    def forward(self, x, boxes, boxes_num):
        return psroi_pool(x, boxes, boxes_num, self._output_size, self._spatial_scale)
