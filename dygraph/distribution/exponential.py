"""The exponential distribution with rate `rate`: density rate e^(-rate x) for x >= 0.

Example:
    >>> import dygraph
    >>> from dygraph.distribution import Exponential
    >>> round(float(Exponential(2.0).cdf(dygraph.to_tensor(1.0))), 4)
    0.8647
"""

import numpy as np

import dygraph
from dygraph.distribution.distribution import check_shape, standard_uniform
from dygraph.distribution.exponential_family import ExponentialFamily

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """The exponential distribution.

    Args:
        rate (float|Tensor): the rate, > 0.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import Exponential
        >>> rate = dygraph.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> d = Exponential(rate)
        >>> d.mean.numpy(), d.rsample([3]).shape
        (array([1. , 0.5], dtype=float32), [3, 2])
    """

    def __init__(self, rate):
        if self._validate_args(rate):
            self.rate = rate
            self.dtype = rate.dtype.name
        else:
            [self.rate] = self._to_tensor(rate)
            self.dtype = dygraph.get_default_dtype()
        super().__init__(self.rate.shape)

    @property
    def mean(self):
        """1 / rate."""
        return self.rate.reciprocal()

    @property
    def variance(self):
        """1 / rate^2."""
        return self.rate.pow(-2)

    def sample(self, shape=()):
        """Draw samples of shape `shape + batch_shape` (no gradient)."""
        with dygraph.no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        """Reparameterised samples -log(u) / rate, u ~ U(tiny, 1)."""
        shape = self._extend_shape(check_shape(shape))
        u = standard_uniform(shape, self.rate.dtype, low=float(np.finfo("float32").tiny))
        return -dygraph.log(u) / self.rate

    def prob(self, value):
        """rate e^(-rate x)."""
        return self.rate * dygraph.exp(-self.rate * value)

    def log_prob(self, value):
        """log(rate) - rate x."""
        return dygraph.log(self.rate) - self.rate * value

    def entropy(self):
        """1 - log(rate)."""
        return 1.0 - dygraph.log(self.rate)

    def cdf(self, value):
        """1 - e^(-rate x)."""
        return 1.0 - dygraph.exp(-self.rate * value)

    def icdf(self, value):
        """-log(1 - q) / rate."""
        return -dygraph.log1p(-value) / self.rate

    def kl_divergence(self, other):
        """KL(self || other) between two exponential distributions."""
        if not isinstance(other, Exponential):
            raise TypeError(f"Expected type of other is Exponential, but got {type(other)}")
        ratio = other.rate / self.rate
        return -dygraph.log(ratio) + ratio - 1

    @property
    def _natural_parameters(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -dygraph.log(-x)
