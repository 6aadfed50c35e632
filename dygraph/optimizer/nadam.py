"""NAdam (Dozat): Adam with Nesterov momentum, Paddle's form and state.

    d = 0.96**t (momentum_decay_pow);  mu_t = beta1 * (1 - 0.5 * d**psi)
    mu_{t+1} = beta1 * (1 - 0.5 * d**psi * 0.96**psi);  P_t = prod_{i<=t} mu_i (mu_product)
    m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g**2
    m_hat = mu_{t+1} m / (1 - P_t mu_{t+1}) + (1 - mu_t) g / (1 - P_t)
    param -= lr * m_hat / (sqrt(v / (1 - beta2**t)) + epsilon)

The accumulators are Paddle's, named and shaped as its state_dict holds them (each the
parameter's shape), so Paddle's NAdam checkpoints load by key. weight_decay is L2 added to
the gradient, as in Paddle.

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

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """NAdam with Paddle's defaults (lr 0.002, momentum_decay 0.004).

    Group options: 'beta1', 'beta2', 'epsilon', 'momentum_decay'. Accumulators, each of
    the parameter's shape as in Paddle: 'momentum_decay_pow' (0.96**t), 'beta2_pow'
    (beta2**t), 'mu_product' (the product of the mu_i), 'moment1', 'moment2'.

    Example:
        >>> import numpy as np
        >>> from dygraph.framework.parameter import Parameter
        >>> w = Parameter(np.array([1.0], np.float32))
        >>> opt = NAdam(parameters=[w])
        >>> (w * -1.0).sum().backward(); opt.step(); w.numpy().round(4)
        array([1.0021], dtype=float32)
    """

    _accumulator_names = ("momentum_decay_pow", "beta2_pow", "mu_product", "moment1",
                          "moment2")
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
        return {"momentum_decay_pow": (1.0, "like"), "beta2_pow": (1.0, "like"),
                "mu_product": (1.0, "like"), "moment1": (0.0, "like"),
                "moment2": (0.0, "like")}

    def _update(self, param, data, grad, lr, group, acc):
        # Element-wise, as Paddle's kernel: the powers are arrays of the parameter's shape,
        # and the options are numbers of the accumulators' dtype.
        xp = get_array_module(data)
        real = acc["moment1"].dtype.type  # the accumulators' dtype (float32 for float16)
        beta1, beta2, psi, eps = (real(float(group[option])) for option in (
            "beta1", "beta2", "momentum_decay", "epsilon"))
        decay_pow, beta2_pow = acc["momentum_decay_pow"], acc["beta2_pow"]
        prod, m, v = acc["mu_product"], acc["moment1"], acc["moment2"]
        decay_pow *= 0.96
        beta2_pow *= beta2
        half = 0.5 * decay_pow ** psi
        mu_t = beta1 * (1.0 - half)
        mu_next = beta1 * (1.0 - half * real(0.96) ** psi)  # mu_{t+1}
        prod *= mu_t
        m *= beta1
        m += (1.0 - beta1) * grad
        v *= beta2
        v += (1.0 - beta2) * grad * grad
        # m_hat = mu_{t+1} m / (1 - P_t mu_{t+1}) + (1 - mu_t) g / (1 - P_t)
        m_hat = mu_next * m
        m_hat /= 1.0 - prod * mu_next
        second = (1.0 - mu_t) * grad
        second /= 1.0 - prod
        m_hat += second
        denom = xp.sqrt(v / (1.0 - beta2_pow))
        denom += eps
        m_hat /= denom
        m_hat *= lr
        data -= m_hat
