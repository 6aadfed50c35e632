"""Spec entries for the normalization ops of dygraph.nn.functional."""

import numpy as np

import dygraph.nn.functional as F
from tests.op_specs import OpSpec

EPS = 1e-5


def _standardize(x, axes):
    mean = x.mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=axes, keepdims=True) + EPS)


def _channel(v, ndim, axis=1):
    shape = [1] * ndim
    shape[axis] = -1
    return v.reshape(shape)


def bn_train_ref(x, w, b):
    return _standardize(x, (0, 2, 3)) * _channel(w, 4) + _channel(b, 4)


def bn_eval_ref(x, mean, var, w, b):
    return ((x - _channel(mean, 3)) / np.sqrt(_channel(var, 3) + EPS) * _channel(w, 3)
            + _channel(b, 3))


def group_ref(x, groups, w, b):
    n = x.shape[0]
    y = _standardize(x.reshape(n, groups, -1), (2,)).reshape(x.shape)
    return y * _channel(w, x.ndim) + _channel(b, x.ndim)


def lrn_ref(x, size, alpha, beta, k):
    sq = np.pad(x * x, [(0, 0), (size // 2, (size - 1) // 2)] + [(0, 0)] * (x.ndim - 2))
    window = sum(sq[:, i:i + x.shape[1]] for i in range(size))
    return x / (k + alpha * window / size) ** beta


_VAR = np.array([0.5, 1.5, 2.0])

SPECS = [
    # Running statistics are inputs 1 and 2; the spec differentiates x, weight and bias.
    OpSpec("nn.functional.batch_norm",
           lambda x, m, v, w, b: F.batch_norm(x, m, v, w, b, training=True),
           lambda x, m, v, w, b: bn_train_ref(x, w, b),
           [(4, 3, 2, 2), np.zeros(3), np.ones(3), (3,), (3,)], grad_inputs=[0, 3, 4]),
    OpSpec("nn.functional.batch_norm",
           lambda x, m, v, w, b: F.batch_norm(x, m, v, w, b, data_format="NCL"),
           bn_eval_ref, [(2, 3, 4), np.array([0.1, -0.2, 0.3]), _VAR, (3,), (3,)],
           grad_inputs=[0, 3, 4], id="eval"),
    OpSpec("nn.functional.layer_norm", lambda x, w, b: F.layer_norm(x, [3, 4], w, b),
           lambda x, w, b: _standardize(x, (1, 2)) * w.reshape(3, 4) + b.reshape(3, 4),
           [(2, 3, 4), (12,), (12,)]),
    OpSpec("nn.functional.layer_norm", lambda x: F.layer_norm(x, 4),
           lambda x: _standardize(x, (2,)), [(2, 3, 4)], id="no-affine"),
    OpSpec("nn.functional.group_norm", lambda x, w, b: F.group_norm(x, 2, weight=w, bias=b),
           lambda x, w, b: group_ref(x, 2, w, b), [(2, 4, 3, 2), (4,), (4,)]),
    OpSpec("nn.functional.instance_norm",
           lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
           lambda x, w, b: _standardize(x, (2, 3)) * _channel(w, 4) + _channel(b, 4),
           [(2, 3, 4, 3), (3,), (3,)]),
    OpSpec("nn.functional.local_response_norm",
           lambda x: F.local_response_norm(x, 3, alpha=0.5, beta=0.75, k=1.0),
           lambda x: lrn_ref(x, 3, 0.5, 0.75, 1.0), [(2, 5, 2, 2)]),
    OpSpec("nn.functional.local_response_norm",
           lambda x: F.local_response_norm(x, 4, alpha=0.3, beta=0.6, k=2.0),
           lambda x: lrn_ref(x, 4, 0.3, 0.6, 2.0), [(2, 6, 3)], id="even-size"),
]
