"""Spec entries for the loss functions of dygraph.nn.functional."""

import itertools

import numpy as np

import dygraph.nn.functional as F
from tests.op_specs import OpSpec

LABELS = np.array([0, 2, 1, 2])
WEIGHT = np.array([0.5, 2.0, 1.5])


def _log_softmax(x, axis=-1):
    z = x - x.max(axis=axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))


def _pick(a, labels, axis=-1):
    return np.take_along_axis(a, np.expand_dims(labels, axis), axis).squeeze(axis)


def _ce_ref(x, labels, weight=None, ignore=-100, reduction="mean"):
    valid = labels != ignore
    safe = np.where(valid, labels, 0)
    w = (weight[safe] if weight is not None else np.ones(labels.shape)) * valid
    loss = -_pick(_log_softmax(x), safe) * w
    if reduction == "none":
        return loss
    return loss.sum() / w.sum() if reduction == "mean" else loss.sum()


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _ctc_brute(logits, labels, in_len, lab_len):
    """Sum over every alignment path (tiny sizes only): an independent CTC reference."""
    out = []
    for b in range(logits.shape[1]):
        lp = _log_softmax(logits[:in_len[b], b])
        target = list(labels[b, :lab_len[b]])
        total = -np.inf
        for path in itertools.product(range(logits.shape[2]), repeat=int(in_len[b])):
            collapsed = [k for k, _ in itertools.groupby(path) if k != 0]
            if collapsed == target:
                total = np.logaddexp(total, sum(lp[t, k] for t, k in enumerate(path)))
        out.append(-total)
    return np.array(out)


CTC_LABELS = np.array([[1, 2], [1, 1]], dtype=np.int32)
CTC_IN, CTC_LAB = np.array([4, 3]), np.array([2, 1])
SOFT = np.array([[0.2, 0.3, 0.5], [0.1, 0.8, 0.1], [1.0, 0.0, 0.0], [0.3, 0.3, 0.4]])
SIGNS = np.array([1.0, -1.0, 1.0, -1.0])


def _pos(shape, low=0.5, high=2.0):
    return lambda rng: rng.uniform(low, high, shape)


