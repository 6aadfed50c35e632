"""The base class of all distributions, with the argument handling they share.

A distribution has a `batch_shape` (independent, differently parameterised copies) and an
`event_shape` (the shape of one draw: () for scalar distributions, [k] for a k-vector).
`sample(shape)` returns draws of shape `shape + batch_shape + event_shape`; `rsample` does
the same through the parameters (reparameterised), so gradients flow into them.

Example:
    >>> import dygraph
    >>> from dygraph.distribution import Normal
    >>> d = Normal(dygraph.zeros([3]), dygraph.ones([3]))
    >>> d.batch_shape, d.event_shape, d.sample([2]).shape
    ((3,), (), [2, 3])
"""

import warnings
from collections.abc import Iterable

import numpy as np

import dygraph

__all__ = ["Distribution"]


class Distribution:
    """The abstract base class for probability distributions.

    Subclasses define the methods they support; the others raise NotImplementedError.

    Args:
        batch_shape (Sequence[int]): the shape of the batch of distributions.
        event_shape (Sequence[int]): the shape of one draw.

    Example:
        >>> from dygraph.distribution import Distribution
        >>> d = Distribution(batch_shape=[2], event_shape=[3])
        >>> d.batch_shape, d.event_shape
        ((2,), (3,))
    """

    def __init__(self, batch_shape=(), event_shape=()):
        self._batch_shape = tuple(batch_shape)
        self._event_shape = tuple(event_shape)
        super().__init__()

    @property
    def batch_shape(self):
        """The batch shape, a tuple."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The event shape, a tuple."""
        return self._event_shape

    @property
    def mean(self):
        """The mean of the distribution."""
        raise NotImplementedError

    @property
    def variance(self):
        """The variance of the distribution."""
        raise NotImplementedError

    def sample(self, shape=()):
        """Draw samples of shape `shape + batch_shape + event_shape` (no gradient)."""
        raise NotImplementedError

    def rsample(self, shape=()):
        """Draw reparameterised samples, differentiable with respect to the parameters."""
        raise NotImplementedError

    def entropy(self):
        """The entropy, of shape batch_shape."""
        raise NotImplementedError

    def kl_divergence(self, other):
        """The KL divergence KL(self || other)."""
        raise NotImplementedError

    def prob(self, value):
        """The probability density (or mass) at `value`: exp(log_prob(value))."""
        return self.log_prob(value).exp()

    def log_prob(self, value):
        """The log probability density (or mass) at `value`."""
        raise NotImplementedError

    def probs(self, value):
        """The probability density at `value` (an older name of `prob`)."""
        raise NotImplementedError

    # -- helpers shared by the subclasses --------------------------------------------------
    def _extend_shape(self, sample_shape):
        """sample_shape + batch_shape + event_shape, as a tuple."""
        return tuple(sample_shape) + self._batch_shape + self._event_shape

    def _validate_args(self, *args):
        """True when the arguments are Tensors; ValueError when Tensors and numbers mix."""
        tensors = [isinstance(arg, dygraph.Tensor) for arg in args]
        if any(tensors) and not all(tensors):
            raise ValueError("if one argument is Tensor, all arguments should be Tensor")
        return any(tensors)

    def _to_tensor(self, *args):
        """Numbers, sequences and arrays as float32 Tensors broadcast to one shape."""
        arrays = []
        for arg in args:
            if not isinstance(arg, (float, list, tuple, np.ndarray, dygraph.Tensor)):
                raise TypeError(f"Type of input args must be float, list, tuple, "
                                f"numpy.ndarray or Tensor, but received type {type(arg)}")
            array = np.asarray(arg)
            if array.dtype not in (np.float32, np.float64):
                warnings.warn("data type of argument only support float32 and float64, your "
                              "argument will be convert to float32.", stacklevel=3)
            arrays.append(array.astype("float32"))
        return tuple(dygraph.to_tensor(a) for a in np.broadcast_arrays(*arrays))

    def _check_values_dtype_in_probs(self, param, value):
        """`value` cast to the dtype of `param` (with a warning when they differ)."""
        if dygraph.is_complex(param):
            return value.astype(param.dtype)
        if value.dtype != param.dtype and value.dtype.name in ("float32", "float64"):
            warnings.warn("dtype of input 'value' needs to be the same as parameters of "
                          "distribution class. dtype of 'value' will be converted.",
                          stacklevel=3)
            return value.astype(param.dtype)
        return value

    def _probs_to_logits(self, probs, is_binary=False):
        """Logits from probabilities: log-odds when binary, the log otherwise."""
        if is_binary:
            return dygraph.log(probs) - dygraph.log1p(-probs)
        return dygraph.log(probs)

    def _logits_to_probs(self, logits, is_binary=False):
        """Probabilities from logits: sigmoid when binary, softmax over the last axis."""
        if is_binary:
            return dygraph.nn.functional.sigmoid(logits)
        return dygraph.nn.functional.softmax(logits, axis=-1)

    def _broadcast_all(self, *args):
        """The arguments broadcast together; numbers take the first Tensor's dtype."""
        for arg in args:
            if not isinstance(arg, (float, list, tuple, np.ndarray, dygraph.Tensor)):
                raise TypeError(f"Type of input args must be float, list, tuple, "
                                f"numpy.ndarray or Tensor, but received type {type(arg)}")
        dtype = next((a.dtype for a in args if isinstance(a, dygraph.Tensor)),
                     dygraph.get_default_dtype())
        tensors = [a if isinstance(a, dygraph.Tensor) else dygraph.to_tensor(a, dtype=dtype)
                   for a in args]
        return tuple(dygraph.broadcast_tensors(tensors))


