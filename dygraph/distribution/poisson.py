"""The Poisson distribution with rate `rate`: P(X = k) = rate^k e^-rate / k!.

Example:
    >>> import dygraph
    >>> from dygraph.distribution import Poisson
    >>> Poisson(dygraph.to_tensor([2.0])).prob(dygraph.to_tensor([0.0])).numpy().round(4)
    array([0.1353], dtype=float32)
"""

import dygraph
from dygraph.distribution.distribution import Distribution, check_shape, finfo

__all__ = ["Poisson"]


class Poisson(Distribution):
    """The Poisson distribution.

    Args:
        rate (float|Tensor): the rate, >= 0; a number becomes a Tensor of shape [1].

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import Poisson
        >>> d = Poisson(dygraph.to_tensor([1.0, 4.0]))
        >>> d.sample([3]).shape, d.entropy().numpy().round(4)
        ([3, 2], array([1.3048, 2.0867], dtype=float32))
    """

    def __init__(self, rate):
        self.dtype = dygraph.get_default_dtype()
        if isinstance(rate, (float, int)):
            rate = dygraph.to_tensor([rate], dtype=self.dtype)
        else:
            self.dtype = rate.dtype.name
        self.rate = rate
        super().__init__(self.rate.shape)

    @property
    def mean(self):
        """The rate."""
        return self.rate

    @property
    def variance(self):
        """The rate."""
        return self.rate

    def sample(self, shape=()):
        """Draw counts (in the rate's dtype) of shape `shape + batch_shape`."""
        shape = list(check_shape(shape)) + list(self.batch_shape)
        with dygraph.no_grad():
            return dygraph.poisson(dygraph.broadcast_to(self.rate, shape))

    def _enumerate_bounded_support(self, rate):
        """0, 1, ..., up to max(rate) + 30 standard deviations: where the mass is."""
        top = float(rate.max())
        spread = top ** 0.5 if top >= 1.0 else 1.0
        upper = int((rate + 30 * spread).astype("int32").max())
        return dygraph.arange(0, upper, dtype=self.dtype)

    def entropy(self):
        """-sum_k P(k) log P(k) over the bounded support (0 where the rate is 0)."""
        values = self._enumerate_bounded_support(self.rate).reshape(
            [-1] + [1] * len(self.batch_shape))
        log_prob = self.log_prob(values)
        proposed = -(dygraph.exp(log_prob) * log_prob).sum(0)
        return proposed * (self.rate != 0).astype(self.dtype)

    def log_prob(self, value):
        """log P(X = value); impossible values give -eps rather than -inf."""
        value = value.astype(self.dtype)
        eps = float(finfo(self.rate.dtype).eps)
        return dygraph.nan_to_num(-self.rate + value * dygraph.log(self.rate)
                                  - dygraph.lgamma(value + 1), neginf=-eps)

    def prob(self, value):
        """P(X = value)."""
        return dygraph.exp(self.log_prob(value))

    def kl_divergence(self, other):
        """KL(self || other), summed over a support that holds both's mass."""
        if self.batch_shape != other.batch_shape:
            raise ValueError("KL divergence of two poisson distributions should share the "
                             "same `batch_shape`.")
        rate_max = dygraph.maximum(self.rate, other.rate).max()
        top = int(self._enumerate_bounded_support(rate_max).max())
        support = dygraph.arange(0, top, dtype=self.dtype).reshape(
            [-1] + [1] * len(self.batch_shape))
        log_p = self.log_prob(support)
        return (dygraph.exp(log_p) * (log_p - other.log_prob(support))).sum(0)
