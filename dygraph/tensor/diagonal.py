"""The diagonal fills of Tensor: `x.fill_diagonal_(value)` in place, and
`x.fill_diagonal_tensor(y)` (differentiable in x and y) with its in-place form."""

import numpy as np

from dygraph.autograd.function import Op, apply
from dygraph.backend import device_constant
from dygraph.framework.errors import op_error
from dygraph.ops.common import as_tensor, cast

__all__ = ["fill_diagonal_", "fill_diagonal_tensor", "fill_diagonal_tensor_"]


def _xp(array):
    from dygraph.backend import get_array_module

    return get_array_module(array)


def fill_diagonal_(self, value, offset=0, wrap=False, name=None):
    """Set the main diagonal (of a matrix, shifted by `offset`, or of an N-d tensor whose
    dimensions are all equal) to `value` in place; `wrap` restarts a tall matrix's
    diagonal every ncols + 1 rows. Returns self.

    Example:
        >>> import dygraph
        >>> dygraph.zeros([2, 3]).fill_diagonal_(1.0, offset=1).tolist()
        [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    data = self._data
    if data.ndim < 2:
        raise op_error("fill_diagonal_", f"needs at least 2 dimensions, got shape {self.shape}")
    if data.ndim > 2 and len(set(data.shape)) != 1:
        raise op_error("fill_diagonal_", f"all dimensions must be equal for a tensor of more "
                       f"than 2 dimensions, got shape {self.shape}")
    self._bump_version("fill_diagonal_")
    if not data.flags.c_contiguous:
        xp = np if type(data) is np.ndarray else _xp(data)
        data = self._data = xp.ascontiguousarray(data)
    flat = data.reshape(-1)  # a view: writes reach self
    if data.ndim > 2:
        step = int(sum(s // data.itemsize for s in data.strides))
        flat[::step] = value
        return self
    rows, cols = data.shape
    step = cols + 1
    start = offset if offset >= 0 else -offset * cols
    end = flat.size if wrap else min(flat.size, cols * cols)
    positions = np.arange(start, end, step)
    if not wrap:
        # Stop where the shifted diagonal leaves the matrix.
        count = min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols)
        positions = positions[:max(count, 0)]
    flat[positions] = value
    return self


def _diagonal_positions(shape, offset, dim1, dim2):
    n1, n2 = shape[dim1], shape[dim2]
    start1, start2 = (0, offset) if offset >= 0 else (-offset, 0)
    length = max(0, min(n1 - start1, n2 - start2))
    rows = np.arange(length) + start1
    return rows, rows - start1 + start2


class _FillDiagonalTensor(Op):
    """x with the (dim1, dim2) diagonal replaced by y; y's last dimension runs along the
    diagonal and its others are x's remaining dimensions."""

    attrs = ("dim1", "dim2", "offset")

    complex_grad = "same"

    def __init__(self, offset, dim1, dim2):
        self.offset, self.dim1, self.dim2 = offset, dim1, dim2

    def _perm(self, ndim):
        rest = [d for d in range(ndim) if d not in (self.dim1, self.dim2)]
        return rest + [self.dim1, self.dim2]

    def forward(self, xp, x, y):
        self.perm = self._perm(x.ndim)
        self.rows, self.cols = _diagonal_positions(x.shape, self.offset, self.dim1, self.dim2)
        if xp is not np:  # moved once per layout: a copy per call cannot be in a CUDA graph
            key = ("diagonal positions", x.shape, self.offset, self.dim1, self.dim2)
            self.rows = device_constant(xp, key + ("rows",), lambda: self.rows)
            self.cols = device_constant(xp, key + ("cols",), lambda: self.cols)
        out = x.copy()
        view = out.transpose(self.perm)  # shares out's memory
        view[..., self.rows, self.cols] = y
        keep = xp.ones(x.shape, dtype=x.dtype)
        keep.transpose(self.perm)[..., self.rows, self.cols] = 0
        self.keep = keep
        return out

    def backward(self, m, g):
        gx = g * self.keep if self.edges[0] is not None else None
        gy = None
        if self.edges[1] is not None:
            gy = m.transpose(g, self.perm)[..., self.rows, self.cols]
        return gx, gy


def fill_diagonal_tensor(self, y, offset=0, dim1=0, dim2=1, name=None):
    """A copy of self with the diagonal over (dim1, dim2) (shifted by `offset`) replaced
    by y; differentiable in both.

    Example:
        >>> import dygraph
        >>> dygraph.zeros([2, 2]).fill_diagonal_tensor(dygraph.to_tensor([1.0, 2.0])).tolist()
        [[1.0, 0.0], [0.0, 2.0]]
    """
    x = as_tensor(self, "fill_diagonal_tensor")
    ndim = x._data.ndim
    if ndim < 2:
        raise op_error("fill_diagonal_tensor", f"needs at least 2 dimensions, got {x.shape}")
    dim1, dim2 = dim1 % ndim, dim2 % ndim
    if dim1 == dim2:
        raise op_error("fill_diagonal_tensor", f"dim1 and dim2 must differ, got {dim1}")
    y = cast(as_tensor(y, "fill_diagonal_tensor"), x._data.dtype)
    rows, _ = _diagonal_positions(x._data.shape, offset, dim1, dim2)
    rest = [x._data.shape[d] for d in range(ndim) if d not in (dim1, dim2)]
    expected = rest + [len(rows)]
    if y._data.size != int(np.prod(expected)):
        raise op_error("fill_diagonal_tensor", f"y must have shape {expected} (or as many "
                       f"elements), got {y.shape}")
    return apply(_FillDiagonalTensor(offset, dim1, dim2), x, y.reshape(expected))


def fill_diagonal_tensor_(self, y, offset=0, dim1=0, dim2=1, name=None):
    """In-place `fill_diagonal_tensor`; returns self."""
    from dygraph.ops.inplace import run_inplace

    return run_inplace("fill_diagonal_tensor_", fill_diagonal_tensor, self, y, offset, dim1,
                       dim2)
