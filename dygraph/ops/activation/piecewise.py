"""The activation ops of dygraph.nn.functional (Paddle's paddle.nn.functional activations).

This module holds the piecewise-linear ones (relu and its relatives, the hard* and *shrink
functions, prelu) and gathers the smooth ones (ops/activation/smooth.py) and the ones over an
axis (ops/activation/softmax.py) into one family. Piecewise-linear gradients are masks computed
from the saved input or output, so they stay correct (with zero second derivative) under
create_graph. Selections are written with max/min/clip and products with masks rather than
`where`, which NumPy runs several times slower on unpredictable masks.
"""

import numpy as np

from dygraph.autograd.function import Op, apply
from dygraph.backend import compiled
from dygraph.backend.workspace import POOLED_SIZE, workspace
from dygraph.framework.errors import AssertedValueError, op_error
from dygraph.kernels.cuda import activations as cuda_activations
from dygraph.ops.activation import smooth as activation_smooth
from dygraph.ops.activation import softmax as activation_softmax
from dygraph.ops.activation.scalar_max import maximum_scalar
from dygraph.ops.activation.smooth import *  # noqa: F401,F403
from dygraph.ops.activation.softmax import *  # noqa: F401,F403
from dygraph.ops.common import float_operand
from dygraph.ops.inplace import run_inplace
from dygraph.ops.manipulation.shape import reshape
from dygraph.ops.unary.core import tanh

__all__ = ["relu", "relu_", "relu6", "leaky_relu", "hardtanh", "hardshrink", "softshrink",
           "thresholded_relu", "hardsigmoid", "hardswish", "prelu", "tanh",
           *activation_smooth.__all__, *activation_softmax.__all__]
NONDIFF = set()

_CHANNEL_FIRST = ("NC", "NCL", "NCHW", "NCDHW")
_CHANNEL_LAST = ("NLC", "NHWC", "NDHWC")


class Relu(Op):
    save_output = True

    def forward(self, xp, x):
        if x.size >= POOLED_SIZE:  # big results reuse workspace memory (backend/workspace.py)
            return maximum_scalar(xp, x, 0, workspace.result(xp, x.shape, x.dtype))
        return xp.maximum(x, 0)

    def backward(self, m, g):
        y = self.y(m)
        if not m.tensor_mode and g.shape == y.shape and m.xp is not np:
            return (cuda_activations.relu_grad(g, y),)  # the GPU: one kernel
        if m.tensor_mode or g.size < POOLED_SIZE or g.shape != y.shape:
            return (g * (y > 0),)
        xp = m.xp
        kernel = compiled.kernels("masks", xp, g, y)
        if kernel is not None and compiled.flat_alike(g, y):
            return (kernel.relu_grad(g, y, workspace.output(xp, g.shape, g.dtype)),)
        mask = xp.greater(y, 0, out=workspace.take(xp, y.shape, bool))
        grad = xp.multiply(g, mask, out=workspace.output(xp, g.shape, g.dtype))
        workspace.give(mask)
        return (grad,)


class Relu6(Op):
    save_inputs = True

    def forward(self, xp, x):
        if x.size >= POOLED_SIZE:  # big results reuse workspace memory (backend/workspace.py)
            return xp.clip(x, 0, 6, out=workspace.result(xp, x.shape, x.dtype))
        return xp.clip(x, 0, 6)

    def backward(self, m, g):
        x = self.x(0, m)
        if not m.tensor_mode and g.shape == x.shape and m.xp is not np:
            return (cuda_activations.relu6_grad(g, x),)  # the GPU: one kernel
        if m.tensor_mode or g.size < POOLED_SIZE or g.shape != x.shape:
            return (g * ((x > 0) & (x < 6)),)
        xp = m.xp
        kernel = compiled.kernels("masks", xp, g, x)
        if kernel is not None and compiled.flat_alike(g, x):
            return (kernel.relu6_grad(g, x, workspace.output(xp, g.shape, g.dtype)),)
        inside = xp.greater(x, 0, out=workspace.take(xp, x.shape, bool))
        below = xp.less(x, 6, out=workspace.take(xp, x.shape, bool))
        inside &= below
        grad = xp.multiply(g, inside, out=workspace.output(xp, g.shape, g.dtype))
        workspace.give(inside)
        workspace.give(below)
        return (grad,)


