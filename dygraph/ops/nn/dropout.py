"""The dropout family of dygraph.nn.functional: dropout, dropout2d, dropout3d, alpha_dropout.

Every variant is x * scale (+ shift) with constant arrays drawn from the global generator
(dygraph.framework.random.rng), so the gradient is g * scale and a second backward is as
cheap. A mask over some axes (`axis`, or whole channels for dropout2d/3d) has size 1 on the
other dims and broadcasts.

Integer and bool inputs keep their dtype, as in Paddle, whose masked variants are composed
of its scale, multiply and add kernels: each float factor is truncated to the input's
integer type first (a scale of 1 / (1 - 0.5) is 2, alpha_dropout's 0.89 is 0), and a bool
is scaled to `x and factor != 0`.
"""

import numpy as np

from dygraph.autograd.function import Op, apply
from dygraph.autograd.whole_call import captured_whole
from dygraph.backend import device_random, is_gpu_array
from dygraph.framework.errors import ShapeRuntimeError, op_error
from dygraph.framework.kernel_dtypes import refuse_dtypes
from dygraph.framework.random import rng
from dygraph.ops.common import as_tensor, float_operand
from dygraph.ops.inplace import run_inplace
from dygraph.ops.manipulation.args import xp_of
from dygraph.ops.manipulation.shape import squeeze, unsqueeze
from dygraph.tensor.tensor import _new_tensor

__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
           "feature_alpha_dropout"]
NONDIFF = set()

_MODES = ("upscale_in_train", "downscale_in_infer")
# SELU's constants: alpha_dropout keeps a SELU network's zero mean and unit variance.
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


class MaskScale(Op):
    """x * scale + shift for constant arrays (shift may be None)."""

    attrs = ("scale", "shift")

    complex_grad = "same"

    def __init__(self, scale, shift=None):
        self.scale, self.shift = scale, shift

    def forward(self, xp, x):
        out = x * self.scale
        if self.shift is not None:
            out += self.shift
        return out

    def backward(self, m, g):
        scale = self.scale
        if m.tensor_mode:
            scale = _new_tensor(scale, None, 0, True)
        return (g * scale,)


# the dtypes without Paddle's element-wise dropout kernel
_NOT_FLOAT = ("bool", "int8", "int16", "int32", "int64", "uint8", "complex64", "complex128")

def _check_p(p, op):
    if isinstance(p, bool) or not isinstance(p, (int, float, np.floating, np.integer)):
        raise op_error(op, f"p must be a float in [0, 1], got {type(p).__name__}", TypeError)
    if not 0.0 <= p <= 1.0:
        raise op_error(op, f"p must be in [0, 1], got {p}")
    return float(p)


def _mask_shape(shape, axis, op):
    """The mask's shape: x's sizes on the dropped axes, 1 elsewhere. As in Paddle, an axis
    counts from 0 (a negative one is refused)."""
    if axis is None:
        return shape
    axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    nd = len(shape)
    if len(axes) > nd or any(not 0 <= a < nd for a in axes):
        raise op_error(op, f"axis {axis} does not fit x of shape {list(shape)}; every axis "
                       f"must be in [0, {nd}) (negative axes are not taken)")
    keep = set(axes)
    return tuple(s if d in keep else 1 for d, s in enumerate(shape))


def _keep_mask(x, shape, p):
    """Bernoulli(1 - p) as x's dtype, on x's device: drawn on the host on the CPU, on the
    device on a GPU (no copy from the host, so a CUDA graph can hold it)."""
    if is_gpu_array(x._data):
        return device_random.keep_mask(xp_of(x._data), shape, p, 1.0, x._data.dtype)
    keep = (rng().random(shape, dtype=np.float32) >= p).astype(x._data.dtype)
    return keep if type(x._data) is np.ndarray else xp_of(x._data).asarray(keep)


def _is_integral(x):
    return x._data.dtype.kind in "biu"


