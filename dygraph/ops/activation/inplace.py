"""In-place activations of dygraph.nn.functional (elu_, hardtanh_, leaky_relu_, softmax_,
thresholded_relu_, tanh_): each runs its activation and writes the result into x.
"""

from dygraph.ops.activation import piecewise as _act
from dygraph.ops.inplace import run_inplace
from dygraph.ops.unary.core import tanh

__all__ = ["elu_", "hardtanh_", "leaky_relu_", "softmax_", "thresholded_relu_", "tanh_"]
NONDIFF = set()


def elu_(x, alpha=1.0, name=None):
    """In-place elu: x becomes elu(x, alpha); returns x.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> t = dygraph.to_tensor([-1.0, 2.0])
        >>> _ = F.elu_(t); t.numpy().round(4)
        array([-0.6321,  2.    ], dtype=float32)
    """
    return run_inplace("elu_", _act.elu, x, alpha)


def hardtanh_(x, min=-1.0, max=1.0, name=None):  # noqa: A002 - Paddle's argument names
    """In-place hardtanh: x is clamped into [min, max]; returns x.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> t = dygraph.to_tensor([-3.0, 0.5])
        >>> _ = F.hardtanh_(t); t.numpy()
        array([-1. ,  0.5], dtype=float32)
    """
    return run_inplace("hardtanh_", _act.hardtanh, x, min, max)


def leaky_relu_(x, negative_slope=0.01, name=None):
    """In-place leaky_relu; returns x.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> t = dygraph.to_tensor([-2.0, 1.0])
        >>> _ = F.leaky_relu_(t, 0.5); t.numpy()
        array([-1.,  1.], dtype=float32)
    """
    return run_inplace("leaky_relu_", _act.leaky_relu, x, negative_slope)


def softmax_(x, axis=-1, dtype=None, name=None):
    """In-place softmax along `axis`; returns x.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> t = dygraph.to_tensor([0.0, 0.0])
        >>> _ = F.softmax_(t); t.numpy()
        array([0.5, 0.5], dtype=float32)
    """
    return run_inplace("softmax_", _act.softmax, x, axis, dtype)


def thresholded_relu_(x, threshold=1.0, value=0.0, name=None):
    """In-place thresholded_relu; returns x.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> t = dygraph.to_tensor([0.5, 2.0])
        >>> _ = F.thresholded_relu_(t); t.numpy()
        array([0., 2.], dtype=float32)
    """
    return run_inplace("thresholded_relu_", _act.thresholded_relu, x, threshold, value)


def tanh_(x, name=None):
    """In-place tanh; returns x.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> t = dygraph.to_tensor([0.0])
        >>> _ = F.tanh_(t); t.numpy()
        array([0.], dtype=float32)
    """
    return run_inplace("tanh_", tanh, x)
