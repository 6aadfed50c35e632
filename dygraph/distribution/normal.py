"""The normal (Gaussian) distribution N(loc, scale^2), real or complex.

A complex `loc` gives the circularly-symmetric complex normal: real and imaginary parts
independent, each with variance scale^2 / 2.

Example:
    >>> import dygraph
    >>> from dygraph.distribution import Normal
    >>> d = Normal(0.0, 2.0)
    >>> round(float(d.log_prob(dygraph.to_tensor(1.0))), 4)
    -1.7371
"""

import math

import numpy as np

import dygraph
from dygraph.distribution.distribution import Distribution, check_shape, standard_normal

__all__ = ["Normal"]

_LOG_SQRT_2PI = math.log(math.sqrt(2.0 * math.pi))


class Normal(Distribution):
    """The normal distribution with mean `loc` and standard deviation `scale`.

    Args:
        loc (float|complex|Sequence|ndarray|Tensor): the mean (complex for a complex normal).
        scale (float|Sequence|ndarray|Tensor): the standard deviation, > 0.
        name (str|None): a name for the distribution.

    Python numbers and lists become float32 Tensors (float64 NumPy arrays keep float64);
    mixing Tensors with numbers raises ValueError. The batch shape is that of `loc`.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import Normal
        >>> p, q = Normal(0.0, 1.0), Normal(1.0, 2.0)
        >>> round(float(p.entropy()), 4), round(float(p.kl_divergence(q)), 4)
        (1.4189, 0.4431)
        >>> x = Normal(dygraph.zeros([3]), dygraph.ones([3])).rsample([5])
        >>> x.shape
        [5, 3]
    """

    def __init__(self, loc, scale, name=None):
        self.name = name if name is not None else "Normal"
        self.all_arg_is_float = False
        self.dtype = "float32"
        self._complex_gaussian = False
        if isinstance(loc, int):
            loc = float(loc)
        if isinstance(scale, int):
            scale = float(scale)
        if isinstance(loc, (tuple, list)):
            loc = np.array(loc)
            loc = loc.astype({np.dtype("float64"): "float32",
                              np.dtype("complex128"): "complex64"}.get(loc.dtype, loc.dtype))
        if isinstance(scale, (tuple, list)):
            scale = np.array(scale, dtype="float32")
        if _is_complex(loc):
            self._complex_gaussian = True
            self.all_arg_is_float = isinstance(loc, complex) and isinstance(scale, float)
            if not isinstance(loc, dygraph.Tensor):
                loc = np.asarray(loc, dtype=getattr(loc, "dtype", "complex64"))
                loc = dygraph.to_tensor(loc)
            if isinstance(scale, np.ndarray):
                scale = dygraph.to_tensor(scale)
            elif isinstance(scale, float):
                scale = dygraph.to_tensor(scale, dtype="float32")
            self.loc, self.scale = loc, scale
            self.dtype = loc.dtype.name
        elif self._validate_args(loc, scale):
            self.loc, self.scale = loc, scale
            self.dtype = loc.dtype.name
        else:
            self.all_arg_is_float = isinstance(loc, float) and isinstance(scale, float)
            for arg in (loc, scale):
                if isinstance(arg, np.ndarray) and arg.dtype.name in ("float32", "float64"):
                    self.dtype = arg.dtype.name
                    break
            self.loc, self.scale = (t.astype(self.dtype) for t in self._to_tensor(loc, scale))
        super().__init__(self.loc.shape)

    @property
    def mean(self):
        """The mean, `loc`."""
        return self.loc

    @property
    def variance(self):
        """The variance, scale^2."""
        return self.scale.pow(2)

    def _noise(self, shape, seed=0):
        """Standard (complex) normal noise of `shape` in the distribution's dtype."""
        if not self._complex_gaussian:
            return standard_normal(shape, self.dtype, seed)
        real = self.scale.dtype.name
        noise = standard_normal([2, *shape], real, seed) * math.sqrt(0.5)
        return dygraph.complex(noise[0], noise[1])

    def sample(self, shape=(), seed=0):
        """Draw samples of shape `shape + batch_shape`.

        Args:
            shape (Sequence[int]): the sample shape.
            seed (int): non-zero gives the same draws at every call.

        Example:
            >>> from dygraph.distribution import Normal
            >>> Normal(0.0, 1.0).sample([4]).shape
            [4]
        """
        shape = list(check_shape(shape))
        batch_shape = list((self.loc + self.scale).shape)
        return self._noise(shape + batch_shape, seed) * self.scale + self.loc

    def rsample(self, shape=()):
        """Draw reparameterised samples loc + scale * eps, eps ~ N(0, 1).

        Example:
            >>> import dygraph
            >>> from dygraph.distribution import Normal
            >>> loc = dygraph.to_tensor([0.0, 1.0], stop_gradient=False)
            >>> Normal(loc, dygraph.ones([2])).rsample([3]).sum().backward()
            >>> loc.grad.numpy()
            array([3., 3.], dtype=float32)
        """
        shape = self._extend_shape(check_shape(shape))
        return self.loc + self._noise(shape) * self.scale

    def entropy(self):
        """The entropy: 0.5 + 0.5 log(2 pi) + log(scale) (1 + log(pi) + 2 log(scale) if
        complex)."""
        zero = dygraph.zeros((self.loc + self.scale).shape, self.scale.dtype)
        if self._complex_gaussian:
            return 1.0 + zero + (math.log(math.pi) + 2.0 * dygraph.log(self.scale + zero))
        return 0.5 + zero + (0.5 * math.log(2 * math.pi) + dygraph.log(self.scale + zero))

    def log_prob(self, value):
        """The log density at `value` (cast to the distribution's dtype)."""
        value = self._check_values_dtype_in_probs(self.loc, value)
        var = self.scale * self.scale
        diff = value - self.loc
        if self._complex_gaussian:
            return -(diff.conj() * diff) / var - (2.0 * dygraph.log(self.scale)
                                                  + math.log(math.pi))
        return -(diff * diff) / (2.0 * var) - (dygraph.log(self.scale) + _LOG_SQRT_2PI)

    def probs(self, value):
        """The density at `value`."""
        value = self._check_values_dtype_in_probs(self.loc, value)
        var = self.scale * self.scale
        diff = value - self.loc
        if self._complex_gaussian:
            return dygraph.exp(-(diff.conj() * diff) / var) / (math.pi * var)
        return dygraph.exp(-(diff * diff) / (2.0 * var)) / (math.sqrt(2 * math.pi)
                                                          * self.scale)

    def kl_divergence(self, other):
        """KL(self || other) between two normals (both real or both complex)."""
        if self._complex_gaussian != other._complex_gaussian:
            raise ValueError("The kl divergence must be computed between two distributions "
                             "in the same number field.")
        var_ratio = self.scale / other.scale
        var_ratio = var_ratio * var_ratio
        t1 = (self.loc - other.loc) / other.scale
        if self._complex_gaussian:
            return var_ratio + t1.conj() * t1 - 1.0 - dygraph.log(var_ratio)
        return 0.5 * var_ratio + 0.5 * (t1 * t1 - 1.0 - dygraph.log(var_ratio))


def _is_complex(value):
    if isinstance(value, complex):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype.kind == "c"
    return isinstance(value, dygraph.Tensor) and dygraph.is_complex(value)
