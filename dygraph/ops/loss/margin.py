"""Margin losses: margin_ranking_loss, hinge_embedding_loss, cosine_embedding_loss and
triplet_margin_loss, composed of elementwise ops and reductions (Paddle's formulas).
"""

import numpy as np

from dygraph import ops as P
from dygraph.framework.errors import RankIndexError, ValueTypeError, op_error
from dygraph.ops.activation.piecewise import log_sigmoid, log_softmax, relu
from dygraph.ops.common import as_tensor, float_operand
from dygraph.ops.creation import constructors as _creation
from dygraph.ops.device_constants import const as _const
from dygraph.ops.device_constants import index
from dygraph.ops.loss.common import check_reduction, reduce_loss
from dygraph.ops.math import arithmetic as _math
from dygraph.ops.math import extrema
from dygraph.ops.reduction import reduce as _reduction
from dygraph.ops.unary import core as _unary

__all__ = ["margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss",
           "triplet_margin_loss", "soft_margin_loss", "multi_margin_loss",
           "multi_label_margin_loss", "multi_label_soft_margin_loss", "pairwise_distance",
           "triplet_margin_with_distance_loss", "npair_loss"]

# Added to squared norms so that the cosine of a zero vector is 0, not 0 / 0 (Paddle's).
_COS_EPS = 1e-11


def margin_ranking_loss(input, other, label, margin=0.0, reduction="mean", name=None):
    """max(0, -label * (input - other) + margin): `label` (1 or -1) says which of the two
    scores should rank higher.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> a, b = dygraph.to_tensor([1.0, 2.0]), dygraph.to_tensor([2.0, 1.0])
        >>> F.margin_ranking_loss(a, b, dygraph.to_tensor([1.0, 1.0]), reduction='none').numpy()
        array([1., 0.], dtype=float32)
    """
    op = "margin_ranking_loss"
    check_reduction(reduction, op)
    x, y = float_operand(input, op), float_operand(other, op)
    lab = float_operand(label, op)
    return reduce_loss(relu(-lab * (x - y) + margin), reduction)


def hinge_embedding_loss(input, label, margin=1.0, reduction="mean", name=None):
    """input where label is 1, max(0, margin - input) where label is -1 (0 elsewhere).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x = dygraph.to_tensor([0.3, 0.3])
        >>> F.hinge_embedding_loss(x, dygraph.to_tensor([1.0, -1.0]), reduction='none').numpy()
        array([0.3, 0.7], dtype=float32)
    """
    op = "hinge_embedding_loss"
    check_reduction(reduction, op)
    x = float_operand(input, op)
    lab = as_tensor(label, op)
    zero = _creation.zeros_like(x)
    loss = (_unary.where(lab == 1, x, zero)
            + _unary.where(lab == -1, relu(margin - x), zero))
    return reduce_loss(loss, reduction)


def cosine_embedding_loss(input1, input2, label, margin=0, reduction="mean", name=None):
    """1 - cos(input1, input2) where label is 1, max(0, cos - margin) where label is -1;
    the cosine is taken along the last axis of [N, M] (or [M]) inputs.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> a = dygraph.to_tensor([[1.0, 0.0], [1.0, 0.0]])
        >>> b = dygraph.to_tensor([[0.0, 1.0], [1.0, 0.0]])
        >>> F.cosine_embedding_loss(a, b, dygraph.to_tensor([1, -1]), reduction='none').numpy()
        array([1., 1.], dtype=float32)
    """
    op = "cosine_embedding_loss"
    check_reduction(reduction, op)
    if not -1 <= margin <= 1:
        raise op_error(op, f"margin must lie in [-1, 1], got {margin}")
    a, b = float_operand(input1, op), float_operand(input2, op)
    if a._data.shape != b._data.shape or a._data.ndim not in (1, 2):
        raise op_error(op, f"input1 and input2 must both be [N, M] or [M], got shapes "
                       f"{list(a._data.shape)} and {list(b._data.shape)}")
    lab = as_tensor(label, op)
    dot = _reduction.sum(a * b, axis=-1)
    norms = ((_reduction.sum(a * a, axis=-1) + _COS_EPS)
             * (_reduction.sum(b * b, axis=-1) + _COS_EPS))
    cos = dot / _unary.sqrt(norms)
    zero = _creation.zeros_like(cos)
    loss = (_unary.where(lab == 1, 1.0 - cos, zero)
            + _unary.where(lab == -1, relu(cos - margin), zero))
    return reduce_loss(loss, reduction)


