"""Transforms from real vectors onto the probability simplex: Softmax and StickBreaking.

Both act on the last axis (event rank 1).

Example:
    >>> import dygraph
    >>> from dygraph.distribution import StickBreakingTransform
    >>> y = StickBreakingTransform().forward(dygraph.zeros([3]))
    >>> y.shape, round(y.sum().item(), 6)
    ([4], 1.0)
"""

import dygraph
import dygraph.nn.functional as F
from dygraph.distribution import constraint, variable
from dygraph.distribution.transform_base import Transform, Type

__all__ = ["SoftmaxTransform", "StickBreakingTransform"]


def _check_not_scalar(shape):
    if len(shape) < 1:
        raise ValueError(f"Expected length of shape is greater than 1, but got {len(shape)}")
    return shape


class SoftmaxTransform(Transform):
    """y = softmax(x) over the last axis. Not one to one (adding a constant to x does not
    change y): `inverse` gives log(y), one of the pre-images, and there is no
    log-det-Jacobian.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import SoftmaxTransform
        >>> SoftmaxTransform().forward(dygraph.to_tensor([0.0, 0.0])).numpy()
        array([0.5, 0.5], dtype=float32)
    """

    _type = Type.OTHER

    @property
    def _domain(self):
        return variable.Independent(variable.real, 1)

    @property
    def _codomain(self):
        return variable.Variable(False, 1, constraint.simplex)

    def _forward(self, x):
        x = (x - x.max(-1, keepdim=True)).exp()
        return x / x.sum(-1, keepdim=True)

    def _inverse(self, y):
        return y.log()

    def _forward_shape(self, shape):
        return _check_not_scalar(shape)

    def _inverse_shape(self, shape):
        return _check_not_scalar(shape)


class StickBreakingTransform(Transform):
    """Map x in R^K to the simplex in R^(K+1) by stick breaking: piece k takes the fraction
    sigmoid(x_k - log(K - k)) of what is left (zeros map to the uniform vector).

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import StickBreakingTransform
        >>> t = StickBreakingTransform()
        >>> t.forward(dygraph.zeros([2])).numpy().round(4)
        array([0.3333, 0.3333, 0.3333], dtype=float32)
        >>> t.inverse(dygraph.to_tensor([0.25, 0.25, 0.5])).shape
        [2]
    """

    _type = Type.BIJECTION

    @staticmethod
    def _log_offset(k, dtype):
        """log([k, k-1, ..., 1]): the shift that sends x = 0 to the uniform vector."""
        return dygraph.log(dygraph.arange(k, 0, -1).astype(dtype))

    def _forward(self, x):
        z = F.sigmoid(x - self._log_offset(x.shape[-1], x.dtype))
        ones = dygraph.ones([*x.shape[:-1], 1], x.dtype)
        left = (1 - z).cumprod(-1)
        return dygraph.concat([z, ones], -1) * dygraph.concat([ones, left], -1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        remaining = 1 - y_crop.cumsum(-1)
        return y_crop.log() - remaining.log() + self._log_offset(y_crop.shape[-1], y.dtype)

    def _forward_log_det_jacobian(self, x):
        y = self.forward(x)
        x = x - self._log_offset(x.shape[-1], x.dtype)
        return (-x + F.log_sigmoid(x) + y[..., :-1].log()).sum(-1)

    def _forward_shape(self, shape):
        if not shape:
            raise ValueError(f"Expected 'shape' is not empty, but got {shape}")
        return (*shape[:-1], shape[-1] + 1)

    def _inverse_shape(self, shape):
        if not shape:
            raise ValueError(f"Expected 'shape' is not empty, but got {shape}")
        return (*shape[:-1], shape[-1] - 1)

    @property
    def _domain(self):
        return variable.Independent(variable.real, 1)

    @property
    def _codomain(self):
        return variable.Variable(False, 1, constraint.simplex)
