"""fluid.layers losses in 1.x form (1.5's sigmoid_cross_entropy_with_logits, smooth_l1,
huber_loss, kldiv_loss, log_loss, label_smooth, rank_loss, margin_rank_loss, dice_loss,
npair_loss, cos_sim): 1.x shapes and defaults, computed with the 2.x ops.

Example:
    >>> import numpy as np, dygraph.fluid as fluid
    >>> fluid.layers.huber_loss(np.array([[0.0]]), np.array([[3.0]]), delta=1.0).numpy()
    array([[2.5]])
"""

import dygraph
from dygraph.fluid.dygraph.base import to_variable
from dygraph.tensor.tensor import Tensor

__all__ = ["sigmoid_cross_entropy_with_logits", "smooth_l1", "huber_loss", "kldiv_loss",
           "log_loss", "label_smooth", "rank_loss", "margin_rank_loss", "dice_loss",
           "npair_loss", "cos_sim"]


def _var(x):
    return x if isinstance(x, Tensor) else to_variable(x)


def _F():
    from dygraph.nn import functional

    return functional


def sigmoid_cross_entropy_with_logits(x, label, ignore_index=-100, name=None,
                                      normalize=False):
    """Elementwise max(x, 0) - x * label + log(1 + exp(-|x|)); entries whose label is
    `ignore_index` give 0, and `normalize` divides by the number of the others.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> out = fluid.layers.sigmoid_cross_entropy_with_logits(
        ...     np.array([[0.0, 2.0]]), np.array([[1.0, -100.0]]))
        >>> out.numpy().round(4).tolist()
        [[0.6931, 0.0]]
    """
    x, label = _var(x), _var(label)
    loss = dygraph.clip(x, min=0.0) - x * label + dygraph.log1p(dygraph.exp(-dygraph.abs(x)))
    keep = dygraph.not_equal(label, dygraph.full_like(label, ignore_index)).astype(x.dtype)
    loss = loss * keep
    if normalize:
        loss = loss / dygraph.clip(dygraph.sum(keep), min=1.0)
    return loss


def smooth_l1(x, y, inside_weight=None, outside_weight=None, sigma=None):
    """Per sample ([N, 1]): the sum over its values of 0.5 (sigma d)^2 where |d| < 1 /
    sigma^2 and |d| - 0.5 / sigma^2 elsewhere, d = inside_weight * (x - y), each term
    times outside_weight (sigma 1 by default).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.smooth_l1(np.array([[0.5, 3.0]]), np.zeros([1, 2])).numpy()
        array([[2.625]])
    """
    x, y = _var(x), _var(y)
    s2 = float(1.0 if sigma is None else sigma) ** 2
    d = x - y
    if inside_weight is not None:
        d = d * _var(inside_weight)
    small = dygraph.less_than(dygraph.abs(d), dygraph.full_like(d, 1.0 / s2))
    loss = dygraph.where(small, 0.5 * s2 * d * d, dygraph.abs(d) - 0.5 / s2)
    if outside_weight is not None:
        loss = loss * _var(outside_weight)
    return dygraph.sum(dygraph.reshape(loss, [0, -1]), axis=1, keepdim=True)


def huber_loss(input, label, delta):  # noqa: A002
    """Elementwise 0.5 r^2 where |r| <= delta, delta (|r| - 0.5 delta) elsewhere, with
    r = label - input.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.huber_loss(np.array([[1.0]]), np.array([[1.5]]), 1.0).numpy()
        array([[0.125]])
    """
    r = dygraph.abs(_var(label) - _var(input))
    small = dygraph.less_equal(r, dygraph.full_like(r, delta))
    return dygraph.where(small, 0.5 * r * r, delta * (r - 0.5 * delta))


def kldiv_loss(x, target, reduction="mean", name=None):
    """The KL divergence of `target` from exp(x) (x holds log-probabilities).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.kldiv_loss(np.log(np.full([1, 2], 0.5)), np.full([1, 2], 0.5),
        ...                         'sum').numpy().round(4).tolist()
        0.0
    """
    return _F().kl_div(_var(x), _var(target), reduction=reduction)


def log_loss(input, label, epsilon=1e-4, name=None):  # noqa: A002
    """-label log(input + eps) - (1 - label) log(1 - input + eps), elementwise.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.log_loss(np.array([[0.5]], np.float32),
        ...                       np.array([[1.0]], np.float32)).shape
        [1, 1]
    """
    return _F().log_loss(_var(input), _var(label), epsilon)


def label_smooth(label, prior_dist=None, epsilon=0.1, dtype="float32", name=None):
    """(1 - epsilon) * label + epsilon * prior (uniform by default).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.label_smooth(np.array([[0.0, 1.0]], np.float32),
        ...                           epsilon=0.2).numpy().astype('float64').round(4).tolist()
        [[0.1, 0.9]]
    """
    prior = _var(prior_dist) if prior_dist is not None else None
    return _F().label_smooth(_var(label).astype(dtype), prior, epsilon)


def rank_loss(label, left, right, name=None):
    """RankNet's loss: log(1 + exp(left - right)) - label * (left - right).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.rank_loss(np.array([[1.0]]), np.array([[0.0]]),
        ...                        np.array([[0.0]])).numpy().round(4).tolist()
        [[0.6931]]
    """
    d = _var(left) - _var(right)
    return dygraph.log1p(dygraph.exp(d)) - _var(label) * d


def margin_rank_loss(label, left, right, margin=0.1, name=None):
    """max(0, -label * (left - right) + margin).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.margin_rank_loss(np.array([[1.0]]), np.array([[0.0]]),
        ...                               np.array([[0.5]])).numpy().round(4).tolist()
        [[0.6]]
    """
    return dygraph.clip(-_var(label) * (_var(left) - _var(right)) + margin, min=0.0)


def dice_loss(input, label, epsilon=1e-05, name=None):  # noqa: A002
    """1 - the Dice coefficient of the predictions and the one-hot labels.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.dice_loss(np.array([[[0.0, 1.0]]], np.float32),
        ...                        np.array([[[1]]])).numpy().round(4).tolist()
        0.0
    """
    return _F().dice_loss(_var(input), _var(label), epsilon)


def npair_loss(anchor, positive, labels, l2_reg=0.002):
    """The N-pair loss of anchor and positive embeddings with their class labels.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.npair_loss(np.ones([2, 3], np.float32), np.ones([2, 3], np.float32),
        ...                         np.array([0.0, 1.0], np.float32)).shape
        []
    """
    return _F().npair_loss(_var(anchor), _var(positive), _var(labels), l2_reg)


def cos_sim(X, Y):  # noqa: N803 - 1.x's argument names
    """The cosine similarity of each row of X with the row of Y (one row of Y is shared
    by all), as an [N, 1] tensor.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.cos_sim(np.array([[1.0, 0.0], [1.0, 1.0]]),
        ...                      np.array([[1.0, 0.0]])).numpy().round(4).tolist()
        [[1.0], [0.7071]]
    """
    return dygraph.unsqueeze(_F().cosine_similarity(_var(X), _var(Y), axis=1), 1)
