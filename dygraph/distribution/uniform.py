"""The continuous uniform distribution on [low, high).

Example:
    >>> import dygraph
    >>> from dygraph.distribution import Uniform
    >>> Uniform(0.0, 2.0).prob(dygraph.to_tensor([1.0, 3.0])).numpy()
    array([0.5, 0. ], dtype=float32)
"""

import numpy as np

import dygraph
from dygraph.distribution.distribution import Distribution, check_shape, standard_uniform

__all__ = ["Uniform"]


class Uniform(Distribution):
    """The uniform distribution on [low, high).

    Args:
        low (float|Sequence|ndarray|Tensor): the lower bound.
        high (float|Sequence|ndarray|Tensor): the upper bound, > low.
        name (str|None): a name for the distribution.

    Python numbers and lists become float32 Tensors (float64 NumPy arrays keep float64);
    mixing Tensors with numbers raises ValueError. Beyond Paddle's methods it has `mean`,
    `variance`, a reparameterised `rsample` and `kl_divergence`.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import Uniform
        >>> d = Uniform(dygraph.to_tensor([0.0, 1.0]), dygraph.to_tensor([2.0, 5.0]))
        >>> d.sample([3]).shape, d.entropy().numpy().round(4)
        ([3, 2], array([0.6931, 1.3863], dtype=float32))
    """

    def __init__(self, low, high, name=None):
        self.name = name if name is not None else "Uniform"
        self.all_arg_is_float = False
        self.dtype = "float32"
        if isinstance(low, int):
            low = float(low)
        if isinstance(high, int):
            high = float(high)
        if self._validate_args(low, high):
            self.low, self.high = low, high
            self.dtype = low.dtype.name
        else:
            self.all_arg_is_float = isinstance(low, float) and isinstance(high, float)
            for arg in (low, high):
                if isinstance(arg, np.ndarray) and arg.dtype.name in ("float32", "float64"):
                    self.dtype = arg.dtype.name
                    break
            self.low, self.high = (t.astype(self.dtype) for t in self._to_tensor(low, high))
        super().__init__(self.low.shape)

    @property
    def mean(self):
        """(low + high) / 2."""
        return (self.low + self.high) / 2

    @property
    def variance(self):
        """(high - low)^2 / 12."""
        return (self.high - self.low).pow(2) / 12

    def sample(self, shape=(), seed=0):
        """Draw samples of shape `shape + batch_shape`.

        Args:
            shape (Sequence[int]): the sample shape.
            seed (int): non-zero gives the same draws at every call.

        Example:
            >>> from dygraph.distribution import Uniform
            >>> Uniform(0.0, 1.0).sample([4]).shape
            [4]
        """
        shape = list(check_shape(shape)) + list((self.low + self.high).shape)
        unit = standard_uniform(shape, self.dtype, seed=seed)
        return unit * (self.high - self.low) + self.low

    def rsample(self, shape=()):
        """Reparameterised samples low + (high - low) * u, u ~ U(0, 1)."""
        return self.sample(shape)

    def log_prob(self, value):
        """-log(high - low) inside (low, high), -inf outside."""
        value = self._check_values_dtype_in_probs(self.low, value)
        inside = dygraph.logical_and(self.low < value, value < self.high)
        log_density = -dygraph.log(self.high - self.low) + dygraph.zeros_like(value)
        return dygraph.where(inside, log_density, dygraph.full_like(log_density, -np.inf))

    def probs(self, value):
        """1 / (high - low) inside (low, high), 0 outside."""
        value = self._check_values_dtype_in_probs(self.low, value)
        inside = ((self.low < value).astype(value.dtype)
                  * (value < self.high).astype(value.dtype))
        return inside / (self.high - self.low)

    def entropy(self):
        """log(high - low)."""
        return dygraph.log(self.high - self.low)

    def kl_divergence(self, other):
        """KL(self || other): log of the width ratio when other's support covers self's,
        inf otherwise."""
        ratio = dygraph.log((other.high - other.low) / (self.high - self.low))
        covered = dygraph.logical_and(other.low <= self.low, self.high <= other.high)
        return dygraph.where(covered, ratio, dygraph.full_like(ratio, float("inf")))
