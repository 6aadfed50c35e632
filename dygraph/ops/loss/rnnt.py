"""RNN-Transducer loss (Graves 2012), Paddle's `rnnt_loss` (warp-transducer).

As in Paddle, `input` holds log-probabilities [B, T, U + 1, V] (no softmax is applied).
The loss of a sample is -log of the sum over all monotonic alignments of the
log-probabilities along them: blank moves t forward, label u + 1 moves u forward. The
forward runs the alpha recursion and the backward the beta one; along u each row is a
linear recurrence in log space, solved at once with a cumulative log-sum-exp. The gradient
is minus the occupancy of each blank / label emission; FastEmit (fastemit_lambda) scales
the label-emission part by 1 + lambda, as warp-transducer does, without changing the loss.
"""

import numpy as np

from dygraph.autograd.function import Op, apply
from dygraph.framework.errors import op_error
from dygraph.ops.common import as_tensor, float_operand
from dygraph.ops.loss.common import check_reduction
from dygraph.ops.reduction import reduce as _reduction
from dygraph.tensor.tensor import _new_tensor

__all__ = ["rnnt_loss"]
NONDIFF = set()


def _logcumsumexp(a, reverse=False):
    if reverse:
        return np.logaddexp.accumulate(a[..., ::-1], axis=-1)[..., ::-1]
    return np.logaddexp.accumulate(a, axis=-1)


def _sample(lp, labels, blank, fastemit):
    """(-log p, gradient of -log p w.r.t. lp) for one sample; lp is [T, U + 1, V]."""
    t_len, u1, _ = lp.shape
    blank_lp = lp[:, :, blank]                                   # [T, U + 1]
    emit_lp = np.take_along_axis(lp[:, :-1, :], labels[None, :, None], 2)[..., 0]  # [T, U]
    prefix = np.concatenate([np.zeros((t_len, 1)), np.cumsum(emit_lp, axis=1)], axis=1)
    alpha = np.full((t_len, u1), -np.inf)
    start = np.full(u1, -np.inf)
    start[0] = 0.0
    with np.errstate(invalid="ignore", over="ignore"):
        for t in range(t_len):
            if t:
                start = alpha[t - 1] + blank_lp[t - 1]
            alpha[t] = prefix[t] + _logcumsumexp(start - prefix[t])
        log_p = alpha[-1, -1] + blank_lp[-1, -1]
        beta = np.full((t_len + 1, u1), -np.inf)  # beta[T] is past the end
        beta[t_len, -1] = 0.0
        for t in range(t_len - 1, -1, -1):
            stay = beta[t + 1] + blank_lp[t]
            beta[t] = _logcumsumexp(stay + prefix[t], reverse=True) - prefix[t]
        grad = np.zeros_like(lp)
        occ_blank = np.exp(alpha + blank_lp + beta[1:] - log_p)
        occ_emit = np.exp(alpha[:, :-1] + emit_lp + beta[:-1, 1:] - log_p)
    grad[:, :, blank] -= np.nan_to_num(occ_blank)
    rows, cols = np.meshgrid(np.arange(t_len), np.arange(u1 - 1), indexing="ij")
    np.add.at(grad, (rows, cols, np.broadcast_to(labels, rows.shape)),
              -(1.0 + fastemit) * np.nan_to_num(occ_emit))
    return -log_p, grad


class RNNT(Op):
    """Per-sample RNN-T loss, shape [B]; the backward scales the stored gradient."""

    attrs = ("blank", "fastemit", "in_len", "lab_len", "labels")

    def __init__(self, labels, input_lengths, label_lengths, blank, fastemit):
        self.labels, self.in_len, self.lab_len = labels, input_lengths, label_lengths
        self.blank, self.fastemit = blank, fastemit

    def forward(self, xp, lp):
        host = np.asarray(lp.get() if hasattr(lp, "get") else lp, dtype=np.float64)
        losses = np.zeros(host.shape[0])
        self.grad = np.zeros_like(host)
        for b in range(host.shape[0]):
            t, u = int(self.in_len[b]), int(self.lab_len[b])
            losses[b], self.grad[b, :t, :u + 1] = _sample(
                host[b, :t, :u + 1], self.labels[b, :u].astype(np.int64), self.blank,
                self.fastemit)
        self.grad = xp.asarray(self.grad.astype(lp.dtype))
        return xp.asarray(losses.astype(lp.dtype))

    def backward(self, m, g):
        grad = self.grad
        if m.tensor_mode:
            grad = _new_tensor(grad, None, 0, True)
        return (m.reshape(g, [-1, 1, 1, 1]) * grad,)


def rnnt_loss(input, label, input_lengths, label_lengths, blank=0, fastemit_lambda=0.001,
              reduction="mean", name=None):
    """RNN-T loss of log-probabilities input [B, T, U + 1, V] against labels [B, U]
    (see the module doc); 'mean' divides the summed loss by the batch size.

    Example:
        >>> import numpy as np
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> lp = dygraph.to_tensor(np.log(np.full((1, 1, 2, 2), 0.5)))  # T=1, U=1
        >>> loss = F.rnnt_loss(lp, dygraph.to_tensor([[1]]), dygraph.to_tensor([1]),
        ...                    dygraph.to_tensor([1]))
        >>> round(float(loss), 4)  # one path: emit the label, then blank: -log(0.25)
        1.3863
    """
    op = "rnnt_loss"
    check_reduction(reduction, op)
    x = float_operand(input, op)
    labels = np.asarray(as_tensor(label, op).numpy())
    in_len = np.asarray(as_tensor(input_lengths, op).numpy()).reshape(-1)
    lab_len = np.asarray(as_tensor(label_lengths, op).numpy()).reshape(-1)
    shape = list(x._data.shape)
    if len(shape) != 4 or labels.ndim != 2 or labels.shape[0] != shape[0]:
        raise op_error(op, f"input must be [B, T, U + 1, V] and label [B, U], got "
                       f"{shape} and {list(labels.shape)}")
    b, t_max, u_max1, v = shape
    if in_len.shape[0] != b or lab_len.shape[0] != b:
        raise op_error(op, f"input_lengths and label_lengths must have {b} entries, got "
                       f"{in_len.shape[0]} and {lab_len.shape[0]}")
    if b and (in_len.min() < 1 or in_len.max() > t_max or lab_len.min() < 0
              or lab_len.max() > min(u_max1 - 1, labels.shape[1])):
        raise op_error(op, f"lengths out of range: input_lengths {in_len.tolist()} must be in "
                       f"[1, {t_max}], label_lengths {lab_len.tolist()} in [0, {u_max1 - 1}]")
    if not 0 <= blank < v:
        raise op_error(op, f"blank must be in [0, {v}), got {blank}")
    used = labels[np.arange(labels.shape[1])[None, :] < lab_len[:, None]]
    if used.size and (used.min() < 0 or used.max() >= v):
        raise op_error(op, f"labels must be in [0, {v}), got [{used.min()}, {used.max()}]")
    losses = apply(RNNT(labels, in_len, lab_len, int(blank), float(fastemit_lambda)), x)
    if reduction == "none":
        return losses
    total = _reduction.sum(losses)
    return total / b if reduction == "mean" else total
