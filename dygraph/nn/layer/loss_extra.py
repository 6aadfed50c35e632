"""More loss layers, each calling its nn.functional function: GaussianNLLLoss,
PoissonNLLLoss, SoftMarginLoss, MultiMarginLoss, MultiLabelMarginLoss,
MultiLabelSoftMarginLoss, TripletMarginWithDistanceLoss and RNNTLoss."""

from dygraph.nn import functional as F
from dygraph.nn.layer.loss import _Loss

__all__ = ["GaussianNLLLoss", "PoissonNLLLoss", "SoftMarginLoss", "MultiMarginLoss",
           "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "TripletMarginWithDistanceLoss",
           "RNNTLoss"]


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
