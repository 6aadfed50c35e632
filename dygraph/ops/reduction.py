"""Reductions: sum and mean (the rest of the family extends this file).

A reduction over all axes returns a 0-D tensor, as Paddle 2.5+ does.
"""

from dygraph.autograd.function import Op, apply
from dygraph.framework import dtype as _dt
from dygraph.ops.common import as_tensor, norm_axes

__all__ = ["sum", "mean"]
NONDIFF = set()


def _expand_back(m, g, in_shape, axes, keepdim):
    """Broadcast a reduced gradient back over the reduced axes."""
    if axes is None:
        axes = tuple(range(len(in_shape)))
    if not keepdim and axes:
        shape = list(in_shape)
        for a in axes:
            shape[a] = 1
        g = m.reshape(g, tuple(shape))
    return m.broadcast_to(g, tuple(in_shape))


class Sum(Op):
    def __init__(self, axes, keepdim, dtype):
        self.axes, self.keepdim, self.dtype = axes, keepdim, dtype

    def forward(self, xp, x):
        self.in_shape = x.shape
        return xp.sum(x, axis=self.axes, keepdims=self.keepdim, dtype=self.dtype)

    def backward(self, m, g):
        return (_expand_back(m, g, self.in_shape, self.axes, self.keepdim),)


class Mean(Op):
    def __init__(self, axes, keepdim):
        self.axes, self.keepdim = axes, keepdim

    def forward(self, xp, x):
        self.in_shape = x.shape
        out = xp.mean(x, axis=self.axes, keepdims=self.keepdim)
        return out if out.dtype == x.dtype else out.astype(x.dtype)

    def backward(self, m, g):
        n = 1
        for a in (self.axes if self.axes is not None else range(len(self.in_shape))):
            n *= self.in_shape[a]
        return (_expand_back(m, g, self.in_shape, self.axes, self.keepdim) / float(max(n, 1)),)


def sum(x, axis=None, dtype=None, keepdim=False, name=None):  # noqa: A001 - Paddle's name
    """Sum over `axis` (int, list or None for all). Bool and int32 inputs sum to int64.

    Example:
        >>> import dygraph
        >>> dygraph.sum(dygraph.to_tensor([[1.0, 2.0], [3.0, 4.0]]), axis=0).numpy()
        array([4., 6.], dtype=float32)
    """
    x = as_tensor(x, "sum")
    kind = x._data.dtype.kind
    np_dtype = _dt.convert_dtype(dtype).np_dtype if dtype is not None else (
        _dt.int64.np_dtype if kind == "b" or x._data.dtype == _dt.int32.np_dtype else None)
    return apply(Sum(norm_axes(axis, x._data.ndim, "sum"), keepdim, np_dtype), x)


def mean(x, axis=None, keepdim=False, name=None):
    """Arithmetic mean over `axis` (int, list or None for all).

    Example:
        >>> import dygraph
        >>> dygraph.mean(dygraph.to_tensor([1.0, 2.0, 3.0])).numpy()
        array(2., dtype=float32)
    """
    x = as_tensor(x, "mean")
    if x._data.dtype.kind not in "fc":
        from dygraph.ops.common import float_operand

        x = float_operand(x, "mean")
    return apply(Mean(norm_axes(axis, x._data.ndim, "mean"), keepdim), x)
