"""The geometric distribution: the number of failures before the first success,
P(X = k) = (1 - p)^k p for k = 0, 1, 2, ...

Example:
    >>> import dygraph
    >>> from dygraph.distribution import Geometric
    >>> Geometric(0.5).pmf(dygraph.to_tensor(2)).item()
    0.125
"""

import numbers

import numpy as np

import dygraph
from dygraph.distribution.distribution import Distribution, check_shape, standard_uniform

__all__ = ["Geometric"]


def _check_k(k):
    if not isinstance(k, (numbers.Integral, dygraph.Tensor)):
        raise TypeError(f"Expected type of k is number.Real|framework.Variable|Value, but got "
                        f"{type(k)}")


class Geometric(Distribution):
    """The geometric distribution with success probability `probs` in (0, 1].

    Beyond Paddle's methods it has `log_prob` and `prob` (the same as `log_pmf` and `pmf`).

    Args:
        probs (float|Tensor): the success probability; a number becomes a float32 Tensor.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import Geometric
        >>> d = Geometric(dygraph.to_tensor([0.5, 0.25]))
        >>> d.mean.numpy(), d.variance.numpy()
        (array([1., 3.], dtype=float32), array([ 2., 12.], dtype=float32))
    """

    def __init__(self, probs):
        if isinstance(probs, numbers.Real):
            probs = dygraph.full([], probs, dtype="float32")
        elif not isinstance(probs, dygraph.Tensor):
            raise TypeError(f"Expected type of probs is Number.Real|Tensor|framework.Variable|"
                            f"Value, but got {type(probs)}")
        self.probs = probs
        super().__init__(tuple(probs.shape))

    @property
    def mean(self):
        """(1 - p) / p."""
        return 1.0 / self.probs - 1.0

    @property
    def variance(self):
        """(1 - p) / p^2."""
        return (1.0 / self.probs - 1.0) / self.probs

    @property
    def stddev(self):
        """The standard deviation."""
        return dygraph.sqrt(self.variance)

    def pmf(self, k):
        """P(X = k) = (1 - p)^k p."""
        _check_k(k)
        return dygraph.pow(1.0 - self.probs, k) * self.probs

    def log_pmf(self, k):
        """log P(X = k)."""
        _check_k(k)
        return dygraph.log(self.pmf(k))

    def log_prob(self, value):
        """log P(X = value), the same as log_pmf."""
        return self.log_pmf(value)

    def prob(self, value):
        """P(X = value), the same as pmf."""
        return self.pmf(value)

    def sample(self, shape=()):
        """Draw samples of shape `shape + batch_shape` (no gradient)."""
        with dygraph.no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        """Samples floor(log(u) / log(1 - p)), u ~ U(tiny, 1) (piecewise constant in p, so
        their gradient is zero almost everywhere)."""
        shape = self._extend_shape(check_shape(shape))
        u = standard_uniform(shape, self.probs.dtype, low=float(np.finfo("float32").tiny))
        return dygraph.floor(dygraph.log(u) / dygraph.log1p(-self.probs))

    def entropy(self):
        """-((1 - p) log(1 - p) + p log p) / p."""
        q = 1.0 - self.probs
        return -(q * dygraph.log(q) + self.probs * dygraph.log(self.probs)) / self.probs

    def cdf(self, k):
        """P(X <= k) = 1 - (1 - p)^(k + 1)."""
        _check_k(k)
        return 1.0 - dygraph.pow(1.0 - self.probs, k + 1)

    def kl_divergence(self, other):
        """KL(self || other) = log(p / q) + (1 - p) / p * log((1 - p) / (1 - q)).

        (Paddle 3.3 returns p log(p / q) + (1 - p) log((1 - p) / (1 - q)), the KL of the
        Bernoulli distributions of one trial, not of the geometric ones.)
        """
        if not isinstance(other, Geometric):
            raise TypeError(f"Expected type of other is geometric.Geometric, but got "
                            f"{type(other)}")
        p, q = self.probs, other.probs
        return dygraph.log(p / q) + (1.0 - p) / p * dygraph.log((1.0 - p) / (1.0 - q))
