"""RMSProp: rates from a running average of squared gradients, with optional momentum and
centering (Paddle puts epsilon inside the square root).

    ms = rho * ms + (1 - rho) * g**2
    centered: mg = rho * mg + (1 - rho) * g;  denom = sqrt(ms - mg**2 + epsilon)
    otherwise: denom = sqrt(ms + epsilon)
    mom = momentum * mom + lr * g / denom;  param -= mom

Example:
    >>> import numpy as np
    >>> from dygraph.framework.parameter import Parameter
    >>> from dygraph.optimizer import RMSProp
    >>> w = Parameter(np.array([1.0], np.float32), name="w")
    >>> opt = RMSProp(learning_rate=0.1, rho=0.0, epsilon=0.0, parameters=[w])
    >>> (w * 3.0).sum().backward(); opt.step(); w.numpy()
    array([0.9], dtype=float32)
"""

from dygraph.backend import get_array_module
from dygraph.framework.errors import as_number, op_error
from dygraph.optimizer.optimizer import Optimizer

__all__ = ["RMSProp"]


class RMSProp(Optimizer):
    """RMSProp (Hinton), Paddle's variant.

    Group options: 'rho', 'epsilon', 'momentum', 'centered'. Accumulators: 'momentum',
    'mean_square', 'mean_grad'.

    Example:
        >>> import numpy as np
        >>> from dygraph.framework.parameter import Parameter
        >>> w = Parameter(np.array([1.0], np.float32))
        >>> opt = RMSProp(0.1, rho=0.5, epsilon=0.0, parameters=[w])
        >>> (w * 2.0).sum().backward(); opt.step(); w.numpy()  # 1 - 0.1 * 2 / sqrt(2)
        array([0.8585786], dtype=float32)
    """

    _accumulator_names = ("momentum", "mean_square", "mean_grad")
    _group_options = ("rho", "epsilon", "momentum", "centered")

    def __init__(self, learning_rate, rho=0.95, epsilon=1e-06, momentum=0.0, centered=False,
                 parameters=None, weight_decay=None, grad_clip=None, name=None, *,
                 parameter_list=None):
        for what, value in (("rho", rho), ("epsilon", epsilon), ("momentum", momentum)):
            if as_number(value, what, "RMSProp") < 0:
                raise op_error("RMSProp", f"{what} must be >= 0, got {float(value)}")
        self._rho = rho
        self._epsilon = epsilon
        self._momentum = momentum
        self._centered = bool(centered)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name,
                         parameter_list=parameter_list)

    def _accumulator_specs(self, param, group):
        return {"momentum": (0.0, "like"), "mean_square": (0.0, "like"),
                "mean_grad": (0.0, "like")}

    def _update(self, param, data, grad, lr, group, acc):
        xp = get_array_module(data)
        rho, eps = float(group["rho"]), float(group["epsilon"])
        mom, mean_square = acc["momentum"], acc["mean_square"]
        tmp = xp.multiply(grad, grad)
        tmp *= 1.0 - rho
        mean_square *= rho
        mean_square += tmp
        if group["centered"]:
            mean_grad = acc["mean_grad"]
            mean_grad *= rho
            mean_grad += (1.0 - rho) * grad
            xp.multiply(mean_grad, mean_grad, out=tmp)
            xp.subtract(mean_square, tmp, out=tmp)
        else:
            tmp[...] = mean_square
        tmp += eps
        xp.sqrt(tmp, out=tmp)
        xp.divide(grad, tmp, out=tmp)
        tmp *= lr
        mom *= float(group["momentum"])
        mom += tmp
        data -= mom
