"""Noise-contrastive estimation (Paddle's `nce` op, behind paddle.static.nn.nce).

For each sample i with true classes t (label[i], num_true of them) and K negative classes
drawn from a noise distribution P (uniform, log-uniform or a custom one), every sampled
class c gets the logit z = input[i] . weight[c] + bias[c] and o = sigmoid(z); with the
noise level b = K * P(c) the per-sample cost is

    sample_weight[i] / (K + 1) * (sum over true c of -log(o / (o + b))
                                  + sum over negative c of -log(b / (o + b)))

(Gutmann and Hyvarinen's estimator, as Paddle's kernel computes it; the division by K + 1
is Paddle's Python layer's). Negatives are drawn per sample from DyGraph's global generator
(or a generator of their own when `seed` is not 0) and may repeat or equal a true class.
The log-uniform sampler draws class k with probability log((k + 2) / (k + 1)) / log(C),
which puts its mass on 0..C-2, as Paddle's sampler does.

Example:
    >>> import dygraph
    >>> _ = dygraph.seed(1)
    >>> x, w = dygraph.ones([2, 3]), dygraph.zeros([5, 3])
    >>> nce_loss(x, dygraph.to_tensor([[0], [4]]), w, num_neg_samples=4).shape
    [2, 1]
"""

import math

import numpy as np

from dygraph.autograd.backward_math import array_math
from dygraph.autograd.function import Op, apply
from dygraph.autograd.whole_call import captured_whole
from dygraph.framework.errors import op_error
from dygraph.framework.random import rng
from dygraph.ops.common import as_tensor, float_operand
from dygraph.tensor.tensor import _new_tensor

__all__ = ["nce_loss"]

SAMPLERS = ("uniform", "log_uniform", "custom_dist")
_OP = "nce"


class NCE(Op):
    """The per-sample NCE cost [B, 1] of input [B, D], weight [C, D], optionally bias
    [C, 1] and sample_weight [B, 1], at constant sampled classes `samples` [B, S] (the true
    ones first in each row: `positive` [S] marks them) with noise levels `noise` [B, S]."""

    attrs = ("samples", "positive", "noise", "scale", "has_bias", "has_sample_weight")
    save_inputs = True

    def __init__(self, samples, positive, noise, scale, has_bias, has_sample_weight):
        self.samples, self.positive, self.noise = samples, positive, noise
        self.scale = scale
        self.has_bias, self.has_sample_weight = has_bias, has_sample_weight

    def _parts(self, inputs):
        x, w = inputs[0], inputs[1]
        bias = inputs[2] if self.has_bias else None
        sw = inputs[2 + self.has_bias] if self.has_sample_weight else None
        return x, w, bias, sw

    def _constants(self, xp, dtype):
        """The sampled ids, the positive mask, the noise levels and, for the negatives,
        log(noise) (0 for the true classes), on xp's device."""
        noise = np.asarray(self.noise, dtype=np.float64)
        positive = np.broadcast_to(np.asarray(self.positive, dtype=bool), noise.shape)
        with np.errstate(divide="ignore"):
            log_noise = np.where(positive, 0.0, np.log(np.where(positive, 1.0, noise)))
        return (xp.asarray(self.samples), xp.asarray(positive.astype(dtype)),
                xp.asarray(noise.astype(dtype)), xp.asarray(log_noise.astype(dtype)))

    def _terms(self, m, x, w, bias, consts):
        """(rows [B, S, D], logits z [B, S], per-class cost terms [B, S])."""
        ids, positive, noise, log_noise = consts
        rows = m.nn_lookup(w, ids, None)
        z = m.einsum("bd,bsd->bs", x, rows)
        if bias is not None:
            z = z + m.reshape(m.nn_lookup(bias, ids, None), tuple(z.shape))
        log_o = -m.softplus(-z)  # log(sigmoid(z)), exact for large negative z too
        terms = m.log(m.sigmoid(z) + noise) - positive * log_o - log_noise
        return rows, z, terms

    def forward(self, xp, *inputs):
        x, w, bias, sw = self._parts(inputs)
        consts = self._constants(xp, x.dtype)
        _, _, terms = self._terms(array_math(xp), x, w, bias, consts)
        cost = terms.sum(axis=1, keepdims=True) * x.dtype.type(self.scale)
        return cost * sw if sw is not None else cost

    def backward(self, m, g):
        x, w = self.x(0, m), self.x(1, m)
        bias = self.x(2, m) if self.has_bias else None
        sw = self.x(2 + self.has_bias, m) if self.has_sample_weight else None
        data = m.data(x)
        from dygraph.backend import get_array_module

        consts = self._constants(get_array_module(data), data.dtype)
        if m.tensor_mode:
            consts = tuple(_new_tensor(c, None, 0, True) for c in consts)
        ids, positive, noise, _ = consts
        rows, z, terms = self._terms(m, x, w, bias, consts)
        o = m.sigmoid(z)
        # d terms / dz = (1 - o) * (o / (o + b) - [true class])
        dz = m.sigmoid(-z) * (o / (o + noise) - positive)
        coef = g * self.scale
        grad_z = (coef * sw if sw is not None else coef) * dz  # [B, S]
        n_classes = int(m.data(w).shape[0])
        grads = [m.einsum("bs,bsd->bd", grad_z, rows),
                 m.nn_row_sums(m.einsum("bs,bd->bsd", grad_z, x), ids, n_classes, None)]
        if self.has_bias:
            grads.append(m.nn_row_sums(m.expand_dims(grad_z, 2), ids, n_classes, None))
        if self.has_sample_weight:
            grads.append(coef * m.sum(terms, axis=1, keepdims=True))
        return tuple(grads)


