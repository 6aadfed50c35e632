"""More common layers: ChannelShuffle, FeatureAlphaDropout, PairwiseDistance and
Unflatten, each calling its nn.functional op."""

from dygraph.nn import functional as F
from dygraph.nn.layer.layers import Layer
from dygraph.ops.shape import reshape

__all__ = ["ChannelShuffle", "FeatureAlphaDropout", "PairwiseDistance", "Unflatten"]


class ChannelShuffle(Layer):
    """Interleave the channels of `groups` groups (see F.channel_shuffle).

    Example:
        >>> import dygraph
        >>> x = dygraph.arange(4, dtype='float32').reshape([1, 4, 1, 1])
        >>> dygraph.nn.ChannelShuffle(2)(x).numpy().ravel()
        array([0., 2., 1., 3.], dtype=float32)
    """

    def __init__(self, groups, data_format="NCHW", name=None):
        super().__init__()
        self._groups, self._data_format, self._name = groups, data_format, name

    def forward(self, x):
        return F.channel_shuffle(x, self._groups, self._data_format)

    def extra_repr(self):
        return f"groups={self._groups}, data_format={self._data_format}"


class FeatureAlphaDropout(Layer):
    """F.feature_alpha_dropout while training; the identity after eval().

    Example:
        >>> import dygraph
        >>> layer = dygraph.nn.FeatureAlphaDropout(0.5)
        >>> layer.eval()(dygraph.ones([1, 2])).numpy()
        array([[1., 1.]], dtype=float32)
    """

    def __init__(self, p=0.5, name=None):
        super().__init__()
        self.p, self._name = p, name

    def forward(self, x):
        return F.feature_alpha_dropout(x, self.p, training=self.training)

    def extra_repr(self):
        return f"p={self.p}"


class PairwiseDistance(Layer):
    """The p-norm of x - y + epsilon along the last axis (see F.pairwise_distance).

    Example:
        >>> import dygraph
        >>> a, b = dygraph.to_tensor([[3.0, 0.0]]), dygraph.to_tensor([[0.0, 4.0]])
        >>> dygraph.nn.PairwiseDistance(epsilon=0.0)(a, b).numpy()
        array([5.], dtype=float32)
    """

    def __init__(self, p=2.0, epsilon=1e-6, keepdim=False, name=None):
        super().__init__()
        self.p, self.epsilon, self.keepdim, self._name = p, epsilon, keepdim, name

    def forward(self, x, y):
        return F.pairwise_distance(x, y, self.p, self.epsilon, self.keepdim)

    def extra_repr(self):
        return f"p={self.p}, epsilon={self.epsilon}, keepdim={self.keepdim}"


class Unflatten(Layer):
    """Split dim `axis` into `shape` (the inverse of Flatten).

    Example:
        >>> import dygraph
        >>> dygraph.nn.Unflatten(1, [2, 3])(dygraph.ones([4, 6, 5])).shape
        [4, 2, 3, 5]
    """

    def __init__(self, axis, shape, name=None):
        super().__init__()
        self.axis, self.shape, self._name = axis, shape, name

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        dims = list(input.shape)
        axis = self.axis % len(dims)
        shape = [int(s) for s in (self.shape.tolist() if hasattr(self.shape, "tolist")
                                  else self.shape)]
        return reshape(input, dims[:axis] + shape + dims[axis + 1:])

    def extra_repr(self):
        return f"axis={self.axis}, shape={self.shape}"
