"""Vector norms and similarity of dygraph.nn.functional: normalize, cosine_similarity.

Both are composed of differentiable ops. The epsilon floors are applied before the square
root (max(sqrt(s), eps) = sqrt(max(s, eps^2))), so an all-zero vector gets a zero gradient
instead of 0 * inf = NaN.
"""

import numpy as np

from dygraph.framework.errors import RankIndexError, op_error
from dygraph.ops.common import binary_operands, check_axis, float_operand
from dygraph.ops.manipulation.shape import broadcast_to
from dygraph.ops.math.extrema import maximum
from dygraph.ops.reduction.reduce import amax, amin
from dygraph.ops.reduction.reduce import sum as _sum
from dygraph.ops.unary.core import abs as _abs
from dygraph.ops.unary.core import clip, sqrt

__all__ = ["normalize", "cosine_similarity"]
NONDIFF = set()


def normalize(x, p=2, axis=1, epsilon=1e-12, name=None):
    """x / max(||x||_p, epsilon), the p-norm taken along `axis` (p may be inf or -inf).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.normalize(dygraph.to_tensor([[3.0, 4.0]])).numpy()
        array([[0.6, 0.8]], dtype=float32)
    """
    x = float_operand(x, "normalize")
    nd = x._data.ndim
    if nd == 1 and axis not in (0, -1):
        raise op_error("normalize", f"axis must be 0 or -1 for a 1-D x, got {axis}")
    axis = check_axis(axis, nd, "normalize")
    p = float(p)
    if p == 0:
        raise op_error("normalize", "p must not be 0 (the 0-norm is not a norm)")
    eps = float(epsilon)
    if p == 2:
        norm = sqrt(maximum(_sum(x * x, axis=axis, keepdim=True), eps * eps))
    elif p == 1:
        norm = maximum(_sum(_abs(x), axis=axis, keepdim=True), eps)
    elif np.isinf(p):
        reduce = amax if p > 0 else amin
        norm = maximum(reduce(_abs(x), axis=axis, keepdim=True), eps)
    else:
        total = _sum(_abs(x) ** p, axis=axis, keepdim=True)
        norm = maximum(total ** (1.0 / p), eps)
    return x / norm


def cosine_similarity(x1, x2, axis=1, eps=1e-8, name=None):
    """<x1, x2> / sqrt(max(|x1|^2 |x2|^2, eps^2)) along `axis` (x1 and x2 broadcast).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> a = dygraph.to_tensor([[1.0, 0.0], [1.0, 1.0]])
        >>> F.cosine_similarity(a, dygraph.to_tensor([[1.0, 0.0], [-1.0, -1.0]])).numpy()
        array([ 1., -1.], dtype=float32)
    """
    x1, x2 = binary_operands(float_operand(x1, "cosine_similarity"),
                             float_operand(x2, "cosine_similarity"), "cosine_similarity")
    try:
        shape = np.broadcast_shapes(x1._data.shape, x2._data.shape)
    except ValueError:
        raise op_error("cosine_similarity", f"x1 of shape {list(x1._data.shape)} and x2 of "
                       f"shape {list(x2._data.shape)} do not broadcast") from None
    # Broadcast first: the norms are sums along `axis` of the broadcast operands.
    if x1._data.shape != shape:
        x1 = broadcast_to(x1, shape)
    if x2._data.shape != shape:
        x2 = broadcast_to(x2, shape)
    n = len(shape)
    if isinstance(axis, (int, np.integer)) and not -max(n, 1) <= axis < max(n, 1):
        # too few dims for the axis: Paddle's IndexError, and the ValueError of check_axis
        raise op_error("cosine_similarity", f"axis {axis} is out of range for inputs of "
                       f"broadcast shape {list(shape)}", RankIndexError)
    axis = check_axis(axis, n, "cosine_similarity")
    w12 = _sum(x1 * x2, axis=axis)
    w1 = _sum(x1 * x1, axis=axis)
    w2 = _sum(x2 * x2, axis=axis)
    return w12 / sqrt(clip(w1 * w2, min=float(eps) * float(eps)))
