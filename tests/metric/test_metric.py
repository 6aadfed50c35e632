"""dygraph.metric: the accuracy function and the Accuracy metric."""

import numpy as np
import pytest

import dygraph
from dygraph.metric import Accuracy, Metric, accuracy

SCORES = np.array([[0.1, 0.6, 0.3],
                   [0.5, 0.2, 0.3],
                   [0.2, 0.3, 0.5],
                   [0.4, 0.35, 0.25]], np.float32)
LABELS = np.array([1, 2, 2, 2])  # ranks of the labels: 1, 2, 1, 3


def _t(a):
    return dygraph.to_tensor(a)


@pytest.mark.parametrize("k, want", [(1, 0.5), (2, 0.75), (3, 1.0)])
def test_accuracy_top_k(k, want):
    acc = accuracy(_t(SCORES), _t(LABELS[:, None]), k=k)
    assert acc.shape == [] and acc.dtype == dygraph.float32
    assert float(acc) == want


def test_accuracy_accepts_flat_labels_and_fills_counts():
    correct = dygraph.zeros([1], "int32")
    total = dygraph.zeros([1], "int32")
    acc = dygraph.metric.accuracy(_t(SCORES), _t(LABELS), correct=correct, total=total)
    assert float(acc) == 0.5
    assert correct.numpy().tolist() == [2] and total.numpy().tolist() == [4]


def test_accuracy_errors():
    with pytest.raises(ValueError, match="one class per row"):
        accuracy(_t(SCORES), _t(LABELS[:3]))
    with pytest.raises(ValueError, match="k must"):
        accuracy(_t(SCORES), _t(LABELS), k=4)


def test_accuracy_metric_accumulates_over_batches():
    m = Accuracy(topk=(1, 2))
    assert m.name() == ["acc_top1", "acc_top2"]
    correct = m.compute(_t(SCORES[:2]), _t(LABELS[:2, None]))
    np.testing.assert_array_equal(correct.numpy(), [[1, 0], [0, 1]])
    assert m.update(correct) == [0.5, 1.0]
    assert m.update(m.compute(_t(SCORES[2:]), _t(LABELS[2:]))) == [0.5, 0.5]
    assert m.accumulate() == [0.5, 0.75]
    m.reset()
    assert m.accumulate() == [0.0, 0.0]


def test_accuracy_metric_top1_gives_floats_and_reads_one_hot_labels():
    m = Accuracy(name="top")
    assert m.name() == ["top"]
    one_hot = np.eye(3, dtype=np.float32)[LABELS]
    assert m.update(m.compute(_t(SCORES), _t(one_hot))) == 0.5
    assert m.accumulate() == 0.5


def test_metric_base_methods_must_be_overridden():
    with pytest.raises(NotImplementedError):
        Metric().accumulate()
    assert Metric().compute(1, 2) == (1, 2)
