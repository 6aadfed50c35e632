"""The log-normal distribution: exp(x) for x ~ Normal(loc, scale).

Example:
    >>> import dygraph
    >>> from dygraph.distribution import LogNormal
    >>> round(float(LogNormal(0.0, 1.0).mean), 4)
    1.6487
"""

import dygraph
from dygraph.distribution.normal import Normal
from dygraph.distribution.transform_elementwise import ExpTransform
from dygraph.distribution.transformed_distribution import TransformedDistribution

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """The distribution of exp(x), x ~ N(loc, scale^2).

    Args:
        loc (float|Sequence|ndarray|Tensor): the mean of log(x).
        scale (float|Sequence|ndarray|Tensor): the standard deviation of log(x), > 0.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import LogNormal
        >>> d = LogNormal(0.0, 1.0)
        >>> round(float(d.log_prob(dygraph.to_tensor(2.0))), 4)
        -1.8523
        >>> round(float(d.kl_divergence(LogNormal(1.0, 1.0))), 4)
        0.5
    """

    def __init__(self, loc, scale):
        self._base = Normal(loc=loc, scale=scale)
        self.loc = self._base.loc
        self.scale = self._base.scale
        super().__init__(self._base, [ExpTransform()])

    @property
    def mean(self):
        """exp(loc + scale^2 / 2)."""
        return dygraph.exp(self._base.mean + self._base.variance / 2)

    @property
    def variance(self):
        """(exp(scale^2) - 1) exp(2 loc + scale^2)."""
        return (dygraph.expm1(self._base.variance)
                * dygraph.exp(2 * self._base.mean + self._base.variance))

    def entropy(self):
        """The entropy of the normal plus loc."""
        return self._base.entropy() + self._base.mean

    def probs(self, value):
        """The density at `value`."""
        return dygraph.exp(self.log_prob(value))

    def kl_divergence(self, other):
        """KL(self || other): that of the underlying normals."""
        return self._base.kl_divergence(other._base)
