"""The Laplace (double exponential) distribution: density e^(-|x - loc| / scale) / (2 scale).

Example:
    >>> import dygraph
    >>> from dygraph.distribution import Laplace
    >>> round(float(Laplace(0.0, 1.0).log_prob(dygraph.to_tensor(1.0))), 4)
    -1.6931
"""

import numbers

import numpy as np

import dygraph
from dygraph.distribution.distribution import Distribution, check_shape, standard_uniform

__all__ = ["Laplace"]


class Laplace(Distribution):
    """The Laplace distribution with location `loc` and scale `scale`.

    Args:
        loc (float|Tensor): the location (median).
        scale (float|Tensor): the scale, > 0.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import Laplace
        >>> d = Laplace(dygraph.to_tensor([0.0, 1.0]), dygraph.to_tensor([1.0, 2.0]))
        >>> d.variance.numpy().round(4), d.rsample([3]).shape
        (array([2., 8.], dtype=float32), [3, 2])
    """

    def __init__(self, loc, scale):
        for arg, what in ((loc, "loc"), (scale, "scale")):
            if not isinstance(arg, (numbers.Real, dygraph.Tensor)):
                raise TypeError(f"Expected type of {what} is Real|Variable, but got "
                                f"{type(arg)}")
        if isinstance(loc, numbers.Real):
            loc = dygraph.full([], loc, dtype="float32")
        if isinstance(scale, numbers.Real):
            scale = dygraph.full([], scale, dtype="float32")
        if (scale.ndim > 0 or loc.ndim > 0) and loc.dtype == scale.dtype:
            self.loc, self.scale = dygraph.broadcast_tensors([loc, scale])
        else:
            self.loc, self.scale = loc, scale
        super().__init__(self.loc.shape)

    @property
    def mean(self):
        """loc."""
        return self.loc

    @property
    def stddev(self):
        """sqrt(2) scale."""
        return 2 ** 0.5 * self.scale

    @property
    def variance(self):
        """2 scale^2."""
        return self.stddev.pow(2)

    def _validate_value(self, value):
        if isinstance(value, numbers.Real):
            value = dygraph.full([], value, dtype="float32")
        if value.dtype != self.scale.dtype:
            value = value.astype(self.scale.dtype)
        if self.scale.ndim > 0 or self.loc.ndim > 0 or value.ndim > 0:
            return dygraph.broadcast_tensors([self.loc, self.scale, value])
        return self.loc, self.scale, value

    def log_prob(self, value):
        """-log(2 scale) - |x - loc| / scale."""
        loc, scale, value = self._validate_value(value)
        return -dygraph.log(2 * scale) - dygraph.abs(value - loc) / scale

    def entropy(self):
        """1 + log(2 scale)."""
        return 1 + dygraph.log(2 * self.scale)

    def cdf(self, value):
        """P(X <= value)."""
        loc, scale, value = self._validate_value(value)
        return 0.5 - 0.5 * (value - loc).sign() * dygraph.expm1(-(value - loc).abs() / scale)

    def icdf(self, value):
        """The quantile function."""
        loc, scale, value = self._validate_value(value)
        term = value - 0.5
        return loc - scale * term.sign() * dygraph.log1p(-2 * term.abs())

    def sample(self, shape=()):
        """Draw samples of shape `shape + batch_shape` (no gradient)."""
        with dygraph.no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        """Reparameterised samples loc - scale sign(u) log(1 - |u|), u ~ U(-1, 1)."""
        eps = float(np.finfo(self.loc.dtype.name).eps)
        shape = self._extend_shape(check_shape(shape))
        u = standard_uniform(shape, self.loc.dtype, low=float(np.nextafter(-1, 1)) + eps / 2,
                             high=1.0 - eps / 2)
        return self.loc - self.scale * u.sign() * dygraph.log1p(-u.abs())

    def kl_divergence(self, other):
        """KL(self || other) between two Laplace distributions."""
        t = dygraph.abs(self.loc - other.loc)
        term1 = (self.scale * dygraph.exp(-t / self.scale) + t) / other.scale
        return term1 + dygraph.log(other.scale / self.scale) - 1
