"""Helpers shared by the linear-algebra ops (ops/linalg/products.py, ops/linalg/einsum.py,
dygraph.linalg)."""

import numpy as np

from dygraph.backend import get_array_module
from dygraph.framework.errors import op_error
from dygraph.ops.common import float_operand
from dygraph.tensor.tensor import _new_tensor


def xp_of(m, value):
    """The array module (numpy or cupy) that holds `value` in a backward pass.

    Example:
        >>> import numpy as np
        >>> from dygraph.autograd.backward_math import math_for
        >>> g = np.ones(2)
        >>> xp_of(math_for(g, False), g) is np
        True
    """
    data = m.data(value)
    return np if type(data) is np.ndarray else get_array_module(data)


def constant(m, array):
    """`array` as an operand of backward formulas: itself, or a constant Tensor when the
    formula is being recorded (create_graph).

    Example:
        >>> import numpy as np
        >>> from dygraph.autograd.backward_math import TENSOR_MATH
        >>> constant(TENSOR_MATH, np.eye(2)).shape
        [2, 2]
    """
    return _new_tensor(array, None, 0, True) if m.tensor_mode else array


def mT(m, a):
    """Swap the last two axes (the matrix transpose of a batch of matrices).

    Example:
        >>> import numpy as np
        >>> from dygraph.autograd.backward_math import math_for
        >>> a = np.zeros((2, 3, 4))
        >>> mT(math_for(a, False), a).shape
        (2, 4, 3)
    """
    return m.swapaxes(a, -1, -2)


def square_operand(x, op, exc_type=ValueError):
    """A float Tensor of shape [*, M, M], or an `exc_type` error naming the shape.

    Example:
        >>> import dygraph
        >>> square_operand(dygraph.eye(2), 'inv').shape
        [2, 2]
    """
    x = float_operand(x, op)
    shape = x._data.shape
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise op_error(op, f"expected a square matrix or a batch of them, shape [*, M, M], "
                       f"got shape {list(shape)}", exc_type)
    return x


def matrix_operand(x, op):
    """A float Tensor of shape [*, M, N], or a ValueError naming the shape.

    Example:
        >>> import dygraph
        >>> matrix_operand(dygraph.ones([2, 3]), 'svd').shape
        [2, 3]
    """
    x = float_operand(x, op)
    if x._data.ndim < 2:
        raise op_error(op, f"expected a matrix or a batch of them, shape [*, M, N], got shape "
                       f"{list(x._data.shape)}")
    return x
