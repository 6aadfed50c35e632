"""The transform base class and the composition of transforms (ChainTransform).

A transform maps y = f(x) and knows its log-det-Jacobian. Its domain and codomain
(variable.py) have an `event_rank`: how many rightmost axes one event spans;
`forward_log_det_jacobian(x)` has the shape of x less those axes of the domain. The
transforms themselves are in transform.py (which offers all of them, as Paddle's module
does), transform_elementwise.py and transform_simplex.py.

Example:
    >>> import dygraph
    >>> from dygraph.distribution import ChainTransform, ExpTransform, AffineTransform
    >>> t = ChainTransform([AffineTransform(dygraph.to_tensor(1.0), dygraph.to_tensor(2.0)),
    ...                     ExpTransform()])
    >>> x = dygraph.to_tensor([0.0, 1.0])
    >>> bool(dygraph.allclose(t.inverse(t.forward(x)), x, atol=1e-6))
    True
"""

import enum
import typing

import dygraph
from dygraph.distribution import variable
from dygraph.distribution.distribution import Distribution, sum_rightmost

__all__ = ["Transform", "ChainTransform"]


class Type(enum.Enum):
    """How a transform maps its domain: one to one (bijection, injection), onto, or not."""

    BIJECTION = "bijection"
    INJECTION = "injection"
    SURJECTION = "surjection"
    OTHER = "other"

    @classmethod
    def is_injective(cls, _type):
        """Whether transforms of this type are one to one."""
        return _type in (cls.BIJECTION, cls.INJECTION)


_NO_LDJ = ("Neither _forward_log_det_jacobian nor _inverse_log_det_jacobian is implemented. "
           "One of them is required.")


def _require_tensor(value, what):
    if not isinstance(value, dygraph.Tensor):
        raise TypeError(f"Expected '{what}' is a Tensor or Real, but got {type(value)}.")


class Transform:
    """Base class of transforms y = f(x).

    Subclasses define `_forward`, `_inverse`, and `_forward_log_det_jacobian` or
    `_inverse_log_det_jacobian` (the other follows), and `_forward_shape`/`_inverse_shape`
    when they change shapes. Calling a transform on a Tensor applies it, on a Distribution
    gives the TransformedDistribution, and on a Transform gives their ChainTransform.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import ExpTransform, Normal
        >>> ExpTransform()(dygraph.to_tensor(0.0)).item()
        1.0
        >>> type(ExpTransform()(Normal(0.0, 1.0))).__name__
        'TransformedDistribution'
    """

    _type = Type.INJECTION

    def __init__(self):
        super().__init__()

    @classmethod
    def _is_injective(cls):
        return Type.is_injective(cls._type)

    def __call__(self, input):  # noqa: A002 - Paddle's argument name
        if isinstance(input, Distribution):
            from dygraph.distribution.transformed_distribution import TransformedDistribution

            return TransformedDistribution(input, [self])
        if isinstance(input, Transform):
            return ChainTransform([self, input])
        return self.forward(input)

    def forward(self, x):
        """y = f(x)."""
        _require_tensor(x, "x")
        if x.ndim < self._domain.event_rank:
            raise ValueError(f"The dimensions of x({x.ndim}) should be greater than or equal "
                             f"to {self._domain.event_rank}")
        return self._forward(x)

    def inverse(self, y):
        """x = f^-1(y)."""
        _require_tensor(y, "y")
        if y.ndim < self._codomain.event_rank:
            raise ValueError(f"The dimensions of y({y.ndim}) should be greater than or equal "
                             f"to {self._codomain.event_rank}")
        return self._inverse(y)

    def forward_log_det_jacobian(self, x):
        """log |det df/dx| at x; NotImplementedError for transforms that are not one to
        one."""
        _require_tensor(x, "x")
        if x.ndim < self._domain.event_rank:
            raise ValueError(f"The dimensions of x({x.ndim}) should be greater than or equal "
                             f"to {self._domain.event_rank}")
        if not self._is_injective():
            raise NotImplementedError("forward_log_det_jacobian can't be implemented for "
                                      "non-injective transforms.")
        if hasattr(self, "_forward_log_det_jacobian"):
            return self._forward_log_det_jacobian(x)
        if hasattr(self, "_inverse_log_det_jacobian"):
            return -self._inverse_log_det_jacobian(self.forward(x))
        raise NotImplementedError(_NO_LDJ)

    def inverse_log_det_jacobian(self, y):
        """log |det df^-1/dy| at y."""
        _require_tensor(y, "y")
        if y.ndim < self._codomain.event_rank:
            raise ValueError(f"The dimensions of y({y.ndim}) should be greater than or equal "
                             f"to {self._codomain.event_rank}")
        if hasattr(self, "_inverse_log_det_jacobian"):
            return self._inverse_log_det_jacobian(y)
        if hasattr(self, "_forward_log_det_jacobian"):
            return -self._forward_log_det_jacobian(self._inverse(y))
        raise NotImplementedError(_NO_LDJ)

    def forward_shape(self, shape):
        """The shape of f(x) for x of `shape`."""
        if not isinstance(shape, typing.Sequence):
            raise TypeError(f"Expected shape is Sequence[int] type, but got {type(shape)}.")
        return self._forward_shape(shape)

    def inverse_shape(self, shape):
        """The shape of f^-1(y) for y of `shape`."""
        if not isinstance(shape, typing.Sequence):
            raise TypeError(f"Expected shape is Sequence[int] type, but got {type(shape)}.")
        return self._inverse_shape(shape)

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.real

    def _forward(self, x):
        raise NotImplementedError("Forward not implemented")

    def _inverse(self, y):
        raise NotImplementedError("Inverse not implemented")

    def _forward_shape(self, shape):
        return shape

    def _inverse_shape(self, shape):
        return shape


