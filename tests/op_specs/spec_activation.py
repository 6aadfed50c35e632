"""Spec entries for the activations of dygraph.nn.functional.

Inputs of piecewise functions are kept away from their kinks, where central differences
would straddle two pieces.
"""

import math

import numpy as np

import dygraph as D
import dygraph.nn.functional as F
from tests.op_specs import OpSpec

A = (3, 4)
SMOOTH = (-3.0, 3.0)
_erf = np.vectorize(math.erf)


def _away_from(points, low, high, shape=A, gap=0.05):
    """Uniform values in [low, high], none within `gap` of a point in `points`."""
    def make(rng):
        v = rng.uniform(low, high, shape)
        for p in points:
            near = np.abs(v - p) < gap
            v = np.where(near, p + np.where(v >= p, gap, -gap), v)
        return v

    return make


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _softplus(x, beta=1.0, threshold=20.0):
    return np.where(beta * x > threshold, x, np.log1p(np.exp(beta * x)) / beta)


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def _gumbel(x, temperature, seed):
    """The reference gumbel_softmax: the same uniform draws as dygraph.seed(seed) gives."""
    u = np.random.default_rng(seed).random(x.shape)
    return _softmax((x - np.log(-np.log(u))) / temperature)


def _seeded_gumbel(x, temperature=0.5, hard=False):
    D.seed(3)
    return F.gumbel_softmax(x, temperature, hard=hard)


def _prelu_ref(x, w, channel_axis):
    shape = [1] * x.ndim
    shape[channel_axis] = w.size
    return np.where(x > 0, x, x * w.reshape(shape if w.size > 1 else [1]))


def _elu(x, alpha=1.0):
    return np.where(x > 0, x, alpha * np.expm1(x))


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


_SELU_SCALE = 1.0507009873554804934193349852946
_SELU_ALPHA = 1.6732632423543772848170429916717
_NEAR_ZERO = _away_from((0.0,), -2.0, 2.0)
_CHANNELS = np.array([0.2, -0.1, 0.5])

