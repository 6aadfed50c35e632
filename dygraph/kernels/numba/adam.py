"""Adam's update in one pass, compiled by Numba.

dygraph.optimizer.adam computes an Adam step as a dozen NumPy passes over blocks of the
parameter (its moments, its gradient and a scratch block). Here one loop reads g, m, v and
the parameter and writes m, v and the parameter once, at about memory speed (figures:
docs/PERFORMANCE.md#optimizer-updates).

The arithmetic is the NumPy path's, operation for operation, in the parameter's dtype (the
coefficients are rounded to it first, as NumPy does with a Python float against a float32
array), so the results are the same to the last bit. `error_model="numpy"`: with Numba's
default, each division checks for a zero divisor to raise Python's ZeroDivisionError, and
that branch keeps the loop from being vectorized (slower than NumPy's passes instead of
faster).

Example:
    >>> import numpy as np
    >>> data, m, v = np.ones(2), np.zeros(2), np.zeros(2)
    >>> update(data, np.array([1.0, -1.0]), m, v, 0.1, 0.9, 0.999, 1e-8, 0.9, 0.999)
    >>> data.round(4)
    array([0.9, 1.1])
"""

import math

import numpy as np
from numba import njit

__all__ = ["update", "step"]


@njit(nogil=True, cache=True, error_model="numpy")
def _adam(target, grad, m, v, beta1, one_minus_beta1, beta2, one_minus_beta2, eps, scale,
          subtract):
    """Update m and v; subtract the step from target (the parameter) or write it there.
    (`subtract` is the same for the whole loop, which the compiler hoists out of it.)"""
    for i in range(target.size):
        g = grad[i]
        mi = m[i] * beta1 + g * one_minus_beta1
        vi = v[i] * beta2 + (g * g) * one_minus_beta2
        m[i] = mi
        v[i] = vi
        step_i = (mi / (np.sqrt(vi) + eps)) * scale
        target[i] = target[i] - step_i if subtract else step_i


def _coefficients(dtype, lr, beta1, beta2, epsilon, beta1_pow, beta2_pow):
    """The step's scalars as the NumPy path forms them, rounded to the arrays' dtype."""
    correction = math.sqrt(1.0 - beta2_pow)
    cast = np.dtype(dtype).type
    return (cast(beta1), cast(1.0 - beta1), cast(beta2), cast(1.0 - beta2),
            cast(epsilon * correction), cast(lr * correction / (1.0 - beta1_pow)))


def _flat(*arrays):
    return [a.reshape(-1) for a in arrays]


def update(data, grad, m, v, lr, beta1, beta2, epsilon, beta1_pow, beta2_pow):
    """One Adam step on `data` in place, with its moments m and v (the powers of beta are
    read, not advanced); the arrays as compiled.flat_alike takes them.

    Example:
        >>> import numpy as np
        >>> data, m, v = np.zeros(1), np.zeros(1), np.zeros(1)
        >>> update(data, np.ones(1), m, v, 1.0, 0.5, 0.5, 0.0, 0.5, 0.5); data, m, v
        (array([-1.]), array([0.5]), array([0.5]))
    """
    _adam(*_flat(data, grad, m, v),
          *_coefficients(data.dtype, lr, beta1, beta2, epsilon, beta1_pow, beta2_pow), True)


def step(out, grad, m, v, lr, beta1, beta2, epsilon, beta1_pow, beta2_pow):
    """As `update`, but the step to subtract is written into `out` (the multi-tensor
    update subtracts it parameter by parameter). Returns out.

    Example:
        >>> import numpy as np
        >>> step(np.empty(1), np.ones(1), np.zeros(1), np.zeros(1), 1.0, 0.5, 0.5, 0.0, 0.5,
        ...      0.5)
        array([1.])
    """
    _adam(*_flat(out, grad, m, v),
          *_coefficients(out.dtype, lr, beta1, beta2, epsilon, beta1_pow, beta2_pow), False)
    return out
