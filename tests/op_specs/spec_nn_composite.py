"""Spec entries for the composite activations and losses of dygraph.nn.functional
(ops/activation/gated.py, ops/loss/likelihood_focal_dice.py, ops/loss/margin.py)."""

import inspect
import math

import numpy as np

import dygraph as D
import dygraph.nn.functional as F
from tests.op_specs import OpSpec
from tests.op_specs.spec_activation import _away_from, _sigmoid, _softmax

A = (3, 4)
_NEAR_ZERO = _away_from((0.0,), -2.0, 2.0)
LAB = np.array([1, 0, 3])
SIGNS = np.array([[1.0, -1.0, 1.0, 1.0], [-1.0, -1.0, 1.0, -1.0], [1.0, 1.0, -1.0, 1.0]])
BITS = (SIGNS > 0).astype(np.float64)
W4 = np.array([0.5, 1.0, 2.0, 1.5])
ML = np.array([[3, 0, -1, 1], [2, -1, 0, 0], [-1, 1, 1, 1]])


def _log_sigmoid(x):
    return -np.logaddexp(0, -x)


def _elu(x, alpha=1.0):
    return np.where(x > 0, x, alpha * np.expm1(x))


def _rrelu(x, lower, upper, seed):
    slope = np.random.default_rng(seed).uniform(lower, upper, x.shape)
    return np.where(x >= 0, x, slope * x)


def _seeded_rrelu(x):
    D.seed(5)
    return F.rrelu(x, 0.1, 0.3)


