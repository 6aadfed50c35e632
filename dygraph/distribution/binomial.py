"""The binomial distribution: successes in `total_count` trials of probability `probs`.

Example:
    >>> import dygraph
    >>> from dygraph.distribution import Binomial
    >>> round(float(Binomial(4, 0.5).prob(dygraph.to_tensor(2.0))), 4)
    0.375
"""

import dygraph
from dygraph.distribution.distribution import Distribution, check_shape, finfo

__all__ = ["Binomial"]


class Binomial(Distribution):
    """The binomial distribution.

    Args:
        total_count (int|Tensor): the number of trials.
        probs (float|Tensor): the success probability of each trial.

    Both are cast to probs' dtype (the default dtype for a Python float) and broadcast.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import Binomial
        >>> d = Binomial(dygraph.to_tensor([10, 20]), dygraph.to_tensor([0.5, 0.1]))
        >>> d.mean.numpy(), d.sample([3]).shape
        (array([5., 2.], dtype=float32), [3, 2])
    """

    def __init__(self, total_count, probs):
        self.dtype = dygraph.get_default_dtype()
        if isinstance(probs, float):
            probs = dygraph.to_tensor(probs, dtype=self.dtype)
        else:
            self.dtype = probs.dtype.name
        if isinstance(total_count, int):
            total_count = dygraph.to_tensor(total_count, dtype=self.dtype)
        else:
            total_count = total_count.astype(self.dtype)
        self.total_count, self.probs = dygraph.broadcast_tensors([total_count, probs])
        super().__init__(self.total_count.shape)

    @property
    def mean(self):
        """total_count * probs."""
        return self.total_count * self.probs

    @property
    def variance(self):
        """total_count * probs * (1 - probs)."""
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, shape=()):
        """Draw success counts (in the distribution's dtype) of shape `shape + batch_shape`."""
        shape = list(check_shape(shape)) + list(self.batch_shape)
        with dygraph.no_grad():
            count = dygraph.broadcast_to(self.total_count, shape).astype("int32")
            return dygraph.binomial(count, dygraph.broadcast_to(self.probs, shape)).astype(
                self.dtype)

    def _enumerate_support(self):
        """0, 1, ..., max(total_count) as a column, [n + 1, 1, ...] against the batch."""
        values = dygraph.arange(1 + int(self.total_count.max()), dtype=self.dtype)
        return values.reshape([-1] + [1] * len(self.batch_shape))

    def entropy(self):
        """-sum_k P(k) log P(k) over the support."""
        log_prob = self.log_prob(self._enumerate_support())
        return -(dygraph.exp(log_prob) * log_prob).sum(0)

    def log_prob(self, value):
        """log P(X = value); impossible values give -eps rather than -inf."""
        value = value.astype(self.dtype)
        log_comb = (dygraph.lgamma(self.total_count + 1.0)
                    - dygraph.lgamma(self.total_count - value + 1.0)
                    - dygraph.lgamma(value + 1.0))
        eps = float(finfo(self.probs.dtype).eps)
        probs = dygraph.clip(self.probs, min=eps, max=1 - eps)
        return dygraph.nan_to_num(log_comb + value * dygraph.log(probs)
                                  + (self.total_count - value) * dygraph.log(1 - probs),
                                  neginf=-eps)

    def prob(self, value):
        """P(X = value)."""
        return dygraph.exp(self.log_prob(value))

    def kl_divergence(self, other):
        """KL(self || other), summed over self's support."""
        support = self._enumerate_support()
        log_p = self.log_prob(support)
        return (dygraph.exp(log_p) * (log_p - other.log_prob(support))).sum(0)
