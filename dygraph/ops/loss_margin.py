"""Margin losses: margin_ranking_loss, hinge_embedding_loss, cosine_embedding_loss and
triplet_margin_loss, composed of elementwise ops and reductions (Paddle's formulas).
"""

from dygraph.framework.errors import op_error
from dygraph.ops import creation as _creation
from dygraph.ops import math as _math
from dygraph.ops import reduction as _reduction
from dygraph.ops import unary as _unary
from dygraph.ops.activation import relu
from dygraph.ops.common import as_tensor, float_operand
from dygraph.ops.loss_common import check_reduction, reduce_loss

__all__ = ["margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss",
           "triplet_margin_loss"]

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


def _distance(a, b, p, epsilon):
    """The p-norm of a - b + epsilon along the last axis."""
    d = a - b + epsilon
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
        d_neg = _math.minimum(d_neg, _distance(pos, neg, p, epsilon))
    return reduce_loss(relu(d_pos - d_neg + margin), reduction)
