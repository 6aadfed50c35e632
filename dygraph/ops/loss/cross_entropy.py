"""Class losses: cross_entropy, softmax_with_cross_entropy and nll_loss.

cross_entropy runs in the training step of every classifier, so its usual form (logits,
constant labels) is one fused op: log-softmax, pick at the label, weight and reduce in
the forward; (softmax - onehot) * coef in the backward, from the softmax saved by the
forward. On a GPU, classes on the last axis, each way is one kernel
(dygraph/kernels/cuda/cross_entropy_rows.py). Under create_graph the backward recomputes
the softmax with ops, so the gradient is differentiable again. Rare forms (probabilities
as input, soft labels that need a gradient) are composed of ops.
"""

import numpy as np

from dygraph.autograd import grad_mode
from dygraph.autograd.function import Op, apply
from dygraph.autograd.whole_call import captured_whole
from dygraph.backend import capturing, is_gpu_array
from dygraph.framework.errors import describe, op_error
from dygraph.kernels.cuda import cross_entropy_rows as ce_rows
from dygraph.ops.activation.softmax import log_softmax, softmax
from dygraph.ops.common import as_tensor, check_axis, float_operand
from dygraph.ops.loss.common import (
    ClassLoss,
    Targets,
    check_reduction,
    class_weight_array,
    hard_weights,
    keep_shape,
)
from dygraph.ops.reduction import reduce as _reduction
from dygraph.ops.reduction.axes import constant
from dygraph.ops.unary import core as _unary
from dygraph.tensor.tensor import _new_tensor

__all__ = ["cross_entropy", "softmax_with_cross_entropy", "nll_loss"]


class _PickLoss(ClassLoss):
    """A class loss whose targets are class indices (`index`, keepdim shape)."""

    attrs = ("index",)

    def __init__(self, axis, index, weights, denom, reduction, out_shape):
        super().__init__(axis, weights, denom, reduction, out_shape)
        self.index = index
        self.rows = None

    def pick(self, xp, a):
        """a[..., label, ...] along the class axis, keepdim shape."""
        if a.ndim == 2 and self.axis == 1:
            # Fancy indexing on rows is the fastest pick for the common [N, C] case.
            self.rows = xp.arange(a.shape[0])
            self.flat = self.index.reshape(-1)
            return a[self.rows, self.flat].reshape(-1, 1)
        return xp.take_along_axis(a, self.index, self.axis)

    def add_at_label(self, m, grad, c, sign):
        """grad + sign * onehot * c, in place on the array `grad` (plain backward)."""
        if self.rows is not None:
            grad[self.rows, self.flat] += sign * (c.reshape(-1) if c.ndim else c)
            return grad
        grad += sign * self.onehot(m.xp, self.index, grad.shape, grad.dtype) * c
        return grad


class SoftmaxCrossEntropy(_PickLoss):
    """-log_softmax(x)[label] (hard) or -sum(soft * log_softmax(x)) (constant soft labels),
    weighted and reduced, as one node."""

    attrs = ("soft",)

    save_inputs = True

    def __init__(self, axis, index, soft, weights, denom, reduction, out_shape):
        super().__init__(axis, index, weights, denom, reduction, out_shape)
        self.soft = soft

    def forward(self, xp, x):
        axis = self.axis
        self.keep = keep_shape(x.shape, axis)
        if self.soft is None and is_gpu_array(x) and ce_rows.applies(x, self.index, axis):
            self.prob, per = ce_rows.cross_entropy_rows(xp, x, self.index)  # one kernel
            return self.finish(xp, per)
        shifted = x - x.max(axis=axis, keepdims=True)
        e = xp.exp(shifted)
        s = e.sum(axis=axis, keepdims=True)
        log_s = xp.log(s)
        if self.soft is None:
            per = log_s - self.pick(xp, shifted)
        else:
            soft = self.soft = self.soft.astype(x.dtype, copy=False)
            per = (soft * (log_s - shifted)).sum(axis=axis, keepdims=True)
            self.soft_sum = soft.sum(axis=axis, keepdims=True)
        e /= s
        self.prob = e
        return self.finish(xp, per)

    def backward(self, m, g):
        c = self.coef(m, g)
        p = softmax(self.x(0, m), self.axis) if m.tensor_mode else self.prob
        if self.soft is not None:
            return ((p * constant(m, self.soft_sum) - constant(m, self.soft)) * c,)
        if m.tensor_mode:
            onehot = self.onehot(_xp_of(self.prob), self.index, self.prob.shape,
                                 self.prob.dtype)
            return ((p - constant(m, onehot)) * c,)
        if is_gpu_array(p) and ce_rows.applies(p, self.index, self.axis):
            dx = ce_rows.cross_entropy_rows_grad(m.xp, p, self.index, c)
            if dx is not None:
                return (dx,)
        return (self.add_at_label(m, p * c, c, -1),)


