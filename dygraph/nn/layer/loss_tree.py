"""Loss layers over a class hierarchy: HSigmoidLoss and AdaptiveLogSoftmaxWithLoss, holding
their weights and calling nn.functional.hsigmoid_loss / adaptive_log_softmax_with_loss."""

from dygraph import ops as P
from dygraph.framework.dtype import get_default_dtype
from dygraph.framework.errors import op_error
from dygraph.nn import functional as F
from dygraph.nn.layer.layers import Layer

__all__ = ["HSigmoidLoss", "AdaptiveLogSoftmaxWithLoss"]


class HSigmoidLoss(Layer):
    """Hierarchical sigmoid loss with weight [num_classes - 1, feature_size] (num_classes
    rows for a custom tree) and bias [.., 1] (see F.hsigmoid_loss).

    Example:
        >>> import dygraph
        >>> layer = dygraph.nn.HSigmoidLoss(3, 4)
        >>> layer(dygraph.ones([2, 3]), dygraph.to_tensor([0, 3])).shape
        [2, 1]
    """

    def __init__(self, feature_size, num_classes, weight_attr=None, bias_attr=None,
                 is_custom=False, is_sparse=False, name=None):
        super().__init__(dtype=get_default_dtype())
        if num_classes < 2 and not is_custom:
            raise op_error("HSigmoidLoss", f"num_classes must be >= 2 with the default tree, "
                           f"got {num_classes}")
        self._feature_size, self._num_classes = feature_size, num_classes
        self._is_custom, self._is_sparse, self._name = is_custom, is_sparse, name
        rows = num_classes if is_custom else num_classes - 1
        self.weight = self.create_parameter([rows, feature_size], attr=weight_attr,
                                            dtype=self._dtype)
        self.bias = self.create_parameter([rows, 1], attr=bias_attr, dtype=self._dtype,
                                          is_bias=True)

    def forward(self, input, label, path_table=None, path_code=None):
        return F.hsigmoid_loss(input, label, self._num_classes, self.weight, self.bias,
                               path_table, path_code, self._is_sparse)

    def extra_repr(self):
        return f"feature_size={self._feature_size}, num_classes={self._num_classes}"


class AdaptiveLogSoftmaxWithLoss(Layer):
    """Adaptive softmax: a head over the cutoffs[0] most frequent classes and one entry per
    cluster, and per cluster a projection to in_features / div_value**(i + 1) and a softmax
    over its classes (see F.adaptive_log_softmax_with_loss). Returns (log-probabilities of
    the labels, mean loss); log_prob gives every class, predict the most likely one.

    Example:
        >>> import dygraph
        >>> layer = dygraph.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0)
        >>> out, loss = layer(dygraph.ones([4, 8]), dygraph.to_tensor([0, 4, 7, 9]))
        >>> out.shape, layer.log_prob(dygraph.ones([4, 8])).shape
        ([4], [4, 10])
    """

    def __init__(self, in_features, n_classes, cutoffs, weight_attr=None, bias_attr=None,
                 div_value=4.0, head_bias=False, name=None):
        super().__init__(dtype=get_default_dtype())
        cutoffs = list(cutoffs)
        if (not cutoffs or cutoffs != sorted(cutoffs) or min(cutoffs) <= 0
                or max(cutoffs) > n_classes - 1 or len(set(cutoffs)) != len(cutoffs)
                or any(int(c) != c for c in cutoffs)):
            raise op_error("AdaptiveLogSoftmaxWithLoss", f"cutoffs must be unique increasing "
                           f"ints in [1, n_classes - 1 = {n_classes - 1}], got {cutoffs}")
        self.in_features, self.n_classes = in_features, n_classes
        self.cutoffs = [*[int(c) for c in cutoffs], n_classes]
        self.div_value, self.is_head_bias = div_value, head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head_weight = self.create_parameter([in_features, self.head_size],
                                                 attr=weight_attr, dtype=self._dtype)
        self.head_bias = (self.create_parameter([self.head_size], attr=bias_attr,
                                                dtype=self._dtype, is_bias=True)
                          if head_bias else None)
        self.tail_weights = []
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            pair = [self.create_parameter([in_features, hidden], attr=weight_attr,
                                          dtype=self._dtype),
                    self.create_parameter([hidden, size], attr=weight_attr,
                                          dtype=self._dtype)]
            # Registered under names so they land in parameters() and state_dict.
            setattr(self, f"tail_{i}_0", pair[0])
            setattr(self, f"tail_{i}_1", pair[1])
            self.tail_weights.append(pair)

    def forward(self, input, label):
        return F.adaptive_log_softmax_with_loss(input, label, self.head_weight,
                                                self.tail_weights, self.cutoffs,
                                                self.head_bias)

    def log_prob(self, input):
        """Log-probabilities of every class, [N, n_classes].

        Example:
            >>> import dygraph
            >>> layer = dygraph.nn.AdaptiveLogSoftmaxWithLoss(4, 5, [2])
            >>> round(float(layer.log_prob(dygraph.ones([1, 4])).exp().sum()), 5)
            1.0
        """
        head = F.log_softmax(F.linear(input, self.head_weight, self.head_bias), axis=1)
        parts = [head[:, :self.shortlist_size]]
        for i, (w0, w1) in enumerate(self.tail_weights):
            cluster = F.log_softmax(F.linear(F.linear(input, w0), w1), axis=1)
            parts.append(cluster + head[:, self.shortlist_size + i:self.shortlist_size + i + 1])
        return P.concat(parts, axis=1)

    def predict(self, input):
        """The most likely class of each row (as float32, like Paddle).

        Example:
            >>> import dygraph
            >>> layer = dygraph.nn.AdaptiveLogSoftmaxWithLoss(4, 5, [2])
            >>> layer.predict(dygraph.ones([3, 4])).shape
            [3]
        """
        return P.cast(P.argmax(self.log_prob(input), axis=1), "float32")

    def extra_repr(self):
        return (f"in_features={self.in_features}, n_classes={self.n_classes}, "
                f"cutoffs={self.cutoffs[:-1]}, div_value={self.div_value}")
