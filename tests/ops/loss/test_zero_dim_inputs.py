"""Distance-based losses of 0-D inputs (dygraph/ops/loss/margin.py): a 0-D difference is a
vector of one element, so its p-norm is its absolute value, and the result is 0-D (Paddle
3.3's answers); multi_label_soft_margin_loss takes a 0-D input as one sample of one class."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F


def _s(v, grad=False):
    return dygraph.to_tensor(np.float32(v), stop_gradient=not grad)


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, float("inf"), 0.0])
def test_pairwise_distance_of_scalars(p):
    x = _s(-1.5, grad=True)
    d = F.pairwise_distance(x, _s(2.0), p=p, epsilon=0.25)
    assert d.shape == []
    assert float(d) == pytest.approx(1.0 if p == 0 else 3.25)
    assert F.pairwise_distance(x, _s(2.0), p=p, keepdim=True).shape == [1]
    if p != 0:
        d.backward()
        assert float(x.grad) == pytest.approx(-1.0)


def test_pairwise_distance_of_a_scalar_and_a_vector():
    assert F.pairwise_distance(_s(2.0), dygraph.ones([3])).shape == []


@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_triplet_losses_of_scalars(reduction):
    a, pos, neg = _s(1.25), _s(0.5), _s(1.5)
    want = max(0.0, 0.75 - 0.25 + 1.0)
    for loss in (F.triplet_margin_loss(a, pos, neg, epsilon=0.0, reduction=reduction),
                 F.triplet_margin_with_distance_loss(a, pos, neg, reduction=reduction)):
        assert loss.shape == []
        assert float(loss) == pytest.approx(want, abs=1e-5)


def test_multi_label_soft_margin_loss_of_a_scalar():
    x, y = -1.25, 0.75
    want = -(y * np.log(1 / (1 + np.exp(-x))) + (1 - y) * np.log(1 / (1 + np.exp(x))))
    loss = F.multi_label_soft_margin_loss(_s(x), _s(y), weight=_s(2.0), reduction="none")
    assert loss.shape == []
    assert float(loss) == pytest.approx(2 * want, rel=1e-6)
