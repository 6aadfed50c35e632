"""mean and var of integer and bool tensors, in their own dtype, as Paddle 3.3 computes them.

Paddle keeps the input's dtype: the mean is taken in float32 (each element rounded to
float32 first) and cut toward zero; the variance squares and sums the deviations from
that cut mean in the input's dtype (wrapping around on overflow, as integers do), then
divides in float32 and cuts toward zero again. A bool mean is True where the float mean
is non-zero. A value that does not fit the dtype (NaN from an empty reduction or a zero
divisor, or an overflow) becomes the dtype's lowest value, which is what x86's
float-to-integer conversion gives Paddle. No gradients: integers carry none.
"""

import numpy as np

from dygraph.autograd.function import Op, apply
from dygraph.ops.reduction.axes import reduced_count


def to_integer(xp, q, dtype):
    """Float array `q` cut toward zero into integer (or bool) `dtype`, with the dtype's
    lowest value for NaN and out-of-range values (bool: True where q is non-zero or NaN).

    Example:
        >>> q = np.array([-1.5, 2.7, np.nan], np.float32)
        >>> to_integer(np, q, np.dtype(np.int32)).tolist()
        [-1, 2, -2147483648]
    """
    if dtype.kind == "b":
        return q != 0
    info = np.iinfo(dtype)
    fits = (q >= info.min) & (q < -float(info.min))  # NaN fails both tests
    return xp.where(fits, xp.trunc(xp.where(fits, q, 0)), info.min).astype(dtype)


def _float_mean(xp, x, axes, keepdim):
    """The float32 mean of integer array x over `axes` (NaN for no elements)."""
    n = reduced_count(x.shape, axes)
    total = x.astype(np.float32).sum(axis=axes, keepdims=keepdim)
    with np.errstate(invalid="ignore", divide="ignore"):
        return xp.asarray(total / np.float32(n), dtype=np.float32)


class IntegerMean(Op):
    """Paddle's mean of an integer or bool tensor, in its dtype (see the module doc)."""

    attrs = ("axes", "keepdim")
    differentiable = False

    def __init__(self, axes, keepdim):
        self.axes, self.keepdim = axes, keepdim

    def forward(self, xp, x):
        return xp.asarray(to_integer(xp, _float_mean(xp, x, self.axes, self.keepdim),
                                     x.dtype))


class IntegerVar(Op):
    """Paddle's variance of an integer tensor, in its dtype, dividing by
    max(n - correction, 0) (see the module doc)."""

    attrs = ("axes", "correction", "keepdim")
    differentiable = False

    def __init__(self, axes, keepdim, correction):
        self.axes, self.keepdim, self.correction = axes, keepdim, correction

    def forward(self, xp, x):
        centre = to_integer(xp, _float_mean(xp, x, self.axes, True), x.dtype)
        deviation = x - centre  # integer arithmetic: wraps around, as Paddle's kernels
        squares = (deviation * deviation).sum(axis=self.axes, keepdims=self.keepdim,
                                              dtype=x.dtype)
        divisor = np.float32(max(reduced_count(x.shape, self.axes) - self.correction, 0))
        with np.errstate(invalid="ignore", divide="ignore"):
            quotient = xp.asarray(squares, dtype=np.float32) / divisor
        return xp.asarray(to_integer(xp, quotient, x.dtype))


def integer_mean(x, axes, keepdim):
    """mean of integer or bool Tensor x over normalised `axes`, in x's dtype.

    Example:
        >>> import dygraph
        >>> integer_mean(dygraph.to_tensor([-1, -2]), None, False).numpy()
        array(-1)
    """
    return apply(IntegerMean(axes, keepdim), x)


def integer_var(x, axes, keepdim, correction):
    """var of integer Tensor x over normalised `axes`, in x's dtype.

    Example:
        >>> import dygraph
        >>> integer_var(dygraph.to_tensor([1, 5, 9, 2]), None, False, 1).numpy()
        array(13)
    """
    return apply(IntegerVar(axes, keepdim, correction), x)
