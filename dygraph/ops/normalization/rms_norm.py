"""rms_norm of dygraph.nn.functional: root-mean-square normalization over trailing dims,
built from differentiable ops (its gradient is theirs).
"""

import numpy as np

from dygraph import ops as P
from dygraph.framework.errors import op_error
from dygraph.ops.common import float_operand

__all__ = ["rms_norm"]
NONDIFF = set()


def rms_norm(input, normalized_shape, weight=None, eps=1e-5, name=None):
    """Root-mean-square norm over the trailing `normalized_shape` dims:
    x / sqrt(mean(x^2) + eps) (times weight). Returns (out, inv_rms) as Paddle does, inv_rms
    having the leading dims.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> out, inv = F.rms_norm(dygraph.to_tensor([[3.0, 4.0]]), [2], eps=0.0)
        >>> out.numpy().round(4), inv.numpy().round(4)
        (array([[0.8485, 1.1314]], dtype=float32), array([0.2828], dtype=float32))
    """
    x = float_operand(input, "rms_norm")
    shape = [int(normalized_shape)] if isinstance(normalized_shape, (int, np.integer)) \
        else [int(s) for s in normalized_shape]
    k = len(shape)
    if k == 0 or list(x._data.shape[-k:]) != shape:
        raise op_error("rms_norm", f"normalized_shape {shape} must match the trailing dims of "
                       f"input {list(x._data.shape)}")
    axes = list(range(x._data.ndim - k, x._data.ndim))
    inv = P.rsqrt(P.mean(x * x, axis=axes, keepdim=True) + eps)
    out = x * inv
    if weight is not None:
        w = float_operand(weight, "rms_norm")
        if list(w._data.shape) != shape:
            raise op_error("rms_norm", f"weight must have shape {shape}, got "
                           f"{list(w._data.shape)}")
        out = out * w
    return out, P.reshape(inv, list(x._data.shape[:-k]))
