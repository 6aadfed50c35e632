"""Value and distribution initializers: Constant, Assign, Normal, TruncatedNormal, Uniform.

Example:
    >>> import dygraph
    >>> from dygraph.nn.initializer import Uniform
    >>> _ = dygraph.seed(0)
    >>> w = Uniform(-0.5, 0.5)(dygraph.zeros([1000]))
    >>> bool(w.numpy().min() >= -0.5 and w.numpy().max() < 0.5)
    True
"""

import numpy as np

from dygraph.framework.random import rng
from dygraph.nn.initializer.base import Initializer, draw_normal, draw_uniform
from dygraph.tensor.tensor import Tensor

__all__ = ["Constant", "Assign", "Normal", "TruncatedNormal", "Uniform"]


class Constant(Initializer):
    """Fill with one value.

    Example:
        >>> import dygraph
        >>> Constant(0.5)(dygraph.zeros([2])).numpy()
        array([0.5, 0.5], dtype=float32)
    """

    def __init__(self, value=0.0):
        if isinstance(value, Tensor):
            value = value.item()
        self._value = value

    def _values(self, shape, dtype):
        return np.full(shape, self._value, dtype)


class Assign(Initializer):
    """Copy given values (ndarray, list, tuple, number or Tensor); the shape must match.

    Example:
        >>> import dygraph
        >>> Assign([[1.0, 2.0]])(dygraph.zeros([1, 2])).numpy()
        array([[1., 2.]], dtype=float32)
    """

    def __init__(self, value, name=None):
        if isinstance(value, Tensor):
            value = value.numpy()
        if not isinstance(value, (np.ndarray, list, tuple, int, float, np.number)):
            raise TypeError(f"Assign: value must be an ndarray, list, tuple, number or "
                            f"Tensor, got {type(value).__name__}")
        self._value = np.array(value)

    def _values(self, shape, dtype):
        if self._value.shape != shape:
            raise ValueError(f"Assign: value has shape {list(self._value.shape)} but the "
                             f"parameter has shape {list(shape)}")
        return self._value


class Normal(Initializer):
    """Draw from N(mean, std**2).

    Example:
        >>> import dygraph
        >>> _ = dygraph.seed(1)
        >>> w = Normal(2.0, 0.1)(dygraph.zeros([4000])).numpy()
        >>> bool(abs(w.mean() - 2.0) < 0.01)
        True
    """

    def __init__(self, mean=0.0, std=1.0, name=None):
        if std < 0:
            raise ValueError(f"Normal: std must be >= 0, got {std}")
        self._mean = float(mean)
        self._std = float(std)

    def _values(self, shape, dtype):
        return draw_normal(self._mean, self._std, shape, dtype)


class TruncatedNormal(Initializer):
    """Draw from N(mean, std**2) restricted to [a, b] (values outside are redrawn).

    Like Paddle, keep a <= mean <= b: far outside that range redrawing rarely succeeds, and
    the few values still outside after many rounds are clipped to the bounds.

    Example:
        >>> import dygraph
        >>> _ = dygraph.seed(2)
        >>> w = TruncatedNormal(0.0, 1.0)(dygraph.zeros([1000])).numpy()
        >>> bool(w.min() >= -2.0 and w.max() <= 2.0)
        True
    """

    _MAX_ROUNDS = 100

    def __init__(self, mean=0.0, std=1.0, a=-2.0, b=2.0, name=None):
        if std < 0:
            raise ValueError(f"TruncatedNormal: std must be >= 0, got {std}")
        if a > b:
            raise ValueError(f"TruncatedNormal: lower bound a={a} is above upper bound b={b}")
        self._mean = float(mean)
        self._std = float(std)
        self._a = float(a)
        self._b = float(b)

    def _values(self, shape, dtype):
        gen = rng()
        values = gen.normal(self._mean, self._std, shape)
        flat = values.reshape(-1)
        for _ in range(self._MAX_ROUNDS):
            bad = np.flatnonzero((flat < self._a) | (flat > self._b))
            if bad.size == 0:
                break
            flat[bad] = gen.normal(self._mean, self._std, bad.size)
        np.clip(flat, self._a, self._b, out=flat)
        return values


class Uniform(Initializer):
    """Draw from U[low, high).

    Example:
        >>> import dygraph
        >>> _ = dygraph.seed(3)
        >>> w = Uniform(2.0, 3.0)(dygraph.zeros([100])).numpy()
        >>> bool(w.min() >= 2.0 and w.max() < 3.0)
        True
    """

    def __init__(self, low=-1.0, high=1.0, name=None):
        if low > high:
            raise ValueError(f"Uniform: low={low} is above high={high}")
        self._low = float(low)
        self._high = float(high)

    def _values(self, shape, dtype):
        return draw_uniform(self._low, self._high, shape, dtype)
