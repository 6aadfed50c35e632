"""ASGD as Paddle defines it: stochastic average gradient (Schmidt et al.) over a window of
`batch_num` stored gradients.

    i = m % n;  d = d - y[i] + g;  y[i] = g;  param -= lr * d / min(m + 1, n)

weight_decay is L2 added to the gradient, as in Paddle.

Example:
    >>> import numpy as np
    >>> from dygraph.framework.parameter import Parameter
    >>> from dygraph.optimizer import ASGD
    >>> w = Parameter(np.array([1.0], np.float32))
    >>> opt = ASGD(learning_rate=0.1, batch_num=2, parameters=[w])
    >>> (w * 2.0).sum().backward(); opt.step(); w.numpy().round(4)
    array([0.8], dtype=float32)
"""

import numpy as np

from dygraph.backend import get_array_module
from dygraph.framework.errors import op_error
from dygraph.optimizer.optimizer import Optimizer

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """ASGD; accumulators 'd' (the window sum), 'y' ([batch_num, *shape], the stored
    gradients) and 'm' (the step count, int64 [1]), as Paddle's state_dict holds them.

    Example:
        >>> import numpy as np
        >>> from dygraph.framework.parameter import Parameter
        >>> w = Parameter(np.array([1.0], np.float32))
        >>> opt = ASGD(0.5, batch_num=2, parameters=[w])
        >>> for g in (2.0, 4.0):
        ...     (w * g).sum().backward(); opt.step(); opt.clear_grad()
        >>> w.numpy()  # 1 - 0.5 * 2 - 0.5 * (2 + 4) / 2
        array([-1.5], dtype=float32)
    """

    _accumulator_names = ("d", "y", "m")

    def __init__(self, learning_rate=0.001, batch_num=1, parameters=None, weight_decay=None,
                 grad_clip=None, multi_precision=False, name=None):
        if isinstance(batch_num, bool) or not isinstance(batch_num, int) or batch_num < 1:
            raise op_error("ASGD", f"batch_num must be a positive int, got {batch_num!r}")
        self._batch_num = batch_num
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._multi_precision = bool(multi_precision)

    def _accumulator_specs(self, param, group):
        return {"d": (0.0, "like")}

    def _create_accumulators(self, param):
        acc = super()._create_accumulators(param)
        xp = get_array_module(acc["d"])
        window = xp.zeros((self._batch_num,) + acc["d"].shape, dtype=acc["d"].dtype)
        acc["y"] = self._loaded_or(param, "y", window)
        # the step count: int64 on the host, as Paddle's 'm'
        acc["m"] = self._loaded_or(param, "m", np.zeros((1,), dtype=np.int64))
        return acc

    def _update(self, param, data, grad, lr, group, acc):
        step = int(acc["m"][0])
        d, y = acc["d"], acc["y"][step % self._batch_num]
        d -= y
        d += grad
        y[...] = grad
        data -= (lr / min(step + 1, self._batch_num)) * d
        acc["m"] += 1