def _maxout_ref(x, groups):
    n, c, h, w = x.shape
    return x.reshape(n, c // groups, groups, h, w).max(axis=2)


def _multi_margin_ref(x, lab, p=1, margin=1.0, w=None):
    n, c = x.shape
    out = np.zeros(n)
    for i in range(n):
        for j in range(c):
            if j != lab[i]:
                out[i] += max(0.0, margin - x[i, lab[i]] + x[i, j]) ** p * (
                    1.0 if w is None else w[lab[i]])
    return out / c


def _multi_label_margin_ref(x, lab):
    n, c = x.shape
    out = np.zeros(n)
    for i in range(n):
        targets = []
        for v in lab[i]:
            if v == -1:
                break
            targets.append(v)
        for j in targets:
            for k in range(c):
                if k not in targets:
                    out[i] += max(0.0, 1 - x[i, j] + x[i, k])
    return out / c


def _npair_ref(a, p, labels, l2_reg):
    same = (labels[:, None] == labels[None, :]).astype(float)
    same /= same.sum(1, keepdims=True)
    logits = a @ p.T
    logp = logits - logits.max(1, keepdims=True)
    logp -= np.log(np.exp(logp).sum(1, keepdims=True))
    ce = -(same * logp).sum(1, keepdims=True)
    l2 = (a * a).sum(1).mean() + (p * p).sum(1).mean()
    return l2 * 0.25 * l2_reg + (same * ce).sum(0).mean()


def _margin_ce_ref(x, lab, m1, m2, m3, s):
    z = x.copy()
    rows = np.arange(x.shape[0])
    z[rows, lab] = np.cos(m1 * np.arccos(x[rows, lab]) + m2) - m3
    z *= s
    logp = z - z.max(1, keepdims=True)
    logp -= np.log(np.exp(logp).sum(1, keepdims=True))
    return -logp[rows, lab].mean()


def _focal_ref(x, y, alpha, gamma):
    p = _sigmoid(x)
    bce = -(y * _log_sigmoid(x) + (1 - y) * _log_sigmoid(-x))
    p_t = p * y + (1 - p) * (1 - y)
    return (alpha * y + (1 - alpha) * (1 - y)) * (1 - p_t) ** gamma * bce


def _pos(shape, low=0.5, high=2.0):
    return lambda rng: rng.uniform(low, high, shape)


def _dist(u, v, p=2.0, eps=1e-6):
    return (np.abs(u - v + eps) ** p).sum(-1) ** (1 / p)


SPECS = [
    # activation_extra: the in-place forms act on a clone so the leaf keeps its gradient.
    OpSpec("nn.functional.elu_", lambda x: F.elu_(x.clone(), 0.5), lambda x: _elu(x, 0.5),
           [_NEAR_ZERO]),
    OpSpec("nn.functional.hardtanh_", lambda x: F.hardtanh_(x.clone(), -0.5, 1.0),
           lambda x: np.clip(x, -0.5, 1.0), [_away_from((-0.5, 1.0), -2.0, 2.0)]),
    OpSpec("nn.functional.leaky_relu_", lambda x: F.leaky_relu_(x.clone(), 0.2),
           lambda x: np.where(x > 0, x, 0.2 * x), [_NEAR_ZERO]),
    OpSpec("nn.functional.softmax_", lambda x: F.softmax_(x.clone(), axis=0),
           lambda x: _softmax(x, 0), [A]),
    OpSpec("nn.functional.thresholded_relu_", lambda x: F.thresholded_relu_(x.clone(), 0.5),
           lambda x: np.where(x > 0.5, x, 0), [_away_from((0.5,), -1.0, 2.0)]),
    OpSpec("nn.functional.tanh_", lambda x: F.tanh_(x.clone()), np.tanh, [A]),
    OpSpec("nn.functional.logsigmoid", F.logsigmoid, _log_sigmoid, [A], domain=(-3, 3)),
    OpSpec("nn.functional.maxout", lambda x: F.maxout(x, 2), lambda x: _maxout_ref(x, 2),
           [(2, 4, 2, 3)]),
    OpSpec("nn.functional.maxout",
           lambda x: F.maxout(x, 3, axis=-1),
           lambda x: _maxout_ref(x.transpose(0, 3, 1, 2), 3).transpose(0, 2, 3, 1),
           [(1, 2, 2, 6)], id="channels-last"),
    OpSpec("nn.functional.rrelu", _seeded_rrelu, lambda x: _rrelu(x, 0.1, 0.3, 5),
           [_NEAR_ZERO]),
    OpSpec("nn.functional.rrelu", lambda x: F.rrelu(x, 0.1, 0.3, training=False),
           lambda x: np.where(x >= 0, x, 0.2 * x), [_NEAR_ZERO], id="eval"),
    OpSpec("nn.functional.swiglu", F.swiglu,
           lambda x: x[:, :2] * _sigmoid(x[:, :2]) * x[:, 2:], [A], domain=(-3, 3)),
    OpSpec("nn.functional.swiglu", F.swiglu, lambda x, y: x * _sigmoid(x) * y, [A, A],
           domain=(-3, 3), id="two"),
    # loss_margin_extra
    OpSpec("nn.functional.soft_margin_loss", lambda x: F.soft_margin_loss(x, SIGNS),
           lambda x: np.logaddexp(0, -SIGNS * x).mean(), [A]),
    OpSpec("nn.functional.multi_label_soft_margin_loss",
           lambda x, w: F.multi_label_soft_margin_loss(x, BITS, w, reduction="none"),
           lambda x, w: -((BITS * _log_sigmoid(x) + (1 - BITS) * _log_sigmoid(-x)) * w
                          ).mean(-1), [A, W4]),
    OpSpec("nn.functional.multi_margin_loss",
           lambda x: F.multi_margin_loss(x, LAB, reduction="none"),
           lambda x: _multi_margin_ref(x, LAB), [A], domain=(-0.3, 0.3)),
    OpSpec("nn.functional.multi_margin_loss",
           lambda x, w: F.multi_margin_loss(x, LAB, p=2, margin=0.5, weight=w),
           lambda x, w: _multi_margin_ref(x, LAB, 2, 0.5, w).mean(), [A, W4],
           domain=(-0.2, 0.2), id="p2-weight"),
    OpSpec("nn.functional.multi_label_margin_loss",
           lambda x: F.multi_label_margin_loss(x, ML, reduction="none"),
           lambda x: _multi_label_margin_ref(x, ML), [A], domain=(-0.4, 0.4)),
    OpSpec("nn.functional.pairwise_distance", F.pairwise_distance,
           lambda x, y: _dist(x, y), [A, A]),
    OpSpec("nn.functional.pairwise_distance",
           lambda x, y: F.pairwise_distance(x, y, p=3, keepdim=True),
           lambda x, y: _dist(x, y, 3.0)[:, None], [A, A], id="p3"),
    OpSpec("nn.functional.triplet_margin_with_distance_loss",
           lambda a, p, n: F.triplet_margin_with_distance_loss(a, p, n, margin=2.0, swap=True,
                                                               reduction="sum"),
           lambda a, p, n: np.maximum(0, _dist(a, p) - np.minimum(_dist(a, n), _dist(p, n))
                                      + 2.0).sum(), [A, A, A]),
    OpSpec("nn.functional.npair_loss", lambda a, p: F.npair_loss(a, p, np.array([0, 1, 0])),
           lambda a, p: _npair_ref(a, p, np.array([0, 1, 0]), 0.002), [A, A]),
    # loss_extra
    OpSpec("nn.functional.gaussian_nll_loss",
           lambda x, y, v: F.gaussian_nll_loss(x, y, v, full=True, reduction="none"),
           lambda x, y, v: 0.5 * (np.log(v) + (x - y) ** 2 / v) + 0.5 * math.log(2 * math.pi),
           [A, A, _pos(A)]),
    OpSpec("nn.functional.gaussian_nll_loss",
           lambda x, y, v: F.gaussian_nll_loss(x, y, v),
           lambda x, y, v: (0.5 * (np.log(v[:, None]) + (x - y) ** 2 / v[:, None])).mean(),
           [A, A, _pos((3,))], id="per-sample"),
    OpSpec("nn.functional.poisson_nll_loss", F.poisson_nll_loss,
           lambda x, y: (np.exp(x) - y * x).mean(), [A, _pos(A, 0.0, 3.0)]),
    OpSpec("nn.functional.poisson_nll_loss",
           lambda x, y: F.poisson_nll_loss(x, y, log_input=False, full=True, reduction="sum"),
           lambda x, y: (x - y * np.log(x + 1e-8) + np.where(
               y > 1, y * np.log(y) - y + 0.5 * np.log(2 * np.pi * y), 0)).sum(),
           [_pos(A), _pos(A, 0.0, 3.0)], id="full"),
    OpSpec("nn.functional.dice_loss", lambda x: F.dice_loss(x, LAB[:, None]),
           lambda x: (1 - 2 * (x * np.eye(4)[LAB]).sum(1) / (x.sum(1) + 1 + 1e-5)).mean(),
           [_pos(A, 0.0, 1.0)]),
    # [N, 1] inputs (Paddle's shape check). Paddle's kernel is float32 only and the public
    # name refuses float64, so the entry calls the function under that check (DyGraph
    # computes float64); unwrap leaves a function without the check as it is.
    OpSpec("nn.functional.log_loss", lambda p, y: inspect.unwrap(F.log_loss)(p, y),
           lambda p, y: -y * np.log(p + 1e-4) - (1 - y) * np.log(1 - p + 1e-4),
           [_pos((4, 1), 0.1, 0.9), BITS[0][:, None]], grad_inputs=[0]),
    OpSpec("nn.functional.square_error_cost", F.square_error_cost,
           lambda x, y: (x - y) ** 2, [A, A]),
    OpSpec("nn.functional.sigmoid_focal_loss",
           lambda x: F.sigmoid_focal_loss(x, BITS, alpha=0.3, gamma=2.0),
           lambda x: _focal_ref(x, BITS, 0.3, 2.0).sum(), [A], domain=(-3, 3),
           float32=False, float32_reason="fn passes a float64 NumPy label: float64 result"),
    OpSpec("nn.functional.sigmoid_focal_loss",
           lambda x: F.sigmoid_focal_loss(x, BITS, np.array([2.0]), reduction="none"),
           lambda x: _focal_ref(x, BITS, 0.25, 2.0) / 2.0, [A], domain=(-3, 3),
           id="normalizer", float32=False,
           float32_reason="fn passes a float64 NumPy label: float64 result"),
    OpSpec("nn.functional.margin_cross_entropy",
           lambda x: F.margin_cross_entropy(x, LAB, 1.1, 0.3, 0.1, 4.0),
           lambda x: _margin_ce_ref(x, LAB, 1.1, 0.3, 0.1, 4.0), [A], domain=(-0.9, 0.9)),
]


def _lp_ref1d(x, p, k, s, pad):
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad)))
    n = (xp.shape[-1] - k) // s + 1
    return np.stack([(xp[..., i * s:i * s + k] ** p).sum(-1) for i in range(n)], -1) ** (1 / p)


