"""The multinomial distribution: class counts of `total_count` categorical draws.

Example:
    >>> import dygraph
    >>> from dygraph.distribution import Multinomial
    >>> d = Multinomial(4, dygraph.to_tensor([0.25, 0.75]))
    >>> d.sample([2]).sum(-1).numpy()
    array([4., 4.], dtype=float32)
"""

import dygraph
import dygraph.nn.functional as F
from dygraph.distribution.categorical import Categorical
from dygraph.distribution.distribution import Distribution, check_shape

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """The multinomial distribution with `total_count` trials over the classes of `probs`.

    Args:
        total_count (int): the number of trials, >= 1.
        probs (Tensor): non-negative class weights, [..., K] (normalised to sum to 1).

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import Multinomial
        >>> d = Multinomial(3, dygraph.to_tensor([0.5, 0.5]))
        >>> round(float(d.prob(dygraph.to_tensor([1.0, 2.0]))), 4)
        0.375
    """

    def __init__(self, total_count, probs):
        if not isinstance(total_count, int) or total_count < 1:
            raise ValueError("input parameter total_count must be int type and greater than "
                             "zero.")
        if probs.ndim < 1:
            raise ValueError("probs parameter should not be none and over one dimension")
        self.probs = probs / probs.sum(-1, keepdim=True)
        self.total_count = total_count
        self._categorical = Categorical(logits=self._probs_to_logits(probs))
        super().__init__(probs.shape[:-1], probs.shape[-1:])

    @property
    def mean(self):
        """total_count * probs."""
        return self.probs * self.total_count

    @property
    def variance(self):
        """total_count * probs * (1 - probs)."""
        return self.total_count * self.probs * (1 - self.probs)

    def prob(self, value):
        """P(X = value) for the count vectors `value`."""
        return dygraph.exp(self.log_prob(value))

    def log_prob(self, value):
        """log P(X = value) = log n! - sum log x_i! + sum x_i log p_i."""
        if not dygraph.is_floating_point(value):
            value = value.astype(self.probs.dtype)
        logits, value = dygraph.broadcast_tensors([dygraph.log(self.probs), value])
        # 0 * log(0) counts as 0: a class with zero probability and no draws adds nothing
        logits = dygraph.where((value == 0) & dygraph.isinf(logits),
                               dygraph.zeros_like(logits), logits)
        return (dygraph.lgamma(value.sum(-1) + 1) - dygraph.lgamma(value + 1).sum(-1)
                + (value * logits).sum(-1))

    def sample(self, shape=()):
        """Draw count vectors of shape `shape + batch_shape + [K]` (in probs' dtype)."""
        shape = list(check_shape(shape))
        draws = self._categorical.sample([self.total_count, *shape])
        return F.one_hot(draws, self.probs.shape[-1]).astype(self.probs.dtype).sum(0)

    def entropy(self):
        """The entropy, with the sum over counts done through binomial marginals."""
        n = dygraph.full([], self.total_count, dtype=self.probs.dtype)
        support = dygraph.arange(self.total_count + 1, dtype=self.probs.dtype).reshape(
            [-1] + [1] * self.probs.ndim)[1:]
        binomial_pmf = dygraph.exp(self._binomial_logpmf(n, support))
        return (n * self._categorical.entropy() - dygraph.lgamma(n + 1)
                + (binomial_pmf * dygraph.lgamma(support + 1)).sum([0, -1]))

    def _binomial_logpmf(self, count, value):
        """log P(X_i = value) for the binomial marginal of each class."""
        logits = self._probs_to_logits(self.probs, is_binary=True)
        norm = (count * logits.clip(min=0) + count * dygraph.log1p(dygraph.exp(-logits.abs()))
                - dygraph.lgamma(count + 1))
        return (value * logits - dygraph.lgamma(value + 1) - dygraph.lgamma(count - value + 1)
                - norm)
