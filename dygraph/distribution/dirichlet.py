"""The Dirichlet distribution over the probability simplex.

Example:
    >>> import dygraph
    >>> from dygraph.distribution import Dirichlet
    >>> d = Dirichlet(dygraph.to_tensor([1.0, 1.0, 2.0]))
    >>> d.mean.numpy()
    array([0.25, 0.25, 0.5 ], dtype=float32)
"""

import math

import dygraph
from dygraph.distribution.distribution import check_shape
from dygraph.distribution.exponential_family import ExponentialFamily

__all__ = ["Dirichlet"]


def _sample_dirichlet(concentration):
    """One Dirichlet draw per row of `concentration`: normalised standard gamma draws."""
    gammas = dygraph.standard_gamma(concentration)
    return gammas / gammas.sum(-1, keepdim=True)


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution with concentration parameters `concentration`.

    Args:
        concentration (Tensor): [..., K], positive; at least one dimension.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import Dirichlet
        >>> d = Dirichlet(dygraph.to_tensor([2.0, 3.0]))
        >>> round(float(d.log_prob(dygraph.to_tensor([0.5, 0.5]))), 4)
        0.4055
        >>> d.sample([4]).shape
        [4, 2]
    """

    def __init__(self, concentration):
        if concentration.ndim < 1 or math.prod(concentration.shape) == 0:
            raise ValueError("`concentration` parameter must be at least one dimensional")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:])

    @property
    def mean(self):
        """concentration / sum(concentration)."""
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def variance(self):
        """The variance of each component."""
        total = self.concentration.sum(-1, keepdim=True)
        return (self.concentration * (total - self.concentration)
                / (total.pow(2) * (total + 1)))

    def sample(self, shape=()):
        """Draw points of the simplex of shape `shape + batch_shape + [K]` (no gradient)."""
        shape = list(self._extend_shape(check_shape(shape)))
        with dygraph.no_grad():
            return _sample_dirichlet(self.concentration.expand(shape))

    def prob(self, value):
        """The density at `value`."""
        return dygraph.exp(self.log_prob(value))

    def log_prob(self, value):
        """sum (a_i - 1) log x_i + log Gamma(sum a_i) - sum log Gamma(a_i)."""
        return ((dygraph.log(value) * (self.concentration - 1.0)).sum(-1)
                + dygraph.lgamma(self.concentration.sum(-1))
                - dygraph.lgamma(self.concentration).sum(-1))

    def entropy(self):
        """The entropy, of shape batch_shape."""
        total = self.concentration.sum(-1)
        k = self.concentration.shape[-1]
        return (dygraph.lgamma(self.concentration).sum(-1) - dygraph.lgamma(total)
                - (k - total) * dygraph.digamma(total)
                - ((self.concentration - 1.0) * dygraph.digamma(self.concentration)).sum(-1))

    @property
    def _natural_parameters(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - dygraph.lgamma(x.sum(-1))