def _check_sampler(sampler, custom_dist, n_classes, num_neg_samples):
    if isinstance(num_neg_samples, bool) or not isinstance(num_neg_samples,
                                                           (int, np.integer)):
        raise op_error(_OP, f"num_neg_samples must be an int, got {num_neg_samples!r}",
                       TypeError)
    if num_neg_samples < 1:
        raise op_error(_OP, f"num_neg_samples must be at least 1, got {num_neg_samples}")
    if sampler not in SAMPLERS:
        raise op_error(_OP, f"sampler must be one of {SAMPLERS}, got {sampler!r}")
    if sampler == "log_uniform" and n_classes < 2:
        raise op_error(_OP, f"the 'log_uniform' sampler needs at least 2 classes, got "
                       f"{n_classes}")
    if sampler != "custom_dist":
        return None
    if custom_dist is None:
        raise op_error(_OP, "sampler 'custom_dist' needs custom_dist, the probability of "
                       "each class")
    dist = np.asarray(custom_dist, dtype=np.float64).reshape(-1)
    if dist.size != n_classes:
        raise op_error(_OP, f"custom_dist must hold one probability per class "
                       f"({n_classes}), got {dist.size}")
    if not (np.isfinite(dist).all() and (dist >= 0).all()) or abs(dist.sum() - 1) > 1e-3:
        raise op_error(_OP, f"custom_dist must be probabilities that sum to 1, got a sum "
                       f"of {dist.sum():.6g}")
    return dist


def _draw(gen, sampler, n_classes, shape, dist):
    """Negative classes of `shape` from the sampler."""
    if sampler == "uniform":
        return gen.integers(0, n_classes, shape)
    if sampler == "log_uniform":
        # the inverse of P(class < k) = log(k + 1) / log(C)
        u = gen.random(shape)
        return np.clip(np.floor(np.exp(u * math.log(n_classes))).astype(np.int64) - 1, 0,
                       n_classes - 2)
    return gen.choice(n_classes, size=shape, p=dist / dist.sum())


def _probability(sampler, n_classes, classes, dist):
    """The sampler's probability of each of `classes`."""
    if sampler == "uniform":
        return np.full(classes.shape, 1.0 / n_classes)
    if sampler == "log_uniform":
        return np.log((classes + 2.0) / (classes + 1.0)) / math.log(n_classes)
    return dist[classes]


def _float_input(t, what):
    t = float_operand(t, _OP)
    if t._data.dtype.kind == "c":
        raise op_error(_OP, f"{what} must be a real float tensor, got {t.dtype}", TypeError)
    return t


