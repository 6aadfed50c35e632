"""RAdam (Liu et al.): Adam with the variance of the adaptive rate rectified.

    m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g**2
    rho_inf = 2 / (1 - beta2) - 1;  rho_t = rho_inf - 2 t beta2**t / (1 - beta2**t)
    if rho_t > 5:  param -= lr * m / (1 - beta1**t) * r_t * sqrt(1 - beta2**t) / (sqrt(v) + eps)
        with r_t = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))
    else:          param -= lr * m / (1 - beta1**t)

weight_decay is L2 added to the gradient, as in Paddle.

Example:
    >>> import numpy as np
    >>> from dygraph.framework.parameter import Parameter
    >>> from dygraph.optimizer import RAdam
    >>> w = Parameter(np.array([1.0], np.float32))
    >>> opt = RAdam(learning_rate=0.1, parameters=[w])
    >>> (w * 2.0).sum().backward(); opt.step(); w.numpy().round(4)  # first steps: SGD+momentum
    array([0.8], dtype=float32)
"""

import math

from dygraph.backend import get_array_module
from dygraph.optimizer.adam import Adam
from dygraph.optimizer.optimizer import Optimizer
from dygraph.optimizer.state import _HOST

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """RAdam with Paddle's defaults.

    Group options: 'beta1', 'beta2', 'epsilon'. Accumulators: 'moment1', 'moment2',
    'beta1_pow_acc', 'beta2_pow_acc', 'step'.

    Example:
        >>> import numpy as np
        >>> from dygraph.framework.parameter import Parameter
        >>> w = Parameter(np.array([1.0], np.float32))
        >>> opt = RAdam(0.5, parameters=[w])
        >>> (w * -1.0).sum().backward(); opt.step(); w.numpy().round(4)
        array([1.5], dtype=float32)
    """

    _accumulator_names = ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc", "step")
    _group_options = ("beta1", "beta2", "epsilon")

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        Adam._check_betas(self, beta1, beta2, epsilon)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _accumulator_specs(self, param, group):
        return {"moment1": (0.0, "like"), "moment2": (0.0, "like"),
                "beta1_pow_acc": (1.0, _HOST), "beta2_pow_acc": (1.0, _HOST),
                "step": (0.0, _HOST)}

    def _update(self, param, data, grad, lr, group, acc):
        xp = get_array_module(data)
        beta1, beta2 = float(group["beta1"]), float(group["beta2"])
        acc["step"] += 1.0
        acc["beta1_pow_acc"] *= beta1
        acc["beta2_pow_acc"] *= beta2
        t = float(acc["step"][0])
        b1_pow, b2_pow = float(acc["beta1_pow_acc"][0]), float(acc["beta2_pow_acc"][0])
        m, v = acc["moment1"], acc["moment2"]
        m *= beta1
        m += (1.0 - beta1) * grad
        v *= beta2
        v += (1.0 - beta2) * grad * grad
        step = m * (lr / (1.0 - b1_pow))
        rho_inf = 2.0 / (1.0 - beta2) - 1.0
        rho = rho_inf - 2.0 * t * b2_pow / (1.0 - b2_pow)
        if rho > 5.0:
            r = math.sqrt((rho - 4.0) * (rho - 2.0) * rho_inf
                          / ((rho_inf - 4.0) * (rho_inf - 2.0) * rho))
            denom = xp.sqrt(v)
            denom += float(group["epsilon"])
            step *= r * math.sqrt(1.0 - b2_pow)
            step /= denom
        data -= step
