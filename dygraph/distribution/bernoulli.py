"""The Bernoulli distribution: 1 with probability `probs`, 0 otherwise.

Example:
    >>> import dygraph
    >>> from dygraph.distribution import Bernoulli
    >>> Bernoulli(dygraph.to_tensor([0.25])).prob(dygraph.to_tensor([1.0])).numpy()
    array([0.25], dtype=float32)
"""

import dygraph
import dygraph.nn.functional as F
from dygraph.distribution.distribution import check_shape, finfo, standard_uniform
from dygraph.distribution.exponential_family import ExponentialFamily

__all__ = ["Bernoulli"]


class Bernoulli(ExponentialFamily):
    """The Bernoulli distribution with success probability `probs`.

    `probs` is clipped into [eps, 1 - eps] of its dtype, and `logits` are its log-odds.

    Args:
        probs (float|Tensor): the probability of 1.
        name (str|None): a name for the distribution.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import Bernoulli
        >>> d = Bernoulli(dygraph.to_tensor([0.5, 0.9]))
        >>> d.entropy().numpy().round(4), d.sample([4]).shape
        (array([0.6931, 0.3251], dtype=float32), [4, 2])
    """

    def __init__(self, probs, name=None):
        self.name = name or "Bernoulli"
        if self._validate_args(probs):
            self.probs = probs
            self.dtype = probs.dtype.name
        else:
            [self.probs] = self._to_tensor(probs)
            self.dtype = dygraph.get_default_dtype()
        eps = float(finfo(self.dtype).eps)
        self.probs = dygraph.clip(self.probs, min=eps, max=1 - eps).astype(self.dtype)
        self.logits = self._probs_to_logits(self.probs, is_binary=True)
        super().__init__(batch_shape=self.probs.shape, event_shape=())

    @property
    def mean(self):
        """probs."""
        return self.probs

    @property
    def variance(self):
        """probs (1 - probs)."""
        return self.probs * (1 - self.probs)

    def sample(self, shape=()):
        """Draw 0/1 samples (in the distribution's dtype) of shape `shape + batch_shape`."""
        shape = self._extend_shape(check_shape(shape))
        with dygraph.no_grad():
            return dygraph.bernoulli(self.probs.expand(list(shape)))

    def rsample(self, shape=(), temperature=1.0):
        """Relaxed (Gumbel-softmax / concrete) samples: the logits
        (logit(u) + logits) / temperature for u ~ U(0, 1); sigmoid of them approaches 0/1
        draws as the temperature falls.

        Example:
            >>> import dygraph
            >>> from dygraph.distribution import Bernoulli
            >>> p = dygraph.to_tensor([0.3], stop_gradient=False)
            >>> Bernoulli(p).rsample([2], temperature=0.5).shape
            [2, 1]
        """
        shape = list(self._extend_shape(check_shape(shape)))
        probs = self.probs.expand(shape)
        u = standard_uniform(shape, self.dtype)
        return ((u.log() - (-u).log1p()) + (probs.log() - (-probs).log1p())) / temperature

    def cdf(self, value):
        """P(X <= value): 0 below 0, 1 - probs on [0, 1), 1 from 1."""
        value = self._check_values_dtype_in_probs(self.probs, value)
        probs, value = dygraph.broadcast_tensors([self.probs, value])
        zeros, ones = dygraph.zeros_like(probs), dygraph.ones_like(probs)
        return dygraph.where(value < 0, zeros, dygraph.where(value < 1, ones - probs, ones))

    def log_prob(self, value):
        """log P(X = value) = -BCE(logits, value)."""
        value = self._check_values_dtype_in_probs(self.probs, value)
        logits, value = dygraph.broadcast_tensors([self.logits, value])
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        """-p log p - (1 - p) log(1 - p)."""
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def kl_divergence(self, other):
        """KL(self || other) between two Bernoulli distributions."""
        a, b = self.logits, other.logits
        pa, one_minus_pa = F.sigmoid(a), F.sigmoid(-a)
        return ((-F.softplus(-a) + F.softplus(-b)) * pa
                + (-F.softplus(a) + F.softplus(b)) * one_minus_pa)

