"""max_pool3d of a COO point set: each output position whose window holds input points
takes, per channel, the largest of those points' values (absent positions do not count
as zeros).

Example:
    >>> import dygraph
    >>> x = dygraph.sparse.sparse_coo_tensor([[0, 0], [0, 0], [0, 0], [0, 1]],
    ...                                      [[-1.0], [-3.0]], [1, 1, 1, 2, 1])
    >>> y = dygraph.sparse.nn.functional.max_pool3d(x, [1, 1, 2])
    >>> y.shape, y.values().numpy().tolist()
    ([1, 1, 1, 1, 1], [[-1.0]])
"""

import numpy as np

from dygraph import ops as _ops
from dygraph.sparse.formats import index_tensor, xp_of
from dygraph.sparse.nn.functional.conv import check_points, window_rows
from dygraph.sparse.nn.functional.rulebook import (
    neighbour_table,
    output_points,
    window_geometry,
)
from dygraph.sparse.tensor import SparseCooTensor

__all__ = ["max_pool3d"]


def _lowest(dtype):
    """The fill of absent window rows: below every value of `dtype`."""
    if dtype.kind in "iu":
        return np.iinfo(dtype).min
    return False if dtype.kind == "b" else -np.inf


def max_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False,
               data_format="NDHWC", name=None):
    """3-D max pooling of a COO tensor [N, D, H, W, C] (stride defaults to the kernel);
    the gradient goes to the largest point of each window.

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_coo_tensor([[0, 0], [0, 1], [0, 1], [0, 1]],
        ...                                      [[1.0], [2.0]], [1, 2, 2, 2, 1])
        >>> y = dygraph.sparse.nn.functional.max_pool3d(x, 2)
        >>> y.indices().tolist(), y.values().numpy().tolist()
        ([[0], [0], [0], [0]], [[2.0]])
    """
    x = check_points(x, 3, "max_pool3d", data_format)
    window = window_geometry("max_pool3d", x.shape[1:-1], kernel_size,
                             kernel_size if stride is None else stride, padding, 1,
                             ceil_mode)
    points = x._indices._data.T
    out_points = output_points(points, window)
    table = neighbour_table(points, out_points, window, submanifold=False)
    values = _ops.max(window_rows(x._values, table, fill=_lowest(x.dtype.np_dtype)), axis=1)
    indices = index_tensor(xp_of(out_points).ascontiguousarray(out_points.T))
    return SparseCooTensor(indices, values, [x.shape[0], *window.out_size, x.shape[-1]],
                           True)
