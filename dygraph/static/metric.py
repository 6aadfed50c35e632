"""Metrics as ops of a program (Paddle's paddle.static.accuracy, auc, ctr_metric_bundle):
computed from each run's predictions, fetched like any value. They work eagerly too.

- `accuracy`: the share of samples whose label is among the top k predictions (a 0-D
  float32, as Paddle 3.3 gives it).
- `auc`: the area under the ROC curve of one batch, from predictions bucketed into
  `num_thresholds + 1` bins (Paddle 3.3's static auc starts its statistics from zero at
  each run); returns (auc, positives per bin, negatives per bin).
- `ctr_metric_bundle`: sums a CTR job accumulates over the runs (squared and absolute
  error, predicted CTR, q, positives, instances), held in persistable variables.

Example:
    >>> import dygraph
    >>> p = dygraph.to_tensor([[0.1, 0.9], [0.8, 0.2]])
    >>> float(accuracy(p, dygraph.to_tensor([[1], [1]])))
    0.5
"""

import numpy as np

from dygraph.autograd import grad_mode
from dygraph.autograd.function import Op, apply
from dygraph.framework.errors import op_error
from dygraph.ops.common import as_tensor

__all__ = ["accuracy", "auc", "ctr_metric_bundle", "AucStats", "CtrSums"]


def accuracy(input, label, k=1, correct=None, total=None):  # noqa: A002
    """The fraction of rows of `input` ([N, classes] scores) whose `label` ([N, 1] or [N])
    is among the k largest scores. (`correct` and `total`, the counts Paddle's older
    programs wrote into given variables, are not written.)

    Example:
        >>> import dygraph
        >>> p = dygraph.to_tensor([[0.1, 0.5, 0.4], [0.6, 0.3, 0.1]])
        >>> float(accuracy(p, dygraph.to_tensor([[2], [1]]), k=2))
        1.0
    """
    import dygraph

    input = as_tensor(input, "accuracy")  # noqa: A001
    label = as_tensor(label, "accuracy")
    if input._data.dtype.kind != "f":
        raise TypeError(f"accuracy: input must be float scores, got "
                        f"{input._data.dtype.name}")
    _, indices = dygraph.topk(input, k)
    hits = dygraph.equal(indices, dygraph.reshape(label, [-1, 1]).astype(indices.dtype))
    return dygraph.mean(dygraph.max(hits.astype("float32"), axis=1))


def _area(pos, neg):
    """The ROC area of per-bin counts, walking the bins from the highest prediction."""
    tp = fp = 0
    area = 0.0
    for k in range(len(pos) - 1, -1, -1):
        tp_before, fp_before = tp, fp
        tp += int(pos[k])
        fp += int(neg[k])
        area += abs(fp - fp_before) * (tp + tp_before) / 2.0
    return area / tp / fp if tp and fp else 0.0


class AucStats(Op):
    """(auc, positives per bin, negatives per bin) of one batch."""

    attrs = ("num_thresholds",)

    differentiable = False

    def __init__(self, num_thresholds):
        self.num_thresholds = num_thresholds

    def forward(self, xp, predict, label):
        t = self.num_thresholds
        score = np.asarray(predict).reshape(predict.shape[0], -1)[:, -1]  # the positive column
        bins = np.clip((score * t).astype(np.int64), 0, t)
        positive = np.asarray(label).reshape(-1) > 0
        if positive.shape[0] != bins.shape[0]:
            raise op_error("auc", f"{bins.shape[0]} predictions but {positive.shape[0]} "
                           "labels")
        pos = np.bincount(bins[positive], minlength=t + 1).astype(np.int64)
        neg = np.bincount(bins[~positive], minlength=t + 1).astype(np.int64)
        return np.asarray(_area(pos, neg)), pos[None], neg[None]

    def backward(self, m, *grads):
        raise NotImplementedError("auc has no gradient")