def _int_scale(data, factor):
    """Paddle's scale of an integer or bool array: the factor truncated to the integer type
    (2.9 -> 2, 0.5 -> 0); a bool stays True where the factor is non-zero."""
    if data.dtype == np.bool_:
        return data if factor != 0 else xp_of(data).zeros_like(data)
    return data * xp_of(data).asarray(int(factor), dtype=data.dtype)


def _integral_result(data):
    return _new_tensor(data, None, 0, True)


@captured_whole
def dropout(x, p=0.5, axis=None, training=True, inplace=False, mode="upscale_in_train",
            name=None):
    """Zero each element (or each slice along `axis`) with probability p while training.
    mode 'upscale_in_train': kept values are scaled by 1 / (1 - p) and inference is the
    identity; 'downscale_in_infer': training keeps values as they are and inference
    multiplies by 1 - p. With inplace=True the result is written into x, which is returned.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x = dygraph.ones([2, 3])
        >>> F.dropout(x, 0.5, training=False).numpy()
        array([[1., 1., 1.],
               [1., 1., 1.]], dtype=float32)
        >>> set(F.dropout(x, 0.5).numpy().ravel().tolist()) <= {0.0, 2.0}
        True
    """
    p = _check_p(p, "dropout")
    if mode not in _MODES:
        raise op_error("dropout", f"mode must be 'upscale_in_train' or 'downscale_in_infer', "
                       f"got {mode!r}")
    if inplace:
        return run_inplace("dropout", dropout, x, p, axis, training, mode=mode)
    if p == 0.0:  # as Paddle: x itself, before any other check
        return as_tensor(x, "dropout")
    if axis is None:
        # Paddle's element-wise dropout kernel is float-only (its axis form is made of
        # other ops, which take integers): refused as Paddle refuses it
        refuse_dtypes("dropout", as_tensor(x, "dropout"), _NOT_FLOAT, " without axis")
    if _is_integral(as_tensor(x, "dropout")):
        return _integral_dropout(x, p, axis, training, mode)
    x = float_operand(x, "dropout")
    if not training:
        return x if mode == "upscale_in_train" else x * (1.0 - p)
    if p == 1.0 and axis is not None:  # Paddle returns x * 0 before it looks at axis
        return x * 0.0
    keep = _keep_mask(x, _mask_shape(x._data.shape, axis, "dropout"), p)
    if mode == "upscale_in_train":
        # p == 1 drops everything; the scale is 0 rather than 0 / 0.
        keep *= 0.0 if p == 1.0 else 1.0 / (1.0 - p)
    return apply(MaskScale(keep), x)


def _integral_dropout(x, p, axis, training, mode):
    """dropout of an integer or bool x in its own dtype, with Paddle's truncated factors.
    Kept values are scaled by trunc(1 / (1 - p)) (2 for p = 0.5; 1 for p < 0.5)."""
    data = x._data
    if not training:
        return x if mode == "upscale_in_train" else _integral_result(_int_scale(data, 1.0 - p))
    if p == 1.0:
        return _integral_result(_int_scale(data, 0.0))
    keep = _keep_mask(x, _mask_shape(data.shape, axis, "dropout"), p)
    if mode == "upscale_in_train":
        data = _int_scale(data, 1.0 / (1.0 - p))
    return _integral_result(data * keep)


def _channel_dropout(x, p, training, data_format, formats, ndim, op):
    _check_p(p, op)
    x = as_tensor(x, op)
    if x._data.ndim != ndim:
        raise op_error(op, f"x must be a {ndim}-D tensor, got shape {list(x._data.shape)}")
    if data_format not in formats:
        raise op_error(op, f"data_format must be {formats[0]!r} or {formats[1]!r}, got "
                       f"{data_format!r}")
    channel = 1 if data_format == formats[0] else ndim - 1
    return dropout(x, p, axis=[0, channel], training=training)