# The samples are an attribute of the NCE op: static mode records the whole call, so a
# program draws new negatives (and reads each run's labels) at every run.
@captured_whole
def nce_loss(input, label, weight, bias=None, sample_weight=None,  # noqa: A002
             num_neg_samples=10, sampler="uniform", custom_dist=None, seed=0, name=None):
    """The NCE cost [batch, 1] of `input` [batch, dim] against the int64 classes `label`
    [batch, num_true], with the class weights `weight` [num_classes, dim], the optional
    `bias` [num_classes, 1] (or [num_classes]) and per-sample weights `sample_weight`
    [batch, 1]. `num_neg_samples` negatives per sample come from `sampler` ('uniform',
    'log_uniform' or 'custom_dist' with the probabilities `custom_dist`); `seed` other than
    0 draws them from a generator seeded with it, the same ones at every call.

    Example:
        >>> import dygraph
        >>> x, w = dygraph.ones([1, 2]), dygraph.zeros([3, 2])
        >>> dist = [0.0, 0.0, 1.0]  # every negative is class 2
        >>> cost = nce_loss(x, dygraph.to_tensor([[0]]), w, num_neg_samples=2,
        ...                 sampler='custom_dist', custom_dist=dist)
        >>> round(float(cost), 4)  # (0 + 2 * log(2.5 / 2)) / 3 with o = 0.5, b = 2
        0.1488
    """
    x = _float_input(input, "input")
    w = _float_input(weight, "weight")
    if x.ndim != 2:
        raise op_error(_OP, f"input must be [batch, dim], got shape {list(x.shape)}")
    if w.ndim != 2 or int(w.shape[1]) != int(x.shape[1]):
        raise op_error(_OP, f"weight must be [num_classes, {int(x.shape[1])}] for input of "
                       f"shape {list(x.shape)}, got shape {list(w.shape)}")
    if w.dtype != x.dtype:
        raise op_error(_OP, f"weight ({w.dtype}) and input ({x.dtype}) must have one dtype",
                       TypeError)
    batch, n_classes = int(x.shape[0]), int(w.shape[0])
    inputs = [x, w]
    if bias is not None:
        b = _float_input(bias, "bias")
        if list(b.shape) not in ([n_classes], [n_classes, 1]) or b.dtype != x.dtype:
            raise op_error(_OP, f"bias must be [{n_classes}, 1] or [{n_classes}] of "
                           f"{x.dtype}, got shape {list(b.shape)} of {b.dtype}")
        inputs.append(b.reshape([n_classes, 1]) if b.ndim == 1 else b)
    if sample_weight is not None:
        s = _float_input(sample_weight, "sample_weight")
        if list(s.shape) not in ([batch], [batch, 1]) or s.dtype != x.dtype:
            raise op_error(_OP, f"sample_weight must be [{batch}, 1] or [{batch}] of "
                           f"{x.dtype}, got shape {list(s.shape)} of {s.dtype}")
        inputs.append(s.reshape([batch, 1]) if s.ndim == 1 else s)
    lab = as_tensor(label, _OP)
    if lab._data.dtype.kind not in "iu":
        raise op_error(_OP, f"label must be an int64 tensor of classes, got {lab.dtype}",
                       TypeError)
    labels = np.asarray(lab.numpy()).astype(np.int64)
    if labels.ndim != 2 or labels.shape[0] != batch:
        raise op_error(_OP, f"label must be [{batch}, num_true], got shape "
                       f"{list(labels.shape)}")
    if labels.size and (labels.min() < 0 or labels.max() >= n_classes):
        raise op_error(_OP, f"label holds classes outside [0, {n_classes}): "
                       f"[{labels.min()}, {labels.max()}]", IndexError)
    dist = _check_sampler(sampler, custom_dist, n_classes, num_neg_samples)
    k = int(num_neg_samples)
    gen = np.random.default_rng(seed) if seed else rng()
    negatives = _draw(gen, sampler, n_classes, (batch, k), dist)
    samples = np.concatenate([labels, negatives.astype(np.int64)], axis=1)
    positive = np.arange(samples.shape[1]) < labels.shape[1]
    noise = k * _probability(sampler, n_classes, samples, dist)
    op = NCE(samples, positive, noise, 1.0 / (k + 1), bias is not None,
             sample_weight is not None)
    return apply(op, *inputs)
