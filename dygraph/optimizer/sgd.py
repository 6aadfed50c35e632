"""SGD: plain stochastic gradient descent, param -= lr * grad.

Example:
    >>> import numpy as np
    >>> from dygraph.framework.parameter import Parameter
    >>> from dygraph.optimizer import SGD
    >>> w = Parameter(np.array([1.0, 2.0], np.float32), name="w")
    >>> (w * w).sum().backward()
    >>> SGD(learning_rate=0.1, parameters=[w]).step(); w.numpy()
    array([0.8, 1.6], dtype=float32)
"""

from dygraph.optimizer.optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent: param = param - learning_rate * grad.

    Example:
        >>> import numpy as np
        >>> from dygraph.framework.parameter import Parameter
        >>> w = Parameter(np.array([1.0], np.float32))
        >>> opt = SGD(learning_rate=0.5, parameters=[w], weight_decay=0.1)
        >>> (2 * w).sum().backward(); opt.step(); w.numpy().round(4)  # 1 - 0.5 * (2 + 0.1 * 1)
        array([-0.05], dtype=float32)
    """

    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None,
                 multi_precision=False, name=None, *, parameter_list=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name,
                         parameter_list=parameter_list)
        self._multi_precision = bool(multi_precision)

    def _update(self, param, data, grad, lr, group, acc):
        step = grad * lr
        data -= step