def _as_vector(d):
    """d, a 0-D difference as one of one element: its norm is its absolute value (Paddle's)."""
    return P.reshape(d, [1]) if d._data.ndim == 0 else d


def _distance(a, b, p, epsilon):
    """The p-norm of a - b + epsilon along the last axis."""
    d = _as_vector(a - b + epsilon)
    if p == 2:
        return _unary.sqrt(_reduction.sum(d * d, axis=-1))
    if p == 1:
        return _reduction.sum(_unary.abs(d), axis=-1)
    return _math.pow(_reduction.sum(_math.pow(_unary.abs(d), float(p)), axis=-1), 1.0 / p)


def triplet_margin_loss(input, positive, negative, margin=1.0, p=2, epsilon=1e-6, swap=False,
                        reduction="mean", name=None):
    """max(0, d(input, positive) - d(input, negative) + margin) with d the p-norm distance
    along the last axis (epsilon added to the difference). With swap=True the negative
    distance is the smaller of d(input, negative) and d(positive, negative).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> a = dygraph.to_tensor([[0.0, 0.0]])
        >>> pos, neg = dygraph.to_tensor([[3.0, 4.0]]), dygraph.to_tensor([[6.0, 8.0]])
        >>> round(float(F.triplet_margin_loss(a, pos, neg, epsilon=0.0)), 4)
        0.0
    """
    op = "triplet_margin_loss"
    check_reduction(reduction, op)
    if p <= 0:
        raise op_error(op, f"p must be positive, got {p}")
    a = float_operand(input, op)
    pos, neg = float_operand(positive, op), float_operand(negative, op)
    shapes = {a._data.shape, pos._data.shape, neg._data.shape}
    if len(shapes) != 1:
        raise op_error(op, "input, positive and negative must have one shape, got "
                       f"{[list(t._data.shape) for t in (a, pos, neg)]}")
    d_pos = _distance(a, pos, p, epsilon)
    d_neg = _distance(a, neg, p, epsilon)
    if swap:
        d_neg = extrema.minimum(d_neg, _distance(pos, neg, p, epsilon))
    return reduce_loss(relu(d_pos - d_neg + margin), reduction)


def _same_shape(a, b, op, what="label"):
    if a._data.shape != b._data.shape:
        raise op_error(op, f"input and {what} must have the same shape, got "
                       f"{list(a._data.shape)} and {list(b._data.shape)}")


def soft_margin_loss(input, label, reduction="mean", name=None):
    """log(1 + exp(-label * input)) for labels 1 or -1.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x, y = dygraph.to_tensor([0.0, 2.0]), dygraph.to_tensor([1.0, -1.0])
        >>> F.soft_margin_loss(x, y, reduction='none').numpy().round(4)
        array([0.6931, 2.1269], dtype=float32)
    """
    op = "soft_margin_loss"
    check_reduction(reduction, op)
    x = float_operand(input, op)
    y = P.cast(as_tensor(label, op), x.dtype)
    _same_shape(x, y, op)
    return reduce_loss(-log_sigmoid(y * x), reduction)


def multi_label_soft_margin_loss(input, label, weight=None, reduction="mean", name=None):
    """-(y log sigmoid(x) + (1 - y) log sigmoid(-x)), times `weight`, averaged over the
    class (last) axis: one value per sample before the reduction.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x, y = dygraph.to_tensor([[0.0, 0.0]]), dygraph.to_tensor([[1.0, 0.0]])
        >>> round(float(F.multi_label_soft_margin_loss(x, y)), 4)
        0.6931
    """
    op = "multi_label_soft_margin_loss"
    check_reduction(reduction, op)
    x = float_operand(input, op)
    y = P.cast(as_tensor(label, op), x.dtype)
    _same_shape(x, y, op)
    loss = -(y * log_sigmoid(x) + (1.0 - y) * log_sigmoid(-x))
    if weight is not None:
        loss = loss * float_operand(weight, op)
    if loss._data.ndim:  # a 0-D input is one sample of one class
        loss = P.mean(loss, axis=-1)
    return reduce_loss(loss, reduction)


