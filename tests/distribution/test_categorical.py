"""Categorical: Paddle's two readings of `logits` (softmax for sampling, entropy and KL;
normalised weights for probs/log_prob), sample frequencies and gradients."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.distribution import Categorical
from tests.distribution.helpers import assert_seeded, check_grad

LOGITS = np.array([[1.0, 2.0, 3.0], [0.5, 0.5, 4.0]])


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_entropy_kl_and_probs():
    d = Categorical(dygraph.to_tensor(LOGITS))
    p = _softmax(LOGITS)
    np.testing.assert_allclose(d.entropy().numpy(), -(p * np.log(p)).sum(-1))
    other = np.array([[0.0, 0.0, 0.0], [1.0, -1.0, 2.0]])
    q = _softmax(other)
    np.testing.assert_allclose(
        d.kl_divergence(Categorical(dygraph.to_tensor(other))).numpy(),
        (p * np.log(p / q)).sum(-1, keepdims=True))
    weights = LOGITS / LOGITS.sum(-1, keepdims=True)
    value = np.array([[2, 0], [1, 2]])
    np.testing.assert_allclose(d.probs(dygraph.to_tensor(value)).numpy(),
                               np.take_along_axis(weights, value, -1))
    np.testing.assert_allclose(d.log_prob(dygraph.to_tensor([2, 0])).numpy(),
                               np.log(weights[:, [2, 0]]))


def test_sample_frequencies_and_seeding():
    d = Categorical(dygraph.to_tensor(LOGITS))
    dygraph.seed(0)
    x = d.sample([20000]).numpy()
    assert x.shape == (20000, 2) and x.dtype == np.int64
    for row in range(2):
        freq = np.bincount(x[:, row], minlength=3) / len(x)
        np.testing.assert_allclose(freq, _softmax(LOGITS)[row], atol=0.015)
    assert_seeded(lambda: d.sample([10]))


def test_gradients():
    def terms(logits):
        d = Categorical(logits)
        return (d.entropy().sum() + d.log_prob(dygraph.to_tensor([2, 0])).sum()
                + d.kl_divergence(Categorical(dygraph.ones_like(logits))).sum())

    check_grad(terms, [LOGITS])


def test_probabilities_as_logits_give_log_probabilities():
    probs = F.softmax(dygraph.to_tensor([[0.1, 0.7, -0.3]]), axis=-1)
    d = Categorical(probs)
    np.testing.assert_allclose(d.log_prob(dygraph.to_tensor([1])).numpy(),
                               np.log(probs.numpy()[:, [1]]), rtol=1e-6)
    assert d.batch_shape == (1,)
    with pytest.raises(TypeError):
        Categorical(3)
