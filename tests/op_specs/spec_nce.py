"""Spec entries for noise-contrastive estimation (dygraph/ops/loss/nce.py), the op behind
static.nn.nce (which makes the weight and bias as parameters; here they are inputs, so that
their gradients are checked).

The negatives are random: each callable reseeds the global generator first, so every call
(forward, finite differences) draws the same classes, and the reference redraws them from
the same seed with the sampler's documented distribution. The reference then applies the
NCE cost as Paddle 2.x documents and computes it (checked against Paddle 3.3's old-IR
kernel on the same sampled classes): per sampled class, o = sigmoid(x . w_c + b_c) and
b = K * P(c); -log(o / (o + b)) for a true class, -log(b / (o + b)) for a negative; their
sum times the sample's weight, over K + 1.
"""

import math

import numpy as np

import dygraph as D
from tests.op_specs import OpSpec

SEED = 17
B, DIM, C, K = 3, 4, 6, 3
LABELS = np.array([[0, 5], [2, 2], [4, 1]], dtype=np.int64)
DIST = np.array([0.1, 0.25, 0.05, 0.3, 0.2, 0.1])


def _nce(x, label, w, b=None, s=None, sampler="uniform", dist=None):
    from dygraph.ops.loss.nce import nce_loss  # not a name of Paddle's API

    D.seed(SEED)
    return nce_loss(x, label, w, b, s, num_neg_samples=K, sampler=sampler,
                    custom_dist=None if dist is None else dist.tolist())


def _negatives(sampler, batch):
    from dygraph.framework.random import rng

    D.seed(SEED)
    if sampler == "uniform":
        return rng().integers(0, C, (batch, K))
    if sampler == "log_uniform":  # P(k) = log((k + 2) / (k + 1)) / log(C), inverted
        u = rng().random((batch, K))
        return np.clip(np.floor(np.exp(u * math.log(C))).astype(np.int64) - 1, 0, C - 2)
    return rng().choice(C, size=(batch, K), p=DIST / DIST.sum())


def _probability(sampler, classes):
    if sampler == "uniform":
        return np.full(classes.shape, 1.0 / C)
    if sampler == "log_uniform":
        return np.log((classes + 2.0) / (classes + 1.0)) / math.log(C)
    return DIST[classes]


def _ref(x, label, w, b=None, s=None, sampler="uniform"):
    batch = x.shape[0]
    classes = np.concatenate([label, _negatives(sampler, batch)], axis=1)
    cost = np.zeros((batch, 1))
    for i in range(batch):
        for j, c in enumerate(classes[i]):
            o = 1.0 / (1.0 + np.exp(-(x[i] @ w[c] + (0.0 if b is None else b[c, 0]))))
            noise = K * _probability(sampler, np.array(c))
            true_class = j < label.shape[1]
            cost[i, 0] += -np.log(o / (o + noise)) if true_class else \
                -np.log(noise / (o + noise))
        cost[i, 0] *= 1.0 if s is None else s[i, 0]
    return cost / (K + 1)


def _positive(shape):
    return lambda r: r.uniform(0.5, 2.0, shape)


SPECS = [
    OpSpec("static.nn.nce", _nce, _ref,
           [(B, DIM), LABELS, (C, DIM), (C, 1), _positive((B, 1))], id="uniform",
           family="loss"),
    OpSpec("static.nn.nce", lambda x, lab, w: _nce(x, lab, w, sampler="log_uniform"),
           lambda x, lab, w: _ref(x, lab, w, sampler="log_uniform"),
           [(B, DIM), LABELS, (C, DIM)], id="log_uniform", family="loss"),
    OpSpec("static.nn.nce",
           lambda x, lab, w, b: _nce(x, lab, w, b, sampler="custom_dist", dist=DIST),
           lambda x, lab, w, b: _ref(x, lab, w, b, sampler="custom_dist"),
           [(B, DIM), LABELS, (C, DIM), (C, 1)], id="custom_dist", family="loss"),
]
