"""The Gumbel (type I extreme value) distribution: cdf exp(-exp(-(x - loc) / scale)).

Example:
    >>> import dygraph
    >>> from dygraph.distribution import Gumbel
    >>> round(float(Gumbel(0.0, 1.0).mean), 4)  # Euler's constant
    0.5772
"""

import math
import numbers

import numpy as np

import dygraph
from dygraph.distribution.transform_elementwise import AffineTransform, ExpTransform
from dygraph.distribution.transformed_distribution import TransformedDistribution
from dygraph.distribution.uniform import Uniform

__all__ = ["Gumbel"]


class Gumbel(TransformedDistribution):
    """The Gumbel distribution with location `loc` and scale `scale`, drawn as
    loc - scale log(-log(u)) for u from a uniform base distribution.

    Args:
        loc (float|Tensor): the location (mode).
        scale (float|Tensor): the scale, > 0.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import Gumbel
        >>> d = Gumbel(dygraph.to_tensor([0.0, 1.0]), dygraph.to_tensor([1.0, 2.0]))
        >>> d.log_prob(dygraph.to_tensor([0.0, 1.0])).numpy().round(4)
        array([-1.    , -1.6931], dtype=float32)
        >>> d.rsample([3]).shape
        [3, 2]
    """

    def __init__(self, loc, scale):
        for arg, what in ((loc, "loc"), (scale, "scale")):
            if not isinstance(arg, (numbers.Real, dygraph.Tensor)):
                raise TypeError(f"Expected type of {what} is Real|Variable|Value, but got "
                                f"{type(arg)}")
        if isinstance(loc, numbers.Real):
            loc = dygraph.full([], loc, dtype="float32")
        if isinstance(scale, numbers.Real):
            scale = dygraph.full([], scale, dtype="float32")
        if loc.shape != scale.shape:
            self.loc, self.scale = dygraph.broadcast_tensors([loc, scale])
        else:
            self.loc, self.scale = loc, scale
        finfo = np.finfo("float32")
        self.base_dist = Uniform(dygraph.full_like(self.loc, float(finfo.tiny)),
                                 dygraph.full_like(self.loc, float(1 - finfo.eps)))
        self.transforms = ()
        super().__init__(self.base_dist, self.transforms)

    @property
    def mean(self):
        """loc + scale * Euler's constant."""
        return self.loc + self.scale * np.euler_gamma

    @property
    def variance(self):
        """scale^2 pi^2 / 6."""
        return dygraph.pow(self.scale, 2) * dygraph.full(self.loc.shape, math.pi ** 2,
                                                         self.scale.dtype) / 6

    @property
    def stddev(self):
        """The standard deviation."""
        return dygraph.sqrt(self.variance)

    def prob(self, value):
        """exp(z - exp(z)) / scale with z = (loc - x) / scale."""
        z = (self.loc - value.astype(self.loc.dtype)) / self.scale.astype(self.loc.dtype)
        return dygraph.exp(z - dygraph.exp(z)) / self.scale.astype(z.dtype)

    def log_prob(self, value):
        """log(prob(value))."""
        return dygraph.log(self.prob(value))

    def cdf(self, value):
        """exp(-exp(-(x - loc) / scale))."""
        return dygraph.exp(-dygraph.exp(-(value - self.loc.astype(value.dtype))
                                        / self.scale.astype(value.dtype)))

    def entropy(self):
        """log(scale) + 1 + Euler's constant."""
        return dygraph.log(self.scale) + 1 + np.euler_gamma

    def sample(self, shape=()):
        """Draw samples of shape `shape + batch_shape` (no gradient)."""
        with dygraph.no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        """Reparameterised samples loc - scale log(-log(u))."""
        exp = ExpTransform()
        negate = AffineTransform(dygraph.zeros(self.scale.shape, self.loc.dtype),
                                 -dygraph.ones_like(self.scale))
        to_gumbel = AffineTransform(self.loc, -self.scale)
        return to_gumbel.forward(exp.inverse(negate.forward(exp.inverse(
            self._base.sample(shape)))))