class NLLLoss(_PickLoss):
    """-x[label] along the class axis, weighted and reduced."""

    def forward(self, xp, x):
        self.keep = keep_shape(x.shape, self.axis)
        self.in_shape, self.dtype = x.shape, x.dtype
        return self.finish(xp, -self.pick(xp, x))

    def backward(self, m, g):
        c = self.coef(m, g)
        if m.tensor_mode:
            onehot = self.onehot(_xp_of(self.index), self.index, self.in_shape, self.dtype)
            return (constant(m, -onehot) * c,)
        return (self.add_at_label(m, m.zeros(self.in_shape, self.dtype), c, -1),)


def _xp_of(array):
    from dygraph.backend import get_array_module

    return get_array_module(array)


def _smoothed(xp, targets, classes, axis, shape, dtype, epsilon):
    """(1 - epsilon) * onehot(label) + epsilon / classes, the label_smoothing targets."""
    line = [1] * len(shape)
    line[axis] = classes
    onehot = (xp.arange(classes).reshape(line) == targets.index).astype(dtype)
    return onehot * (1.0 - epsilon) + epsilon / classes


def _soft_weights(soft, w, axis, valid):
    """Per-sample weights sum(weight * soft_label) and the 'mean' denominator."""
    if w is None and valid is None:
        return None, float(max(soft.size // soft.shape[axis], 1))
    if w is None:
        per = valid.astype(soft.dtype)
    else:
        line = [1] * soft.ndim
        line[axis] = w.shape[0]
        per = (soft * w.reshape(line)).sum(axis=axis, keepdims=True)
        if valid is not None:
            per = per * valid
    if capturing():  # inside a CUDA graph the sum stays on the device
        denom = per.sum()
        return per, denom + (denom == 0)
    denom = float(per.sum())
    return per, (denom if denom != 0 else 1.0)


def _check_soft(label, shape, op):
    if tuple(label._data.shape) != tuple(shape):
        raise op_error(op, f"a soft label must have the input's shape {list(shape)}, got "
                       f"{describe(label)}")
    return float_operand(label, op)


def _composed_soft(logp, label, w, valid, reduction, axis, out_shape):
    """The soft-label loss built from ops; the per-sample weights sum(weight * label)
    are ops too, so a label that needs a gradient gets the whole of it."""
    per = -(label * logp).sum(axis=axis, keepdim=True)
    weights = None
    if w is not None:
        line = [1] * logp._data.ndim
        line[axis] = w.shape[0]
        weights = (label * _new_tensor(w.reshape(line), None, 0, True)).sum(axis=axis,
                                                                             keepdim=True)
    if valid is not None:
        mask = _new_tensor(valid.astype(per._data.dtype), None, 0, True)
        weights = mask if weights is None else weights * mask
    if weights is not None:
        per = per * weights
    if reduction == "none":
        return per.reshape(list(out_shape))
    total = _reduction.sum(per)
    if reduction == "sum":
        return total
    if weights is None:
        return total / float(max(per._data.size, 1))
    denom = _reduction.sum(weights)
    return total / (denom + float(denom._data == 0))


def _cross_entropy(x, label, weight, ignore_index, reduction, soft_label, axis, use_softmax,
                   label_smoothing, op, keep_out):
    shape = x._data.shape
    if not shape:
        raise op_error(op, "input must have a class axis, got a 0-D tensor")
    axis = check_axis(axis, len(shape), op)
    label = as_tensor(label, op)
    classes, dtype = shape[axis], x._data.dtype
    if not 0.0 <= label_smoothing <= 1.0:
        raise op_error(op, f"label_smoothing must lie in [0, 1], got {label_smoothing}")
    w = class_weight_array(weight, classes, x._data, op) if weight is not None else None
    keep = keep_shape(tuple(shape), axis)
    xp = np if type(x._data) is np.ndarray else _xp_of(x._data)
    if soft_label:
        label = _check_soft(label, shape, op)
        if label_smoothing > 0:
            label = label * (1.0 - label_smoothing) + label_smoothing / classes
        index, valid, out_shape = None, None, keep
        soft = label._data
    else:
        targets = Targets(shape, label._data, axis, ignore_index, op)
        index, valid = targets.index, targets.valid
        out_shape = keep if keep_out else targets.out_shape
        soft = None
        if label_smoothing > 0:
            soft = _smoothed(xp, targets, classes, axis, shape, dtype, label_smoothing)
            label = _new_tensor(soft, None, 0, True)
    if soft is None:
        weights, denom = hard_weights(targets, w)
    else:
        weights, denom = _soft_weights(soft, w, axis, valid)
    label_needs_grad = soft_label and not label._sg and grad_mode.state.grad_on
    if use_softmax and not label_needs_grad:
        return apply(SoftmaxCrossEntropy(axis, index, soft, weights, denom, reduction,
                                         out_shape), x)
    logp = log_softmax(x, axis) if use_softmax else _unary.log(x)
    if soft is None:
        return apply(NLLLoss(axis, index, weights, denom, reduction, out_shape), logp)
    return _composed_soft(logp, label, w, valid, reduction, axis, out_shape)


class LabelInputCrossEntropy(Op):
    """Softmax cross entropy with the hard labels as an input (not an attribute), for
    static programs: each run builds the eager fused op from that run's labels and runs
    it, so the numbers are the eager ones."""

    attrs = ("axis", "ignore_index", "reduction")

    def __init__(self, axis, ignore_index, reduction):
        self.axis, self.ignore_index, self.reduction = axis, ignore_index, reduction

    def forward(self, xp, x, label):
        targets = Targets(x.shape, label, self.axis, self.ignore_index, "cross_entropy")
        weights, denom = hard_weights(targets, None)
        self.inner = SoftmaxCrossEntropy(self.axis, targets.index, None, weights, denom,
                                         self.reduction, targets.out_shape)
        return self.inner.forward(xp, x)

    def backward(self, m, g):
        # The inner op ran inside this one's forward, on the same logits: it reads them
        # (for a gradient with its own graph) through this op's first input.
        self.inner.inputs = self.inputs[:1]
        self.inner.versions = (self.inputs[0]._version[0],)
        return self.inner.backward(m, g)[0], None


def _static_cross_entropy(input, label, weight=None, ignore_index=-100, reduction="mean",
                          soft_label=False, axis=-1, use_softmax=True, label_smoothing=0.0,
                          name=None):
    """cross_entropy's op for static programs in the common case (hard labels, softmax, no
    class weights or smoothing); NotImplemented otherwise."""
    from dygraph.tensor.tensor import Tensor

    if (weight is not None or soft_label or not use_softmax or label_smoothing
            or not isinstance(input, Tensor) or not isinstance(label, Tensor)):
        return NotImplemented
    check_reduction(reduction, "cross_entropy")
    x = float_operand(input, "cross_entropy")
    axis = check_axis(axis, x.ndim, "cross_entropy")
    return apply(LabelInputCrossEntropy(axis, ignore_index, reduction), x, label)


@captured_whole(static_op=_static_cross_entropy)
def cross_entropy(input, label, weight=None, ignore_index=-100, reduction="mean",
                  soft_label=False, axis=-1, use_softmax=True, label_smoothing=0.0, name=None):
    """Softmax cross entropy between `input` logits and `label` (Paddle 2.x semantics).

    Hard labels are class indices shaped like the input without the class `axis` ([N])
    or with it of size 1 ([N, 1]); with soft_label=True the label is a distribution of
    the input's shape. `weight` (one value per class) scales each sample's loss; 'mean'
    then divides by the sum of the weights of the non-ignored samples (by their count
    without weights). Labels equal to `ignore_index` add nothing. `label_smoothing` mixes
    the one-hot targets with the uniform distribution. With use_softmax=False the input
    holds probabilities. 'none' returns one loss per sample, shaped like the label.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> logits = dygraph.to_tensor([[2.0, 0.0], [0.0, 2.0]])
        >>> round(float(F.cross_entropy(logits, dygraph.to_tensor([0, 1]))), 4)
        0.1269
    """
    op = "cross_entropy"
    check_reduction(reduction, op)
    return _cross_entropy(float_operand(input, op), label, weight, ignore_index, reduction,
                          soft_label, axis, use_softmax, label_smoothing, op, False)


@captured_whole
def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100,
                               numeric_stable_mode=True, return_softmax=False, axis=-1,
                               name=None):
    """Unreduced softmax cross entropy: one loss per sample, shaped like `logits` with the
    class `axis` of size 1. With return_softmax=True also returns softmax(logits).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> z = dygraph.to_tensor([[0.0, 0.0]])
        >>> F.softmax_with_cross_entropy(z, dygraph.to_tensor([[1]])).shape
        [1, 1]
    """
    op = "softmax_with_cross_entropy"
    x = float_operand(logits, op)
    loss = _cross_entropy(x, label, None, ignore_index, "none", soft_label, axis, True, 0.0,
                          op, True)
    if return_softmax:
        return loss, softmax(x, axis)
    return loss


@captured_whole
def nll_loss(input, label, weight=None, ignore_index=-100, reduction="mean", name=None):
    """Negative log likelihood: -input[label] with classes on axis 1 (input [N, C] or
    [N, C, d1, ...], label [N] or [N, d1, ...]), weighted and reduced like cross_entropy.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> logp = dygraph.to_tensor([[-0.5, -1.0], [-2.0, -0.1]])
        >>> F.nll_loss(logp, dygraph.to_tensor([0, 1])).numpy()
        array(0.3, dtype=float32)
    """
    op = "nll_loss"
    check_reduction(reduction, op)
    x = float_operand(input, op)
    shape = x._data.shape
    if len(shape) < 2:
        raise op_error(op, f"input must be [N, C] or [N, C, d1, ...], got {describe(x)}")
    label = as_tensor(label, op)
    targets = Targets(shape, label._data, 1, ignore_index, op)
    w = class_weight_array(weight, shape[1], x._data, op) if weight is not None else None
    weights, denom = hard_weights(targets, w)
    return apply(NLLLoss(1, targets.index, weights, denom, reduction, targets.out_shape), x)
