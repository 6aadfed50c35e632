"""Constants for the composite functions, made on the device of the tensor they combine with
(a NumPy array next to CuPy data would fail), without gradients."""

import numpy as np

from dygraph.ops.manipulation.args import xp_of
from dygraph.tensor.tensor import _new_tensor


def const(array, like, dtype=None):
    """`array` as a stop_gradient Tensor on like's device; dtype defaults to like's.

    Example:
        >>> import dygraph
        >>> const([1, 2], dygraph.ones([1], dtype='float64')).dtype
        dygraph.float64
    """
    arr = np.asarray(array, dtype=like._data.dtype if dtype is None else dtype)
    if type(like._data) is not np.ndarray:
        arr = xp_of(like._data).asarray(arr)
    return _new_tensor(arr, None, 0, True)


def index(array, like):
    """Integer indices (int64) as a Tensor on like's device.

    Example:
        >>> import dygraph
        >>> index([0, 2], dygraph.ones([3])).numpy()
        array([0, 2])
    """
    return const(array, like, np.int64)
