"""Adamax: Adam with the infinity norm in place of the second moment.

    m = beta1 * m + (1 - beta1) * g
    inf_norm = max(beta2 * inf_norm + epsilon, |g|)
    param -= lr / (1 - beta1**t) * m / inf_norm

Example:
    >>> import numpy as np
    >>> from dygraph.framework.parameter import Parameter
    >>> from dygraph.optimizer import Adamax
    >>> w = Parameter(np.array([1.0], np.float32), name="w")
    >>> opt = Adamax(learning_rate=0.1, parameters=[w])
    >>> (w * 2.0).sum().backward(); opt.step(); w.numpy().round(4)
    array([0.9], dtype=float32)
"""

from dygraph.backend import get_array_module
from dygraph.optimizer.adam import Adam
from dygraph.optimizer.optimizer import Optimizer
from dygraph.optimizer.state import _HOST

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Adamax (Kingma & Ba, section 7.1), Paddle's form with epsilon inside the max.

    Group options: 'beta1', 'beta2', 'epsilon'. Accumulators: 'moment', 'inf_norm',
    'beta1_pow_acc'.

    Example:
        >>> import numpy as np
        >>> from dygraph.framework.parameter import Parameter
        >>> w = Parameter(np.array([1.0], np.float32))
        >>> opt = Adamax(0.5, parameters=[w])
        >>> (w * -4.0).sum().backward(); opt.step(); w.numpy().round(4)
        array([1.5], dtype=float32)
    """

    _accumulator_names = ("moment", "inf_norm", "beta1_pow_acc")
    _group_options = ("beta1", "beta2", "epsilon")

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08,
                 parameters=None, weight_decay=None, grad_clip=None, name=None, *,
                 parameter_list=None):
        Adam._check_betas(self, beta1, beta2, epsilon)
        self._beta1 = beta1
        self._beta2 = beta2
        self._epsilon = epsilon
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name,
                         parameter_list=parameter_list)

    def _accumulator_specs(self, param, group):
        return {"moment": (0.0, "like"), "inf_norm": (0.0, "like"),
                "beta1_pow_acc": (float(group["beta1"]), _HOST)}

    def _update(self, param, data, grad, lr, group, acc):
        xp = get_array_module(data)
        beta1, beta2 = float(group["beta1"]), float(group["beta2"])
        moment, inf_norm, beta1_pow = acc["moment"], acc["inf_norm"], acc["beta1_pow_acc"]
        tmp = xp.multiply(grad, 1.0 - beta1)
        moment *= beta1
        moment += tmp
        inf_norm *= beta2
        inf_norm += float(group["epsilon"])
        xp.abs(grad, out=tmp)
        xp.maximum(inf_norm, tmp, out=inf_norm)
        xp.divide(moment, inf_norm, out=tmp)
        tmp *= lr / (1.0 - float(beta1_pow[0]))
        data -= tmp
        beta1_pow *= beta1
