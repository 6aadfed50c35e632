"""Paddle's torch-style spellings of the arithmetic ops: positive, negative, true_divide,
div, mul, sub (exported with the elementwise family, ops/math/elementwise.py).

Example:
    >>> import dygraph
    >>> dygraph.mul(dygraph.to_tensor([2.0]), 3.0).numpy()
    array([6.], dtype=float32)
"""

import numpy as np

from dygraph.framework.errors import op_error
from dygraph.ops.common import as_tensor, binary_operands, cast
from dygraph.ops.math import arithmetic as _math
from dygraph.ops.unary import core as _unary
from dygraph.tensor.tensor import Tensor

__all__ = ["positive", "negative", "true_divide", "div", "mul", "sub"]


def positive(x, name=None):
    """x itself (+x); bool tensors are refused, as in Paddle.

    Example:
        >>> import dygraph
        >>> dygraph.positive(dygraph.to_tensor([-1.0])).numpy()
        array([-1.], dtype=float32)
    """
    x = as_tensor(x, "positive")
    if x._data.dtype == np.bool_:
        raise op_error("positive", "does not accept bool tensors (got dtype bool)", TypeError)
    return x


def negative(x, name=None):
    """-x (the same as `neg`, except that a bool x is refused with a TypeError, as
    Paddle's negative refuses it).

    Example:
        >>> import dygraph
        >>> dygraph.negative(dygraph.to_tensor([1.0, -2.0])).numpy()
        array([-1.,  2.], dtype=float32)
    """
    if as_tensor(x, "negative")._data.dtype.kind == "b":
        raise op_error("negative", "the - operator is not supported on a bool tensor; use "
                       "logical_not (~x) instead", TypeError)
    return _math.neg(x)


def true_divide(input, other, name=None):  # noqa: A002 - Paddle's argument name
    """x / y as floats (the same as `divide`).

    Example:
        >>> import dygraph
        >>> dygraph.true_divide(dygraph.to_tensor([3]), dygraph.to_tensor([2])).numpy()
        array([1.5], dtype=float32)
    """
    return _math.divide(input, other)


def div(x, y, name=None, rounding_mode=None):
    """x / y; rounding_mode 'trunc' rounds toward zero, 'floor' rounds down (integers stay
    integers for both).

    Example:
        >>> import dygraph
        >>> x, y = dygraph.to_tensor([-7, 7]), dygraph.to_tensor([2, 2])
        >>> dygraph.div(x, y, rounding_mode='trunc').numpy()
        array([-3,  3])
    """
    if rounding_mode is None:
        return _math.divide(x, y)
    if rounding_mode == "floor":
        x, y = binary_operands(x, y, "div")
        if x._data.dtype.kind in "iu":
            return _math.floor_divide(x, y)
        return _unary.floor(_math.divide(x, y))
    if rounding_mode == "trunc":
        x, y = binary_operands(x, y, "div")
        quotient = _unary.trunc(_math.divide(x, y))
        return cast(quotient, x._data.dtype) if x._data.dtype.kind in "iu" else quotient
    raise op_error("div", f"rounding_mode must be None, 'trunc' or 'floor', got "
                   f"{rounding_mode!r}")


def mul(x, y, name=None):
    """x * y (the same as `multiply`).

    Example:
        >>> import dygraph
        >>> dygraph.mul(dygraph.to_tensor([2.0]), dygraph.to_tensor([3.0])).numpy()
        array([6.], dtype=float32)
    """
    return _math.multiply(x, y)


def sub(x, y, name=None, alpha=1):
    """x - alpha * y (the same as `subtract` for alpha=1).

    Example:
        >>> import dygraph
        >>> dygraph.sub(dygraph.to_tensor([1.0]), dygraph.to_tensor([2.0]), alpha=3).numpy()
        array([-5.], dtype=float32)
    """
    if alpha != 1:
        y = _math.multiply(y, alpha) if isinstance(y, Tensor) else y * alpha
    return _math.subtract(x, y)
