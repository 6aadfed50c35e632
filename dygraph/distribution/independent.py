"""Independent: reinterpret batch axes of a distribution as event axes.

Example:
    >>> import dygraph
    >>> from dygraph.distribution import Independent, Normal
    >>> d = Independent(Normal(dygraph.zeros([2, 3]), dygraph.ones([2, 3])), 1)
    >>> d.batch_shape, d.event_shape, d.log_prob(dygraph.zeros([2, 3])).shape
    ((2,), (3,), [2])
"""

from dygraph.distribution.distribution import Distribution, sum_rightmost

__all__ = ["Independent"]


class Independent(Distribution):
    """`base` with its `reinterpreted_batch_rank` rightmost batch axes moved into the
    event: log_prob and entropy are summed over them.

    Args:
        base (Distribution): the distribution.
        reinterpreted_batch_rank (int): how many batch axes to move, in (0, len(batch)].

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import Independent, Normal
        >>> d = Independent(Normal(dygraph.zeros([3]), dygraph.ones([3])), 1)
        >>> round(float(d.entropy()), 4)  # 3 x 1.4189
        4.2568
    """

    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, Distribution):
            raise TypeError(f"Expected type of 'base' is Distribution, but got {type(base)}")
        if not 0 < reinterpreted_batch_rank <= len(base.batch_shape):
            raise ValueError(f"Expected 0 < reinterpreted_batch_rank <= "
                             f"{len(base.batch_shape)}, but got {reinterpreted_batch_rank}")
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        shape = tuple(base.batch_shape) + tuple(base.event_shape)
        split = len(base.batch_shape) - reinterpreted_batch_rank
        super().__init__(batch_shape=shape[:split], event_shape=shape[split:])

    @property
    def mean(self):
        """The mean of the base distribution."""
        return self._base.mean

    @property
    def variance(self):
        """The variance of the base distribution."""
        return self._base.variance

    def sample(self, shape=()):
        """Samples of the base distribution."""
        return self._base.sample(shape)

    def rsample(self, shape=()):
        """Reparameterised samples of the base distribution."""
        return self._base.rsample(shape)

    def log_prob(self, value):
        """The base log_prob summed over the reinterpreted axes."""
        return sum_rightmost(self._base.log_prob(value), self._reinterpreted_batch_rank)

    def entropy(self):
        """The base entropy summed over the reinterpreted axes."""
        return sum_rightmost(self._base.entropy(), self._reinterpreted_batch_rank)