def _class_labels(label, n, classes, op):
    lab = np.asarray(as_tensor(label, op).numpy()).reshape(-1)
    if lab.dtype.kind not in "iu" and lab.size:  # (an empty label has no index to read)
        # float or complex values where indices go: Paddle's index lookup refuses them with
        # a ValueError
        raise op_error(op, f"label must hold integer class indices, got {lab.dtype}",
                       TypeError if lab.dtype.kind == "b" else ValueTypeError)
    if lab.shape[0] != n:
        raise op_error(op, f"label must have one entry per sample ({n}), got {lab.shape[0]}")
    if lab.size and (lab.min() < 0 or lab.max() >= classes):
        raise op_error(op, f"labels must be in [0, {classes}), got values in "
                       f"[{lab.min()}, {lab.max()}]")
    return lab.astype(np.int64)


def multi_margin_loss(input, label, p=1, margin=1.0, weight=None, reduction="mean",
                      name=None):
    """Multi-class hinge loss: per sample, the mean over classes j != y of
    w[y] * max(0, margin - x[y] + x[j]) ** p (input is [N, C], label is [N]).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x = dygraph.to_tensor([[0.1, 0.2, 0.4, 0.8]])
        >>> F.multi_margin_loss(x, dygraph.to_tensor([3]), reduction='none').numpy().round(4)
        array([0.325], dtype=float32)
    """
    op = "multi_margin_loss"
    check_reduction(reduction, op)
    x = float_operand(input, op)
    if x._data.ndim != 2:
        # (too few dims: Paddle's IndexError as well)
        raise op_error(op, f"input must be [N, C], got shape {list(x._data.shape)}",
                       RankIndexError if x._data.ndim < 2 else ValueError)
    n, c = x._data.shape
    lab = _class_labels(label, n, c, op)
    picked = P.take_along_axis(x, index(lab[:, None], x), axis=1)
    # The j == y term is max(0, margin) ** p; it is dropped with a mask, not subtracted, so
    # that the gradient matches at the label too.
    others = _const(np.arange(c)[None, :] != lab[:, None], x)
    terms = relu(margin - picked + x) ** p * others
    if weight is not None:
        w = float_operand(weight, op)
        if list(w._data.shape) != [c]:
            raise op_error(op, f"weight must have shape [{c}], got {list(w._data.shape)}")
        terms = terms * P.reshape(P.gather(w, index(lab, x)), [n, 1])
    return reduce_loss(P.sum(terms, axis=1) / c, reduction)


def multi_label_margin_loss(input, label, reduction="mean", name=None):
    """Multi-label hinge loss: label row n lists the target classes of sample n, ended by
    the first -1; the loss is sum over targets j and non-targets i of
    max(0, 1 - (x[j] - x[i])), divided by C.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x = dygraph.to_tensor([[0.1, 0.2, 0.4, 0.8]])
        >>> y = dygraph.to_tensor([[3, 0, -1, 1]])
        >>> F.multi_label_margin_loss(x, y, reduction='none').numpy().round(4)
        array([0.85], dtype=float32)
    """
    op = "multi_label_margin_loss"
    check_reduction(reduction, op)
    x = float_operand(input, op)
    if x._data.ndim != 2:
        raise op_error(op, f"input must be [N, C], got shape {list(x._data.shape)}")
    lab = np.asarray(as_tensor(label, op).numpy())
    # an empty label holds no class ids: Paddle takes it of any dtype (the mean is NaN)
    if lab.shape != x._data.shape or (lab.dtype.kind not in "iu" and lab.size):
        raise op_error(op, f"label must be an integer tensor of input's shape "
                       f"{list(x._data.shape)}, got {lab.dtype} {list(lab.shape)}")
    n, c = x._data.shape
    if not lab.size:
        lab = lab.astype(np.int64)
    elif lab.min() < -1 or lab.max() >= c:
        raise op_error(op, f"label values must be in [-1, {c}), got [{lab.min()}, "
                       f"{lab.max()}]")
    valid = np.cumprod(lab != -1, axis=1).astype(bool)
    rows, cols = np.nonzero(valid)
    targets = lab[rows, cols]
    is_target = np.zeros((n, c), bool)
    is_target[rows, targets] = True
    picked = P.take_along_axis(P.index_select(x, index(rows, x), axis=0),
                               index(targets[:, None], x), axis=1)
    hinge = relu(1.0 - picked + P.index_select(x, index(rows, x), axis=0))
    per_pair = P.sum(hinge * _const(~is_target[rows], x), axis=1)
    owner = np.zeros((n, rows.size))
    owner[rows, np.arange(rows.size)] = 1.0
    loss = P.matmul(_const(owner, x), P.reshape(per_pair, [-1, 1]))
    return reduce_loss(P.reshape(loss, [n]) / c, reduction)


