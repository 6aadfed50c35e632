"""TransformedDistribution: the distribution of f(x) for x from a base distribution.

Example:
    >>> import dygraph
    >>> from dygraph.distribution import ExpTransform, Normal, TransformedDistribution
    >>> d = TransformedDistribution(Normal(0.0, 1.0), [ExpTransform()])  # log-normal
    >>> round(float(d.log_prob(dygraph.to_tensor(1.0))), 4)
    -0.9189
"""

import typing

from dygraph.distribution.distribution import Distribution, sum_rightmost
from dygraph.distribution.independent import Independent
from dygraph.distribution.transform_base import ChainTransform, Transform

__all__ = ["TransformedDistribution"]


class TransformedDistribution(Distribution):
    """The distribution of y = t_n(...t_1(x)) for x ~ `base`.

    log_prob(y) = base.log_prob(x) - sum of the forward log-det-Jacobians along the way.

    Args:
        base (Distribution): the base distribution.
        transforms (Sequence[Transform]): the transforms, applied first to last.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import (AffineTransform, Normal,
        ...                                   TransformedDistribution)
        >>> t = AffineTransform(dygraph.to_tensor(1.0), dygraph.to_tensor(2.0))
        >>> d = TransformedDistribution(Normal(0.0, 1.0), [t])  # N(1, 4)
        >>> round(float(d.log_prob(dygraph.to_tensor(1.0))), 4)
        -1.6121
    """

    def __init__(self, base, transforms):
        if not isinstance(base, Distribution):
            raise TypeError(f"Expected type of 'base' is Distribution, but got {type(base)}.")
        if not isinstance(transforms, typing.Sequence):
            raise TypeError(f"Expected type of 'transforms' is Sequence[Transform] or Chain, "
                            f"but got {type(transforms)}.")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("All element of transforms must be Transform type.")
        self._base = base
        self._transforms = transforms
        if not transforms:
            super().__init__(base.batch_shape, base.event_shape)
            return
        chain = ChainTransform(transforms)
        base_shape = tuple(base.batch_shape) + tuple(base.event_shape)
        if len(base_shape) < chain._domain.event_rank:
            raise ValueError(f"'base' needs to have shape with size at least "
                             f"{chain._domain.event_rank}, but got {len(base_shape)}.")
        if chain._domain.event_rank > len(base.event_shape):
            base = Independent(base, chain._domain.event_rank - len(base.event_shape))
        shape = chain.forward_shape(tuple(base.batch_shape) + tuple(base.event_shape))
        event_rank = chain._codomain.event_rank + max(
            len(base.event_shape) - chain._domain.event_rank, 0)
        super().__init__(shape[:len(shape) - event_rank], shape[len(shape) - event_rank:])

    def sample(self, shape=()):
        """Transformed samples of the base distribution."""
        x = self._base.sample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def rsample(self, shape=()):
        """Transformed reparameterised samples of the base distribution."""
        x = self._base.rsample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def log_prob(self, value):
        """The log density of `value`, by the change of variables formula."""
        log_prob = 0.0
        y = value
        event_rank = len(self.event_shape)
        for t in reversed(self._transforms):
            x = t.inverse(y)
            event_rank += t._domain.event_rank - t._codomain.event_rank
            log_prob = log_prob - sum_rightmost(t.forward_log_det_jacobian(x),
                                                event_rank - t._domain.event_rank)
            y = x
        return log_prob + sum_rightmost(self._base.log_prob(y),
                                        event_rank - len(self._base.event_shape))
