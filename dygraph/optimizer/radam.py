"""RAdam (Liu et al.): Adam with the variance of the adaptive rate rectified.

    m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g**2
    rho_inf = 2 / (1 - beta2) - 1;  rho_t = rho_inf - 2 t beta2**t / (1 - beta2**t)
    if rho_t > 5:  param -= lr * m / (1 - beta1**t) * r_t * sqrt(1 - beta2**t) / (sqrt(v) + eps)
        with r_t = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))
    else:          param -= lr * m / (1 - beta1**t)

The accumulators are Paddle's, named and shaped as its state_dict holds them (each the
parameter's shape), so Paddle's RAdam checkpoints load by key. weight_decay is L2 added to
the gradient, as in Paddle.

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

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """RAdam with Paddle's defaults.

    Group options: 'beta1', 'beta2', 'epsilon'. Accumulators, each of the parameter's
    shape as in Paddle (so its checkpoints load by key): 'beta1_pow' (beta1**t),
    'beta2_pow' (beta2**t), 'rho' (t beta2**t / (1 - beta2**t), so that
    rho_t = rho_inf - 2 rho), 'moment1', 'moment2'.

    Example:
        >>> import numpy as np
        >>> from dygraph.framework.parameter import Parameter
        >>> w = Parameter(np.array([1.0], np.float32))
        >>> opt = RAdam(0.5, parameters=[w])
        >>> (w * -1.0).sum().backward(); opt.step(); w.numpy().round(4)
        array([1.5], dtype=float32)
    """

    _accumulator_names = ("beta1_pow", "beta2_pow", "rho", "moment1", "moment2")
    _group_options = ("beta1", "beta2", "epsilon")

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        Adam._check_betas(self, beta1, beta2, epsilon)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _accumulator_specs(self, param, group):
        return {"beta1_pow": (1.0, "like"), "beta2_pow": (1.0, "like"),
                "rho": (1.0, "like"), "moment1": (0.0, "like"), "moment2": (0.0, "like")}

    def _update(self, param, data, grad, lr, group, acc):
        if not data.size:
            return
        # The options and rho_t are numbers of the accumulators' dtype, as in Paddle's kernel.
        xp = get_array_module(data)
        real = acc["moment1"].dtype.type  # the accumulators' dtype (float32 for float16)
        beta1, beta2, eps = (real(float(group[option]))
                             for option in ("beta1", "beta2", "epsilon"))
        beta1_pow, beta2_pow, rho = acc["beta1_pow"], acc["beta2_pow"], acc["rho"]
        beta1_pow *= beta1
        beta2_pow *= beta2
        # rho from step t-1 to t: (rho (beta2 - beta2**t) + beta2**t) / (1 - beta2**t)
        rho *= beta2 - beta2_pow
        rho += beta2_pow
        rho /= 1.0 - beta2_pow
        m, v = acc["moment1"], acc["moment2"]
        m *= beta1
        m += (1.0 - beta1) * grad
        v *= beta2
        v += (1.0 - beta2) * grad * grad
        step = m / (1.0 - beta1_pow)
        step *= lr
        rho_inf = 2 / (1 - beta2) - 1
        # Paddle takes rho_t (the same in every element) from the first element.
        rho_t = rho_inf - 2 * real(float(rho.reshape(-1)[0]))
        if rho_t > 5:
            r = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf
                          / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            denom = xp.sqrt(v)
            denom += eps
            step *= xp.sqrt(1.0 - beta2_pow)
            step *= r
            step /= denom
        data -= step
