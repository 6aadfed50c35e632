"""The categorical distribution over K classes.

Following Paddle, `logits` plays two parts: sampling, entropy and KL use softmax(logits),
while `probs`/`log_prob` normalise `logits` by its sum (logits / sum(logits)), so they
read `logits` as non-negative class weights. Both agree when `logits` holds probabilities
only up to softmax, so pass weights such as exp(scores) for consistent results.

Example:
    >>> import dygraph
    >>> from dygraph.distribution import Categorical
    >>> d = Categorical(dygraph.to_tensor([1.0, 2.0, 1.0]))
    >>> d.probs(dygraph.to_tensor([1])).numpy()
    array([0.5], dtype=float32)
"""

import math

import numpy as np

import dygraph
import dygraph.nn.functional as F
from dygraph.distribution.distribution import Distribution, check_shape

__all__ = ["Categorical"]


class Categorical(Distribution):
    """The categorical distribution over the last axis of `logits`.

    Args:
        logits (Sequence|ndarray|Tensor): class scores, [..., K].
        name (str|None): a name for the distribution.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import Categorical
        >>> d = Categorical(dygraph.to_tensor([[1.0, 1.0], [1.0, 3.0]]))
        >>> d.sample([5]).shape, d.entropy().numpy().round(4)
        ([5, 2], array([0.6931, 0.3653], dtype=float32))
    """

    def __init__(self, logits, name=None):
        self.name = name if name is not None else "Categorical"
        self.dtype = "float32"
        if self._validate_args(logits):
            self.logits = logits
            self.dtype = logits.dtype.name
        else:
            if isinstance(logits, np.ndarray) and logits.dtype.name in ("float32", "float64"):
                self.dtype = logits.dtype.name
            self.logits = self._to_tensor(logits)[0].astype(self.dtype)
        super().__init__(self.logits.shape[:-1])

    @property
    def _prob(self):
        """logits normalised by their sum: the class probabilities probs() reads."""
        return self.logits / self.logits.sum(-1, keepdim=True)

    def sample(self, shape=()):
        """Draw class indices (int64) of shape `shape + batch_shape` from softmax(logits).

        Example:
            >>> import dygraph
            >>> from dygraph.distribution import Categorical
            >>> Categorical(dygraph.to_tensor([0.0, 50.0])).sample([3]).numpy()
            array([1, 1, 1])
        """
        shape = list(check_shape(shape))
        num_samples = math.prod(shape)
        batch = list(self.logits.shape[:-1])
        logits = self.logits.reshape([math.prod(batch), -1]) if batch else self.logits
        with dygraph.no_grad():
            index = dygraph.multinomial(self._logits_to_probs(logits), num_samples, True)
        # [batch, n] -> [n, batch]: the sample axes come first
        if batch:
            index = index.transpose([1, 0])
        return index.reshape(shape + batch)

    def kl_divergence(self, other):
        """KL(self || other) from the softmax of both logits, with a trailing axis of 1."""
        logits = self.logits - self.logits.max(-1, keepdim=True)
        other_logits = other.logits - other.logits.max(-1, keepdim=True)
        z = logits.exp().sum(-1, keepdim=True)
        other_z = other_logits.exp().sum(-1, keepdim=True)
        prob = logits.exp() / z
        return (prob * (logits - z.log() - other_logits + other_z.log())).sum(-1, keepdim=True)

    def entropy(self):
        """The entropy of softmax(logits), of shape batch_shape."""
        log_prob = F.log_softmax(self.logits, axis=-1)
        return -(log_prob.exp() * log_prob).sum(-1)

    def probs(self, value):
        """logits[value] / sum(logits) for the class indices `value`.

        With a batch of distributions and a 1-D `value`, every distribution is evaluated at
        every index (the result is [..., len(value)]).
        """
        prob = self._prob
        if prob.ndim == 1:
            return dygraph.gather(prob, value.reshape([-1])).reshape(value.shape)
        if value.ndim == 1:
            value = value.reshape([1] * (prob.ndim - 1) + [-1])
        return dygraph.take_along_axis(prob, value, axis=-1)

    def log_prob(self, value):
        """log(probs(value))."""
        return dygraph.log(self.probs(value))
