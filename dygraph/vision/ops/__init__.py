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
from dygraph.vision.ops.image_io import decode_jpeg, read_file
from dygraph.vision.ops.nms import matrix_nms, nms
from dygraph.vision.ops.proposals import distribute_fpn_proposals, generate_proposals
from dygraph.vision.ops.roi import PSRoIPool, RoIAlign, RoIPool, psroi_pool, roi_align, roi_pool
from dygraph.vision.ops.yolo import yolo_box, yolo_loss

__all__ = ["yolo_loss", "yolo_box", "prior_box", "box_coder", "deform_conv2d", "DeformConv2D",
           "distribute_fpn_proposals", "generate_proposals", "read_file", "decode_jpeg",
           "roi_pool", "RoIPool", "psroi_pool", "PSRoIPool", "roi_align", "RoIAlign", "nms",
           "matrix_nms"]
