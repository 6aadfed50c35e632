"""Adagrad: per-element rates from the running sum of squared gradients.

    moment += g**2
    param -= lr * g / (sqrt(moment) + epsilon)

Example:
    >>> import numpy as np
    >>> from dygraph.framework.parameter import Parameter
    >>> from dygraph.optimizer import Adagrad
    >>> w = Parameter(np.array([1.0], np.float32), name="w")
    >>> opt = Adagrad(learning_rate=0.1, parameters=[w])
    >>> (w * 2.0).sum().backward(); opt.step(); w.numpy().round(4)
    array([0.9], dtype=float32)
"""

from dygraph.backend import get_array_module
from dygraph.framework.errors import as_number
from dygraph.optimizer.optimizer import Optimizer

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad (Duchi et al.); the accumulator 'moment' starts at
    `initial_accumulator_value`.

    Group options: 'epsilon'. Accumulator: 'moment'.

    Example:
        >>> import numpy as np
        >>> from dygraph.framework.parameter import Parameter
        >>> w = Parameter(np.array([1.0], np.float32))
        >>> opt = Adagrad(0.5, parameters=[w], initial_accumulator_value=12.0)
        >>> (w * 2.0).sum().backward(); opt.step(); w.numpy().round(4)  # 1 - 0.5 * 2 / 4
        array([0.75], dtype=float32)
    """

    _accumulator_names = ("moment",)
    _group_options = ("epsilon",)

    def __init__(self, learning_rate, epsilon=1e-06, parameters=None, weight_decay=None,
                 grad_clip=None, name=None, initial_accumulator_value=0.0, *,
                 parameter_list=None):
        self._epsilon = as_number(epsilon, "epsilon", "Adagrad")
        self._initial_accumulator_value = as_number(
            initial_accumulator_value, "initial_accumulator_value", "Adagrad")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name,
                         parameter_list=parameter_list)

    def _accumulator_specs(self, param, group):
        return {"moment": (self._initial_accumulator_value, "like")}

    def _update(self, param, data, grad, lr, group, acc):
        xp = get_array_module(data)
        moment = acc["moment"]
        tmp = xp.multiply(grad, grad)
        moment += tmp
        xp.sqrt(moment, out=tmp)
        tmp += float(group["epsilon"])
        xp.divide(grad, tmp, out=tmp)
        tmp *= lr
        data -= tmp
