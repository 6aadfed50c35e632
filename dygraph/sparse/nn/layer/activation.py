"""Activation layers of sparse tensors: ReLU, ReLU6, LeakyReLU and Softmax, each calling
its dygraph.sparse.nn.functional op.

Example:
    >>> import dygraph
    >>> x = dygraph.sparse.sparse_coo_tensor([[0, 1]], [-2.0, 3.0], [2])
    >>> dygraph.sparse.nn.ReLU()(x).values().numpy().tolist()
    [0.0, 3.0]
"""

from dygraph.nn.layer.activation import _Activation
from dygraph.sparse.nn.functional import activation as F

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "Softmax"]


class ReLU(_Activation):
    """max(0, v) of each stored value.

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_coo_tensor([[0]], [-1.0], [2])
        >>> dygraph.sparse.nn.ReLU()(x).values().numpy().tolist()
        [0.0]
    """

    _op = staticmethod(F.relu)


class ReLU6(_Activation):
    """min(max(0, v), 6) of each stored value.

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_coo_tensor([[0]], [9.0], [2])
        >>> dygraph.sparse.nn.ReLU6()(x).values().numpy().tolist()
        [6.0]
    """

    _op = staticmethod(F.relu6)


class LeakyReLU(_Activation):
    """v for v >= 0, negative_slope * v otherwise, of each stored value.

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_coo_tensor([[0]], [-2.0], [2])
        >>> dygraph.sparse.nn.LeakyReLU(0.5)(x).values().numpy().tolist()
        [-1.0]
    """

    _op = staticmethod(F.leaky_relu)

    def __init__(self, negative_slope=0.01, name=None):
        super().__init__(name, negative_slope=negative_slope)


class Softmax(_Activation):
    """Softmax over the stored entries along `axis` (see functional.softmax).

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_coo_tensor([[0, 0], [0, 2]], [1.0, 1.0], [1, 3])
        >>> dygraph.sparse.nn.Softmax()(x).values().numpy().tolist()
        [0.5, 0.5]
    """

    _op = staticmethod(F.softmax)

    def __init__(self, axis=-1, name=None):
        super().__init__(name, axis=axis)
