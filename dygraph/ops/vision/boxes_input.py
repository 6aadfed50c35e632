"""Checks and host-side reading of the (x, boxes, boxes_num) inputs of the RoI ops.

The RoI ops read box coordinates and per-image counts on the host (they decide which pixels
each output bin reads), so these helpers return NumPy arrays whatever the device.

Example:
    >>> import numpy as np
    >>> batch_of_boxes(np.array([2, 1], np.int32), 3, 2, 'roi_align').tolist()
    [0, 0, 1]
"""

import numpy as np

from dygraph.backend import as_numpy
from dygraph.framework.errors import AssertedTypeError, op_error

__all__ = ["batch_of_boxes", "check_roi_inputs", "host_boxes", "c_round"]


def check_roi_inputs(op, x, boxes, boxes_num):
    """Shapes and dtypes of the Tensors x [N, C, H, W], boxes [R, 4], boxes_num [N] (ints).

    Example:
        >>> import dygraph
        >>> check_roi_inputs('roi_pool', dygraph.ones([1, 1, 2, 2]), dygraph.ones([3, 4]),
        ...                  dygraph.to_tensor([3], dtype='int32'))
    """
    xs, bs = list(x._data.shape), list(boxes._data.shape)
    if len(xs) != 4:
        raise op_error(op, f"x must be a 4-D tensor [N, C, H, W], got shape {xs}")
    if x._data.dtype.kind != "f" or x._data.dtype.itemsize < 4:
        raise op_error(op, f"x must be float32 or float64, got {x._data.dtype.name}",
                       TypeError)
    if len(bs) != 2 or bs[1] != 4:
        raise op_error(op, f"boxes must have shape [num_boxes, 4], got {bs}")
    if boxes._data.dtype.kind != "f":
        raise op_error(op, f"boxes must be a float tensor, got {boxes._data.dtype.name}",
                       TypeError)
    if boxes_num is None:
        raise op_error(op, "boxes_num (the number of boxes of each image, an int tensor "
                       "[N]) is required", AssertedTypeError)
    ns = list(boxes_num._data.shape)
    if boxes_num._data.dtype.kind not in "iu" or len(ns) != 1:
        raise op_error(op, f"boxes_num must be a 1-D int tensor, got shape {ns} and dtype "
                       f"{boxes_num._data.dtype.name}", TypeError)


def batch_of_boxes(boxes_num, n_boxes, batch, op):
    """The image index of each box, from the per-image counts (a host array).

    Example:
        >>> import numpy as np
        >>> batch_of_boxes(np.array([0, 2]), 2, 2, 'psroi_pool').tolist()
        [1, 1]
    """
    counts = as_numpy(boxes_num).astype(np.int64)
    if counts.shape[0] != batch:
        raise op_error(op, f"boxes_num has {counts.shape[0]} entries but x holds {batch} "
                       "images: give one count per image")
    if (counts < 0).any() or int(counts.sum()) != n_boxes:
        raise op_error(op, f"boxes_num {counts.tolist()} must be non-negative and add up to "
                       f"the {n_boxes} boxes")
    return np.repeat(np.arange(batch), counts)


def host_boxes(boxes, dtype):
    """The boxes as a host array of the feature map's dtype (the box arithmetic runs in it).

    Example:
        >>> import numpy as np
        >>> host_boxes(np.ones((1, 4)), np.float32).dtype
        dtype('float32')
    """
    return as_numpy(boxes).astype(dtype, copy=False)


def c_round(values):
    """Round half away from zero, as C's round (NumPy's round goes to even).

    Example:
        >>> import numpy as np
        >>> c_round(np.array([0.5, 1.5, -0.5])).tolist()
        [1.0, 2.0, -1.0]
    """
    return np.sign(values) * np.floor(np.abs(values) + values.dtype.type(0.5))