def _lp_ref2d(x, p, k):
    n, c, h, w = x.shape
    return (x ** p).reshape(n, c, h // k, k, w // k, k).sum((3, 5)) ** (1 / p)


# max_unpool: values go to fixed, distinct flat positions of the output.
UNPOOL_IDX1 = np.array([[[1, 2, 5]], [[0, 3, 4]]])
UNPOOL_IDX2 = np.array([[[[0, 3], [9, 14]]]])


def _unpool_ref(x, idx, out_shape):
    out = np.zeros(x.shape[:2] + (int(np.prod(out_shape)),))
    np.put_along_axis(out, idx.reshape(*x.shape[:2], -1), x.reshape(*x.shape[:2], -1), 2)
    return out.reshape(x.shape[:2] + tuple(out_shape))


def _frac_ref(x, outs, u, k):
    """Max over the windows of Paddle's fractional sequences (rules checked against Paddle
    in tests/ops/pool/test_fractional_and_unpool.py)."""
    from dygraph.ops.pool.lp_unpool_fractional import _fractional_windows
    wins = [_fractional_windows(s, o, u, kk) for s, o, kk in zip(x.shape[2:], outs, k)]
    out = np.zeros(x.shape[:2] + tuple(outs))
    for cell in np.ndindex(*outs):
        sl = tuple(slice(wins[d][0][i], wins[d][1][i]) for d, i in enumerate(cell))
        block = x[(slice(None), slice(None)) + sl]
        out[(slice(None), slice(None)) + cell] = block.reshape(*x.shape[:2], -1).max(-1)
    return out


SPECS += [
    OpSpec("nn.functional.lp_pool1d", lambda x: F.lp_pool1d(x, 2, 2),
           lambda x: _lp_ref1d(x, 2, 2, 2, 0), [_pos((2, 2, 6))]),
    OpSpec("nn.functional.lp_pool1d", lambda x: F.lp_pool1d(x, 3, 3, stride=1, padding=1),
           lambda x: _lp_ref1d(x, 3, 3, 1, 1), [_pos((1, 2, 5))], id="padded"),
    OpSpec("nn.functional.lp_pool2d", lambda x: F.lp_pool2d(x, 1.5, 2),
           lambda x: _lp_ref2d(x, 1.5, 2), [_pos((1, 2, 4, 4))]),
    OpSpec("nn.functional.max_unpool1d", lambda x: F.max_unpool1d(x, UNPOOL_IDX1, 2),
           lambda x: _unpool_ref(x, UNPOOL_IDX1, (6,)), [(2, 1, 3)]),
    OpSpec("nn.functional.max_unpool2d",
           lambda x: F.max_unpool2d(x, UNPOOL_IDX2, 2, output_size=[4, 4]),
           lambda x: _unpool_ref(x, UNPOOL_IDX2, (4, 4)), [(1, 1, 2, 2)]),
    OpSpec("nn.functional.max_unpool3d",
           lambda x: F.max_unpool3d(x, UNPOOL_IDX2[..., None], [2, 2, 1]),
           lambda x: _unpool_ref(x, UNPOOL_IDX2, (4, 4, 1)), [(1, 1, 2, 2, 1)]),
    OpSpec("nn.functional.fractional_max_pool2d",
           lambda x: F.fractional_max_pool2d(x, [3, 2], random_u=0.7),
           lambda x: _frac_ref(x, (3, 2), 0.7, (0, 0)), [(1, 2, 7, 5)]),
    OpSpec("nn.functional.fractional_max_pool2d",
           lambda x: F.fractional_max_pool2d(x, 3, kernel_size=2, random_u=0.4),
           lambda x: _frac_ref(x, (3, 3), 0.4, (2, 2)), [(1, 1, 6, 6)], id="kernel"),
    OpSpec("nn.functional.fractional_max_pool3d",
           lambda x: F.fractional_max_pool3d(x, [2, 2, 3], random_u=0.3),
           lambda x: _frac_ref(x, (2, 2, 3), 0.3, (0, 0, 0)), [(1, 1, 3, 4, 5)]),
]


def _affine_ref(theta, h, w, align):
    def coords(n):
        return np.linspace(-1, 1, n) if align else (np.arange(n) * 2 + 1) / n - 1
    ys, xs = np.meshgrid(coords(h), coords(w), indexing="ij")
    base = np.stack([xs, ys, np.ones_like(xs)], -1)
    return np.einsum("hwk,njk->nhwj", base, theta)


def _tsm_ref(x, seg, ratio):
    n, c, h, w = x.shape
    v = x.reshape(n // seg, seg, c, h, w)
    out = np.zeros_like(v)
    c1, c2 = int(c * ratio), int(c * ratio * 2)
    out[:, 1:, :c1] = v[:, :-1, :c1]
    out[:, :-1, c1:c2] = v[:, 1:, c1:c2]
    out[:, :, c2:] = v[:, :, c2:]
    return out.reshape(x.shape)


def _seeded(fn, seed=7):
    def run(x):
        D.seed(seed)
        return fn(x)
    return run


def _channel_keep(shape, p, seed=7):
    return np.random.default_rng(seed).random(shape, dtype=np.float32) >= p


_ALPHA_P = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946


def _feature_alpha_ref(x, p):
    keep = _channel_keep(x.shape[:2] + (1,) * (x.ndim - 2), p)
    a = ((1 - p) * (1 + p * _ALPHA_P ** 2)) ** -0.5
    return a * np.where(keep, x, _ALPHA_P) - a * _ALPHA_P * p


SPECS += [
    OpSpec("nn.functional.channel_shuffle", lambda x: F.channel_shuffle(x, 3),
           lambda x: x.reshape(1, 3, 2, 2, 2).transpose(0, 2, 1, 3, 4).reshape(x.shape),
           [(1, 6, 2, 2)]),
    OpSpec("nn.functional.affine_grid", lambda t: F.affine_grid(t, [2, 1, 3, 4]),
           lambda t: _affine_ref(t, 3, 4, True), [(2, 2, 3)]),
    OpSpec("nn.functional.affine_grid",
           lambda t: F.affine_grid(t, [1, 1, 2, 3], align_corners=False),
           lambda t: _affine_ref(t, 2, 3, False), [(1, 2, 3)], id="half-pixel"),
    OpSpec("nn.functional.temporal_shift", lambda x: F.temporal_shift(x, 3, 0.25),
           lambda x: _tsm_ref(x, 3, 0.25), [(6, 4, 2, 1)]),
    OpSpec("nn.functional.dropout1d", _seeded(lambda x: F.dropout1d(x, 0.5)),
           lambda x: x * _channel_keep((1, 4, 1), 0.5) * 2.0, [(2, 4, 3)]),
    OpSpec("nn.functional.feature_alpha_dropout",
           _seeded(lambda x: F.feature_alpha_dropout(x, 0.3)),
           lambda x: _feature_alpha_ref(x, 0.3), [(3, 4, 2)]),
    OpSpec("nn.functional.zeropad2d", lambda x: F.zeropad2d(x, [1, 0, 2, 1]),
           lambda x: np.pad(x, ((0, 0), (0, 0), (2, 1), (1, 0))), [(1, 2, 2, 3)]),
    OpSpec("nn.functional.rms_norm", lambda x, w: F.rms_norm(x, [4], w),
           lambda x, w: (x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-5) * w,
                         1 / np.sqrt((x * x).mean(-1) + 1e-5)), [A, W4]),
]


def _hsig_ref(x, w, b, nodes, bits):
    """Sum over the path of softplus(s) - bit * s, s = x . w[node] + b[node]; padded steps
    (node -1) have s = 0 and so add log 2, as in Paddle."""
    out = np.zeros((x.shape[0], 1))
    for n in range(x.shape[0]):
        for node, bit in zip(nodes[n], bits[n]):
            s = 0.0 if node < 0 else np.clip(x[n] @ w[node] + b[node, 0], -40, 40)
            out[n, 0] += np.logaddexp(0, s) - bit * s
    return out


HS_LABELS = np.array([0, 3, 4])
# The default tree over 5 classes: codes 5, 8, 9 -> paths of 2, 3, 3 nodes.
HS_NODES = np.array([[1, 0, -1], [3, 1, 0], [3, 1, 0]])
HS_BITS = np.array([[1, 0, 0], [0, 0, 0], [1, 0, 0]])
CUSTOM_NODES = np.array([[2, 0, -1], [1, 3, 0], [0, -1, -1]])
CUSTOM_BITS = np.array([[1, 1, 0], [0, 1, 1], [1, 0, 0]])
ALS_LABELS = np.array([0, 2, 3, 4])
ALS_CUTOFFS = [2, 4, 5]


def _als_ref(x, head, w0a, w1a, w0b, w1b):
    def logsm(z):
        return z - np.log(np.exp(z - z.max(1, keepdims=True)).sum(1, keepdims=True)) \
            - z.max(1, keepdims=True)
    h = logsm(x @ head)
    full = np.concatenate([h[:, :2], logsm(x @ w0a @ w1a) + h[:, 2:3],
                           logsm(x @ w0b @ w1b) + h[:, 3:4]], axis=1)
    out = full[np.arange(4), ALS_LABELS]
    return out, -out.mean()


SPECS += [
    OpSpec("nn.functional.hsigmoid_loss",
           lambda x, w, b: F.hsigmoid_loss(x, HS_LABELS, 5, w, b),
           lambda x, w, b: _hsig_ref(x, w, b, HS_NODES, HS_BITS), [A, (4, 4), (4, 1)]),
    OpSpec("nn.functional.hsigmoid_loss",
           lambda x, w: F.hsigmoid_loss(x, HS_LABELS, 5, w, path_table=CUSTOM_NODES,
                                        path_code=CUSTOM_BITS),
           lambda x, w: _hsig_ref(x, w, np.zeros((4, 1)), CUSTOM_NODES, CUSTOM_BITS),
           [A, (4, 4)], id="custom"),
    OpSpec("nn.functional.adaptive_log_softmax_with_loss",
           lambda x, head, w0a, w1a, w0b, w1b: F.adaptive_log_softmax_with_loss(
               x, ALS_LABELS, head, [[w0a, w1a], [w0b, w1b]], ALS_CUTOFFS),
           _als_ref, [(4, 3), (3, 4), (3, 2), (2, 2), (3, 1), (1, 1)]),
]


def _rnnt_brute(lp, labels, in_len, lab_len, blank=0):
    """-log of the sum over every alignment (tiny sizes): T blanks and U labels in any
    order, the last step a blank."""
    import itertools
    out = []
    for b in range(lp.shape[0]):
        t_len, u_len = int(in_len[b]), int(lab_len[b])
        total = -np.inf
        for moves in set(itertools.permutations([0] * (t_len - 1) + [1] * u_len)):
            t = u = 0
            score = 0.0
            for move in moves:
                if move:
                    score += lp[b, t, u, labels[b, u]]
                    u += 1
                else:
                    score += lp[b, t, u, blank]
                    t += 1
            total = np.logaddexp(total, score + lp[b, t, u, blank])
        out.append(-total)
    return np.array(out)


RNNT_LABELS = np.array([[1, 2], [2, 0]])
RNNT_IN, RNNT_LAB = np.array([3, 2]), np.array([2, 1])

SPECS += [
    # The gradient is the occupancy from the alpha-beta recursion on arrays: no double
    # backward. fastemit_lambda=0 so the gradient is the loss's derivative.
    OpSpec("nn.functional.rnnt_loss",
           lambda x: F.rnnt_loss(x, RNNT_LABELS, RNNT_IN, RNNT_LAB, fastemit_lambda=0.0,
                                 reduction="none"),
           lambda x: _rnnt_brute(x, RNNT_LABELS, RNNT_IN, RNNT_LAB), [(2, 3, 3, 3)],
           domain=(-2, 0), double=False),
]
