"""Activations over an axis, for dygraph.nn.functional: softmax, log_softmax,
gumbel_softmax and glu.

softmax and log_softmax are hot in training: one pass of NumPy forward (after subtracting
the maximum, so exp never overflows) and a closed-form backward from the saved output. On a
GPU, along the last axis, each is one kernel (dygraph/kernels/cuda/softmax_rows.py).
"""

import numpy as np

from dygraph.autograd.function import Op, apply
from dygraph.autograd.whole_call import captured_whole
from dygraph.backend import is_gpu_array
from dygraph.backend.workspace import POOLED_SIZE, workspace
from dygraph.framework import random as _random
from dygraph.framework.errors import op_error
from dygraph.kernels.cuda import softmax_rows as rows
from dygraph.ops.activation.smooth import sigmoid
from dygraph.ops.common import cast, check_axis, float_operand
from dygraph.tensor.tensor import _new_tensor

__all__ = ["softmax", "log_softmax", "gumbel_softmax", "glu"]
NONDIFF = set()


class Softmax(Op):
    attrs = ("axis",)

    save_output = True

    def __init__(self, axis):
        self.axis = axis  # None for a 0-d input

    def forward(self, xp, x):
        if x.ndim == 0:
            return xp.ones_like(x)
        if is_gpu_array(x) and rows.applies(x, self.axis):
            return rows.softmax_rows(xp, x)
        peak = x.max(axis=self.axis, keepdims=True)
        # A big result reuses workspace memory (backend/workspace.py).
        e = (x - peak if x.size < POOLED_SIZE else
             xp.subtract(x, peak, out=workspace.result(xp, x.shape, x.dtype)))
        xp.exp(e, out=e)
        e /= e.sum(axis=self.axis, keepdims=True)
        return e

    def backward(self, m, g):
        y = self.y(m)
        if not m.tensor_mode and is_gpu_array(y) and rows.applies(y, self.axis):
            dx = rows.softmax_rows_grad(m.xp, y, g)
            if dx is not None:
                return (dx,)
        gy = g * y
        return (gy - y * m.sum(gy, axis=self.axis, keepdims=True),)


class LogSoftmax(Op):
    attrs = ("axis",)

    save_output = True

    def __init__(self, axis):
        self.axis = axis

    def forward(self, xp, x):
        if x.ndim == 0:
            return xp.zeros_like(x)
        if is_gpu_array(x) and rows.applies(x, self.axis):
            return rows.softmax_rows(xp, x, log=True)
        shifted = x - x.max(axis=self.axis, keepdims=True)
        shifted -= xp.log(xp.exp(shifted).sum(axis=self.axis, keepdims=True))
        return shifted

    def backward(self, m, g):
        y = self.y(m)
        if not m.tensor_mode and is_gpu_array(y) and rows.applies(y, self.axis):
            dx = rows.softmax_rows_grad(m.xp, y, g, log=True)
            if dx is not None:
                return (dx,)
        return (g - m.exp(y) * m.sum(g, axis=self.axis, keepdims=True),)


class OneHotStraightThrough(Op):
    """The one-hot of the argmax along `axis`; the gradient passes through unchanged (the
    straight-through estimator of hard gumbel_softmax)."""

    attrs = ("axis",)

    def __init__(self, axis):
        self.axis = axis

    def forward(self, xp, y):
        index = y.argmax(axis=self.axis)
        positions = xp.arange(y.shape[self.axis]).reshape(
            [-1 if d == self.axis else 1 for d in range(y.ndim)])
        return (positions == xp.expand_dims(index, self.axis)).astype(y.dtype)

    def backward(self, m, g):
        return (g,)


def _prepare(x, axis, dtype, op):
    x = float_operand(x, op)
    if dtype is not None:
        x = cast(x, dtype)
    ndim = x._data.ndim
    return x, (check_axis(axis, ndim, op) if ndim else None)


def softmax(x, axis=-1, dtype=None, name=None):
    """exp(x) / sum(exp(x)) along `axis`; with `dtype`, x is cast to it first.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.softmax(dygraph.to_tensor([0.0, 0.0])).numpy()
        array([0.5, 0.5], dtype=float32)
    """
    x, axis = _prepare(x, axis, dtype, "softmax")
    return apply(Softmax(axis), x)


def log_softmax(x, axis=-1, dtype=None, name=None):
    """log(softmax(x)) along `axis`, computed stably as x - max - log(sum(exp(x - max))).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.log_softmax(dygraph.to_tensor([1000.0, 1000.0])).numpy()
        array([-0.6931472, -0.6931472], dtype=float32)
    """
    x, axis = _prepare(x, axis, dtype, "log_softmax")
    return apply(LogSoftmax(axis), x)


@captured_whole
def gumbel_softmax(x, temperature=1.0, hard=False, axis=-1, name=None):
    """softmax((x + g) / temperature) along `axis`, g drawn from Gumbel(0, 1) with the
    global generator (`dygraph.seed`). With hard=True the result is the one-hot of its
    argmax, and the gradient is that of the soft sample (straight-through).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> out = F.gumbel_softmax(dygraph.to_tensor([[1.0, 2.0, 3.0]]), hard=True)
        >>> float(out.sum())
        1.0
    """
    if not temperature > 0:
        raise op_error("gumbel_softmax", f"temperature must be positive, got {temperature}")
    x, axis = _prepare(x, axis, None, "gumbel_softmax")
    data = x._data
    draw_dtype = data.dtype if data.dtype in (np.float32, np.float64) else np.float32
    from dygraph.backend import device_random, get_array_module, place_of

    # On a GPU the uniform draws are made there (backend/device_random.py).
    uniform = device_random.draw(place_of(data), "uniform", data.shape, draw_dtype, 0.0, 1.0)
    if uniform is None:
        uniform = _random.rng().random(data.shape, dtype=draw_dtype)
    xp = get_array_module(uniform)
    # A draw of exactly 0 would give -inf noise; the smallest normal float is as good.
    xp.maximum(uniform, np.finfo(draw_dtype).tiny, out=uniform)
    noise = -xp.log(-xp.log(uniform))
    if type(data) is not np.ndarray and xp is np:
        noise = get_array_module(data).asarray(noise)
    noisy = x + _new_tensor(noise.astype(data.dtype, copy=False), None, 0, True)
    if temperature != 1:
        noisy = noisy / float(temperature)
    y = apply(Softmax(axis), noisy)
    if hard and axis is not None:
        y = apply(OneHotStraightThrough(axis), y)
    return y


def glu(x, axis=-1, name=None):
    """Gated linear unit: split x in halves a, b along `axis` (its size must be even) and
    return a * sigmoid(b).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.glu(dygraph.to_tensor([[2.0, 0.0]])).numpy()
        array([[1.]], dtype=float32)
    """
    x = float_operand(x, "glu")
    shape = x._data.shape
    if not shape:
        raise op_error("glu", "expected a Tensor with at least one dimension, got a 0-d one")
    axis = check_axis(axis, len(shape), "glu")
    if shape[axis] % 2:
        raise op_error("glu", f"the size of axis {axis} must be even, got shape "
                       f"{list(shape)}")
    half = shape[axis] // 2
    lead = (slice(None),) * axis
    return x[lead + (slice(0, half),)] * sigmoid(x[lead + (slice(half, None),)])
