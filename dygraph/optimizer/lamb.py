"""Lamb: Adam's direction with a layer-wise trust ratio (You et al., for large batches).

    m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g**2
    r = (m / (1 - beta1**t)) / (sqrt(v / (1 - beta2**t)) + epsilon) + wd * param
    param -= lr * (||param|| / ||r||) * r      (ratio 1 when either norm is 0)

Example:
    >>> import numpy as np
    >>> from dygraph.framework.parameter import Parameter
    >>> from dygraph.optimizer import Lamb
    >>> w = Parameter(np.array([3.0, 4.0], np.float32), name="w")
    >>> opt = Lamb(learning_rate=0.1, lamb_weight_decay=0.0, parameters=[w])
    >>> (w * 1.0).sum().backward(); opt.step(); w.numpy()  # a step of lr * ||w||
    array([2.6464467, 3.6464467], dtype=float32)
"""

import math

import numpy as np

from dygraph.backend import get_array_module
from dygraph.framework.errors import as_number, op_error
from dygraph.optimizer.optimizer import Optimizer
from dygraph.optimizer.state import _HOST

__all__ = ["Lamb"]


class Lamb(Optimizer):
    """LAMB. `exclude_from_weight_decay_fn(param)` true drops the decay for that parameter
    and, unless `always_adapt`, its trust ratio too (it then takes plain Adam-like steps).

    Group options: 'beta1', 'beta2', 'epsilon', 'lamb_weight_decay'. Accumulators:
    'moment1', 'moment2', 'beta1_pow_acc', 'beta2_pow_acc'.

    Example:
        >>> import numpy as np
        >>> from dygraph.framework.parameter import Parameter
        >>> w = Parameter(np.ones(2, np.float32))
        >>> Lamb(parameters=[w]).get_lr()
        0.001
    """

    _accumulator_names = ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc")
    _group_options = ("beta1", "beta2", "epsilon", "lamb_weight_decay")

    def __init__(self, learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999,
                 epsilon=1e-06, parameters=None, grad_clip=None,
                 exclude_from_weight_decay_fn=None, multi_precision=False, always_adapt=False,
                 name=None, *, parameter_list=None):
        # Numbers, but of any range: Paddle's Lamb does not check beta1, beta2 or epsilon.
        for what, value in (("beta1", beta1), ("beta2", beta2), ("epsilon", epsilon)):
            as_number(value, what, "Lamb")
        if exclude_from_weight_decay_fn is not None and not callable(
                exclude_from_weight_decay_fn):
            raise op_error("Lamb", "exclude_from_weight_decay_fn must be callable",
                           TypeError)
        self._lamb_weight_decay = as_number(lamb_weight_decay, "lamb_weight_decay", "Lamb")
        self._beta1 = beta1
        self._beta2 = beta2
        self._epsilon = epsilon
        self._exclude_fn = exclude_from_weight_decay_fn
        self._always_adapt = bool(always_adapt)
        super().__init__(learning_rate, parameters, None, grad_clip, name,
                         parameter_list=parameter_list)
        self._multi_precision = bool(multi_precision)

    def _accumulator_specs(self, param, group):
        return {"moment1": (0.0, "like"), "moment2": (0.0, "like"),
                "beta1_pow_acc": (float(group["beta1"]), _HOST),
                "beta2_pow_acc": (float(group["beta2"]), _HOST)}

    def _update(self, param, data, grad, lr, group, acc):
        xp = get_array_module(data)
        beta1, beta2 = float(group["beta1"]), float(group["beta2"])
        m, v = acc["moment1"], acc["moment2"]
        beta1_pow, beta2_pow = acc["beta1_pow_acc"], acc["beta2_pow_acc"]
        excluded = self._exclude_fn is not None and self._exclude_fn(param)
        decay = 0.0 if excluded else float(group["lamb_weight_decay"])
        tmp = xp.multiply(grad, 1.0 - beta1)
        m *= beta1
        m += tmp
        xp.multiply(grad, grad, out=tmp)
        tmp *= 1.0 - beta2
        v *= beta2
        v += tmp
        # r = m_hat / (sqrt(v_hat) + eps) + decay * param, built in tmp
        xp.multiply(v, 1.0 / (1.0 - float(beta2_pow[0])), out=tmp)
        xp.sqrt(tmp, out=tmp)
        tmp += float(group["epsilon"])
        xp.divide(m, tmp, out=tmp)
        tmp *= 1.0 / (1.0 - float(beta1_pow[0]))
        if decay:
            tmp += decay * data
        scale = lr
        if (not excluded or self._always_adapt) and xp is not np:
            # On a GPU the trust ratio stays there (reading the norms would wait for it).
            # (the norms in float64, as the CPU's Python floats)
            param_norm = xp.sqrt(xp.vdot(data.reshape(-1), data.reshape(-1)).real.astype(
                np.float64))
            r_norm = xp.sqrt(xp.vdot(tmp.reshape(-1), tmp.reshape(-1)).real.astype(np.float64))
            ratio = xp.where((param_norm > 0) & (r_norm > 0), param_norm / r_norm, 1.0)
            scale = (lr * ratio).astype(tmp.dtype)
        elif not excluded or self._always_adapt:
            param_norm = math.sqrt(float(xp.vdot(data.reshape(-1), data.reshape(-1)).real))
            r_norm = math.sqrt(float(xp.vdot(tmp.reshape(-1), tmp.reshape(-1)).real))
            if param_norm > 0 and r_norm > 0:
                scale = lr * (param_norm / r_norm)
        tmp *= scale
        data -= tmp
        beta1_pow *= beta1
        beta2_pow *= beta2
