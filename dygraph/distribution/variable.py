"""Random variable descriptions used by transforms: discreteness, event rank and constraint.

A transform's `_domain` and `_codomain` are Variables; their `event_rank` says how many
rightmost axes form one event (0 for element-wise transforms, 1 for softmax).

Example:
    >>> from dygraph.distribution import variable
    >>> variable.Independent(variable.real, 2).event_rank
    2
"""

import dygraph
from dygraph.distribution import constraint as _constraint

__all__ = ["Variable", "Real", "Positive", "Independent", "Stack", "real", "positive"]


class Variable:
    """A random variable: discrete or not, its event rank and its constraint.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import constraint
        >>> from dygraph.distribution.variable import Variable
        >>> Variable(False, 0, constraint.positive).constraint(dygraph.to_tensor(-1.0)).item()
        False
    """

    def __init__(self, is_discrete=False, event_rank=0, constraint=None):
        self._is_discrete = is_discrete
        self._event_rank = event_rank
        self._constraint = constraint

    @property
    def is_discrete(self):
        """Whether the variable takes discrete values."""
        return self._is_discrete

    @property
    def event_rank(self):
        """The number of rightmost axes that form one event."""
        return self._event_rank

    def constraint(self, value):
        """A bool Tensor: which entries of `value` lie in the support."""
        return self._constraint.check(value)


class Real(Variable):
    """A real variable.

    Example:
        >>> from dygraph.distribution.variable import Real
        >>> Real(1).event_rank, Real().is_discrete
        (1, False)
    """

    def __init__(self, event_rank=0):
        super().__init__(False, event_rank, _constraint.real)


class Positive(Variable):
    """A non-negative variable.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution.variable import positive
        >>> positive.constraint(dygraph.to_tensor([-1.0, 1.0])).numpy()
        array([False,  True])
    """

    def __init__(self, event_rank=0):
        super().__init__(False, event_rank, _constraint.positive)


class Independent(Variable):
    """`base` with its `reinterpreted_batch_rank` rightmost batch axes made event axes.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution.variable import Independent, positive
        >>> Independent(positive, 1).constraint(dygraph.to_tensor([[1.0, -1.0]])).numpy()
        array([False])
    """

    def __init__(self, base, reinterpreted_batch_rank):
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        super().__init__(base.is_discrete, base.event_rank + reinterpreted_batch_rank)

    def constraint(self, value):
        ret = self._base.constraint(value)
        if ret.ndim < self._reinterpreted_batch_rank:
            raise ValueError(f"Input dimensions must be equal or greater than "
                             f"{self._reinterpreted_batch_rank}")
        keep = ret.shape[:ret.ndim - self._reinterpreted_batch_rank]
        return ret.reshape([*keep, -1]).all(-1)


class Stack(Variable):
    """Variables stacked along `axis`.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution.variable import Stack, positive, real
        >>> Stack([real, positive], axis=0).constraint(dygraph.to_tensor([-1.0, -1.0])).numpy()
        array([ True, False])
    """

    def __init__(self, vars, axis=0):  # noqa: A002 - Paddle's argument name
        self._vars = vars
        self._axis = axis
        super().__init__()

    @property
    def is_discrete(self):
        return any(var.is_discrete for var in self._vars)

    @property
    def event_rank(self):
        rank = max(var.event_rank for var in self._vars)
        return rank + 1 if self._axis + rank < 0 else rank

    def constraint(self, value):
        if not -value.ndim <= self._axis < value.ndim:
            raise ValueError(f"Input dimensions {value.ndim} should be greater than stack "
                             f"constraint axis {self._axis}.")
        parts = dygraph.unstack(value, self._axis)
        return dygraph.stack([var.constraint(v) for var, v in zip(self._vars, parts)],
                             self._axis)


real = Real()
positive = Positive()
