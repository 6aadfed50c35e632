"""Rprop (Riedmiller & Braun): a per-element step size grown by etas[1] while the gradient
keeps its sign and shrunk by etas[0] when it flips (that step is skipped), within
learning_rate_range; the parameter moves by -sign(g) * step. For full-batch training.

Example:
    >>> import numpy as np
    >>> from dygraph.framework.parameter import Parameter
    >>> from dygraph.optimizer import Rprop
    >>> w = Parameter(np.array([1.0], np.float32))
    >>> opt = Rprop(learning_rate=0.1, parameters=[w])
    >>> (w * 5.0).sum().backward(); opt.step(); w.numpy().round(4)
    array([0.9], dtype=float32)
"""

from dygraph.backend import get_array_module
from dygraph.framework.errors import op_error
from dygraph.optimizer.optimizer import Optimizer

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Rprop with Paddle's defaults (learning_rate_range (1e-5, 50), etas (0.5, 1.2)).

    Accumulators, named as in Paddle's state_dict: 'prevs' (the last gradient used) and
    'learning_rates' (the per-element step, starting at the parameter's learning rate).

    Example:
        >>> import numpy as np
        >>> from dygraph.framework.parameter import Parameter
        >>> w = Parameter(np.array([1.0], np.float32))
        >>> opt = Rprop(0.1, parameters=[w])
        >>> for _ in range(2):
        ...     (w * 5.0).sum().backward(); opt.step(); opt.clear_grad()
        >>> w.numpy().round(4)  # 1 - 0.1 - 0.12
        array([0.78], dtype=float32)
    """

    _accumulator_names = ("prevs", "learning_rates")

    def __init__(self, learning_rate=0.001, learning_rate_range=(1e-5, 50), parameters=None,
                 etas=(0.5, 1.2), grad_clip=None, multi_precision=False, name=None):
        low, high = (float(v) for v in learning_rate_range)
        down, up = (float(v) for v in etas)
        if not 0 < low <= high:
            raise op_error("Rprop", f"learning_rate_range must satisfy 0 < min <= max, got "
                           f"{tuple(learning_rate_range)}")
        if not 0 < down < 1 < up:
            raise op_error("Rprop", f"etas must satisfy 0 < etas[0] < 1 < etas[1], got "
                           f"{tuple(etas)}")
        self._range, self._etas = (low, high), (down, up)
        super().__init__(learning_rate, parameters, None, grad_clip, name)
        self._multi_precision = bool(multi_precision)

    def _accumulator_specs(self, param, group):
        rate = self._param_lr(param, self.get_lr() * group["learning_rate"])
        return {"prevs": (0.0, "like"), "learning_rates": (rate, "like")}

    def _update(self, param, data, grad, lr, group, acc):
        xp = get_array_module(data)
        rate, prev = acc["learning_rates"], acc["prevs"]
        prod = prev * grad
        (low, high), (down, up) = self._range, self._etas
        grown = xp.minimum(rate * up, high)
        shrunk = xp.maximum(rate * down, low)
        rate[...] = xp.where(prod > 0, grown, xp.where(prod < 0, shrunk, rate))
        prev[...] = xp.where(prod < 0, 0.0, grad)
        data -= xp.sign(prev) * rate
