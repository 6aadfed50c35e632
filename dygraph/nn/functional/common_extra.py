"""More of dygraph.nn.functional's common ops: dropout1d, feature_alpha_dropout, zeropad2d
and rms_norm, built on the dropout family, pad and reductions.
"""

import numpy as np

from dygraph import ops as P
from dygraph.autograd.function import apply
from dygraph.framework.errors import op_error
from dygraph.ops.common import float_operand
from dygraph.ops.manipulation_pad import pad
from dygraph.ops.nn_dropout import (
    _SELU_ALPHA,
    _SELU_SCALE,
    MaskScale,
    _check_p,
    _keep_mask,
    dropout,
)

__all__ = ["dropout1d", "feature_alpha_dropout", "zeropad2d", "rms_norm"]
NONDIFF = set()


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of a [N, C, L] (or [C, L]) input with probability p while
    training, scaling kept ones by 1 / (1 - p). As in Paddle, one channel mask is drawn for
    the batch. `inplace` is accepted and ignored, as in Paddle.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.dropout1d(dygraph.ones([2, 3]), 0.5, training=False).numpy()
        array([[1., 1., 1.],
               [1., 1., 1.]], dtype=float32)
    """
    x = float_operand(input, "dropout1d")
    _check_p(p, "dropout1d")
    if x._data.ndim not in (2, 3):
        raise op_error("dropout1d", f"input must be 2-D or 3-D, got shape {list(x.shape)}")
    if x._data.ndim == 2:
        return P.squeeze(dropout(P.unsqueeze(x, 0), p, axis=1, training=training), 0)
    return dropout(x, p, axis=1, training=training)


def feature_alpha_dropout(x, p=0.5, training=True, name=None):
    """alpha_dropout over whole channels: each (sample, channel) is set to SELU's negative
    saturation with probability p, then the affine correction keeps mean and variance.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.feature_alpha_dropout(dygraph.to_tensor([[-1.0, 1.0]]), 0.5, False).numpy()
        array([[-1.,  1.]], dtype=float32)
    """
    p = _check_p(p, "feature_alpha_dropout")
    x = float_operand(x, "feature_alpha_dropout")
    if x._data.ndim < 2:
        raise op_error("feature_alpha_dropout", f"x must be at least 2-D, got shape "
                       f"{list(x.shape)}")
    if not training:
        return x
    if p == 1.0:
        return x * 0.0
    alpha_p = -_SELU_ALPHA * _SELU_SCALE
    a = ((1.0 - p) * (1.0 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    shape = x._data.shape[:2] + (1,) * (x._data.ndim - 2)
    keep = _keep_mask(x, shape, p)
    shift = (a * alpha_p) * (1.0 - keep) + b
    return apply(MaskScale(keep * a, shift.astype(keep.dtype, copy=False)), x)


def zeropad2d(x, padding, data_format="NCHW", name=None):
    """Zero padding of H and W; padding is [left, right, top, bottom] (or an int).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.zeropad2d(dygraph.ones([1, 1, 1, 1]), [1, 0, 0, 1]).numpy()
        array([[[[0., 1.],
                 [0., 0.]]]], dtype=float32)
    """
    if isinstance(padding, (int, np.integer)):
        padding = [int(padding)] * 4
    return pad(x, padding, mode="constant", value=0.0, data_format=data_format)


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
