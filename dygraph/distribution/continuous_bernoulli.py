"""The continuous Bernoulli distribution on [0, 1]: density C(p) p^x (1 - p)^(1 - x).

Near p = 0.5 the normaliser C(p) and the moments are 0/0 forms, so inside `lims` they use
Taylor expansions around 0.5 instead.

Example:
    >>> import dygraph
    >>> from dygraph.distribution import ContinuousBernoulli
    >>> d = ContinuousBernoulli(dygraph.to_tensor([0.2]))
    >>> d.mean.numpy().round(4)
    array([0.388], dtype=float32)
"""

import dygraph
from dygraph.distribution.distribution import Distribution, check_shape, finfo, standard_uniform

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(Distribution):
    """The continuous Bernoulli distribution with shape parameter `probs` in (0, 1).

    Args:
        probs (float|Tensor): the parameter; a number becomes a Tensor of shape [1].
        lims (tuple[float]): the interval around 0.5 where Taylor expansions are used.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import ContinuousBernoulli
        >>> d = ContinuousBernoulli(dygraph.to_tensor([0.3, 0.5]))
        >>> d.log_prob(dygraph.to_tensor([0.1, 0.1])).numpy().round(4)
        array([0.3092, 0.    ], dtype=float32)
    """

    def __init__(self, probs, lims=(0.499, 0.501)):
        self.dtype = dygraph.get_default_dtype()
        if isinstance(probs, (float, int)):
            probs = dygraph.to_tensor([probs], dtype=self.dtype)
        else:
            self.dtype = probs.dtype.name
        self.lims = dygraph.to_tensor(lims, dtype=self.dtype)
        eps = float(finfo(probs.dtype).eps)
        self.probs = dygraph.clip(probs, min=eps, max=1 - eps)
        super().__init__(self.probs.shape)

    def _outside_lims(self):
        return dygraph.logical_or(self.probs <= self.lims[0], self.probs > self.lims[1])

    def _cut_probs(self):
        """probs outside `lims`, lims[0] inside (keeps the exact formulas finite there)."""
        return dygraph.where(self._outside_lims(), self.probs,
                             self.lims[0] * dygraph.ones_like(self.probs))

    @staticmethod
    def _atanh(value):
        return 0.5 * (dygraph.log1p(value) - dygraph.log1p(-value))

    def _log_constant(self):
        """log C(p), the log normaliser of the density."""
        cut = self._cut_probs()
        below = dygraph.where(cut <= 0.5, cut, dygraph.zeros_like(cut))
        above = dygraph.where(cut >= 0.5, cut, dygraph.ones_like(cut))
        exact = dygraph.log(2.0 * dygraph.abs(self._atanh(1.0 - 2.0 * cut))) - dygraph.where(
            cut <= 0.5, dygraph.log1p(-2.0 * below), dygraph.log(2.0 * above - 1.0))
        x = dygraph.square(self.probs - 0.5)
        taylor = dygraph.log(dygraph.to_tensor(2.0, self.dtype)) + (
            4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return dygraph.where(self._outside_lims(), exact, taylor)

    @property
    def mean(self):
        """The mean."""
        cut = self._cut_probs()
        exact = cut / (2.0 * cut - 1.0) + 1.0 / (2.0 * self._atanh(1.0 - 2.0 * cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * dygraph.square(x)) * x
        return dygraph.where(self._outside_lims(), exact, taylor)

    @property
    def variance(self):
        """The variance."""
        cut = self._cut_probs()
        exact = (cut * (cut - 1.0) / dygraph.square(1.0 - 2.0 * cut)
                 + 1.0 / dygraph.square(dygraph.log1p(-cut) - dygraph.log(cut)))
        x = dygraph.square(self.probs - 0.5)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return dygraph.where(self._outside_lims(), exact, taylor)

    def sample(self, shape=()):
        """Draw samples of shape `shape + batch_shape` (no gradient)."""
        with dygraph.no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        """Reparameterised samples icdf(u), u ~ U(0, 1)."""
        shape = list(check_shape(shape)) + list(self.batch_shape)
        return self.icdf(standard_uniform(shape, self.dtype))

    def log_prob(self, value):
        """log C(p) + x log p + (1 - x) log(1 - p)."""
        value = value.astype(self.dtype)
        eps = float(finfo(self.probs.dtype).eps)
        cross = dygraph.nan_to_num(value * dygraph.log(self.probs)
                                   + (1.0 - value) * dygraph.log(1 - self.probs), neginf=-eps)
        return self._log_constant() + cross

    def prob(self, value):
        """The density at `value`."""
        return dygraph.exp(self.log_prob(value))

    def entropy(self):
        """The entropy (0 at probs = 0.5)."""
        log_p = dygraph.log(self.probs)
        log_q = dygraph.log1p(-self.probs)
        value = -self._log_constant() + self.mean * (log_q - log_p) - log_q
        return dygraph.where(self.probs == 0.5, dygraph.zeros_like(self.probs), value)

    def cdf(self, value):
        """P(X <= value)."""
        value = value.astype(self.dtype)
        cut = self._cut_probs()
        cdfs = (dygraph.pow(cut, value) * dygraph.pow(1.0 - cut, 1.0 - value) + cut - 1.0) / (
            2.0 * cut - 1.0)
        inside = dygraph.where(self._outside_lims(), cdfs, value)
        return dygraph.where(value <= 0.0, dygraph.zeros_like(value),
                             dygraph.where(value >= 1.0, dygraph.ones_like(value), inside))

    def icdf(self, value):
        """The quantile function: the x with cdf(x) = value."""
        value = value.astype(self.dtype)
        cut = self._cut_probs()
        exact = (dygraph.log1p(-cut + value * (2.0 * cut - 1.0)) - dygraph.log1p(-cut)) / (
            dygraph.log(cut) - dygraph.log1p(-cut))
        return dygraph.where(self._outside_lims(), exact, value)

    def kl_divergence(self, other):
        """KL(self || other); both need the same batch shape."""
        if self.batch_shape != other.batch_shape:
            raise ValueError("KL divergence of two Continuous Bernoulli distributions should "
                             "share the same `batch_shape`.")
        log_q = dygraph.log(other.probs)
        log_1_minus_q = dygraph.log1p(-other.probs)
        cross = -(other._log_constant() + self.mean * (log_q - log_1_minus_q) + log_1_minus_q)
        return -self.entropy() + cross
