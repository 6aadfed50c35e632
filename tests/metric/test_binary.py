"""Precision, Recall and Auc against NumPy computations of sklearn's definitions."""

import numpy as np
import pytest

import dygraph
from dygraph.metric import Auc, Precision, Recall


def _data(seed=0, n=300):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    return p, (rng.random(n) < p).astype(np.int64)


def _roc_auc(p, y):
    # Probability that a random positive scores above a random negative (ties count 1/2).
    pos, neg = p[y == 1][:, None], p[y == 0][None, :]
    return float(np.mean((pos > neg) + 0.5 * (pos == neg)))


def _average_precision(p, y):
    order = np.argsort(-p, kind="stable")
    hits = y[order]
    precision = np.cumsum(hits) / np.arange(1, len(y) + 1)
    return float(np.sum(precision * hits) / hits.sum())


def test_precision_and_recall_over_batches():
    p, y = _data()
    prec, rec = Precision(), Recall()
    for chunk in np.array_split(np.arange(len(y)), 4):
        prec.update(dygraph.to_tensor(p[chunk].reshape(-1, 1)), dygraph.to_tensor(y[chunk]))
        rec.update(p[chunk], y[chunk])
    predicted = p >= 0.5
    assert prec.accumulate() == pytest.approx(np.sum(predicted & (y == 1)) / predicted.sum())
    assert rec.accumulate() == pytest.approx(np.sum(predicted & (y == 1)) / (y == 1).sum())
    assert (prec.name(), rec.name()) == ("precision", "recall")
    prec.reset()
    assert prec.accumulate() == 0.0


@pytest.mark.parametrize("seed", [0, 1])
def test_auc_roc_and_pr(seed):
    p, y = _data(seed)
    roc, pr = Auc(num_thresholds=100000), Auc(curve="PR", num_thresholds=100000)
    roc.update(np.stack([1 - p, p], 1), y.reshape(-1, 1))
    pr.update(p, y)
    assert roc.accumulate() == pytest.approx(_roc_auc(p, y), abs=1e-4)
    assert pr.accumulate() == pytest.approx(_average_precision(p, y), abs=1e-3)


def test_bad_arguments():
    with pytest.raises(ValueError, match="curve"):
        Auc(curve="XY")
    with pytest.raises(ValueError, match="differ in length"):
        Precision().update(np.ones(3), np.ones(2))
