"""Student's t distribution with `df` degrees of freedom, location `loc` and scale `scale`.

Example:
    >>> import dygraph
    >>> from dygraph.distribution import StudentT
    >>> d = StudentT(df=3.0, loc=0.0, scale=1.0)
    >>> round(float(d.log_prob(dygraph.to_tensor(0.0))), 4)
    -1.0009
"""

import math

import dygraph
from dygraph.distribution.distribution import Distribution, check_shape, standard_normal
from dygraph.distribution.gamma import Gamma

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t distribution.

    Args:
        df (float|Tensor): the degrees of freedom, >= 0 (ValueError otherwise).
        loc (float|Tensor): the location.
        scale (float|Tensor): the scale, >= 0.
        name (str|None): a name for the distribution.

    The arguments are broadcast together; numbers take the first Tensor's dtype.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import StudentT
        >>> d = StudentT(dygraph.to_tensor([1.5, 3.0]), 0.0, 1.0)
        >>> d.variance.numpy(), d.sample([4]).shape
        (array([inf,  3.], dtype=float32), [4, 2])
    """

    def __init__(self, df, loc, scale, name=None):
        self.name = name if name is not None else "StudentT"
        self.df, self.loc, self.scale = self._broadcast_all(df, loc, scale)
        if not bool((self.df >= 0.0).all()):
            raise ValueError("Every element of input parameter `df` should be nonnegative.")
        if not bool((self.scale >= 0.0).all()):
            raise ValueError("Every element of input parameter `scale` should be "
                             "nonnegative.")
        super().__init__(self.df.shape)
        self._chi2 = Gamma(0.5 * self.df, dygraph.full_like(self.df, 0.5))

    @property
    def mean(self):
        """loc where df > 1, nan elsewhere."""
        return dygraph.where(self.df > 1.0, self.loc, dygraph.full_like(self.loc, float("nan")))

    @property
    def variance(self):
        """scale^2 df / (df - 2) where df > 2, inf for 1 < df <= 2, nan elsewhere."""
        df = self.df.detach()
        var = dygraph.where(df > 2.0, self.scale.pow(2) * df / (df - 2),
                            dygraph.full_like(df, float("nan")))
        return dygraph.where(dygraph.logical_and(df <= 2.0, df > 1.0),
                             dygraph.full_like(var, float("inf")), var)

    def sample(self, shape=()):
        """Draw samples loc + scale z / sqrt(chi2 / df) of shape `shape + batch_shape`."""
        shape = check_shape(shape)
        z = standard_normal(self._extend_shape(shape), self.df.dtype)
        chi2 = self._chi2.sample(shape)
        return self.loc + self.scale * (z * dygraph.rsqrt(chi2 / self.df))

    def entropy(self):
        """The entropy."""
        half_df = 0.5 * self.df
        half_df1 = 0.5 * (self.df + 1)
        lbeta = dygraph.lgamma(half_df) + math.lgamma(0.5) - dygraph.lgamma(half_df1)
        return (self.scale.log() + half_df1 * (dygraph.digamma(half_df1)
                                               - dygraph.digamma(half_df))
                + 0.5 * self.df.log() + lbeta)

    def log_prob(self, value):
        """The log density at `value`."""
        value = self._check_values_dtype_in_probs(self.df, value)
        y = (value - self.loc) / self.scale
        log_norm = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
                    + dygraph.lgamma(0.5 * self.df) - dygraph.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * dygraph.log1p(y ** 2.0 / self.df) - log_norm

    def prob(self, value):
        """The density at `value`."""
        return dygraph.exp(self.log_prob(value))
