"""Transforms: invertible (or not) maps y = f(x) with their log-det-Jacobians, the building
blocks of TransformedDistribution. This module has the base class and the transforms that
combine others (Chain, Independent, Stack) or only reshape (Reshape); the element-wise ones
are in transform_elementwise.py and those onto the simplex in transform_simplex.py.

Each transform has a domain and a codomain (variable.py) whose `event_rank` says how many
rightmost axes one event spans; `forward_log_det_jacobian(x)` has the shape of x less those
axes of the domain.

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
import math
import typing

import dygraph
from dygraph.distribution import variable
from dygraph.distribution.distribution import Distribution, sum_rightmost

__all__ = ["Transform", "ChainTransform", "IndependentTransform", "ReshapeTransform",
           "StackTransform"]


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


class IndependentTransform(Transform):
    """`base` with its `reinterpreted_batch_rank` rightmost batch axes treated as event
    axes: the log-det-Jacobian is summed over them.

    Args:
        base (Transform): the transform.
        reinterpreted_batch_rank (int): how many axes to move into the event (> 0).

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import ExpTransform, IndependentTransform
        >>> t = IndependentTransform(ExpTransform(), 1)
        >>> t.forward_log_det_jacobian(dygraph.to_tensor([[1.0, 2.0], [3.0, 4.0]])).numpy()
        array([3., 7.], dtype=float32)
    """

    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, Transform):
            raise TypeError(f"Expected 'base' is Transform type, but get {type(base)}")
        if reinterpreted_batch_rank <= 0:
            raise ValueError(f"Expected 'reinterpreted_batch_rank' is greater than zero, but "
                             f"got {reinterpreted_batch_rank}")
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        super().__init__()

    def _is_injective(self):
        return self._base._is_injective()

    def _forward(self, x):
        return self._base.forward(x)

    def _inverse(self, y):
        return self._base.inverse(y)

    def _forward_log_det_jacobian(self, x):
        return sum_rightmost(self._base.forward_log_det_jacobian(x),
                             self._reinterpreted_batch_rank)

    def _forward_shape(self, shape):
        return self._base.forward_shape(shape)

    def _inverse_shape(self, shape):
        return self._base.inverse_shape(shape)

    @property
    def _domain(self):
        return variable.Independent(self._base._domain, self._reinterpreted_batch_rank)

    @property
    def _codomain(self):
        return variable.Independent(self._base._codomain, self._reinterpreted_batch_rank)


class ReshapeTransform(Transform):
    """Reshape the event from `in_event_shape` to `out_event_shape` (same size); the
    log-det-Jacobian is 0.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import ReshapeTransform
        >>> t = ReshapeTransform((2, 3), (3, 2))
        >>> t.forward(dygraph.ones([4, 2, 3])).shape, t.forward_shape((4, 2, 3))
        ([4, 3, 2], (4, 3, 2))
    """

    _type = Type.BIJECTION

    def __init__(self, in_event_shape, out_event_shape):
        if not isinstance(in_event_shape, typing.Sequence) or not isinstance(
                out_event_shape, typing.Sequence):
            raise TypeError(f"Expected type of 'in_event_shape' and 'out_event_shape' is "
                            f"Sequence[int], but got 'in_event_shape': {in_event_shape}, "
                            f"'out_event_shape': {out_event_shape}")
        if math.prod(in_event_shape) != math.prod(out_event_shape):
            raise ValueError(f"The numel of 'in_event_shape' should be 'out_event_shape', but "
                             f"got {math.prod(in_event_shape)}!={math.prod(out_event_shape)}")
        self._in_event_shape = tuple(in_event_shape)
        self._out_event_shape = tuple(out_event_shape)
        super().__init__()

    @property
    def in_event_shape(self):
        """The event shape of x."""
        return self._in_event_shape

    @property
    def out_event_shape(self):
        """The event shape of y."""
        return self._out_event_shape

    @property
    def _domain(self):
        return variable.Independent(variable.real, len(self._in_event_shape))

    @property
    def _codomain(self):
        return variable.Independent(variable.real, len(self._out_event_shape))

    def _forward(self, x):
        batch = list(x.shape)[:x.ndim - len(self._in_event_shape)]
        return x.reshape(batch + list(self._out_event_shape))

    def _inverse(self, y):
        batch = list(y.shape)[:y.ndim - len(self._out_event_shape)]
        return y.reshape(batch + list(self._in_event_shape))

    @staticmethod
    def _swap_event(shape, old, new):
        if len(shape) < len(old):
            raise ValueError(f"Expected length of 'shape' is not less than {len(old)}, but "
                             f"got {len(shape)}")
        if tuple(shape[len(shape) - len(old):]) != old:
            raise ValueError(f"Event shape mismatch, expected: {old}, but got "
                             f"{tuple(shape[len(shape) - len(old):])}")
        return tuple(shape[:len(shape) - len(old)]) + new

    def _forward_shape(self, shape):
        return self._swap_event(shape, self._in_event_shape, self._out_event_shape)

    def _inverse_shape(self, shape):
        return self._swap_event(shape, self._out_event_shape, self._in_event_shape)

    def _forward_log_det_jacobian(self, x):
        return dygraph.zeros(list(x.shape)[:x.ndim - len(self._in_event_shape)], x.dtype)


class StackTransform(Transform):
    """Apply `transforms[i]` to slice i of the input along `axis`.

    Args:
        transforms (Sequence[Transform]): one transform per slice.
        axis (int): the axis the slices are taken along.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import ExpTransform, StackTransform, TanhTransform
        >>> t = StackTransform([ExpTransform(), TanhTransform()], axis=1)
        >>> t.forward(dygraph.zeros([2, 2])).numpy()
        array([[1., 0.],
               [1., 0.]], dtype=float32)
    """

    def __init__(self, transforms, axis=0):
        if not transforms or not isinstance(transforms, typing.Sequence):
            raise TypeError(f"Expected 'transforms' is Sequence[Transform], but got "
                            f"{type(transforms)}.")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("Expected all element in transforms is Transform Type.")
        if not isinstance(axis, int):
            raise TypeError(f"Expected 'axis' is int, but got{type(axis)}.")
        self._transforms = transforms
        self._axis = axis
        super().__init__()

    def _is_injective(self):
        return all(t._is_injective() for t in self._transforms)

    @property
    def transforms(self):
        """The transforms, one per slice."""
        return self._transforms

    @property
    def axis(self):
        """The stacking axis."""
        return self._axis

    def _map(self, v, method):
        if not -v.ndim <= self._axis < v.ndim:
            raise ValueError(f"Input dimensions {v.ndim} should be greater than stack "
                             f"transform axis {self._axis}.")
        if v.shape[self._axis] != len(self._transforms):
            raise ValueError(f"Input size along {self._axis} should be equal to the length "
                             f"of transforms.")
        parts = dygraph.unstack(v, self._axis)
        return dygraph.stack([getattr(t, method)(p) for p, t in zip(parts, self._transforms)],
                             self._axis)

    def _forward(self, x):
        return self._map(x, "forward")

    def _inverse(self, y):
        return self._map(y, "inverse")

    def _forward_log_det_jacobian(self, x):
        return self._map(x, "forward_log_det_jacobian")

    @property
    def _domain(self):
        return variable.Stack([t._domain for t in self._transforms], self._axis)

    @property
    def _codomain(self):
        return variable.Stack([t._codomain for t in self._transforms], self._axis)
