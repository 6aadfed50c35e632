"""Top-level tensor helpers of Paddle 3.x: clone, cast_, is_tensor, is_integer,
is_floating_point, is_empty, check_shape, tolist."""

import numpy as np

from dygraph.framework.errors import op_error
from dygraph.ops.common import as_tensor, cast
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["clone", "cast_", "is_tensor", "is_integer", "is_floating_point", "is_empty",
           "check_shape", "tolist"]


def clone(x, name=None):
    """A copy of x that stays in the graph (gradients flow back to x).

    Example:
        >>> import dygraph
        >>> dygraph.clone(dygraph.to_tensor([1.0])).tolist()
        [1.0]
    """
    return as_tensor(x, "clone").clone()


def tolist(x):
    """The values of Tensor x as nested Python lists of Python numbers (a 0-D tensor gives
    one number), as `x.tolist()`.

    Example:
        >>> import dygraph
        >>> dygraph.tolist(dygraph.to_tensor([[1, 2], [3, 4]]))
        [[1, 2], [3, 4]]
    """
    if not isinstance(x, Tensor):
        # Paddle reads x.numpy(), so anything but a Tensor fails with an AttributeError
        raise AttributeError(f"tolist: expected a Tensor, got {type(x).__name__}")
    return x.tolist()


def cast_(x, dtype):
    """Convert x to `dtype` in place; returns x.

    Example:
        >>> import dygraph
        >>> dygraph.cast_(dygraph.to_tensor([1.5]), 'int32').dtype
        dygraph.int32
    """
    out = cast(x, dtype)
    x._bump_version("cast_")
    x._data, x._node, x._idx, x._sg = out._data, out._node, out._idx, out._sg
    return x


def is_tensor(x):
    """True for a Tensor (Parameters included).

    Example:
        >>> import dygraph
        >>> dygraph.is_tensor(dygraph.ones([1])), dygraph.is_tensor([1])
        (True, False)
    """
    return isinstance(x, Tensor)


def is_integer(x):
    """True when x holds integers (uint8, int8, int16, int32, int64).

    Example:
        >>> import dygraph
        >>> dygraph.is_integer(dygraph.to_tensor([1])), dygraph.is_integer(dygraph.ones([1]))
        (True, False)
    """
    return as_tensor(x, "is_integer")._data.dtype.kind in "iu"


def is_floating_point(x):
    """True when x holds floats (float16/32/64, bfloat16).

    Example:
        >>> import dygraph
        >>> dygraph.is_floating_point(dygraph.ones([1]))
        True
    """
    return as_tensor(x, "is_floating_point")._data.dtype.kind == "f"


def is_empty(x, name=None):
    """A bool 0-d tensor: True when x has no elements.

    Example:
        >>> import dygraph
        >>> bool(dygraph.is_empty(dygraph.zeros([0, 2])))
        True
    """
    x = as_tensor(x, "is_empty")
    return _new_tensor(np.asarray(x._data.size == 0), None, 0, True)


def check_shape(shape, op_name, expected_shape_type=(list, tuple, Tensor),
                expected_element_type=(int, Tensor), expected_tensor_dtype=("int32", "int64")):
    """In static mode, raise TypeError unless `shape` is a list/tuple of ints (or int
    Tensors) or an int Tensor, and ValueError for a dimension below -1. In dynamic mode it
    checks nothing, as in Paddle (the op itself reports a bad shape). Returns None.

    Example:
        >>> import dygraph
        >>> dygraph.check_shape([2, -1], 'reshape') is None
        True
    """
    from dygraph.static.capture import in_dynamic_mode

    if in_dynamic_mode():
        return None
    if not isinstance(shape, expected_shape_type):
        raise op_error(op_name, f"shape must be a list, tuple or Tensor, got "
                       f"{type(shape).__name__}", TypeError)
    if isinstance(shape, Tensor):
        if shape.dtype.name not in expected_tensor_dtype:
            raise op_error(op_name, f"a shape tensor must be {' or '.join(expected_tensor_dtype)}"
                           f", got {shape.dtype.name}", TypeError)
        return None
    for dim in shape:
        if isinstance(dim, Tensor):
            if dim.dtype.name not in expected_tensor_dtype:
                raise op_error(op_name, f"a shape element tensor must be "
                               f"{' or '.join(expected_tensor_dtype)}, got {dim.dtype.name}",
                               TypeError)
            continue
        if isinstance(dim, bool) or not isinstance(dim, (*expected_element_type, np.integer)):
            raise op_error(op_name, f"every shape element must be an int, got {dim!r} in "
                           f"{list(shape)}", TypeError)
        if dim < -1:
            raise op_error(op_name, f"shape elements must be >= -1, got {dim} in {list(shape)}")
    return None