SPECS = [
    OpSpec("nn.functional.relu", F.relu, lambda x: np.maximum(x, 0), [_NEAR_ZERO]),
    OpSpec("nn.functional.relu_", lambda x: F.relu_(x.clone()), lambda x: np.maximum(x, 0),
           [_NEAR_ZERO]),
    OpSpec("nn.functional.relu6", F.relu6, lambda x: np.clip(x, 0, 6),
           [_away_from((0.0, 6.0), -2.0, 8.0)]),
    OpSpec("nn.functional.leaky_relu", lambda x: F.leaky_relu(x, 0.1),
           lambda x: np.where(x > 0, x, 0.1 * x), [_NEAR_ZERO]),
    OpSpec("nn.functional.elu", lambda x: F.elu(x, 0.5), lambda x: _elu(x, 0.5), [_NEAR_ZERO]),
    OpSpec("nn.functional.celu", lambda x: F.celu(x, 2.0),
           lambda x: np.maximum(x, 0) + np.minimum(0, 2.0 * np.expm1(x / 2.0)), [_NEAR_ZERO]),
    OpSpec("nn.functional.selu", F.selu,
           lambda x: _SELU_SCALE * np.where(x > 0, x, _SELU_ALPHA * np.expm1(x)), [_NEAR_ZERO]),
    OpSpec("nn.functional.gelu", F.gelu, lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2))),
           [A], domain=SMOOTH),
    OpSpec("nn.functional.gelu", lambda x: F.gelu(x, approximate=True), _gelu_tanh, [A],
           domain=SMOOTH, id="tanh"),
    OpSpec("nn.functional.silu", F.silu, lambda x: x * _sigmoid(x), [A], domain=SMOOTH),
    OpSpec("nn.functional.swish", F.swish, lambda x: x * _sigmoid(x), [A], domain=SMOOTH),
    OpSpec("nn.functional.sigmoid", F.sigmoid, _sigmoid, [A], domain=SMOOTH),
    OpSpec("nn.functional.log_sigmoid", F.log_sigmoid, lambda x: np.log(_sigmoid(x)), [A],
           domain=SMOOTH),
    OpSpec("nn.functional.hardsigmoid", F.hardsigmoid,
           lambda x: np.clip(x * 0.1666667 + 0.5, 0, 1), [_away_from((-3.0, 3.0), -5.0, 5.0)]),
    OpSpec("nn.functional.hardswish", F.hardswish, lambda x: x * np.clip(x + 3, 0, 6) / 6,
           [_away_from((-3.0, 3.0), -5.0, 5.0)]),
    OpSpec("nn.functional.hardtanh", lambda x: F.hardtanh(x, -0.5, 1.0),
           lambda x: np.clip(x, -0.5, 1.0), [_away_from((-0.5, 1.0), -2.0, 2.0)]),
    OpSpec("nn.functional.hardshrink", F.hardshrink,
           lambda x: np.where(np.abs(x) > 0.5, x, 0), [_away_from((-0.5, 0.5), -2.0, 2.0)]),
    OpSpec("nn.functional.softshrink", F.softshrink,
           lambda x: np.sign(x) * np.maximum(np.abs(x) - 0.5, 0),
           [_away_from((-0.5, 0.5), -2.0, 2.0)]),
    OpSpec("nn.functional.softplus", F.softplus, _softplus, [A], domain=SMOOTH),
    OpSpec("nn.functional.softplus", lambda x: F.softplus(x, beta=2, threshold=3),
           lambda x: _softplus(x, 2.0, 3.0), [_away_from((1.5,), -2.0, 3.0)], id="threshold"),
    OpSpec("nn.functional.softsign", F.softsign, lambda x: x / (1 + np.abs(x)), [_NEAR_ZERO]),
    OpSpec("nn.functional.mish", F.mish, lambda x: x * np.tanh(_softplus(x)), [A],
           domain=SMOOTH),
    OpSpec("nn.functional.tanhshrink", F.tanhshrink, lambda x: x - np.tanh(x), [A],
           domain=SMOOTH),
    OpSpec("nn.functional.thresholded_relu", F.thresholded_relu,
           lambda x: np.where(x > 1.0, x, 0), [_away_from((1.0,), -1.0, 3.0)]),
    OpSpec("nn.functional.prelu", F.prelu, lambda x, w: _prelu_ref(x, w, 1),
           [_away_from((0.0,), -2.0, 2.0, (2, 3, 2, 2)), _CHANNELS]),
    OpSpec("nn.functional.prelu", lambda x, w: F.prelu(x, w, data_format="NHWC"),
           lambda x, w: _prelu_ref(x, w, 3),
           [_away_from((0.0,), -2.0, 2.0, (2, 2, 2, 3)), _CHANNELS], id="NHWC"),
    OpSpec("nn.functional.prelu", F.prelu, lambda x, w: _prelu_ref(x, w, 1),
           [_NEAR_ZERO, np.array([0.25])], id="shared"),
    OpSpec("nn.functional.glu", F.glu,
           lambda x: x[:, :2] * _sigmoid(x[:, 2:]), [A], domain=SMOOTH),
    OpSpec("nn.functional.glu", lambda x: F.glu(x, axis=0),
           lambda x: x[:2] * _sigmoid(x[2:]), [(4, 3)], domain=SMOOTH, id="axis0"),
    OpSpec("nn.functional.softmax", F.softmax, _softmax, [A], domain=SMOOTH),
    OpSpec("nn.functional.softmax", lambda x: F.softmax(x, axis=0),
           lambda x: _softmax(x, 0), [(3, 2, 2)], domain=SMOOTH, id="axis0"),
    OpSpec("nn.functional.log_softmax", F.log_softmax, lambda x: np.log(_softmax(x)), [A],
           domain=SMOOTH),
    OpSpec("nn.functional.log_softmax", lambda x: F.log_softmax(x, axis=1),
           lambda x: np.log(_softmax(x, 1)), [(2, 3, 2)], domain=SMOOTH, id="axis1"),
    OpSpec("nn.functional.gumbel_softmax", _seeded_gumbel, lambda x: _gumbel(x, 0.5, 3), [A],
           domain=SMOOTH, float32=False,
           float32_reason="draws its noise in the input's dtype: not the reference's sample"),
    # hard=True is piecewise constant forward with the soft gradient (straight-through),
    # so finite differences cannot check it; tests/ops/activation/test_activation_behaviour.py does.
    OpSpec("nn.functional.gumbel_softmax",
           lambda x: _seeded_gumbel(x, hard=True),
           lambda x: np.eye(4)[_gumbel(x, 0.5, 3).argmax(-1)], [A], domain=SMOOTH,
           grad=False, id="hard", float32=False,
           float32_reason="draws its noise in the input's dtype: not the reference's sample"),
]