class LeakyRelu(Op):
    attrs = ("slope",)

    save_inputs = True

    def __init__(self, slope):
        self.slope = slope

    def forward(self, xp, x):
        return xp.maximum(x, 0) + self.slope * xp.minimum(x, 0)

    def backward(self, m, g):
        positive = g * (self.x(0, m) > 0)
        return (positive + (g - positive) * self.slope,)


class Hardtanh(Op):
    attrs = ("high", "low")

    save_inputs = True

    def __init__(self, low, high):
        self.low = low
        self.high = high

    def forward(self, xp, x):
        return xp.clip(x, self.low, self.high)

    def backward(self, m, g):
        x = self.x(0, m)
        return (g * ((x > self.low) & (x < self.high)),)


class Shrink(Op):
    """hardshrink (soft=False): x where |x| > t, else 0; softshrink (soft=True): x moved
    toward 0 by t where |x| > t, else 0. Both pass the gradient where |x| > t."""

    attrs = ("soft", "threshold")

    save_inputs = True

    def __init__(self, threshold, soft):
        self.threshold = threshold
        self.soft = soft

    def forward(self, xp, x):
        t = self.threshold
        if self.soft:
            return x - xp.clip(x, -t, t)
        return x * (xp.abs(x) > t)

    def backward(self, m, g):
        return (g * (m.abs(self.x(0, m)) > self.threshold),)


class ThresholdedRelu(Op):
    attrs = ("threshold", "value")

    save_inputs = True

    def __init__(self, threshold, value):
        self.threshold = threshold
        self.value = value

    def forward(self, xp, x):
        above = x > self.threshold
        if self.value == 0:
            return x * above
        return xp.where(above, x, self.value)

    def backward(self, m, g):
        return (g * (self.x(0, m) > self.threshold),)


class Hardsigmoid(Op):
    attrs = ("offset", "slope")

    save_inputs = True

    def __init__(self, slope, offset):
        self.slope = slope
        self.offset = offset

    def forward(self, xp, x):
        return xp.clip(x * self.slope + self.offset, 0, 1)

    def backward(self, m, g):
        z = self.x(0, m) * self.slope + self.offset
        return (g * ((z > 0) & (z < 1)) * self.slope,)


class Hardswish(Op):
    save_inputs = True

    def forward(self, xp, x):
        return x * xp.clip(x + 3, 0, 6) / 6

    def backward(self, m, g):
        x = self.x(0, m)
        # d/dx x (x + 3) / 6 = x / 3 + 1/2 on (-3, 3); 1 above, 0 below.
        middle = g * (x * (1.0 / 3.0) + 0.5) * ((x > -3) & (x < 3))
        return (g * (x >= 3) + middle,)


class Prelu(Op):
    """max(0, x) + w * min(0, x) with w already shaped to broadcast against x."""

    save_inputs = True

    def forward(self, xp, x, w):
        return xp.maximum(x, 0) + w * xp.minimum(x, 0)

    def backward(self, m, g):
        x = self.x(0, m)
        gx = gw = None
        if self.edges[0] is not None:
            positive = g * (x > 0)
            gx = positive + (g - positive) * self.x(1, m)
        if self.edges[1] is not None:
            gw = g * m.minimum(x, 0)
        return gx, gw


def relu(x, name=None):
    """max(0, x), elementwise.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.relu(dygraph.to_tensor([-1.0, 2.0])).numpy()
        array([0., 2.], dtype=float32)
    """
    return apply(Relu(), float_operand(x, "relu"))


def relu_(x, name=None):
    """In-place relu: x's values are replaced by max(0, x); returns x.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> t = dygraph.to_tensor([-1.0, 2.0])
        >>> _ = F.relu_(t); t.numpy()
        array([0., 2.], dtype=float32)
    """
    return run_inplace("relu_", relu, x)


def relu6(x, name=None):
    """min(max(0, x), 6), elementwise.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.relu6(dygraph.to_tensor([-1.0, 8.0])).numpy()
        array([0., 6.], dtype=float32)
    """
    return apply(Relu6(), float_operand(x, "relu6"))


def leaky_relu(x, negative_slope=0.01, name=None):
    """x for x > 0, negative_slope * x otherwise.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.leaky_relu(dygraph.to_tensor([-2.0, 1.0]), 0.5).numpy()
        array([-1.,  1.], dtype=float32)
    """
    return apply(LeakyRelu(float(negative_slope)), float_operand(x, "leaky_relu"))


