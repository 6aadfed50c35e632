"""Element-wise transforms (event rank 0): Abs, Affine, Exp, Power, Sigmoid and Tanh.

Example:
    >>> import dygraph
    >>> from dygraph.distribution import SigmoidTransform
    >>> t = SigmoidTransform()
    >>> t.forward(dygraph.to_tensor(0.0)).item(), t.inverse(dygraph.to_tensor(0.5)).item()
    (0.5, 0.0)
"""

import math

import dygraph
import dygraph.nn.functional as F
from dygraph.distribution import constraint, variable
from dygraph.distribution.transform_base import Transform, Type

__all__ = ["AbsTransform", "AffineTransform", "ExpTransform", "PowerTransform",
           "SigmoidTransform", "TanhTransform"]


def _check_tensor(value, what):
    if not isinstance(value, dygraph.Tensor):
        raise TypeError(f"Expected '{what}' is a Tensor, but got {type(value)}")


class AbsTransform(Transform):
    """y = |x|. Not one to one: `inverse` returns both pre-images (-y, y), and the inverse
    log-det-Jacobian is (0, 0).

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import AbsTransform
        >>> neg, pos = AbsTransform().inverse(dygraph.to_tensor([2.0]))
        >>> neg.numpy(), pos.numpy()
        (array([-2.], dtype=float32), array([2.], dtype=float32))
    """

    _type = Type.SURJECTION

    def _forward(self, x):
        return x.abs()

    def _inverse(self, y):
        return -y, y

    def _inverse_log_det_jacobian(self, y):
        zero = dygraph.zeros([], y.dtype)
        return zero, zero

    @property
    def _codomain(self):
        return variable.positive


class AffineTransform(Transform):
    """y = loc + scale * x.

    Args:
        loc (Tensor): the shift.
        scale (Tensor): the scale (non-zero).

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import AffineTransform
        >>> t = AffineTransform(dygraph.to_tensor(1.0), dygraph.to_tensor(-2.0))
        >>> t.forward(dygraph.to_tensor([0.0, 1.0])).numpy()
        array([ 1., -1.], dtype=float32)
        >>> round(t.forward_log_det_jacobian(dygraph.to_tensor(3.0)).item(), 4)
        0.6931
    """

    _type = Type.BIJECTION

    def __init__(self, loc, scale):
        _check_tensor(loc, "loc")
        _check_tensor(scale, "scale")
        self._loc = loc
        self._scale = scale
        super().__init__()

    @property
    def loc(self):
        """The shift."""
        return self._loc

    @property
    def scale(self):
        """The scale."""
        return self._scale

    def _forward(self, x):
        return self._loc + self._scale * x

    def _inverse(self, y):
        return (y - self._loc) / self._scale

    def _forward_log_det_jacobian(self, x):
        return self._scale.abs().log()

    def _forward_shape(self, shape):
        return tuple(dygraph.broadcast_shape(
            dygraph.broadcast_shape(list(shape), self._loc.shape), self._scale.shape))

    _inverse_shape = _forward_shape


class ExpTransform(Transform):
    """y = exp(x).

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import ExpTransform
        >>> ExpTransform().inverse(dygraph.to_tensor([1.0])).numpy()
        array([0.], dtype=float32)
    """

    _type = Type.BIJECTION

    @property
    def _codomain(self):
        return variable.positive

    def _forward(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def _forward_log_det_jacobian(self, x):
        return x


class PowerTransform(Transform):
    """y = x ** power (for x > 0).

    Args:
        power (Tensor): the exponent.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import PowerTransform
        >>> PowerTransform(dygraph.to_tensor(2.0)).forward(dygraph.to_tensor([3.0])).numpy()
        array([9.], dtype=float32)
    """

    _type = Type.BIJECTION

    def __init__(self, power):
        if not isinstance(power, dygraph.Tensor):
            raise TypeError(f"Expected 'power' is a tensor, but got {type(power)}")
        self._power = power
        super().__init__()

    @property
    def power(self):
        """The exponent."""
        return self._power

    @property
    def _codomain(self):
        return variable.positive

    def _forward(self, x):
        return x.pow(self._power)

    def _inverse(self, y):
        return y.pow(1 / self._power)

    def _forward_log_det_jacobian(self, x):
        return (self._power * x.pow(self._power - 1)).abs().log()

    def _forward_shape(self, shape):
        return tuple(dygraph.broadcast_shape(list(shape), self._power.shape))

    _inverse_shape = _forward_shape


class SigmoidTransform(Transform):
    """y = sigmoid(x) = 1 / (1 + exp(-x)), onto (0, 1).

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import SigmoidTransform
        >>> round(SigmoidTransform().forward_log_det_jacobian(dygraph.to_tensor(0.0)).item(), 4)
        -1.3863
    """

    @property
    def _codomain(self):
        return variable.Variable(False, 0, constraint.Range(0.0, 1.0))

    def _forward(self, x):
        return F.sigmoid(x)

    def _inverse(self, y):
        return y.log() - (-y).log1p()

    def _forward_log_det_jacobian(self, x):
        return -F.softplus(-x) - F.softplus(x)


class TanhTransform(Transform):
    """y = tanh(x), onto (-1, 1).

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import TanhTransform
        >>> round(TanhTransform().inverse(dygraph.to_tensor(0.5)).item(), 4)
        0.5493
    """

    _type = Type.BIJECTION

    @property
    def _codomain(self):
        return variable.Variable(False, 0, constraint.Range(-1.0, 1.0))

    def _forward(self, x):
        return x.tanh()

    def _inverse(self, y):
        return y.atanh()

    def _forward_log_det_jacobian(self, x):
        # log(1 - tanh(x)^2) written with softplus, stable for large |x|
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))
