"""CTC loss (Connectionist Temporal Classification), Paddle's `ctc_loss`.

Like Paddle's warp-ctc kernel it takes unnormalised logits [T, B, C] and applies
log-softmax itself. The forward runs the alpha recursion in log space, one vectorised
step per time step for the whole batch; the backward runs the beta recursion and turns
the state occupancies alpha * beta / p into the gradient softmax - occupancy per class.
"""

import numpy as np

from dygraph.autograd.function import Op, apply
from dygraph.backend import attr_on
from dygraph.framework.errors import describe, op_error
from dygraph.ops.common import as_tensor, float_operand
from dygraph.ops.loss.common import check_reduction
from dygraph.ops.reduction import reduce as _reduction
from dygraph.ops.reduction.axes import constant
from dygraph.tensor.tensor import _new_tensor

__all__ = ["ctc_loss"]

_NEG_INF = -np.inf


def _shift(xp, a, k):
    """a moved k states to the right along the last axis (s <- s - k), -inf filled;
    a negative k moves left."""
    out = xp.full_like(a, _NEG_INF)
    if k > 0:
        out[..., k:] = a[..., :-k]
    else:
        out[..., :k] = a[..., -k:]
    return out


class CTC(Op):
    """Per-sample CTC loss -log p(label | logits), shape [B]."""

    attrs = ("blank", "in_len", "lab_len", "labels", "norm_by_times")

    def __init__(self, labels, input_lengths, label_lengths, blank, norm_by_times):
        self.labels, self.blank, self.norm_by_times = labels, blank, norm_by_times
        self.in_len, self.lab_len = input_lengths, label_lengths

    def forward(self, xp, logits):
        # On a GPU the labels and lengths (host attributes in a program) go to the device
        # once (backend.attr_on).
        labels = attr_on(xp, self, "labels")
        self.input_lengths = attr_on(xp, self, "in_len")
        self.label_lengths = attr_on(xp, self, "lab_len")
        T, B, C = logits.shape
        shifted = logits - logits.max(axis=2, keepdims=True)
        logp = shifted - xp.log(xp.exp(shifted).sum(axis=2, keepdims=True))
        S = 2 * labels.shape[1] + 1
        states = xp.arange(S)
        self.live = states[None, :] < (2 * self.label_lengths + 1)[:, None]        # [B, S]
        ext = xp.full((B, S), self.blank, dtype=np.int64)
        ext[:, 1::2] = labels
        ext = xp.where(self.live, ext, self.blank)
        prev2 = xp.concatenate([xp.full((B, 2), -1, dtype=ext.dtype), ext[:, :-2]], axis=1)
        # A label state may be entered from two states back unless that is the same label.
        self.skip = (ext != self.blank) & (ext != prev2) & (states >= 2)[None, :]
        emit = logp[:, xp.arange(B)[:, None], ext]                             # [T, B, S]
        alpha = xp.full((T, B, S), _NEG_INF, dtype=logits.dtype)
        alpha[0, :, 0] = emit[0, :, 0]
        if S > 1:
            alpha[0, :, 1] = xp.where(self.label_lengths > 0, emit[0, :, 1], _NEG_INF)
        with np.errstate(invalid="ignore"):
            for t in range(1, T):
                a = alpha[t - 1]
                step = xp.logaddexp(a, _shift(xp, a, 1))
                step = xp.where(self.skip, xp.logaddexp(step, _shift(xp, a, 2)), step)
                alpha[t] = step + emit[t]
        rows = xp.arange(B)
        last = alpha[self.input_lengths - 1, rows]                                     # [B, S]
        end = 2 * self.label_lengths
        log_z = xp.logaddexp(last[rows, end],
                             xp.where(end > 0, last[rows, xp.maximum(end - 1, 0)], _NEG_INF))
        self.ext, self.emit, self.alpha, self.log_z = ext, emit, alpha, log_z
        self.prob = xp.exp(logp)
        return -log_z

    def _beta(self, xp):
        T, B, S = self.emit.shape
        beta = xp.full((T, B, S), _NEG_INF, dtype=self.emit.dtype)
        end = 2 * self.label_lengths
        finals = (xp.arange(S)[None, :] == end[:, None]) | (
            xp.arange(S)[None, :] == (end - 1)[:, None])
        skip_next = xp.concatenate([self.skip[:, 2:], xp.zeros((B, 2), bool)], axis=1)
        with np.errstate(invalid="ignore"):
            for t in range(T - 1, -1, -1):
                start = (self.input_lengths - 1 == t)[:, None] & finals
                if t < T - 1:
                    b = beta[t + 1]
                    step = xp.logaddexp(b, _shift(xp, b, -1))
                    step = xp.where(skip_next, xp.logaddexp(step, _shift(xp, b, -2)), step)
                    step = xp.where(start, 0.0, step)
                else:
                    step = xp.where(start, 0.0, _NEG_INF)
                beta[t] = step + self.emit[t]
        return beta

    def _unit_grad(self, xp):
        """d loss_b / d logits for a unit output gradient, [T, B, C]."""
        T, B, C = self.prob.shape
        with np.errstate(invalid="ignore", over="ignore"):
            occ = xp.exp(self.alpha + self._beta(xp) - self.emit - self.log_z[None, :, None])
        occ = xp.where(xp.isfinite(self.log_z)[None, :, None], occ, 0.0)
        occ = xp.nan_to_num(occ)
        onehot = ((self.ext[:, :, None] == xp.arange(C)[None, None, :]) & self.live[:, :, None])
        per_class = xp.matmul(occ.transpose(1, 0, 2), onehot.astype(occ.dtype))  # [B, T, C]
        steps = (xp.arange(T)[:, None] < self.input_lengths[None, :]).astype(occ.dtype)  # [T, B]
        grad = self.prob * steps[:, :, None] - per_class.transpose(1, 0, 2)
        grad = xp.where(xp.isfinite(self.log_z)[None, :, None], grad, 0.0)
        if self.norm_by_times:
            grad = grad / xp.maximum(self.input_lengths, 1)[None, :, None]
        return grad.astype(self.prob.dtype, copy=False)

    def backward(self, m, g):
        unit = self._unit_grad(m.xp if not m.tensor_mode else _xp_of(self.prob))
        return (constant(m, unit) * m.reshape(g, (1, -1, 1)),)


