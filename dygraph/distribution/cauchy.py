"""The Cauchy distribution: density 1 / (pi scale (1 + ((x - loc) / scale)^2)).

It has no mean or variance: those properties raise ValueError.

Example:
    >>> import dygraph
    >>> from dygraph.distribution import Cauchy
    >>> float(Cauchy(0.0, 1.0).cdf(dygraph.to_tensor(0.0)))
    0.5
"""

import math
import numbers

import dygraph
from dygraph.distribution.distribution import Distribution, check_shape, standard_uniform

__all__ = ["Cauchy"]


class Cauchy(Distribution):
    """The Cauchy distribution with location `loc` and scale `scale`.

    Args:
        loc (float|Tensor): the location (median).
        scale (float|Tensor): the scale (half width at half maximum), > 0.
        name (str|None): a name for the distribution.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import Cauchy
        >>> d = Cauchy(dygraph.to_tensor([0.0]), dygraph.to_tensor([1.0]))
        >>> d.entropy().numpy().round(4), d.rsample([2]).shape
        (array([2.531], dtype=float32), [2, 1])
    """

    def __init__(self, loc, scale, name=None):
        self.name = name if name is not None else "Cauchy"
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
        self.dtype = self.loc.dtype
        super().__init__(batch_shape=self.loc.shape, event_shape=())

    @property
    def mean(self):
        """Undefined: raises ValueError."""
        raise ValueError("Cauchy distribution has no mean.")

    @property
    def variance(self):
        """Undefined: raises ValueError."""
        raise ValueError("Cauchy distribution has no variance.")

    @property
    def stddev(self):
        """Undefined: raises ValueError."""
        raise ValueError("Cauchy distribution has no stddev.")

    def sample(self, shape=(), name=None):
        """Draw samples of shape `shape + batch_shape` (no gradient)."""
        with dygraph.no_grad():
            return self.rsample(shape, name)

    def rsample(self, shape=(), name=None):
        """Reparameterised samples loc + scale tan(pi (u - 1/2)), u ~ U(0, 1)."""
        if not isinstance(shape, (list, tuple)) and not hasattr(shape, "shape"):
            raise TypeError(f"Expected type of shape is Sequence[int], but got {type(shape)}")
        shape = list(self._extend_shape(check_shape(shape)))
        u = standard_uniform(shape, self.dtype)
        return self.loc.expand(shape) + self.scale.expand(shape) * dygraph.tan(
            math.pi * (u - 0.5))

    def _check_value(self, value):
        if not isinstance(value, dygraph.Tensor):
            raise TypeError(f"Expected type of value is Variable or Value, but got "
                            f"{type(value)}")
        value = self._check_values_dtype_in_probs(self.loc, value)
        return dygraph.broadcast_tensors([self.loc, self.scale, value])

    def prob(self, value):
        """The density at `value`."""
        return self.log_prob(value).exp()

    def log_prob(self, value):
        """-log(1 + ((x - loc) / scale)^2) - log(pi) - log(scale)."""
        loc, scale, value = self._check_value(value)
        return (-dygraph.square((value - loc) / scale).log1p()
                - (math.log(math.pi) + scale.log()))

    def cdf(self, value):
        """atan((x - loc) / scale) / pi + 1/2."""
        loc, scale, value = self._check_value(value)
        return dygraph.atan((value - loc) / scale) / math.pi + 0.5

    def entropy(self):
        """log(4 pi scale)."""
        return math.log(4 * math.pi) + self.scale.log() + dygraph.zeros(self.loc.shape,
                                                                        self.dtype)

    def kl_divergence(self, other):
        """KL(self || other) = log(((s1 + s2)^2 + (l1 - l2)^2) / (4 s1 s2))."""
        if not isinstance(other, Cauchy):
            raise TypeError(f"Expected type of other is Cauchy, but got {type(other)}")
        t1 = ((self.scale + other.scale).pow(2) + (self.loc - other.loc).pow(2)).log()
        return t1 - (4 * self.scale * other.scale).log()
