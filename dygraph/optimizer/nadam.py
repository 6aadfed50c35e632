"""NAdam (Dozat): Adam with Nesterov momentum, Paddle's form.

    mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))
    m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g**2
    m_hat = mu_{t+1} m / (1 - prod_{i<=t+1} mu_i) + (1 - mu_t) g / (1 - prod_{i<=t} mu_i)
    param -= lr * m_hat / (sqrt(v / (1 - beta2**t)) + epsilon)

weight_decay is L2 added to the gradient, as in Paddle.

Example:
    >>> import numpy as np
    >>> from dygraph.framework.parameter import Parameter
    >>> from dygraph.optimizer import NAdam
    >>> w = Parameter(np.array([1.0], np.float32))
    >>> opt = NAdam(learning_rate=0.1, parameters=[w])
    >>> (w * 2.0).sum().backward(); opt.step(); w.numpy().round(4)
    array([0.8944], dtype=float32)
"""

from dygraph.backend import get_array_module
from dygraph.framework.errors import as_number, op_error
from dygraph.optimizer.adam import Adam
from dygraph.optimizer.optimizer import Optimizer
from dygraph.optimizer.state import _HOST

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """NAdam with Paddle's defaults (lr 0.002, momentum_decay 0.004).

    Group options: 'beta1', 'beta2', 'epsilon', 'momentum_decay'. Accumulators: 'moment1',
    'moment2', 'beta2_pow_acc', 'mu_product', 'step'.

    Example:
        >>> import numpy as np
        >>> from dygraph.framework.parameter import Parameter
        >>> w = Parameter(np.array([1.0], np.float32))
        >>> opt = NAdam(parameters=[w])
        >>> (w * -1.0).sum().backward(); opt.step(); w.numpy().round(4)
        array([1.0021], dtype=float32)
    """

    _accumulator_names = ("moment1", "moment2", "beta2_pow_acc", "mu_product", "step")
    _group_options = ("beta1", "beta2", "epsilon", "momentum_decay")

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, epsilon=1e-08,
                 momentum_decay=0.004, parameters=None, weight_decay=None, grad_clip=None,
                 name=None):
        Adam._check_betas(self, beta1, beta2, epsilon)
        if as_number(momentum_decay, "momentum_decay", "NAdam") < 0:
            raise op_error("NAdam", f"momentum_decay must be >= 0, got {momentum_decay}")
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        self._momentum_decay = momentum_decay
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _accumulator_specs(self, param, group):
        return {"moment1": (0.0, "like"), "moment2": (0.0, "like"),
                "beta2_pow_acc": (1.0, _HOST), "mu_product": (1.0, _HOST),
                "step": (0.0, _HOST)}

    def _update(self, param, data, grad, lr, group, acc):
        xp = get_array_module(data)
        beta1, beta2 = float(group["beta1"]), float(group["beta2"])
        psi, eps = float(group["momentum_decay"]), float(group["epsilon"])
        acc["step"] += 1.0
        t = float(acc["step"][0])
        mu_t = beta1 * (1.0 - 0.5 * 0.96 ** (t * psi))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((t + 1.0) * psi))
        acc["mu_product"] *= mu_t
        acc["beta2_pow_acc"] *= beta2
        prod, b2_pow = float(acc["mu_product"][0]), float(acc["beta2_pow_acc"][0])
        m, v = acc["moment1"], acc["moment2"]
        m *= beta1
        m += (1.0 - beta1) * grad
        v *= beta2
        v += (1.0 - beta2) * grad * grad
        m_hat = m * (mu_next / (1.0 - prod * mu_next)) + grad * ((1.0 - mu_t) / (1.0 - prod))
        denom = xp.sqrt(v / (1.0 - b2_pow))
        denom += eps
        data -= lr * m_hat / denom
