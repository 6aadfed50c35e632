"""Gradients of the piecewise-linear activations (ReLU, ReLU6), compiled by Numba.

NumPy computes `g * (y > 0)` as two passes, a compare into a bool array and a float-times-
bool multiply, which it runs without SIMD. One compiled loop does both at memory speed
(figures: docs/PERFORMANCE.md#activations-and-element-wise-ops). It multiplies by the mask
as Paddle's kernel does (not a select), so an inf or NaN gradient where the unit is off
still gives NaN. The mask is a float32 0 or 1: in float64 arrays it widens exactly, and in
float32 ones it keeps the product in float32 (a float64 factor halves the speed).

Example:
    >>> import numpy as np
    >>> relu_grad(np.ones(3), np.array([2.0, 0.0, 1.0]), np.empty(3))
    array([1., 0., 1.])
"""

import numpy as np
from numba import njit

__all__ = ["relu_grad", "relu6_grad"]


@njit(nogil=True, cache=True)
def _relu_grad(g, y, out):
    for i in range(out.size):
        out[i] = g[i] * np.float32(y[i] > 0)


@njit(nogil=True, cache=True)
def _relu6_grad(g, x, out):
    for i in range(out.size):
        out[i] = g[i] * np.float32(0 < x[i] < 6)


def _flat(*arrays):
    return [a.reshape(-1) for a in arrays]


def relu_grad(g, y, out):
    """out = g where y > 0, else 0 (the gradient of ReLU from its output y); the arrays
    as compiled.flat_alike takes them. Returns out.

    Example:
        >>> import numpy as np
        >>> relu_grad(np.full(2, 3.0), np.array([0.5, -0.0]), np.empty(2))
        array([3., 0.])
    """
    _relu_grad(*_flat(g, y, out))
    return out


def relu6_grad(g, x, out):
    """out = g where 0 < x < 6, else 0 (the gradient of ReLU6 from its input x). Returns
    out.

    Example:
        >>> import numpy as np
        >>> relu6_grad(np.ones(3), np.array([-1.0, 3.0, 6.0]), np.empty(3))
        array([0., 1., 0.])
    """
    _relu6_grad(*_flat(g, x, out))
    return out