def pairwise_distance(x, y, p=2.0, epsilon=1e-6, keepdim=False, name=None):
    """The p-norm of x - y + epsilon along the last axis (x and y broadcast); p may be inf,
    -inf or 0 (the count of non-zero entries).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> a, b = dygraph.to_tensor([[3.0, 0.0]]), dygraph.to_tensor([[0.0, 4.0]])
        >>> F.pairwise_distance(a, b, epsilon=0.0).numpy()
        array([5.], dtype=float32)
    """
    op = "pairwise_distance"
    d = float_operand(x, op) - float_operand(y, op)
    if epsilon:
        d = d + float(epsilon)
    d = _as_vector(d)
    p = float(p)
    if p == float("inf"):
        return P.amax(P.abs(d), axis=-1, keepdim=keepdim)
    if p == float("-inf"):
        return P.amin(P.abs(d), axis=-1, keepdim=keepdim)
    if p == 0:
        return P.sum(P.cast(d != 0, d.dtype), axis=-1, keepdim=keepdim)
    return P.sum(P.abs(d) ** p, axis=-1, keepdim=keepdim) ** (1.0 / p)


def triplet_margin_with_distance_loss(input, positive, negative, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean", name=None):
    """max(0, d(input, positive) - d(input, negative) + margin) for a distance function d
    (default pairwise_distance with p=2); with swap, d(input, negative) is replaced by
    min(d(input, negative), d(positive, negative)).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> a = dygraph.to_tensor([[0.0, 0.0]])
        >>> pos, neg = dygraph.to_tensor([[1.0, 0.0]]), dygraph.to_tensor([[0.0, 1.5]])
        >>> d = lambda u, v: ((u - v) ** 2).sum(-1).sqrt()
        >>> F.triplet_margin_with_distance_loss(a, pos, neg, d).numpy()
        array(0.5, dtype=float32)
    """
    op = "triplet_margin_with_distance_loss"
    check_reduction(reduction, op)
    if margin < 0:
        raise op_error(op, f"margin must be non-negative, got {margin}")
    a, pos, neg = (float_operand(t, op) for t in (input, positive, negative))
    if not a._data.shape == pos._data.shape == neg._data.shape:
        raise op_error(op, f"input, positive and negative must have one shape, got "
                       f"{list(a._data.shape)}, {list(pos._data.shape)}, "
                       f"{list(neg._data.shape)}")
    dist = distance_function if distance_function is not None else pairwise_distance
    d_pos, d_neg = dist(a, pos), dist(a, neg)
    if swap:
        d_neg = P.minimum(d_neg, dist(pos, neg))
    if bool((d_pos._data < 0).any()) or bool((d_neg._data < 0).any()):
        raise op_error(op, "the distance function returned a negative distance")
    return reduce_loss(relu(d_pos - d_neg + margin), reduction)


def npair_loss(anchor, positive, labels, l2_reg=0.002):
    """N-pair loss: softmax cross entropy of anchor @ positive.T against the same-label
    matrix (rows normalised), plus l2_reg / 4 times the mean squared norms.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> a = dygraph.to_tensor([[1.0, 0.0], [0.0, 1.0]])
        >>> round(float(F.npair_loss(a, a, dygraph.to_tensor([0, 1]), l2_reg=0.0)), 4)
        0.3133
    """
    op = "npair_loss"
    a, pos = float_operand(anchor, op), float_operand(positive, op)
    if a._data.ndim != 2 or a._data.shape != pos._data.shape or a._data.size == 0:
        raise op_error(op, f"anchor and positive must be non-empty [N, D] tensors of one "
                       f"shape, got {list(a._data.shape)} and {list(pos._data.shape)}")
    lab = np.asarray(as_tensor(labels, op).numpy()).reshape(-1)
    if lab.shape[0] != a._data.shape[0]:
        raise op_error(op, f"labels must have {a._data.shape[0]} entries, got {lab.shape[0]}")
    same = (lab[:, None] == lab[None, :]).astype(np.float64)
    target = _const(same / same.sum(axis=1, keepdims=True), a)
    l2 = P.mean(P.sum(a * a, axis=1)) + P.mean(P.sum(pos * pos, axis=1))
    logp = log_softmax(P.matmul(a, pos, transpose_y=True), axis=-1)
    ce = -P.sum(target * logp, axis=1, keepdim=True)
    return l2 * (0.25 * l2_reg) + P.mean(P.sum(target * ce, axis=0))
