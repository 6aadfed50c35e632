"""Adadelta: rates from the ratio of running averages of squared updates and gradients.

    E[g^2] = rho * E[g^2] + (1 - rho) * g**2
    update = -sqrt((E[dx^2] + epsilon) / (E[g^2] + epsilon)) * g
    E[dx^2] = rho * E[dx^2] + (1 - rho) * update**2
    param += lr * update

Example:
    >>> import numpy as np
    >>> from dygraph.framework.parameter import Parameter
    >>> from dygraph.optimizer import Adadelta
    >>> w = Parameter(np.array([1.0], np.float32), name="w")
    >>> opt = Adadelta(learning_rate=1.0, epsilon=0.01, rho=0.0, parameters=[w])
    >>> (w * 1.0).sum().backward(); opt.step(); w.numpy().round(5)  # 1 - sqrt(0.01 / 1.01)
    array([0.9005], dtype=float32)
"""

from dygraph.backend import get_array_module
from dygraph.framework.errors import as_number
from dygraph.optimizer.optimizer import Optimizer

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta (Zeiler), scaled by the learning rate as in Paddle 2.5+.

    Group options: 'epsilon', 'rho'. Accumulators: '_avg_squared_grad',
    '_avg_squared_update' (Paddle's names, hence the leading underscore).

    Example:
        >>> import numpy as np
        >>> from dygraph.framework.parameter import Parameter
        >>> w = Parameter(np.array([1.0], np.float32))
        >>> Adadelta(0.001, parameters=[w]).get_lr()
        0.001
    """

    _accumulator_names = ("_avg_squared_grad", "_avg_squared_update")
    _group_options = ("epsilon", "rho")

    def __init__(self, learning_rate=0.001, epsilon=1e-06, rho=0.95, parameters=None,
                 weight_decay=None, grad_clip=None, name=None, *, parameter_list=None):
        self._epsilon = as_number(epsilon, "epsilon", "Adadelta")
        self._rho = as_number(rho, "rho", "Adadelta")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name,
                         parameter_list=parameter_list)

    def _accumulator_specs(self, param, group):
        return {"_avg_squared_grad": (0.0, "like"), "_avg_squared_update": (0.0, "like")}

    def _update(self, param, data, grad, lr, group, acc):
        xp = get_array_module(data)
        rho, eps = float(group["rho"]), float(group["epsilon"])
        avg_grad, avg_update = acc["_avg_squared_grad"], acc["_avg_squared_update"]
        tmp = xp.multiply(grad, grad)
        tmp *= 1.0 - rho
        avg_grad *= rho
        avg_grad += tmp
        # tmp becomes the update: -sqrt((E[dx^2] + eps) / (E[g^2] + eps)) * g
        xp.add(avg_update, eps, out=tmp)
        tmp /= avg_grad + eps
        xp.sqrt(tmp, out=tmp)
        tmp *= grad
        avg_update *= rho
        avg_update += (1.0 - rho) * (tmp * tmp)
        tmp *= lr
        data -= tmp
