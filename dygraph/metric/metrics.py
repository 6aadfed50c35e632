"""Top-k accuracy as a function (`accuracy`) and as a metric that accumulates over batches
(`Accuracy`). Metrics compare predictions with labels; no gradient flows through them, so
they work on arrays.
"""

import numpy as np

from dygraph.framework.errors import describe, op_error
from dygraph.tensor.tensor import Tensor, to_tensor

__all__ = ["Metric", "Accuracy", "accuracy"]


def _array(value):
    return value.numpy() if isinstance(value, Tensor) else np.asarray(value)


def _class_labels(label, rows, op):
    """Labels [N], [N, 1] or one-hot [N, C] as a vector of N class indices."""
    lab = _array(label)
    if lab.ndim == 2 and lab.shape[1] != 1:
        lab = lab.argmax(axis=-1)  # one-hot or soft labels
    lab = lab.reshape(-1)
    if lab.shape[0] != rows:
        raise op_error(op, f"label must hold one class per row of the input ({rows}), got "
                       f"{describe(label)}")
    return lab


def _top_indices(scores, k):
    """Indices of the k largest scores per row, best first; ties keep the lower index."""
    return np.argsort(-scores, axis=-1, kind="stable")[..., :k]


def accuracy(input, label, k=1, correct=None, total=None, name=None):
    """The fraction of rows of `input` [N, C] whose label is among their k highest
    scores, as a 0-D float32 tensor (Paddle 2.5+). `label` is [N] or [N, 1]. When given,
    `correct` and `total` tensors receive the counts (keeping their own shapes).

    Example:
        >>> import dygraph
        >>> scores = dygraph.to_tensor([[0.1, 0.9], [0.8, 0.2]])
        >>> dygraph.metric.accuracy(scores, dygraph.to_tensor([[1], [1]])).numpy()
        array(0.5, dtype=float32)
    """
    scores = _array(input)
    if scores.ndim != 2:
        raise op_error("accuracy", f"input must be [N, C] scores, got {describe(input)}")
    if not 1 <= k <= scores.shape[1]:
        raise op_error("accuracy", f"k must lie in [1, {scores.shape[1]}], got {k}")
    lab = _class_labels(label, scores.shape[0], "accuracy")
    hits = int((_top_indices(scores, k) == lab[:, None]).any(axis=1).sum())
    rows = scores.shape[0]
    if correct is not None:
        correct.set_value(np.full(_array(correct).shape, hits, _array(correct).dtype))
    if total is not None:
        total.set_value(np.full(_array(total).shape, rows, _array(total).dtype))
    return to_tensor(np.array(hits / rows if rows else 0.0, np.float32))


class Metric:
    """Base of the stateful metrics: `compute` turns a batch of outputs into what
    `update` accumulates; `accumulate` gives the result so far; `reset` starts over.

    Example:
        >>> class Count(Metric):
        ...     def __init__(self): self.reset()
        ...     def reset(self): self.n = 0
        ...     def update(self, batch): self.n += len(batch)
        ...     def accumulate(self): return self.n
        ...     def name(self): return 'count'
        >>> c = Count(); c.update([1, 2]); c.accumulate()
        2
    """

    def reset(self):
        """Clear the accumulated state."""
        raise NotImplementedError(f"{type(self).__name__} does not define reset()")

    def update(self, *args):
        """Add one batch of `compute` results to the state."""
        raise NotImplementedError(f"{type(self).__name__} does not define update()")

    def accumulate(self):
        """The metric over every batch since the last reset."""
        raise NotImplementedError(f"{type(self).__name__} does not define accumulate()")

    def name(self):
        """The metric's name (a list of names for metrics with several values)."""
        raise NotImplementedError(f"{type(self).__name__} does not define name()")

    def compute(self, *args):
        """Preprocess a batch (predictions, labels) for `update`; by default unchanged."""
        return args


class Accuracy(Metric):
    """Top-k accuracy accumulated over batches, for each k in `topk`.

    `compute(pred, label)` gives a float32 [N, max(topk)] tensor whose column j is 1
    where the (j+1)-th best prediction is the label; `update` takes it and returns the
    batch accuracy; `accumulate` gives the accuracy since `reset` (one float per k, or
    a single float when topk has one entry).

    Example:
        >>> import dygraph
        >>> m = Accuracy(topk=(1, 2))
        >>> pred = dygraph.to_tensor([[0.1, 0.7, 0.2], [0.5, 0.1, 0.4]])
        >>> m.update(m.compute(pred, dygraph.to_tensor([[2], [0]])))
        [0.5, 1.0]
        >>> m.accumulate(), m.name()
        ([0.5, 1.0], ['acc_top1', 'acc_top2'])
    """

    def __init__(self, topk=(1,), name=None, *args, **kwargs):
        self.topk = tuple(int(k) for k in (topk if isinstance(topk, (list, tuple))
                                           else (topk,)))
        if not self.topk or min(self.topk) < 1:
            raise ValueError(f"Accuracy: topk must be positive ints, got {topk!r}")
        self.maxk = max(self.topk)
        base = name or "acc"
        self._name = [f"{base}_top{k}" for k in self.topk] if self.maxk != 1 else [base]
        self.reset()

    def compute(self, pred, label, *args):
        """1.0 where the prediction ranked j-th (column j) equals the label, else 0.0."""
        scores = _array(pred)
        lab = _class_labels(label, int(np.prod(scores.shape[:-1])), "Accuracy.compute")
        top = _top_indices(scores.reshape(-1, scores.shape[-1]), self.maxk)
        return to_tensor((top == lab[:, None]).astype(np.float32))

    def update(self, correct, *args):
        """Add a batch of `compute` results; returns the batch's accuracy per k."""
        correct = _array(correct)
        rows = int(np.prod(correct.shape[:-1]))
        accs = []
        for i, k in enumerate(self.topk):
            hits = float(correct[..., :k].sum())
            accs.append(hits / rows if rows else 0.0)
            self.total[i] += hits
            self.count[i] += rows
        return accs[0] if len(self.topk) == 1 else accs

    def reset(self):
        """Forget every batch seen so far."""
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def accumulate(self):
        """Accuracy over the batches since the last reset, per k."""
        res = [t / c if c else 0.0 for t, c in zip(self.total, self.count)]
        return res[0] if len(self.topk) == 1 else res

    def name(self):
        """['acc'] for top-1 only, else ['acc_top1', 'acc_top5', ...]."""
        return self._name
