"""Regression and probability losses: mse_loss, l1_loss, smooth_l1_loss,
binary_cross_entropy, binary_cross_entropy_with_logits and kl_div.

The two binary cross entropies take an input and a label of one shape, as Paddle's: a
label of [N] against an input of [N, 1] would otherwise broadcast to an [N, N] loss and
train on it. mse_loss broadcasts as Paddle's does, with a warning (as PyTorch's) when the
label widens the loss beyond the input's shape.

Most are a few elementwise ops and a reduction, so their gradients (and double gradients)
come from those ops. binary_cross_entropy is one op: its logarithms are floored at -100
as in Paddle, and a composed form would give 0 * inf = nan gradients at probabilities of
exactly 0 or 1.
"""

import math
import os
import sys
import warnings

import numpy as np

from dygraph.autograd.function import Op, apply
from dygraph.backend import capturing, defer_check, min_max
from dygraph.framework.errors import op_error
from dygraph.framework.kernel_dtypes import refuse_dtypes
from dygraph.ops.activation.smooth import log_sigmoid
from dygraph.ops.common import as_tensor, binary_operands, float_operand
from dygraph.ops.creation import constructors as _creation
from dygraph.ops.loss.common import check_reduction, reduce_loss
from dygraph.ops.manipulation.args import xp_of
from dygraph.ops.reduction import reduce as _reduction
from dygraph.ops.reduction.axes import constant
from dygraph.ops.unary import core as _unary
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["mse_loss", "l1_loss", "smooth_l1_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "kl_div"]

# log(p) is floored at -100 (Paddle's and PyTorch's convention), i.e. at p = e**-100.
_LOG_FLOOR = -100.0
_P_FLOOR = math.exp(_LOG_FLOOR)


# The dygraph package: warnings are issued at the first frame outside it (the user's line).
_PKG_DIR = os.path.dirname(os.path.abspath(sys.modules["dygraph"].__file__))


def _operands(input, label, op):
    x, y = binary_operands(float_operand(input, op), label, op)
    return x, float_operand(y, op)


def _is_int_tensor(t):
    return isinstance(t, Tensor) and t._data.dtype.kind in "iu"


def squared_error_operands(input, label, op):
    """input and label of a squared-error loss: two integer tensors stay integers (Paddle
    computes (input - label) ** 2 in their dtype), anything else is made float."""
    if _is_int_tensor(input) and _is_int_tensor(label):
        return binary_operands(input, label, op)
    return _operands(input, label, op)


def _integer_mean(loss):
    """Paddle's mean of an integer loss: the mean truncated toward zero, in the loss's dtype
    (0 for an empty loss, whose Paddle mean is a NaN cast to an integer). Integers carry no
    gradient, so it is computed on the array."""
    data = loss._data
    total, n = int(data.sum(dtype=np.int64)), data.size
    mean = abs(total) // n if n else 0
    value = mean if total >= 0 else -mean
    return _new_tensor(xp_of(data).asarray(value, dtype=data.dtype), None, 0, True)


def check_same_shape(x, y, op):
    """Raise unless input `x` and label `y` have one shape (a free -1 static dimension
    matches any size), as Paddle does for the binary cross entropies."""
    xs, ys = list(x.shape), list(y.shape)
    if len(xs) == len(ys) and all(a == b or -1 in (a, b) for a, b in zip(xs, ys)):
        return
    out = _broadcast_shape(xs, ys)
    hint = f" (broadcasting them would give a loss of shape {out})" if out else ""
    raise op_error(op, f"input shape {xs} and label shape {ys} differ; they must be "
                   f"equal{hint}. Reshape the label to {xs}")


def _broadcast_shape(a, b):
    """The broadcast of shapes `a` and `b` (a -1 static dimension is free), or None when
    they do not broadcast."""
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        p = a[-i] if i <= len(a) else 1
        q = b[-i] if i <= len(b) else 1
        if p == q or q == 1 or (q == -1 and p != 1):
            out.append(p)
        elif p in (1, -1):
            out.append(q)
        else:
            return None
    return out[::-1]


def _warn_if_label_widens(x, y, op):
    """UserWarning when broadcasting label `y` against input `x` gives a loss of another
    shape than the input's ([N, 1] against [N] gives [N, N]): almost always a label of
    the wrong shape. Labels that broadcast into the input's shape ([N, C] against [C])
    are left alone."""
    xs, ys = list(x.shape), list(y.shape)
    out = _broadcast_shape(xs, ys)
    if out is None or out == xs:
        return
    frame, level = sys._getframe(0), 1
    while frame is not None and \
            os.path.abspath(frame.f_code.co_filename).startswith(_PKG_DIR + os.sep):
        frame, level = frame.f_back, level + 1
    warnings.warn(f"{op}: label shape {ys} differs from input shape {xs} and broadcasting "
                  f"gives a loss of shape {out}, which is likely wrong; give the label the "
                  f"input's shape {xs}", UserWarning, stacklevel=level)


def mse_loss(input, label, reduction="mean", name=None):
    """Squared error (input - label)**2, reduced. A label that broadcasts the loss to
    another shape than the input's ([N] against [N, 1]) gives a UserWarning. Two integer
    tensors give an integer loss, as in Paddle (the mean truncated toward zero; the sum is
    int64).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.mse_loss(dygraph.to_tensor([1.0, 3.0]), dygraph.to_tensor([0.0, 0.0])).numpy()
        array(5., dtype=float32)
    """
    check_reduction(reduction, "mse_loss")
    x, y = squared_error_operands(input, label, "mse_loss")
    _warn_if_label_widens(x, y, "mse_loss")
    loss = _unary.square(x - y)
    if reduction == "mean" and loss._data.dtype.kind in "iu":
        return _integer_mean(loss)
    return reduce_loss(loss, reduction)


def l1_loss(input, label, reduction="mean", name=None):
    """Absolute error |input - label|, reduced.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.l1_loss(dygraph.to_tensor([1.0, -3.0]), dygraph.to_tensor([0.0, 0.0])).numpy()
        array(2., dtype=float32)
    """
    check_reduction(reduction, "l1_loss")
    if reduction == "mean":  # Paddle's mean has no integer kernel
        refuse_dtypes("l1_loss", as_tensor(input, "l1_loss"), ("int32", "int64"),
                      " with reduction='mean'")
    x, y = _operands(input, label, "l1_loss")
    return reduce_loss(_unary.abs(x - y), reduction)


def smooth_l1_loss(input, label, reduction="mean", delta=1.0, is_huber=True, name=None):
    """Huber loss: 0.5 * d**2 where |d| < delta, delta * (|d| - 0.5 * delta) elsewhere,
    with d = input - label; with is_huber=False the smooth L1 loss, the Huber loss divided
    by delta. input and label must have one shape.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x = dygraph.to_tensor([0.5, 3.0])
        >>> F.smooth_l1_loss(x, dygraph.zeros([2]), reduction='none').numpy()
        array([0.125, 2.5  ], dtype=float32)
    """
    check_reduction(reduction, "smooth_l1_loss")
    x, y = _operands(input, label, "smooth_l1_loss")
    check_same_shape(x, y, "smooth_l1_loss")
    d = x - y
    ad = _unary.abs(d)
    loss = _unary.where(ad < delta, 0.5 * d * d, delta * ad - 0.5 * delta * delta)
    if not is_huber:
        loss = loss / float(delta)
    return reduce_loss(loss, reduction)


def _outside_unit(p):
    """Whether some probability of `p` lies outside [0, 1]: one read of its min and max
    (inside a CUDA graph none: a device flag checked after the run, and False now)."""
    if capturing():
        defer_check(((p < 0) | (p > 1)).any(), lambda: op_error(
            "binary_cross_entropy", "input holds probabilities and must lie in [0, 1]"))
        return False
    low, high = min_max(p)
    return low < 0 or high > 1


class BinaryCrossEntropy(Op):
    """-(y * log(p) + (1 - y) * log(1 - p)) with each log floored at -100."""

    save_inputs = True

    def forward(self, xp, p, y):
        if p.size and _outside_unit(p):
            raise op_error("binary_cross_entropy", "input holds probabilities and must lie "
                           f"in [0, 1], got values in [{p.min()}, {p.max()}]")
        q = 1.0 - p
        self.kp, self.kq = p > _P_FLOOR, q > _P_FLOOR
        with np.errstate(divide="ignore"):
            lp = xp.maximum(xp.log(p), _LOG_FLOOR)
            lq = xp.maximum(xp.log(q), _LOG_FLOOR)
        return -(y * lp + (1.0 - y) * lq)

    def backward(self, m, g):
        p, y = self.x(0, m), self.x(1, m)
        kp, kq = constant(m, self.kp), constant(m, self.kq)
        one = m.ones_like(p)
        # Where a log is floored its derivative is 0; the safe operand keeps 1/p finite.
        p_safe = m.where(kp, p, one)
        q_safe = m.where(kq, 1.0 - p, one)
        gp = gy = None
        if self.edges[0] is not None:
            gp = g * ((1.0 - y) / q_safe * kq - y / p_safe * kp)
        if self.edges[1] is not None:
            floor = m.ones_like(p) * _LOG_FLOOR
            lp = m.where(kp, m.log(p_safe), floor)
            lq = m.where(kq, m.log(q_safe), floor)
            gy = g * (lq - lp)
        return gp, gy


def binary_cross_entropy(input, label, weight=None, reduction="mean", name=None):
    """Binary cross entropy on probabilities `input` in [0, 1]; log terms are floored at
    -100. `input` and `label` must have one shape (ValueError otherwise); `weight`
    rescales each element (it broadcasts against the input).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> p = dygraph.to_tensor([0.5, 0.5])
        >>> round(float(F.binary_cross_entropy(p, dygraph.to_tensor([1.0, 0.0]))), 4)
        0.6931
    """
    op = "binary_cross_entropy"
    check_reduction(reduction, op)
    p, y = _operands(input, label, op)
    check_same_shape(p, y, op)
    loss = apply(BinaryCrossEntropy(), p, y)
    if weight is not None:
        loss = loss * as_tensor(weight, op)
    return reduce_loss(loss, reduction)


def binary_cross_entropy_with_logits(logit, label, weight=None, reduction="mean",
                                     pos_weight=None, name=None):
    """Sigmoid + binary cross entropy in one stable formula:
    (1 - y) * x + (1 + (pos_weight - 1) * y) * log(1 + exp(-x)). `pos_weight` weighs the
    positive term per class; `weight` rescales each element. `logit` and `label` must
    have one shape (ValueError otherwise).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> z = dygraph.to_tensor([0.0, 0.0])
        >>> round(float(F.binary_cross_entropy_with_logits(z, dygraph.ones([2]))), 4)
        0.6931
    """
    op = "binary_cross_entropy_with_logits"
    check_reduction(reduction, op)
    x, y = _operands(logit, label, op)
    check_same_shape(x, y, op)
    neg_log_sig = -log_sigmoid(x)  # log(1 + exp(-x)), without overflow
    if pos_weight is not None:
        pw = float_operand(as_tensor(pos_weight, op), op)
        loss = (1.0 - y) * x + (1.0 + (pw - 1.0) * y) * neg_log_sig
    else:
        loss = (1.0 - y) * x + neg_log_sig
    if weight is not None:
        loss = loss * as_tensor(weight, op)
    return reduce_loss(loss, reduction)


def kl_div(input, label, reduction="mean", log_target=False, name=None):
    """Kullback-Leibler divergence with `input` in log space: label * (log(label) - input),
    0 where label <= 0; with log_target=True the label is in log space too:
    exp(label) * (label - input). 'batchmean' divides the sum by the batch size.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> logp = dygraph.log(dygraph.to_tensor([[0.5, 0.5]]))
        >>> F.kl_div(logp, dygraph.to_tensor([[0.5, 0.5]]), reduction='sum').numpy()
        array(0., dtype=float32)
    """
    op = "kl_div"
    check_reduction(reduction, op, ("none", "mean", "sum", "batchmean"))
    x, y = _operands(input, label, op)
    check_same_shape(x, y, op)
    if log_target:
        loss = _unary.exp(y) * (y - x)
    else:
        positive = y > 0
        # log(label) only where label > 0: the other branch would give nan gradients.
        safe = _unary.where(positive, y, _creation.ones_like(y))
        kl = y * (_unary.log(safe) - x)
        loss = _unary.where(positive, kl, _creation.zeros_like(kl))
    if reduction == "batchmean":
        batch = x._data.shape[0] if x._data.ndim else 1
        return _reduction.sum(loss) / float(max(batch, 1))
    return reduce_loss(loss, reduction)