def _xp_of(array):
    from dygraph.backend import get_array_module

    return get_array_module(array)


def _int_vector(value, name, batch, op):
    t = as_tensor(value, op)
    a = np.asarray(t.numpy())
    if a.dtype.kind not in "iu" or a.shape != (batch,):
        raise op_error(op, f"{name} must be an integer tensor of shape [{batch}] (one length "
                       f"per sequence), got {describe(t)}",
                       TypeError if a.dtype.kind not in "iu" else ValueError)
    return a.astype(np.int64, copy=False)


def ctc_loss(log_probs, labels, input_lengths, label_lengths, blank=0, reduction="mean",
             norm_by_times=False, name=None):
    """CTC loss between unnormalised logits `log_probs` [T, B, C] (softmax is applied
    inside, as in Paddle) and padded `labels` [B, L], with the valid lengths of each
    sequence. 'mean' divides each loss by its label length (at least 1) and averages;
    'none' gives one loss per sequence, shape [B]. norm_by_times divides the gradient
    (not the loss) by the input length.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> logits = dygraph.zeros([2, 1, 2])
        >>> labels = dygraph.to_tensor([[1]], dtype='int32')
        >>> n = dygraph.to_tensor([2])
        >>> round(float(F.ctc_loss(logits, labels, n, dygraph.to_tensor([1]), reduction='sum')), 4)
        0.2877
    """
    op = "ctc_loss"
    check_reduction(reduction, op)
    x = float_operand(log_probs, op)
    if x._data.ndim != 3:
        raise op_error(op, f"log_probs must be [max_logit_length, batch_size, num_classes], "
                       f"got {describe(x)}")
    T, B, C = x._data.shape
    lab_t = as_tensor(labels, op)
    lab = np.asarray(lab_t.numpy())
    if lab.dtype.kind not in "iu" or lab.ndim != 2 or lab.shape[0] != B:
        raise op_error(op, f"labels must be an integer tensor [batch_size={B}, "
                       f"max_label_length], got {describe(lab_t)}",
                       TypeError if lab.dtype.kind not in "iu" else ValueError)
    in_len = _int_vector(input_lengths, "input_lengths", B, op)
    lab_len = _int_vector(label_lengths, "label_lengths", B, op)
    if not 0 <= blank < C:
        raise op_error(op, f"blank must lie in [0, {C}), got {blank}")
    if (in_len < 1).any() or (in_len > T).any():
        raise op_error(op, f"input_lengths must lie in [1, {T}], got {in_len.tolist()}")
    if (lab_len < 0).any() or (lab_len > lab.shape[1]).any():
        raise op_error(op, f"label_lengths must lie in [0, {lab.shape[1]}], got "
                       f"{lab_len.tolist()}")
    used = np.arange(lab.shape[1])[None, :] < lab_len[:, None]
    if used.any():
        values = lab[used]
        if (values < 0).any() or (values >= C).any() or (values == blank).any():
            raise op_error(op, f"labels must lie in [0, {C}) and differ from blank={blank}, "
                           f"got {values.tolist()}")
    xp = _xp_of(x._data)  # the lengths and labels go where the logits are
    per = apply(CTC(xp.asarray(lab, dtype=np.int64), xp.asarray(in_len), xp.asarray(lab_len),
                    blank, norm_by_times), x)
    if reduction == "none":
        return per
    if reduction == "sum":
        return _reduction.sum(per)
    lengths = xp.asarray(np.maximum(lab_len, 1).astype(x._data.dtype))
    return _reduction.mean(per / _new_tensor(lengths, None, 0, True))