def hardtanh(x, min=-1.0, max=1.0, name=None):  # noqa: A002 - Paddle's argument names
    """x clamped into [min, max].

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.hardtanh(dygraph.to_tensor([-3.0, 0.5])).numpy()
        array([-1. ,  0.5], dtype=float32)
    """
    return apply(Hardtanh(float(min), float(max)), float_operand(x, "hardtanh"))


def hardshrink(x, threshold=0.5, name=None):
    """x where |x| > threshold, 0 otherwise.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.hardshrink(dygraph.to_tensor([-1.0, 0.3])).numpy()
        array([-1.,  0.], dtype=float32)
    """
    return apply(Shrink(float(threshold), False), float_operand(x, "hardshrink"))


def softshrink(x, threshold=0.5, name=None):
    """x - threshold above threshold, x + threshold below -threshold, 0 between;
    threshold must be >= 0.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.softshrink(dygraph.to_tensor([-1.0, 0.3, 2.0])).numpy()
        array([-0.5,  0. ,  1.5], dtype=float32)
    """
    if threshold < 0:
        raise op_error("softshrink", f"threshold must be no less than 0, got {threshold}")
    return apply(Shrink(float(threshold), True), float_operand(x, "softshrink"))


def thresholded_relu(x, threshold=1.0, value=0.0, name=None):
    """x where x > threshold, `value` otherwise.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.thresholded_relu(dygraph.to_tensor([2.0, 0.0, 1.0])).numpy()
        array([2., 0., 0.], dtype=float32)
    """
    return apply(ThresholdedRelu(float(threshold), float(value)),
                 float_operand(x, "thresholded_relu"))


def hardsigmoid(x, slope=0.1666667, offset=0.5, name=None):
    """max(0, min(1, slope * x + offset)).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.hardsigmoid(dygraph.to_tensor([-4.0, 0.0, 4.0])).numpy()
        array([0. , 0.5, 1. ], dtype=float32)
    """
    return apply(Hardsigmoid(float(slope), float(offset)), float_operand(x, "hardsigmoid"))


def hardswish(x, name=None):
    """x * min(max(0, x + 3), 6) / 6: 0 below -3, x above 3.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.hardswish(dygraph.to_tensor([-4.0, 5.0, 1.0])).numpy().round(4)
        array([-0.    ,  5.    ,  0.6667], dtype=float32)
    """
    return apply(Hardswish(), float_operand(x, "hardswish"))


def prelu(x, weight, data_format="NCHW", name=None):
    """max(0, x) + weight * min(0, x); weight has 1 element (shared) or one per channel,
    the channel axis being 1 for data_format 'NC', 'NCL', 'NCHW', 'NCDHW' and the last
    for 'NLC', 'NHWC', 'NDHWC'.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x = dygraph.to_tensor([[-2.0, 3.0], [-4.0, 5.0]])
        >>> F.prelu(x, dygraph.to_tensor([0.25])).numpy()
        array([[-0.5,  3. ],
               [-1. ,  5. ]], dtype=float32)
    """
    # the weight first: Paddle asserts its rank before it looks at x
    weight = float_operand(weight, "prelu")
    if weight._data.ndim > 1:
        raise op_error("prelu", f"weight must be 0-D or 1-D, got shape {weight.shape}",
                       AssertedValueError)
    x = float_operand(x, "prelu")
    if data_format not in _CHANNEL_FIRST + _CHANNEL_LAST:
        raise op_error("prelu", f"data_format must be one of "
                       f"{list(_CHANNEL_FIRST + _CHANNEL_LAST)}, got {data_format!r}")
    shape = x._data.shape
    size = weight._data.size
    if size == 1:
        w = reshape(weight, [])
    else:
        channel = 1 if data_format in _CHANNEL_FIRST else len(shape) - 1
        if len(shape) < 2 or shape[channel] != size:
            raise op_error("prelu", f"weight has {size} elements but x of shape {list(shape)} "
                           f"has {shape[channel] if len(shape) >= 2 else 'no'} channels on "
                           f"axis {channel} ({data_format}); expected 1 or one per channel",
                           AssertedValueError)  # (Paddle asserts it)
        broadcast = [1] * len(shape)
        broadcast[channel] = size
        w = reshape(weight, broadcast)
    if w._data.dtype != x._data.dtype:
        raise op_error("prelu", f"weight dtype {w._data.dtype} differs from x dtype "
                       f"{x._data.dtype}", TypeError)
    return apply(Prelu(), x, w)
