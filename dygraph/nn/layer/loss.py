"""Loss layers: each holds its settings and calls the function of the same name in
dygraph.nn.functional (ops/loss*.py), so the layer and the function always agree.
"""

from dygraph.nn import functional as F
from dygraph.nn.layer.layers import Layer
from dygraph.ops.loss.common import check_reduction

__all__ = ["CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss",
           "BCELoss", "BCEWithLogitsLoss", "KLDivLoss", "MarginRankingLoss", "HingeEmbeddingLoss",
           "CosineEmbeddingLoss", "TripletMarginLoss", "CTCLoss", "GaussianNLLLoss",
           "PoissonNLLLoss", "SoftMarginLoss", "MultiMarginLoss", "MultiLabelMarginLoss",
           "MultiLabelSoftMarginLoss", "TripletMarginWithDistanceLoss", "RNNTLoss"]


class _Loss(Layer):
    """Checks `reduction` when the layer is built, as Paddle's loss layers do."""

    def __init__(self, reduction, allowed=("none", "mean", "sum")):
        super().__init__()
        self.reduction = check_reduction(reduction, type(self).__name__, allowed)

    def extra_repr(self):
        return f"reduction={self.reduction!r}"


class CrossEntropyLoss(_Loss):
    """Softmax cross entropy (see nn.functional.cross_entropy for the arguments).

    Example:
        >>> import dygraph
        >>> loss = CrossEntropyLoss()(dygraph.to_tensor([[2.0, 0.0]]), dygraph.to_tensor([0]))
        >>> round(float(loss), 4)
        0.1269
    """

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", soft_label=False,
                 axis=-1, use_softmax=True, label_smoothing=0.0, name=None):
        super().__init__(reduction)
        self.weight, self.ignore_index, self.soft_label = weight, ignore_index, soft_label
        self.axis, self.use_softmax, self.label_smoothing = axis, use_softmax, label_smoothing

    def forward(self, input, label):
        return F.cross_entropy(input, label, self.weight, self.ignore_index, self.reduction,
                               self.soft_label, self.axis, self.use_softmax,
                               self.label_smoothing)


class NLLLoss(_Loss):
    """Negative log likelihood on log-probabilities (see nn.functional.nll_loss).

    Example:
        >>> import dygraph
        >>> NLLLoss()(dygraph.to_tensor([[-0.5, -1.0]]), dygraph.to_tensor([1])).numpy()
        array(1., dtype=float32)
    """

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", name=None):
        super().__init__(reduction)
        self.weight, self.ignore_index = weight, ignore_index

    def forward(self, input, label):
        return F.nll_loss(input, label, self.weight, self.ignore_index, self.reduction)


class MSELoss(_Loss):
    """Mean squared error.

    Example:
        >>> import dygraph
        >>> MSELoss()(dygraph.to_tensor([1.0, 3.0]), dygraph.to_tensor([0.0, 0.0])).numpy()
        array(5., dtype=float32)
    """

    def __init__(self, reduction="mean"):
        super().__init__(reduction)

    def forward(self, input, label):
        return F.mse_loss(input, label, self.reduction)


class L1Loss(_Loss):
    """Mean absolute error.

    Example:
        >>> import dygraph
        >>> L1Loss()(dygraph.to_tensor([1.0, -3.0]), dygraph.to_tensor([0.0, 0.0])).numpy()
        array(2., dtype=float32)
    """

    def __init__(self, reduction="mean", name=None):
        super().__init__(reduction)

    def forward(self, input, label):
        return F.l1_loss(input, label, self.reduction)


class SmoothL1Loss(_Loss):
    """Huber loss with threshold `delta` (`is_huber=False`: the smooth L1 loss, Huber's
    divided by delta; see F.smooth_l1_loss). Paddle 3.3's `HuberLoss` is this class.

    Example:
        >>> import dygraph
        >>> SmoothL1Loss()(dygraph.to_tensor([3.0]), dygraph.to_tensor([0.0])).numpy()
        array(2.5, dtype=float32)
        >>> HuberLoss is SmoothL1Loss
        True
    """

    def __init__(self, reduction="mean", delta=1.0, is_huber=True, name=None):
        super().__init__(reduction)
        self.delta, self.is_huber = delta, is_huber

    def forward(self, input, label):
        return F.smooth_l1_loss(input, label, self.reduction, self.delta, self.is_huber)


HuberLoss = SmoothL1Loss


