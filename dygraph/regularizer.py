"""Weight-decay regularizers: L1Decay and L2Decay (`dygraph.regularizer`).

A regularizer adds the gradient of its penalty to a parameter's gradient before the
optimizer update. Give one to an optimizer (`weight_decay=L2Decay(1e-4)`, applied to every
parameter) or to a single parameter through `ParamAttr(regularizer=...)`, which wins over the
optimizer's.

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph.regularizer import L2Decay
    >>> w = dygraph.to_tensor([1.0, -2.0])
    >>> L2Decay(0.1)(w, dygraph.to_tensor([0.5, 0.5])).numpy()
    array([0.6, 0.3], dtype=float32)
"""

from dygraph.framework.errors import op_error

__all__ = ["L1Decay", "L2Decay", "WeightDecayRegularizer"]


class WeightDecayRegularizer:
    """Base class of the weight-decay regularizers; `coeff` is the penalty coefficient.

    Example:
        >>> L1Decay(0.5).coeff
        0.5
    """

    def __init__(self, coeff=0.0):
        if isinstance(coeff, (bool, str, bytes)):
            raise op_error(type(self).__name__, f"coeff must be a number, got "
                           f"{type(coeff).__name__}", TypeError)
        if not isinstance(coeff, (int, float)):
            try:
                coeff = float(coeff)  # a NumPy scalar or a one-element Tensor
            except (TypeError, ValueError):
                raise op_error(type(self).__name__, f"coeff must be a number, got "
                               f"{type(coeff).__name__}", TypeError) from None
        self.coeff = float(coeff)

    def decay_term(self, param_data, xp):
        """The penalty's gradient for the raw parameter array (a new array).

        Example:
            >>> import numpy as np
            >>> L1Decay(0.5).decay_term(np.array([-2.0, 3.0]), np)
            array([-0.5,  0.5])
        """
        raise NotImplementedError

    def apply_to_array(self, param_data, grad_data, xp):
        """grad + d(penalty)/d(param) as a new array; the inputs are left untouched.

        Example:
            >>> import numpy as np
            >>> L2Decay(0.5).apply_to_array(np.array([2.0]), np.array([1.0]), np)
            array([2.])
        """
        term = self.decay_term(param_data, xp)
        if term.dtype != grad_data.dtype:  # float16 weights, float32 gradient
            return grad_data + term
        term += grad_data
        return term

    def __call__(self, param, grad):
        """The regularized gradient of `param` as a new Tensor (Paddle's callable form)."""
        from dygraph.backend import get_array_module
        from dygraph.tensor.tensor import _new_tensor

        data = self.apply_to_array(param._data, grad._data, get_array_module(param._data))
        return _new_tensor(data.astype(grad._data.dtype, copy=False), None, 0, True)

    def __repr__(self):
        return f"{type(self).__name__}, coeff={self.coeff:f}"

    __str__ = __repr__


class L1Decay(WeightDecayRegularizer):
    """L1 weight decay: penalty coeff * sum(|w|), gradient coeff * sign(w).

    Example:
        >>> import dygraph
        >>> L1Decay(0.1)(dygraph.to_tensor([3.0, -1.0]), dygraph.to_tensor([0.0, 0.0])).numpy()
        array([ 0.1, -0.1], dtype=float32)
    """

    def decay_term(self, param_data, xp):
        term = xp.sign(param_data)
        term *= self.coeff
        return term


class L2Decay(WeightDecayRegularizer):
    """L2 weight decay: penalty 0.5 * coeff * sum(w**2), gradient coeff * w.

    Example:
        >>> import dygraph
        >>> L2Decay(0.5)(dygraph.to_tensor([2.0]), dygraph.to_tensor([1.0])).numpy()
        array([2.], dtype=float32)
    """

    def decay_term(self, param_data, xp):
        return param_data * self.coeff
