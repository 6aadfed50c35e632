"""All of Paddle's transforms (as paddle.distribution.transform offers them): this module
defines those that combine others by axes (Independent, Stack) or only reshape (Reshape),
and re-exports the base class and ChainTransform (transform_base.py), the element-wise
transforms (transform_elementwise.py) and those onto the simplex (transform_simplex.py).

Example:
    >>> import dygraph
    >>> from dygraph.distribution.transform import ExpTransform, IndependentTransform
    >>> t = IndependentTransform(ExpTransform(), 1)
    >>> t.forward_log_det_jacobian(dygraph.to_tensor([[1.0, 2.0]])).numpy()
    array([3.], dtype=float32)
"""

import math
import typing

import dygraph
from dygraph.distribution import variable
from dygraph.distribution.distribution import sum_rightmost
from dygraph.distribution.transform_base import ChainTransform, Transform, Type
from dygraph.distribution.transform_elementwise import (
    AbsTransform,
    AffineTransform,
    ExpTransform,
    PowerTransform,
    SigmoidTransform,
    TanhTransform,
)
from dygraph.distribution.transform_simplex import SoftmaxTransform, StickBreakingTransform

__all__ = ["Transform", "AbsTransform", "AffineTransform", "ChainTransform", "ExpTransform",
           "IndependentTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
           "SoftmaxTransform", "StackTransform", "StickBreakingTransform", "TanhTransform"]


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