class BCELoss(_Loss):
    """Binary cross entropy on probabilities.

    Example:
        >>> import dygraph
        >>> loss = BCELoss()(dygraph.to_tensor([0.5]), dygraph.to_tensor([1.0]))
        >>> round(float(loss), 4)
        0.6931
    """

    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__(reduction)
        self.weight = weight

    def forward(self, input, label):
        return F.binary_cross_entropy(input, label, self.weight, self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Sigmoid + binary cross entropy on logits, with optional `pos_weight`.

    Example:
        >>> import dygraph
        >>> loss = BCEWithLogitsLoss()(dygraph.to_tensor([0.0]), dygraph.to_tensor([1.0]))
        >>> round(float(loss), 4)
        0.6931
    """

    def __init__(self, weight=None, reduction="mean", pos_weight=None, name=None):
        super().__init__(reduction)
        self.weight, self.pos_weight = weight, pos_weight

    def forward(self, logit, label):
        return F.binary_cross_entropy_with_logits(logit, label, self.weight, self.reduction,
                                                  self.pos_weight)


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence, input in log space; also 'batchmean'.

    Example:
        >>> import dygraph
        >>> logp = dygraph.log(dygraph.to_tensor([[0.5, 0.5]]))
        >>> KLDivLoss('batchmean')(logp, dygraph.to_tensor([[0.5, 0.5]])).numpy()
        array(0., dtype=float32)
    """

    def __init__(self, reduction="mean", log_target=False):
        super().__init__(reduction, ("none", "mean", "sum", "batchmean"))
        self.log_target = log_target

    def forward(self, input, label):
        return F.kl_div(input, label, self.reduction, self.log_target)


class MarginRankingLoss(_Loss):
    """max(0, -label * (input - other) + margin).

    Example:
        >>> import dygraph
        >>> a, b, y = (dygraph.to_tensor([v]) for v in (1.0, 2.0, 1.0))
        >>> MarginRankingLoss()(a, b, y).numpy()
        array(1., dtype=float32)
    """

    def __init__(self, margin=0.0, reduction="mean", name=None):
        super().__init__(reduction)
        self.margin = margin

    def forward(self, input, other, label):
        return F.margin_ranking_loss(input, other, label, self.margin, self.reduction)


class HingeEmbeddingLoss(_Loss):
    """input for label 1, max(0, margin - input) for label -1.

    Example:
        >>> import dygraph
        >>> HingeEmbeddingLoss()(dygraph.to_tensor([0.3]), dygraph.to_tensor([-1.0])).numpy()
        array(0.7, dtype=float32)
    """

    def __init__(self, margin=1.0, reduction="mean", name=None):
        super().__init__(reduction)
        self.margin = margin

    def forward(self, input, label):
        return F.hinge_embedding_loss(input, label, self.margin, self.reduction)


class CosineEmbeddingLoss(_Loss):
    """1 - cos for label 1, max(0, cos - margin) for label -1.

    Example:
        >>> import dygraph
        >>> a = dygraph.to_tensor([[1.0, 0.0]])
        >>> CosineEmbeddingLoss()(a, a, dygraph.to_tensor([1])).numpy()
        array(0., dtype=float32)
    """

    def __init__(self, margin=0, reduction="mean", name=None):
        super().__init__(reduction)
        self.margin = margin

    def forward(self, input1, input2, label):
        return F.cosine_embedding_loss(input1, input2, label, self.margin, self.reduction)


class TripletMarginLoss(_Loss):
    """max(0, d(input, positive) - d(input, negative) + margin), d the p-norm distance.

    Example:
        >>> import dygraph
        >>> a = dygraph.to_tensor([[0.0, 0.0]])
        >>> p, n = dygraph.to_tensor([[3.0, 4.0]]), dygraph.to_tensor([[6.0, 8.0]])
        >>> float(TripletMarginLoss(epsilon=0.0)(a, p, n))
        0.0
    """

    def __init__(self, margin=1.0, p=2.0, epsilon=1e-6, swap=False, reduction="mean",
                 name=None):
        super().__init__(reduction)
        self.margin, self.p, self.epsilon, self.swap = margin, p, epsilon, swap

    def forward(self, input, positive, negative):
        return F.triplet_margin_loss(input, positive, negative, self.margin, self.p,
                                     self.epsilon, self.swap, self.reduction)


class CTCLoss(_Loss):
    """CTC loss on logits [T, B, C] (softmax applied inside); blank is class `blank`.

    Example:
        >>> import dygraph
        >>> logits = dygraph.zeros([2, 1, 2])
        >>> labels = dygraph.to_tensor([[1]], dtype='int32')
        >>> n, k = dygraph.to_tensor([2]), dygraph.to_tensor([1])
        >>> round(float(CTCLoss(reduction='sum')(logits, labels, n, k)), 4)
        0.2877
    """

    def __init__(self, blank=0, reduction="mean"):
        super().__init__(reduction)
        self.blank = blank

    def forward(self, log_probs, labels, input_lengths, label_lengths, norm_by_times=False):
        return F.ctc_loss(log_probs, labels, input_lengths, label_lengths, self.blank,
                          self.reduction, norm_by_times)


class GaussianNLLLoss(_Loss):
    """Gaussian negative log likelihood (see F.gaussian_nll_loss).

    Example:
        >>> import dygraph
        >>> x, y = dygraph.to_tensor([1.0, 2.0]), dygraph.to_tensor([1.0, 0.0])
        >>> loss = dygraph.nn.GaussianNLLLoss(reduction='sum')(x, y, dygraph.ones([2]))
        >>> float(loss)
        2.0
    """

    def __init__(self, full=False, epsilon=1e-6, reduction="mean", name=None):
        super().__init__(reduction)
        self.full, self.epsilon = full, epsilon

    def forward(self, input, label, variance):
        return F.gaussian_nll_loss(input, label, variance, self.full, self.epsilon,
                                   self.reduction)


class PoissonNLLLoss(_Loss):
    """Poisson negative log likelihood (see F.poisson_nll_loss).

    Example:
        >>> import dygraph
        >>> x, y = dygraph.to_tensor([0.0]), dygraph.to_tensor([1.0])
        >>> float(dygraph.nn.PoissonNLLLoss()(x, y))
        1.0
    """

    def __init__(self, log_input=True, full=False, epsilon=1e-8, reduction="mean", name=None):
        super().__init__(reduction)
        self.log_input, self.full, self.epsilon = log_input, full, epsilon

    def forward(self, input, label):
        return F.poisson_nll_loss(input, label, self.log_input, self.full, self.epsilon,
                                  self.reduction)


class SoftMarginLoss(_Loss):
    """log(1 + exp(-label * input)) (see F.soft_margin_loss).

    Example:
        >>> import dygraph
        >>> loss = dygraph.nn.SoftMarginLoss()(dygraph.to_tensor([0.0]), dygraph.to_tensor([1.0]))
        >>> round(float(loss), 4)
        0.6931
    """

    def __init__(self, reduction="mean", name=None):
        super().__init__(reduction)

    def forward(self, input, label):
        return F.soft_margin_loss(input, label, self.reduction)


class MultiMarginLoss(_Loss):
    """Multi-class hinge loss (see F.multi_margin_loss).

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([[0.1, 0.2, 0.4, 0.8]])
        >>> round(float(dygraph.nn.MultiMarginLoss()(x, dygraph.to_tensor([3]))), 4)
        0.325
    """

    def __init__(self, p=1, margin=1.0, weight=None, reduction="mean", name=None):
        super().__init__(reduction)
        self.p, self.margin, self.weight = p, margin, weight

    def forward(self, input, label):
        return F.multi_margin_loss(input, label, self.p, self.margin, self.weight,
                                   self.reduction)


class MultiLabelMarginLoss(_Loss):
    """Multi-label hinge loss over target lists ended by -1 (see F.multi_label_margin_loss).

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([[0.1, 0.2, 0.4, 0.8]])
        >>> y = dygraph.to_tensor([[3, 0, -1, 1]])
        >>> round(float(dygraph.nn.MultiLabelMarginLoss()(x, y)), 4)
        0.85
    """

    def __init__(self, reduction="mean", name=None):
        super().__init__(reduction)

    def forward(self, input, label):
        return F.multi_label_margin_loss(input, label, self.reduction)


class MultiLabelSoftMarginLoss(_Loss):
    """Per-class logistic loss averaged over classes (see F.multi_label_soft_margin_loss).

    Example:
        >>> import dygraph
        >>> x, y = dygraph.to_tensor([[0.0, 0.0]]), dygraph.to_tensor([[1.0, 0.0]])
        >>> round(float(dygraph.nn.MultiLabelSoftMarginLoss()(x, y)), 4)
        0.6931
    """

    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__(reduction)
        self.weight = weight

    def forward(self, input, label):
        return F.multi_label_soft_margin_loss(input, label, self.weight, self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """Triplet loss with any distance function (see F.triplet_margin_with_distance_loss).

    Example:
        >>> import dygraph
        >>> a = dygraph.to_tensor([[0.0, 0.0]])
        >>> pos, neg = dygraph.to_tensor([[1.0, 0.0]]), dygraph.to_tensor([[0.0, 1.5]])
        >>> loss = dygraph.nn.TripletMarginWithDistanceLoss(margin=1.0)(a, pos, neg)
        >>> round(float(loss), 4)
        0.5
    """

    def __init__(self, distance_function=None, margin=1.0, swap=False, reduction="mean",
                 name=None):
        super().__init__(reduction)
        self.distance_function, self.margin, self.swap = distance_function, margin, swap

    def forward(self, input, positive, negative):
        return F.triplet_margin_with_distance_loss(input, positive, negative,
                                                   self.distance_function, self.margin,
                                                   self.swap, self.reduction)


class RNNTLoss(_Loss):
    """RNN-Transducer loss of log-probabilities (see F.rnnt_loss).

    Example:
        >>> import numpy as np
        >>> import dygraph
        >>> lp = dygraph.to_tensor(np.log(np.full((1, 1, 2, 2), 0.5)))
        >>> loss = dygraph.nn.RNNTLoss()(lp, dygraph.to_tensor([[1]]), dygraph.to_tensor([1]),
        ...                              dygraph.to_tensor([1]))
        >>> round(float(loss), 4)
        1.3863
    """

    def __init__(self, blank=0, fastemit_lambda=0.001, reduction="mean", name=None):
        super().__init__(reduction)
        self.blank, self.fastemit_lambda = blank, fastemit_lambda

    def forward(self, input, label, input_lengths, label_lengths):
        return F.rnnt_loss(input, label, input_lengths, label_lengths, self.blank,
                           self.fastemit_lambda, self.reduction)
