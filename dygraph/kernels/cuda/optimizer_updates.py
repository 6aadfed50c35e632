"""Optimizer updates as one GPU kernel each: Adam's (its moments and the parameter in one
pass) and Momentum's (its velocity and the parameter), used per parameter and over a
group's flat buffers (optimizer/device_flat.py).

Example:
    >>> from dygraph.kernels.cuda.registry import KERNEL_SPECS
    >>> "adam" in KERNEL_SPECS
    True
"""

import math

from dygraph.kernels.cuda.registry import define, kernel

__all__ = ["adam_update", "momentum_update"]

_ADAM = """
m = m * b1 + g * c1;
v = v * b2 + (g * g) * c2;
p -= (m / (sqrt(v) + eps)) * step;
"""

# velocity = mu * velocity + g; param -= lr * velocity, or with Nesterov
# lr * (mu * velocity + g): Momentum._update's operations in its order.
_MOMENTUM = """
v = v * mu + g;
p -= nesterov ? (v * mu + g) * lr : v * lr;
"""

define("adam", "T g, T b1, T c1, T b2, T c2, T eps, T step", "T p, T m, T v", _ADAM)
define("momentum", "T g, T mu, T lr, bool nesterov", "T p, T v", _MOMENTUM)


def adam_update(param, grad, m, v, lr, beta1, beta2, epsilon, beta1_pow, beta2_pow):
    """One Adam step on CuPy arrays in place (param, and the moments m and v), in one
    kernel; beta1_pow and beta2_pow are the powers of the betas before this step (Python
    floats: they live on the host).

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> p, g = cupy.ones(3, cupy.float32), cupy.ones(3, cupy.float32)  # doctest: +SKIP
        >>> m, v = cupy.zeros(3, cupy.float32), cupy.zeros(3, cupy.float32)  # doctest: +SKIP
        >>> adam_update(p, g, m, v, 0.1, 0.9, 0.999, 1e-8, 0.9, 0.999)  # doctest: +SKIP
        >>> p  # the first step moves by the learning rate  # doctest: +SKIP
        array([0.9, 0.9, 0.9], dtype=float32)
    """
    t = param.dtype.type
    correction = math.sqrt(1.0 - beta2_pow)
    run = kernel("adam")
    run(grad, t(beta1), t(1.0 - beta1), t(beta2), t(1.0 - beta2), t(epsilon * correction),
           t(lr * correction / (1.0 - beta1_pow)), param, m, v)


def momentum_update(param, grad, velocity, lr, mu, nesterov):
    """One Momentum step on CuPy arrays in place (param and its velocity), one kernel.

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> p, g, v = cupy.ones(2), cupy.ones(2), cupy.zeros(2)  # doctest: +SKIP
        >>> momentum_update(p, g, v, 0.1, 0.5, True); p  # 1 - 0.1 * (1 + 0.5)  # doctest: +SKIP
        array([0.85, 0.85])
    """
    t = param.dtype.type
    kernel("momentum")(grad, t(mu), t(lr), bool(nesterov), param, velocity)