def auc(input, label, curve="ROC", num_thresholds=2 ** 12 - 1, topk=1, slide_steps=1,  # noqa: A002
        ins_tag_weight=None):
    """The ROC AUC of a batch of predictions ([N, 2] class probabilities, or [N, 1]: the
    last column is the positive one) against `label` (positive when > 0); returns (auc
    as a 0-D float64, positives per bin [1, num_thresholds + 1], negatives per bin).

    Example:
        >>> import dygraph
        >>> p = dygraph.to_tensor([[0.9, 0.1], [0.2, 0.8]])
        >>> float(auc(p, dygraph.to_tensor([[0], [1]]))[0])
        1.0
    """
    if curve != "ROC":
        raise ValueError(f"auc: only the ROC curve is computed, got curve={curve!r}")
    input = as_tensor(input, "auc")  # noqa: A001
    label = as_tensor(label, "auc")
    if input._data.dtype not in (np.float32, np.float64):
        raise TypeError(f"auc: input must be float32 or float64, got "
                        f"{input._data.dtype.name}")
    if label._data.dtype not in (np.int32, np.int64):
        raise TypeError(f"auc: label must be int32 or int64, got {label._data.dtype.name}")
    return apply(AucStats(int(num_thresholds)), input, label)


class CtrSums(Op):
    """The six sums of ctr_metric_bundle, each added to its running value."""

    differentiable = False

    def forward(self, xp, predict, label, weight, *sums):
        p = np.asarray(predict, dtype=np.float32).reshape(-1)
        y = np.asarray(label, dtype=np.float32).reshape(-1)
        w = np.asarray(weight, np.float32)[:1]  # the first row, as Paddle slices it
        diff = p - y
        batch = [np.sum(diff * diff), np.sum(np.abs(diff)), np.sum(p),
                 np.float32(np.sum(1.0 / (1.0 + np.exp(-p)))) * w, np.sum(y),
                 np.float32(p.size) * w]
        return tuple((s + b).astype(np.float32) for s, b in zip(sums, batch))

    def backward(self, m, *grads):
        raise NotImplementedError("ctr_metric_bundle has no gradient")


def ctr_metric_bundle(input, label, ins_tag_weight=None):  # noqa: A002
    """Running sums for a CTR model, over every run of the program so far: (squared error,
    absolute error, sum of predictions, q = sum of sigmoid(prediction) times the weight,
    positives, instances times the weight), each a float32 [1] persistable variable.
    Static programs only.

    Example:
        >>> import numpy as np
        >>> import dygraph
        >>> from dygraph import static
        >>> dygraph.enable_static()
        >>> main, startup = static.Program(), static.Program()
        >>> with static.program_guard(main, startup):
        ...     p = static.data('p', [-1, 1]); y = static.data('y', [-1, 1])
        ...     sums = ctr_metric_bundle(p, y)
        >>> dygraph.disable_static()
        >>> exe = static.Executor(); _ = exe.run(startup)
        >>> feed = {'p': np.array([[0.5], [1.0]], np.float32), 'y': np.ones((2, 1), np.float32)}
        >>> for _ in range(2): out = exe.run(main, feed=feed, fetch_list=[sums[5]])
        >>> out
        [array([[4.]], dtype=float32)]
    """
    from dygraph.static.capture import program_constant
    from dygraph.static.parameters import create_global_var
    from dygraph.tensor.tensor import to_tensor
    from dygraph.utils.unique_name import generate

    program = grad_mode.state.static_program
    if program is None:
        raise RuntimeError("ctr_metric_bundle: its sums live in a static program (call "
                           "dygraph.enable_static() first)")
    if list(input.shape) != list(label.shape):
        raise AssertionError(f"ctr_metric_bundle: input {list(input.shape)} and label "
                             f"{list(label.shape)} must have one shape")
    if ins_tag_weight is None:
        ins_tag_weight = program_constant(to_tensor(np.ones([1, 1], np.float32)))
    prefix = generate("ctr_metric_bundle")
    sums = [create_global_var([1], 0.0, "float32", persistable=True,
                              name=f"{prefix}.{what}")
            for what in ("sqrerr", "abserr", "prob", "q", "pos_num", "ins_num")]
    block = program.current_block()
    op = CtrSums()
    op.n_outputs = len(sums)
    names = [v.name for v in sums]
    block.append_op(op, [input.name, label.name, ins_tag_weight.name] + names, names,
                    role="effect")
    return tuple(sums)
