"""More losses of dygraph.nn.functional: gaussian_nll_loss, poisson_nll_loss, dice_loss,
log_loss, square_error_cost, sigmoid_focal_loss, margin_cross_entropy and
class_center_sample, composed of differentiable ops with Paddle's formulas.

margin_cross_entropy and class_center_sample are Paddle's PartialFC pieces; here they run
on one process (the class dimension is not split over ranks).
"""

import math

import numpy as np

from dygraph import ops as P
from dygraph.framework.errors import AssertedTypeError, AssertedValueError, RankIndexError, op_error
from dygraph.framework.random import rng
from dygraph.ops.activation.piecewise import log_sigmoid, log_softmax, sigmoid, softmax
from dygraph.ops.common import as_tensor, float_operand
from dygraph.ops.device_constants import const as _const
from dygraph.ops.loss.common import check_reduction, reduce_loss
from dygraph.ops.loss.regression import check_same_shape, squared_error_operands
from dygraph.tensor.tensor import to_tensor

__all__ = ["gaussian_nll_loss", "poisson_nll_loss", "dice_loss", "log_loss",
           "square_error_cost", "sigmoid_focal_loss", "margin_cross_entropy",
           "class_center_sample"]
NONDIFF = {"class_center_sample"}


def gaussian_nll_loss(input, label, variance, full=False, epsilon=1e-6, reduction="mean",
                      name=None):
    """Gaussian negative log likelihood 0.5 * (log v + (input - label)^2 / v) with
    v = max(variance, epsilon) (plus 0.5 log(2 pi) when full). `variance` has input's shape
    or one value per sample (input's shape without, or with 1 as, the last dim).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x, y = dygraph.to_tensor([1.0, 2.0]), dygraph.to_tensor([1.0, 0.0])
        >>> F.gaussian_nll_loss(x, y, dygraph.to_tensor([1.0, 2.0]), reduction='none').numpy()
        array([0.       , 1.3465736], dtype=float32)
    """
    op = "gaussian_nll_loss"
    check_reduction(reduction, op)
    x, y, var = (float_operand(t, op) for t in (input, label, variance))
    xs, vs = list(x._data.shape), list(var._data.shape)
    if vs != xs:
        if xs[:-1] == vs:
            var = P.unsqueeze(var, -1)
        elif not (xs[:-1] == vs[:-1] and vs[-1:] == [1]):
            raise op_error(op, f"variance must have input's shape {xs}, or it without (or "
                           f"with 1 as) the last dim, got {vs}")
    if bool((var._data < 0).any()):
        raise op_error(op, "variance has negative entries")
    # The clamp is not differentiated (Paddle clamps under no_grad): where variance is
    # below epsilon its gradient is still that of log v + d^2 / v at v = variance.
    var = var + (P.clip(var, min=epsilon) - var).detach()
    loss = 0.5 * (P.log(var) + P.square(x - y) / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return reduce_loss(loss, reduction)


def poisson_nll_loss(input, label, log_input=True, full=False, epsilon=1e-8,
                     reduction="mean", name=None):
    """Poisson negative log likelihood: exp(input) - label * input when log_input, else
    input - label * log(input + epsilon); full adds Stirling's term for labels > 1.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x, y = dygraph.to_tensor([0.0, 1.0]), dygraph.to_tensor([1.0, 2.0])
        >>> F.poisson_nll_loss(x, y, reduction='none').numpy().round(4)
        array([1.    , 0.7183], dtype=float32)
    """
    op = "poisson_nll_loss"
    check_reduction(reduction, op)
    if epsilon <= 0:
        raise op_error(op, f"epsilon must be positive, got {epsilon}")
    x, y = float_operand(input, op), float_operand(label, op)
    if x._data.shape != y._data.shape:
        raise op_error(op, f"input and label must have one shape, got "
                       f"{list(x._data.shape)} and {list(y._data.shape)}")
    loss = P.exp(x) - y * x if log_input else x - y * P.log(x + epsilon)
    if full:
        # Labels <= 1 get no term; they are moved to 2 first so the logs stay finite.
        big = P.cast(y > 1, y.dtype)
        safe = y * big + 2.0 * (1.0 - big)
        stirling = safe * P.log(safe) - safe + 0.5 * P.log(2 * math.pi * safe)
        loss = loss + stirling * big
    return reduce_loss(loss, reduction)


def dice_loss(input, label, epsilon=1e-5, name=None):
    """1 - 2 |X & Y| / (|X| + |Y|) averaged over the batch: input holds class probabilities
    on its last axis ([N, ..., C]) and label the classes ([N, ..., 1], integers).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> p = dygraph.to_tensor([[0.8, 0.2], [0.4, 0.6]])
        >>> round(float(F.dice_loss(p, dygraph.to_tensor([[0], [1]]), epsilon=0.0)), 4)
        0.3
    """
    op = "dice_loss"
    x = float_operand(input, op)
    lab = np.asarray(as_tensor(label, op).numpy())
    xs = list(x._data.shape)
    # Paddle asserts the label's dtype, the input's rank, the label's last dim and the
    # leading dims (AssertionError), in this order
    if lab.dtype.kind not in "iu":
        raise op_error(op, f"label must be an int32 or int64 tensor of classes, got "
                       f"{lab.dtype}", AssertedTypeError)
    if len(xs) < 2 or lab.shape[-1:] != (1,):
        raise op_error(op, f"input must be [N, ..., C] (2-D at least) and label [N, ..., 1], "
                       f"got {xs} and {list(lab.shape)}", AssertedValueError)
    if lab.ndim != len(xs) or list(lab.shape[:-1]) != xs[:-1]:
        raise op_error(op, f"input [N, ..., C] and label [N, ..., 1] must have the same "
                       f"leading dims, got {xs} and {list(lab.shape)}", AssertedValueError)
    onehot = _const(np.eye(xs[-1])[lab[..., 0]], x)
    axes = list(range(1, len(xs)))
    inter = P.sum(x * onehot, axis=axes)
    denom = P.sum(x, axis=axes) + P.sum(onehot, axis=axes)
    return P.mean(1.0 - inter * 2.0 / (denom + epsilon))


def log_loss(input, label, epsilon=1e-4, name=None):
    """-label log(input + eps) - (1 - label) log(1 - input + eps), elementwise. As in Paddle,
    input and label are [N, 1] (one predicted probability per sample) of one shape.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> p, y = dygraph.to_tensor([[0.5]]), dygraph.to_tensor([[1.0]])
        >>> F.log_loss(p, y, epsilon=0.0).numpy().round(4)
        array([[0.6931]], dtype=float32)
    """
    x, y = float_operand(input, "log_loss"), float_operand(label, "log_loss")
    xs, ys = list(x._data.shape), list(y._data.shape)
    if xs != ys:
        raise op_error("log_loss", f"input shape {xs} and label shape {ys} differ; they "
                       "must be equal")
    if len(xs) != 2 or xs[1] != 1:
        raise op_error("log_loss", f"input must be [N, 1] (one probability per sample), got "
                       f"shape {xs}")
    return -y * P.log(x + epsilon) - (1.0 - y) * P.log(1.0 - x + epsilon)


def square_error_cost(input, label):
    """(input - label) ** 2, elementwise; two integer tensors give an integer result, as
    in Paddle.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x, y = dygraph.to_tensor([1.0, 3.0]), dygraph.to_tensor([0.0, 1.0])
        >>> F.square_error_cost(x, y).numpy()
        array([1., 4.], dtype=float32)
    """
    x, y = squared_error_operands(input, label, "square_error_cost")
    return P.square(x - y)


def sigmoid_focal_loss(logit, label, normalizer=None, alpha=0.25, gamma=2.0,
                       reduction="sum", name=None):
    """Focal loss on logits: alpha_t (1 - p_t)^gamma BCE(logit, label), divided by
    `normalizer` when given (p_t = p for label 1, 1 - p for label 0).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x, y = dygraph.to_tensor([0.0, 0.0]), dygraph.to_tensor([1.0, 0.0])
        >>> F.sigmoid_focal_loss(x, y, reduction='none').numpy().round(4)
        array([0.0433, 0.13  ], dtype=float32)
    """
    op = "sigmoid_focal_loss"
    check_reduction(reduction, op)
    x, y = float_operand(logit, op), float_operand(label, op)
    check_same_shape(x, y, op)
    bce = -(y * log_sigmoid(x) + (1.0 - y) * log_sigmoid(-x))
    p = sigmoid(x)
    p_t = p * y + (1.0 - p) * (1.0 - y)
    alpha_t = alpha * y + (1.0 - alpha) * (1.0 - y)
    loss = alpha_t * (1.0 - p_t) ** gamma * bce
    if normalizer is not None:
        norm = float_operand(normalizer, op)
        if norm._data.ndim > 1:
            raise op_error(op, f"normalizer must have at most one dim, got shape "
                           f"{list(norm._data.shape)}")
        loss = loss / norm
    return reduce_loss(loss, reduction)


def margin_cross_entropy(logits, label, margin1=1.0, margin2=0.5, margin3=0.0, scale=64.0,
                         group=None, return_softmax=False, reduction="mean"):
    """Additive-angular-margin softmax cross entropy (ArcFace and relatives): the target
    logit cos(t) becomes cos(margin1 * t + margin2) - margin3, every logit is multiplied by
    `scale`, then softmax cross entropy. logits are cosines, [N, C]; label is [N] or [N, 1].
    Runs on one process: the class dimension is not split over ranks.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> cos = dygraph.to_tensor([[1.0, 0.0]])
        >>> loss = F.margin_cross_entropy(cos, dygraph.to_tensor([0]), margin2=0.0, scale=1.0)
        >>> round(float(loss), 4)
        0.3133
    """
    op = "margin_cross_entropy"
    if reduction not in ("mean", "sum", "none", None):
        raise op_error(op, f"reduction must be 'mean', 'sum', 'none' or None, got "
                       f"{reduction!r}")
    x = float_operand(logits, op)
    if x._data.ndim != 2 or x._data.shape[-1] == 0:
        # (too few dims: Paddle's IndexError as well)
        raise op_error(op, f"logits must be [N, C] with C > 0, got {list(x._data.shape)}",
                       RankIndexError if x._data.ndim < 2 else ValueError)
    n, c = x._data.shape
    lab = np.asarray(as_tensor(label, op).numpy()).reshape(-1)
    if lab.shape[0] != n or lab.dtype.kind not in "iu" or (lab.size and (
            lab.min() < 0 or lab.max() >= c)):
        raise op_error(op, f"label must hold {n} integer classes in [0, {c}), got "
                       f"{lab.dtype} {list(lab.shape)}")
    target = _const(np.eye(c)[lab], x)
    cos_t = P.sum(x * target, axis=1, keepdim=True)
    theta = P.acos(P.clip(cos_t, -1.0, 1.0))
    shifted = P.cos(margin1 * theta + margin2) - margin3
    z = (x + target * (shifted - cos_t)) * scale
    loss = -P.sum(log_softmax(z, axis=1) * target, axis=1, keepdim=True)
    if reduction == "mean":
        loss = P.mean(loss)
    elif reduction == "sum":
        loss = P.sum(loss)
    return (loss, softmax(z, axis=1)) if return_softmax else loss


def class_center_sample(label, num_classes, num_samples, group=None):
    """PartialFC's class sampling: every class in `label` (sorted) followed by random other
    classes up to `num_samples` in all; returns (label remapped to positions in the sample,
    the sampled classes). Runs on one process.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> remapped, centers = F.class_center_sample(dygraph.to_tensor([3, 1, 3]), 10, 2)
        >>> remapped.numpy(), centers.numpy()
        (array([1, 0, 1]), array([1, 3]))
    """
    op = "class_center_sample"
    lab = as_tensor(label, op)
    values = np.asarray(lab.numpy())
    if values.ndim != 1 or values.dtype.kind not in "iu":
        raise op_error(op, f"label must be a 1-D integer tensor, got {values.dtype} "
                       f"{list(values.shape)}")
    if values.size and (values.min() < 0 or values.max() >= num_classes):
        raise op_error(op, f"labels must be in [0, {num_classes}), got "
                       f"[{values.min()}, {values.max()}]")
    if not 0 < num_samples <= num_classes:
        raise op_error(op, f"num_samples must be in [1, num_classes={num_classes}], got "
                       f"{num_samples}")
    positive = np.unique(values)
    others = np.setdiff1d(np.arange(num_classes), positive)
    extra = max(0, num_samples - positive.size)
    centers = np.concatenate([positive, rng().permutation(others)[:extra]])
    remapped = np.searchsorted(positive, values)
    return (to_tensor(remapped.astype(values.dtype)),
            to_tensor(centers.astype(values.dtype)))
