"""Constraints: the set a value of a random variable lives in, as an element-wise check.

Example:
    >>> import dygraph
    >>> from dygraph.distribution import constraint
    >>> constraint.positive(dygraph.to_tensor([-1.0, 2.0])).numpy()
    array([False,  True])
"""

import dygraph

__all__ = ["Constraint", "Real", "Range", "Positive", "Simplex", "real", "positive",
           "simplex"]


class Constraint:
    """Base class: calling a constraint on a Tensor gives a bool Tensor of which entries
    satisfy it.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution.constraint import real
        >>> real.check(dygraph.to_tensor([1.0, float('nan')])).numpy()
        array([ True, False])
    """

    def __call__(self, value):
        raise NotImplementedError

    def check(self, value):
        """The same as calling the constraint."""
        return self(value)


class Real(Constraint):
    """The real line (every value but nan).

    Example:
        >>> import dygraph
        >>> from dygraph.distribution.constraint import real
        >>> real(dygraph.to_tensor([1.0, float('nan')])).numpy()
        array([ True, False])
    """

    def __call__(self, value):
        return value == value


class Range(Constraint):
    """The closed interval [lower, upper].

    Example:
        >>> import dygraph
        >>> from dygraph.distribution.constraint import Range
        >>> Range(0.0, 1.0)(dygraph.to_tensor([0.5, 2.0])).numpy()
        array([ True, False])
    """

    def __init__(self, lower, upper):
        self._lower = lower
        self._upper = upper
        super().__init__()

    def __call__(self, value):
        return dygraph.logical_and(self._lower <= value, value <= self._upper)


class Positive(Constraint):
    """The non-negative half line.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution.constraint import positive
        >>> positive(dygraph.to_tensor([0.0, -1.0])).numpy()
        array([ True, False])
    """

    def __call__(self, value):
        return value >= 0.0


class Simplex(Constraint):
    """Vectors (along the last axis) of non-negative entries summing to 1.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution.constraint import simplex
        >>> simplex(dygraph.to_tensor([[0.5, 0.5], [0.5, 0.6]])).numpy()
        array([ True, False])
    """

    def __call__(self, value):
        return dygraph.logical_and(dygraph.all(value >= 0, axis=-1),
                                   (value.sum(-1) - 1).abs() < 1e-6)


real = Real()
positive = Positive()
simplex = Simplex()
