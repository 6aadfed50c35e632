"""The gamma distribution with shape `concentration` and inverse scale `rate`.

Example:
    >>> import dygraph
    >>> from dygraph.distribution import Gamma
    >>> d = Gamma(dygraph.to_tensor(2.0), dygraph.to_tensor(4.0))
    >>> float(d.mean), float(d.variance)
    (0.5, 0.125)
"""

import dygraph
from dygraph.distribution.distribution import check_shape
from dygraph.distribution.exponential_family import ExponentialFamily

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """The gamma distribution, density rate^a x^(a - 1) e^(-rate x) / Gamma(a).

    Args:
        concentration (float|Tensor): the shape a > 0.
        rate (float|Tensor): the rate > 0. Both numbers or both Tensors.

    `rsample` is differentiable with respect to `rate` (as in Paddle, the standard gamma
    draws themselves carry no gradient to `concentration`).

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import Gamma
        >>> d = Gamma(2.0, 1.0)
        >>> round(float(d.log_prob(dygraph.to_tensor(1.0))), 4), d.sample([3]).shape
        (-1.0, [3])
    """

    def __init__(self, concentration, rate):
        if self._validate_args(concentration, rate):
            self.concentration, self.rate = concentration, rate
            self.dtype = concentration.dtype.name
        else:
            self.concentration, self.rate = self._to_tensor(concentration, rate)
            self.dtype = dygraph.get_default_dtype()
        super().__init__(self.concentration.shape)

    @property
    def mean(self):
        """concentration / rate."""
        return self.concentration / self.rate

    @property
    def variance(self):
        """concentration / rate^2."""
        return self.concentration / self.rate.pow(2)

    def prob(self, value):
        """The density at `value`."""
        return dygraph.exp(self.log_prob(value))

    def log_prob(self, value):
        """a log(rate) + (a - 1) log(x) - rate x - log Gamma(a)."""
        return (self.concentration * dygraph.log(self.rate)
                + (self.concentration - 1) * dygraph.log(value)
                - self.rate * value - dygraph.lgamma(self.concentration))

    def entropy(self):
        """a - log(rate) + log Gamma(a) + (1 - a) digamma(a)."""
        return (self.concentration - dygraph.log(self.rate) + dygraph.lgamma(self.concentration)
                + (1.0 - self.concentration) * dygraph.digamma(self.concentration))

    def sample(self, shape=()):
        """Draw samples of shape `shape + batch_shape` (no gradient)."""
        with dygraph.no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        """standard_gamma(concentration) / rate."""
        shape = list(self._extend_shape(check_shape(shape)))
        return dygraph.standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)

    def kl_divergence(self, other):
        """KL(self || other) between two gamma distributions."""
        if not isinstance(other, Gamma):
            raise TypeError(f"Expected type of other is Gamma, but got {type(other)}")
        a, b = self.concentration, self.rate
        c, d = other.concentration, other.rate
        return (c * dygraph.log(b / d) + dygraph.lgamma(c) - dygraph.lgamma(a)
                + (a - c) * dygraph.digamma(a) + (d - b) * (a / b))

    @property
    def _natural_parameters(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return dygraph.lgamma(x + 1) + (x + 1) * dygraph.log(-y.reciprocal())
