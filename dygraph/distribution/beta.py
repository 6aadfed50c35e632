"""The beta distribution on [0, 1], the two-class Dirichlet.

Example:
    >>> import dygraph
    >>> from dygraph.distribution import Beta
    >>> round(float(Beta(2.0, 2.0).prob(dygraph.to_tensor(0.5))), 4)
    1.5
"""

import numbers

import dygraph
from dygraph.distribution.dirichlet import Dirichlet
from dygraph.distribution.exponential_family import ExponentialFamily

__all__ = ["Beta"]


class Beta(ExponentialFamily):
    """The beta distribution with shape parameters `alpha` and `beta`.

    Args:
        alpha (float|Tensor): > 0; a number becomes a float32 Tensor.
        beta (float|Tensor): > 0; broadcast with alpha.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import Beta
        >>> d = Beta(dygraph.to_tensor([1.0, 2.0]), dygraph.to_tensor([1.0, 5.0]))
        >>> d.mean.numpy().round(4), d.sample([3]).shape
        (array([0.5   , 0.2857], dtype=float32), [3, 2])
    """

    def __init__(self, alpha, beta):
        if isinstance(alpha, numbers.Real):
            alpha = dygraph.full([], alpha, dtype="float32")
        if isinstance(beta, numbers.Real):
            beta = dygraph.full([], beta, dtype="float32")
        self.alpha, self.beta = dygraph.broadcast_tensors([alpha, beta])
        self._dirichlet = Dirichlet(dygraph.stack([self.alpha, self.beta], -1))
        super().__init__(self._dirichlet.batch_shape)

    @property
    def mean(self):
        """alpha / (alpha + beta)."""
        return self.alpha / (self.alpha + self.beta)

    @property
    def variance(self):
        """alpha beta / ((alpha + beta)^2 (alpha + beta + 1))."""
        total = self.alpha + self.beta
        return self.alpha * self.beta / (total.pow(2) * (total + 1))

    def prob(self, value):
        """The density at `value`."""
        return dygraph.exp(self.log_prob(value))

    def log_prob(self, value):
        """The log density at `value`."""
        return self._dirichlet.log_prob(dygraph.stack([value, 1.0 - value], -1))

    def sample(self, shape=()):
        """Draw samples of shape `shape + batch_shape` (no gradient); as in Paddle, a
        trailing axis of size 1 is squeezed away."""
        first = self._dirichlet.sample(shape)[..., 0]
        return first.squeeze(-1) if first.ndim and first.shape[-1] == 1 else first

    def entropy(self):
        """The entropy."""
        return self._dirichlet.entropy()

    @property
    def _natural_parameters(self):
        return (self.alpha, self.beta)

    def _log_normalizer(self, x, y):
        return dygraph.lgamma(x) + dygraph.lgamma(y) - dygraph.lgamma(x + y)
