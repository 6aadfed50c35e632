"""Binary-classification metrics: Precision, Recall and Auc (Paddle's paddle.metric).

Predictions are probabilities of the positive class ([N] or [N, 1]; Auc also takes [N, 2]
with the positive class in column 1); labels are 0/1. Precision and Recall threshold the
prediction at 0.5.

Example:
    >>> import numpy as np
    >>> m = Precision()
    >>> m.update(np.array([0.9, 0.8, 0.2]), np.array([1, 0, 0]))
    >>> m.accumulate()
    0.5
"""

import numpy as np

from dygraph.metric.metrics import Metric
from dygraph.tensor.tensor import Tensor

__all__ = ["Precision", "Recall", "Auc"]


def _flat(value, what, owner):
    array = value.numpy() if isinstance(value, Tensor) else np.asarray(value)
    if array.ndim > 1 and array.shape[-1] == 1:
        array = array.reshape(array.shape[:-1])
    if array.ndim != 1:
        raise ValueError(f"{owner}.update: {what} must be shaped [N] or [N, 1], got "
                         f"{list(array.shape)}")
    return array


class _Counts(Metric):
    def __init__(self, name):
        self._name = name
        self.reset()

    def reset(self):
        """Forget every batch seen so far."""
        self.tp = self.fp = self.fn = 0

    def update(self, preds, labels):
        """Count true/false positives and false negatives at the 0.5 threshold."""
        owner = type(self).__name__
        predicted = np.rint(_flat(preds, "preds", owner)).astype(np.int64)
        labels = _flat(labels, "labels", owner).astype(np.int64)
        if predicted.shape != labels.shape:
            raise ValueError(f"{owner}.update: preds and labels differ in length "
                             f"({predicted.shape[0]} vs {labels.shape[0]})")
        self.tp += int(np.sum((predicted == 1) & (labels == 1)))
        self.fp += int(np.sum((predicted == 1) & (labels == 0)))
        self.fn += int(np.sum((predicted == 0) & (labels == 1)))

    def name(self):
        """The metric's name."""
        return self._name


class Precision(_Counts):
    """tp / (tp + fp) over every batch since reset (0.0 before any positive prediction)."""

    def __init__(self, name="precision", *args, **kwargs):
        super().__init__(name)

    def accumulate(self):
        """Precision so far."""
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0


class Recall(_Counts):
    """tp / (tp + fn) over every batch since reset (0.0 before any positive label).

    Example:
        >>> m = Recall()
        >>> m.update([0.9, 0.2, 0.3], [1, 1, 0])
        >>> m.accumulate()
        0.5
    """

    def __init__(self, name="recall", *args, **kwargs):
        super().__init__(name)

    def accumulate(self):
        """Recall so far."""
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0


class Auc(Metric):
    """Area under the ROC (or precision-recall, curve='PR') curve, from histograms of the
    positive-class probability in `num_thresholds + 1` buckets, as Paddle computes it.

    Example:
        >>> m = Auc()
        >>> m.update(np.array([[0.2, 0.8], [0.7, 0.3], [0.4, 0.6]]), np.array([1, 0, 1]))
        >>> m.accumulate()
        1.0
    """

    def __init__(self, curve="ROC", num_thresholds=4095, name="auc", *args, **kwargs):
        if curve not in ("ROC", "PR"):
            raise ValueError(f"Auc: curve must be 'ROC' or 'PR', got {curve!r}")
        self.curve, self.num_thresholds, self._name = curve, int(num_thresholds), name
        self.reset()

    def reset(self):
        """Empty the histograms."""
        self._pos = np.zeros(self.num_thresholds + 1, np.int64)
        self._neg = np.zeros(self.num_thresholds + 1, np.int64)

    def update(self, preds, labels):
        """Add a batch: preds [N, 2] (column 1 positive) or [N]/[N, 1] probabilities."""
        preds = preds.numpy() if isinstance(preds, Tensor) else np.asarray(preds)
        if preds.ndim == 2 and preds.shape[1] == 2:
            preds = preds[:, 1]
        preds = _flat(preds, "preds", "Auc")
        labels = _flat(labels, "labels", "Auc").astype(np.int64)
        buckets = np.clip((preds * self.num_thresholds).astype(np.int64), 0,
                          self.num_thresholds)
        self._pos += np.bincount(buckets[labels == 1], minlength=self.num_thresholds + 1)
        self._neg += np.bincount(buckets[labels != 1], minlength=self.num_thresholds + 1)

    def accumulate(self):
        """The area so far (0.0 without both classes)."""
        # Sweep the threshold from the top bucket down: cumulative true/false positives.
        tp = np.cumsum(self._pos[::-1]).astype(np.float64)
        fp = np.cumsum(self._neg[::-1]).astype(np.float64)
        if tp[-1] == 0 or fp[-1] == 0:
            return 0.0
        if self.curve == "ROC":
            tpr, fpr = np.concatenate([[0.0], tp / tp[-1]]), np.concatenate([[0.0], fp / fp[-1]])
            return float(np.sum((fpr[1:] - fpr[:-1]) * (tpr[1:] + tpr[:-1]) / 2))
        precision = tp / np.maximum(tp + fp, 1)
        recall = np.concatenate([[0.0], tp / tp[-1]])
        return float(np.sum((recall[1:] - recall[:-1]) * precision))

    def name(self):
        """The metric's name."""
        return self._name
