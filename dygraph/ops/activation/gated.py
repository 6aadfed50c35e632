"""Gated and randomized activations of dygraph.nn.functional: maxout (the maximum over
channel groups), swiglu (a SiLU-gated product) and rrelu (random leaky slopes), and the 1.x
spelling `logsigmoid` of log_sigmoid.

All are compositions of existing differentiable ops; rrelu's random slopes are a constant
array drawn from the global generator, so its gradient is the slope mask.
"""

import numpy as np

from dygraph.autograd.whole_call import captured_whole
from dygraph.framework.errors import op_error
from dygraph.framework.random import rng
from dygraph.ops.activation import piecewise as _act
from dygraph.ops.activation.smooth import log_sigmoid as logsigmoid
from dygraph.ops.common import float_operand
from dygraph.ops.manipulation.args import xp_of
from dygraph.ops.manipulation.rearrange import split
from dygraph.ops.manipulation.shape import reshape
from dygraph.ops.math.extrema import maximum, minimum
from dygraph.ops.reduction.reduce import amax
from dygraph.tensor.tensor import _new_tensor

__all__ = ["logsigmoid", "maxout", "rrelu", "swiglu"]
NONDIFF = set()


def maxout(x, groups, axis=1, name=None):
    """The maximum over each run of `groups` consecutive channels: a [N, C, H, W] input gives
    [N, C / groups, H, W] (axis is 1 or -1, or 3 for NHWC).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x = dygraph.to_tensor([1.0, 3.0, 2.0, 0.0]).reshape([1, 4, 1, 1])
        >>> F.maxout(x, 2).numpy().ravel()
        array([3., 2.], dtype=float32)
    """
    x = float_operand(x, "maxout")
    shape = list(x._data.shape)
    if len(shape) != 4:
        raise op_error("maxout", f"x must be a 4-D tensor, got shape {shape}")
    if axis not in (1, -1, 3):
        raise op_error("maxout", f"axis must be 1, 3 or -1, got {axis}")
    axis %= 4
    if not isinstance(groups, (int, np.integer)) or groups <= 0 or shape[axis] % groups:
        raise op_error("maxout", f"groups must be a positive divisor of the channel count "
                       f"{shape[axis]}, got {groups}")
    grouped = shape[:axis] + [shape[axis] // groups, int(groups)] + shape[axis + 1:]
    grouped[0] = -1  # (a static program's batch is free)
    return amax(reshape(x, grouped), axis=axis + 1)


def _rrelu_draws(x, lower=1.0 / 8.0, upper=1.0 / 3.0, training=True, name=None):
    return bool(training)


@captured_whole(when=_rrelu_draws)
def rrelu(x, lower=1.0 / 8.0, upper=1.0 / 3.0, training=True, name=None):
    """Randomized leaky ReLU: x for x >= 0, a * x otherwise, with a drawn uniformly from
    [lower, upper] per element while training and (lower + upper) / 2 at inference.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.rrelu(dygraph.to_tensor([-1.0, 2.0]), 0.2, 0.4, training=False).numpy()
        array([-0.3,  2. ], dtype=float32)
    """
    for label, v in (("lower", lower), ("upper", upper)):
        if not isinstance(v, (int, float, np.floating, np.integer)) or not 0.0 <= v <= 1.0:
            raise op_error("rrelu", f"{label} must be a number in [0, 1], got {v!r}")
    if lower > upper:
        raise op_error("rrelu", f"lower must not exceed upper, got lower={lower}, "
                       f"upper={upper}")
    x = float_operand(x, "rrelu")
    if not training:
        return _act.leaky_relu(x, (lower + upper) / 2.0)
    from dygraph.backend import device_random

    # On a GPU the slopes are drawn there (backend/device_random.py).
    slope = device_random.draw_like(x._data, "uniform", lower, upper)
    if slope is None:
        slope = rng().uniform(lower, upper, x._data.shape).astype(x._data.dtype)
        if type(x._data) is not np.ndarray:
            slope = xp_of(x._data).asarray(slope)
    slope_t = _new_tensor(slope, None, 0, True)
    return maximum(x, 0.0) + slope_t * minimum(x, 0.0)


def swiglu(x, y=None, name=None):
    """silu(x) * y; with y None, x is split in half along its last axis into (x, y).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.swiglu(dygraph.to_tensor([[0.0, 1.0, 5.0, 2.0]])).numpy().round(4)
        array([[0.    , 1.4621]], dtype=float32)
    """
    x = float_operand(x, "swiglu")
    if y is None:
        if not x._data.ndim or x._data.shape[-1] % 2:
            raise op_error("swiglu", f"without y, x must have an even last dim, got shape "
                           f"{list(x._data.shape)}")
        x, y = split(x, 2, axis=-1)
    else:
        y = float_operand(y, "swiglu")
    return _act.silu(x) * y

