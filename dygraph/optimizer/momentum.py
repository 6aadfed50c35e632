"""Momentum: SGD with a velocity, optionally Nesterov's form.

Example:
    >>> import numpy as np
    >>> from dygraph.framework.parameter import Parameter
    >>> from dygraph.optimizer import Momentum
    >>> w = Parameter(np.array([1.0], np.float32), name="w")
    >>> opt = Momentum(learning_rate=0.1, momentum=0.9, parameters=[w])
    >>> for _ in range(2):
    ...     (w * 1.0).sum().backward(); opt.step(); opt.clear_grad()
    >>> w.numpy()  # 1 - 0.1 * 1 - 0.1 * (0.9 + 1)
    array([0.71], dtype=float32)
"""

import numpy as np

from dygraph.framework.errors import as_number
from dygraph.optimizer.foreach import ForeachMixin
from dygraph.optimizer.optimizer import Optimizer

__all__ = ["Momentum"]


class Momentum(ForeachMixin, Optimizer):
    """velocity = momentum * velocity + grad;
    param -= lr * velocity, or with `use_nesterov` param -= lr * (grad + momentum * velocity).

    `rescale_grad` multiplies the raw gradient before weight decay is added.
    Group options: 'momentum', 'use_nesterov', 'rescale_grad'. Accumulator: 'velocity'.

    Example:
        >>> import numpy as np
        >>> from dygraph.framework.parameter import Parameter
        >>> w = Parameter(np.array([1.0], np.float32))
        >>> opt = Momentum(0.1, momentum=0.5, parameters=[w], use_nesterov=True)
        >>> (w * 1.0).sum().backward(); opt.step(); w.numpy()  # 1 - 0.1 * (1 + 0.5)
        array([0.85], dtype=float32)
    """

    _accumulator_names = ("velocity",)
    _group_options = ("momentum", "use_nesterov", "rescale_grad")

    def __init__(self, learning_rate=0.001, momentum=0.9, parameters=None, use_nesterov=False,
                 weight_decay=None, grad_clip=None, multi_precision=False, rescale_grad=1.0,
                 name=None, *, parameter_list=None):
        as_number(momentum, "momentum", "Momentum")
        self._momentum = momentum
        self._use_nesterov = bool(use_nesterov)
        self._rescale_grad = rescale_grad
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name,
                         parameter_list=parameter_list)
        self._multi_precision = bool(multi_precision)

    def _accumulator_specs(self, param, group):
        return {"velocity": (0.0, "like")}

    def _prepare_grad(self, grad, group):
        # Before weight decay, as Paddle's fused kernel does: g * rescale + coeff * param.
        rescale = float(group["rescale_grad"])
        return grad if rescale == 1.0 else grad * rescale

    def _update(self, param, data, grad, lr, group, acc):
        mu = float(group["momentum"])
        velocity = acc["velocity"]
        velocity *= mu
        velocity += grad
        if group["use_nesterov"]:
            step = velocity * mu
            step += grad
            step *= lr
        else:
            step = velocity * lr
        data -= step

    def _device_ready(self, group):
        return not self._multi_precision

    def _device_update(self, flat, group, lr):
        """The step of a group in flat GPU buffers (optimizer/device_flat.py): one kernel."""
        from dygraph.kernels.cuda import optimizer_updates

        optimizer_updates.momentum_update(flat.param, flat.grad, flat.acc["velocity"], lr,
                                          float(group["momentum"]), group["use_nesterov"])

    def _foreach_update(self, flat, group, lr):
        grad, step, velocity = flat.grad, flat.step, flat.acc["velocity"]
        mu = float(group["momentum"])
        velocity *= mu
        velocity += grad
        if group["use_nesterov"]:
            np.multiply(velocity, mu, out=step)
            step += grad
            step *= lr
        else:
            np.multiply(velocity, lr, out=step)
