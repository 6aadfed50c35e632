"""Sums over all axes but one contiguous block, as two products with vectors of ones: the
statistics and gradient sums of batch, instance and group norm.

A batch norm sums [N, C, H, W] over (0, 2, 3). NumPy's reduction over those axes walks the
array in short strided runs; the same sums as ones[N] @ a.reshape(N, C*H*W), then the
[C, H*W] result @ ones[H*W], are two BLAS matrix-vector products that read the array once
in long contiguous runs, several times faster, most of all on small maps with many
channels (figures: docs/PERFORMANCE.md#normalization).

Example:
    >>> import numpy as np
    >>> a = np.arange(24.0).reshape(2, 3, 4)
    >>> axis_sums(np, a, (0, 2)).ravel().tolist()
    [60.0, 92.0, 124.0]
"""

import math

import numpy as np

from dygraph.backend.workspace import workspace

__all__ = ["axis_sums", "axis_dots"]


def _split(shape, axes):
    """(lead, keep, tail) sizes when the axes not in `axes` form one contiguous block and
    the array is float32/64 sized for BLAS, else None."""
    kept = [i for i in range(len(shape)) if i not in axes]
    if not kept or kept != list(range(kept[0], kept[-1] + 1)):
        return None
    return (math.prod(shape[:kept[0]]), math.prod(shape[kept[0]:kept[-1] + 1]),
            math.prod(shape[kept[-1] + 1:]))


def axis_sums(xp, a, axes):
    """a.sum(axis=axes, keepdims=True), as products with ones where the kept axes are one
    contiguous block of a float32/float64 array (else NumPy's reduction).

    Example:
        >>> import numpy as np
        >>> axis_sums(np, np.ones((2, 3, 2), np.float32), (0, 2)).shape
        (1, 3, 1)
    """
    parts = _split(a.shape, axes) if a.dtype.kind == "f" and a.dtype.itemsize >= 4 else None
    # On the GPU, CuPy's reduction is one kernel; the products would be four.
    if parts is None or a.size == 0 or xp is not np:
        return a.sum(axis=axes, keepdims=True)
    lead, keep, tail = parts
    rows = a.reshape(lead, keep * tail)
    if lead > 1:
        rows = xp.ones(lead, a.dtype) @ rows
    sums = rows.reshape(keep, tail) @ xp.ones(tail, a.dtype) if tail > 1 else rows
    return sums.reshape(tuple(1 if i in axes else s for i, s in enumerate(a.shape)))


def axis_dots(xp, a, b, axes):
    """(a * b).sum(axis=axes, keepdims=True) for arrays of one shape; the product is a
    workspace scratch array.

    Example:
        >>> import numpy as np
        >>> axis_dots(np, np.ones((2, 3)), np.full((2, 3), 2.0), (0,)).tolist()
        [[4.0, 4.0, 4.0]]
    """
    product = xp.multiply(a, b, out=workspace.take(xp, a.shape, a.dtype))
    sums = axis_sums(xp, product, axes)
    workspace.give(product)
    return sums