def check_shape(shape):
    """`shape` as a tuple; TypeError when it is not a sequence of ints.

    Example:
        >>> from dygraph.distribution.distribution import check_shape
        >>> check_shape([2, 3])
        (2, 3)
    """
    if not isinstance(shape, Iterable):
        raise TypeError("sample shape must be Iterable object.")
    return tuple(int(s) for s in shape)


def sum_rightmost(value, n):
    """`value` summed over its last `n` axes (unchanged when n is 0).

    Example:
        >>> import dygraph
        >>> from dygraph.distribution.distribution import sum_rightmost
        >>> sum_rightmost(dygraph.ones([2, 3, 4]), 2).numpy()
        array([12., 12.], dtype=float32)
    """
    return value.sum(list(range(-n, 0))) if n > 0 else value


def finfo(dtype):
    """NumPy's float info of a Tensor dtype (eps, tiny).

    Example:
        >>> import dygraph
        >>> from dygraph.distribution.distribution import finfo
        >>> float(finfo(dygraph.float32).eps)
        1.1920928955078125e-07
    """
    return np.finfo(dtype.name if hasattr(dtype, "name") else str(dtype))


def _seeded(seed, draw):
    """draw() under dygraph.seed(seed) when seed is non-zero, leaving the global generator
    as it was (Paddle's `seed=` argument: the same draws at every call); else draw()."""
    if not seed:
        return draw()
    state = dygraph.get_rng_state()
    try:
        dygraph.seed(seed)
        return draw()
    finally:
        dygraph.set_rng_state(state)


def standard_normal(shape, dtype, seed=0):
    """N(0, 1) draws of `shape` and `dtype` from dygraph's generator.

    Example:
        >>> from dygraph.distribution.distribution import standard_normal
        >>> standard_normal([2, 3], "float64").dtype
        dygraph.float64
    """
    return _seeded(seed, lambda: dygraph.standard_normal(list(shape), dtype=dtype))


def standard_uniform(shape, dtype, low=0.0, high=1.0, seed=0):
    """U(low, high) draws of `shape` and `dtype` from dygraph's generator.

    Example:
        >>> from dygraph.distribution.distribution import standard_uniform
        >>> float(standard_uniform([100], "float32").max()) < 1.0
        True
    """
    return dygraph.uniform(list(shape), dtype=dtype, min=low, max=high, seed=seed)
