"""paddle.vision.ops: detection ops (nms, RoI features, deformable convolution, YOLO and
SSD box coding, proposals) and JPEG reading.

Example:
    >>> import dygraph
    >>> from dygraph.vision import ops
    >>> boxes = dygraph.to_tensor([[0.0, 0.0, 2.0, 2.0], [0.1, 0.0, 2.0, 2.0]])
    >>> ops.nms(boxes, 0.5).numpy()
    array([0])
"""

from dygraph.vision.ops.boxes import box_coder, prior_box
from dygraph.vision.ops.deform_conv import DeformConv2D, deform_conv2d
from dygraph.vision.ops.nms import nms
from dygraph.vision.ops.roi import PSRoIPool, RoIAlign, RoIPool, psroi_pool, roi_align, roi_pool

__all__ = ["prior_box", "box_coder", "deform_conv2d", "DeformConv2D", "nms", "roi_align",
           "RoIAlign", "roi_pool", "RoIPool", "psroi_pool", "PSRoIPool"]