def dropout2d(x, p=0.5, training=True, data_format="NCHW", name=None):
    """Zero whole channels of a 4-D input with probability p while training (kept ones are
    scaled by 1 / (1 - p)); the identity at inference.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> y = F.dropout2d(dygraph.ones([2, 3, 4, 4]), 0.5).numpy()
        >>> bool(((y.min(axis=(2, 3)) == y.max(axis=(2, 3)))).all())
        True
    """
    return _channel_dropout(x, p, training, data_format, ("NCHW", "NHWC"), 4, "dropout2d")


def dropout3d(x, p=0.5, training=True, data_format="NCDHW", name=None):
    """Zero whole channels of a 5-D input with probability p while training (kept ones are
    scaled by 1 / (1 - p)); the identity at inference.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.dropout3d(dygraph.ones([1, 2, 1, 1, 1]), 0.5, training=False).numpy().ravel()
        array([1., 1.], dtype=float32)
    """
    return _channel_dropout(x, p, training, data_format, ("NCDHW", "NDHWC"), 5, "dropout3d")


def _drawing(x, p=0.5, training=True, name=None):
    """Whether an alpha dropout call draws (in static mode it is then one op run per run;
    at inference it is recorded op by op)."""
    return bool(training) and p != 0


@captured_whole(when=_drawing)
def alpha_dropout(x, p=0.5, training=True, name=None):
    """Dropout for SELU networks: dropped values are set to SELU's negative saturation and
    an affine correction keeps zero mean and unit variance. The identity at inference.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x = dygraph.to_tensor([[-1.0, 1.0]])
        >>> F.alpha_dropout(x, 0.5, training=False).numpy()
        array([[-1.,  1.]], dtype=float32)
    """
    p = _check_p(p, "alpha_dropout")
    x = _alpha_operand(x, "alpha_dropout")
    if not training or p == 0.0:
        return x
    return _alpha_dropout(x, p, x._data.shape)


def _alpha_operand(x, op):
    """An integer x as it is (Paddle computes in its dtype); anything else as a float."""
    x = as_tensor(x, op)
    return x if x._data.dtype.kind in "iu" else float_operand(x, op)


def _alpha_dropout(x, p, mask_shape):
    """Drop with one draw per element of `mask_shape` (broadcast over x): a dropped value
    becomes SELU's negative saturation, then the affine map a*x + b restores zero mean and
    unit variance."""
    if p == 1.0:
        return x * 0.0 if not _is_integral(x) else _integral_result(_int_scale(x._data, 0))
    alpha_p = -_SELU_ALPHA * _SELU_SCALE
    a = ((1.0 - p) * (1.0 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    keep = _keep_mask(x, mask_shape, p)
    if _is_integral(x):  # Paddle's integer steps: trunc(a) * (x*keep + trunc(alpha_p)*drop)
        data = _int_scale(x._data * keep + _int_scale(1 - keep, alpha_p), a)
        return _integral_result(data + xp_of(data).asarray(int(b), dtype=data.dtype))
    shift = (a * alpha_p) * (1.0 - keep) + b
    return apply(MaskScale(keep * a, shift.astype(keep.dtype, copy=False)), x)


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
    x = as_tensor(input, "dropout1d")
    _check_p(p, "dropout1d")
    if x._data.ndim not in (2, 3):
        raise op_error("dropout1d", f"input must be 2-D or 3-D, got shape {list(x.shape)}",
                       ShapeRuntimeError)  # (Paddle raises RuntimeError)
    if x._data.ndim == 2:
        return squeeze(dropout(unsqueeze(x, 0), p, axis=1, training=training), 0)
    return dropout(x, p, axis=1, training=training)


@captured_whole(when=_drawing)
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
    x = _alpha_operand(x, "feature_alpha_dropout")
    if x._data.ndim < 2:
        raise op_error("feature_alpha_dropout", f"x must be at least 2-D, got shape "
                       f"{list(x.shape)}")
    if not training:
        return x
    return _alpha_dropout(x, p, x._data.shape[:2] + (1,) * (x._data.ndim - 2))