SPECS = [
    OpSpec("nn.functional.cross_entropy", lambda x, y: F.cross_entropy(x, y), _ce_ref,
           [(4, 3), LABELS]),
    OpSpec("nn.functional.cross_entropy",
           lambda x, y: F.cross_entropy(x, y.reshape([4, 1]), reduction="none"),
           lambda x, y: _ce_ref(x, y, reduction="none")[:, None], [(4, 3), LABELS],
           id="none-[N,1]"),
    OpSpec("nn.functional.cross_entropy",
           lambda x, y: F.cross_entropy(x, y, weight=WEIGHT, ignore_index=1),
           lambda x, y: _ce_ref(x, y, WEIGHT, ignore=1), [(4, 3), np.array([0, 1, 2, 2])],
           id="weight-ignore"),
    OpSpec("nn.functional.cross_entropy",
           lambda x, y: F.cross_entropy(x, y, reduction="sum", axis=1),
           lambda x, y: -_pick(_log_softmax(x, 1), y, 1).sum(),
           [(2, 3, 4), np.array([[0, 1, 2, 1], [2, 2, 0, 1]])], id="axis1"),
    OpSpec("nn.functional.cross_entropy",
           lambda x, y: F.cross_entropy(x, y, soft_label=True),
           lambda x, y: -(y * _log_softmax(x)).sum(-1).mean(), [(4, 3), SOFT],
           grad_inputs=[0], id="soft-fused"),
    OpSpec("nn.functional.cross_entropy",
           lambda x, y: F.cross_entropy(x, y, soft_label=True, weight=WEIGHT),
           lambda x, y: (-(y * _log_softmax(x)).sum(-1) * (y @ WEIGHT)).sum() / (y @ WEIGHT).sum(),
           [(4, 3), SOFT], grad_inputs=[0, 1], id="soft-label-grad"),
    OpSpec("nn.functional.cross_entropy",
           lambda x, y: F.cross_entropy(x, y, label_smoothing=0.1),
           lambda x, y: -((np.eye(3)[y] * 0.9 + 0.1 / 3) * _log_softmax(x)).sum(-1).mean(),
           [(4, 3), LABELS], id="smoothing"),
    OpSpec("nn.functional.cross_entropy",
           lambda x, y: F.cross_entropy(x, y, use_softmax=False),
           lambda x, y: -np.log(_pick(x, y)).mean(), [(4, 3), LABELS], domain=(0.2, 1.0),
           id="probabilities"),
    OpSpec("nn.functional.softmax_with_cross_entropy",
           lambda x, y: F.softmax_with_cross_entropy(x, y),
           lambda x, y: _ce_ref(x, y, reduction="none")[:, None], [(4, 3), LABELS]),
    OpSpec("nn.functional.nll_loss", lambda x, y: F.nll_loss(x, y, weight=WEIGHT),
           lambda x, y: -(_pick(x, y) * WEIGHT[y]).sum() / WEIGHT[y].sum(), [(4, 3), LABELS]),
    OpSpec("nn.functional.nll_loss", lambda x, y: F.nll_loss(x, y, reduction="none"),
           lambda x, y: -_pick(x, y, 1), [(2, 3, 2), np.array([[0, 2], [1, 1]])], id="3d"),
    OpSpec("nn.functional.mse_loss", F.mse_loss, lambda x, y: ((x - y) ** 2).mean(),
           [(3, 4), (3, 4)]),
    OpSpec("nn.functional.l1_loss", lambda x, y: F.l1_loss(x, y, reduction="sum"),
           lambda x, y: np.abs(x - y).sum(), [(3, 4), (3, 4)]),
    OpSpec("nn.functional.smooth_l1_loss", lambda x, y: F.smooth_l1_loss(x, y, delta=0.5),
           lambda x, y: np.where(np.abs(x - y) < 0.5, 0.5 * (x - y) ** 2,
                                 0.5 * np.abs(x - y) - 0.125).mean(), [(3, 4), (3, 4)]),
    OpSpec("nn.functional.binary_cross_entropy",
           lambda p, y: F.binary_cross_entropy(p, y, weight=np.array([1.0, 2.0, 0.5, 1.0])),
           lambda p, y: (-(y * np.log(p) + (1 - y) * np.log(1 - p))
                         * np.array([1.0, 2.0, 0.5, 1.0])).mean(),
           [(3, 4), (3, 4)], domain=(0.1, 0.9), float32=False,
           float32_reason="fn passes a float64 NumPy weight: float64 result"),
    OpSpec("nn.functional.binary_cross_entropy_with_logits",
           lambda x, y: F.binary_cross_entropy_with_logits(
               x, y, pos_weight=np.array([1.0, 3.0, 0.5, 2.0]), reduction="sum"),
           lambda x, y: -(np.array([1.0, 3.0, 0.5, 2.0]) * y * np.log(_sigmoid(x))
                          + (1 - y) * np.log(1 - _sigmoid(x))).sum(),
           [(3, 4), _pos((3, 4), 0.0, 1.0)], float32=False,
           float32_reason="fn passes a float64 NumPy pos_weight: float64 result"),
    OpSpec("nn.functional.kl_div", lambda x, y: F.kl_div(x, y, reduction="batchmean"),
           lambda x, y: (y * (np.log(y) - x)).sum() / 3, [(3, 4), _pos((3, 4))]),
    OpSpec("nn.functional.kl_div", lambda x, y: F.kl_div(x, y, log_target=True),
           lambda x, y: (np.exp(y) * (y - x)).mean(), [(3, 4), (3, 4)], id="log-target"),
    OpSpec("nn.functional.margin_ranking_loss",
           lambda a, b: F.margin_ranking_loss(a, b, SIGNS, margin=0.1),
           lambda a, b: np.maximum(0, -SIGNS * (a - b) + 0.1).mean(), [(4,), (4,)],
           float32=False, float32_reason="fn passes a float64 NumPy label: float64 result"),
    OpSpec("nn.functional.hinge_embedding_loss",
           lambda x: F.hinge_embedding_loss(x, SIGNS, reduction="none"),
           lambda x: np.where(SIGNS == 1, x, np.maximum(0, 1 - x)), [(4,)]),
    OpSpec("nn.functional.cosine_embedding_loss",
           lambda a, b: F.cosine_embedding_loss(a, b, SIGNS, margin=-0.5),
           lambda a, b: np.where(
               SIGNS == 1, 1 - (a * b).sum(1) / np.sqrt((a * a).sum(1) * (b * b).sum(1)),
               np.maximum(0, (a * b).sum(1) / np.sqrt((a * a).sum(1) * (b * b).sum(1)) + 0.5)
           ).mean(), [(4, 3), (4, 3)]),
    OpSpec("nn.functional.triplet_margin_loss",
           lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=2.0, swap=True,
                                                 reduction="none"),
           lambda a, p, n: np.maximum(0, np.linalg.norm(a - p + 1e-6, axis=-1) - np.minimum(
               np.linalg.norm(a - n + 1e-6, axis=-1), np.linalg.norm(p - n + 1e-6, axis=-1))
               + 2.0), [(3, 4), (3, 4), (3, 4)]),
    OpSpec("nn.functional.triplet_margin_loss",
           lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=3.0, p=3),
           lambda a, p, n: np.maximum(
               0, (np.abs(a - p + 1e-6) ** 3).sum(-1) ** (1 / 3)
               - (np.abs(a - n + 1e-6) ** 3).sum(-1) ** (1 / 3) + 3.0).mean(),
           [(3, 4), (3, 4), (3, 4)], id="p3"),
    # The CTC gradient comes from the alpha-beta recursion on arrays, not from ops, so it
    # is not itself differentiable: no double backward.
    OpSpec("nn.functional.ctc_loss",
           lambda x: F.ctc_loss(x, CTC_LABELS, CTC_IN, CTC_LAB, reduction="none"),
           lambda x: _ctc_brute(x, CTC_LABELS, CTC_IN, CTC_LAB), [(4, 2, 3)], domain=(-2, 2),
           double=False),
    OpSpec("nn.functional.ctc_loss",
           lambda x: F.ctc_loss(x, CTC_LABELS, CTC_IN, CTC_LAB),
           lambda x: (_ctc_brute(x, CTC_LABELS, CTC_IN, CTC_LAB) / CTC_LAB).mean(),
           [(4, 2, 3)], domain=(-2, 2), double=False, id="mean"),
]
