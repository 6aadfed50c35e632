"""Distance layers of dygraph.nn (Paddle's paddle.nn.layer.distance): PairwiseDistance.
"""

from dygraph.nn import functional as F
from dygraph.nn.layer.layers import Layer

__all__ = ["PairwiseDistance"]


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