class ChainTransform(Transform):
    """The composition of `transforms`, applied first to last.

    Args:
        transforms (Sequence[Transform]): the transforms.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import ChainTransform, ExpTransform, AffineTransform
        >>> t = ChainTransform([ExpTransform(),
        ...                     AffineTransform(dygraph.to_tensor(0.0), dygraph.to_tensor(3.0))])
        >>> round(t.forward(dygraph.to_tensor(0.0)).item(), 4)
        3.0
        >>> round(t.forward_log_det_jacobian(dygraph.to_tensor(1.0)).item(), 4)  # 1 + log 3
        2.0986
    """

    def __init__(self, transforms):
        if not isinstance(transforms, typing.Sequence):
            raise TypeError(f"Expected type of 'transforms' is Sequence, but got "
                            f"{type(transforms)}")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("All elements of transforms should be Transform type.")
        self.transforms = transforms
        super().__init__()

    def _is_injective(self):
        return all(t._is_injective() for t in self.transforms)

    def _forward(self, x):
        for t in self.transforms:
            x = t.forward(x)
        return x

    def _inverse(self, y):
        for t in reversed(self.transforms):
            y = t.inverse(y)
        return y

    def _forward_log_det_jacobian(self, x):
        value = 0.0
        event_rank = self._domain.event_rank
        for t in self.transforms:
            value += sum_rightmost(t.forward_log_det_jacobian(x),
                                   event_rank - t._domain.event_rank)
            x = t.forward(x)
            event_rank += t._codomain.event_rank - t._domain.event_rank
        return value

    def _forward_shape(self, shape):
        for t in self.transforms:
            shape = t.forward_shape(shape)
        return shape

    def _inverse_shape(self, shape):
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        return shape

    @property
    def _domain(self):
        domain = self.transforms[0]._domain
        event_rank = self.transforms[-1]._codomain.event_rank
        for t in reversed(self.transforms):
            event_rank -= t._codomain.event_rank - t._domain.event_rank
            event_rank = max(event_rank, t._domain.event_rank)
        return variable.Independent(domain, event_rank - domain.event_rank)

    @property
    def _codomain(self):
        codomain = self.transforms[-1]._codomain
        event_rank = self.transforms[0]._domain.event_rank
        for t in self.transforms:
            event_rank += t._codomain.event_rank - t._domain.event_rank
            event_rank = max(event_rank, t._codomain.event_rank)
        return variable.Independent(codomain, event_rank - codomain.event_rank)
