"""Pieces shared by the reduction, statistics, cumulative and search ops: the shape of a
reduced result, putting a reduced gradient back against the input, constants inside
gradient formulas, and argument checks.
"""

import numpy as np

from dygraph.framework import dtype as _dt
from dygraph.framework.errors import op_error
from dygraph.tensor.tensor import _new_tensor

# Up to this many input elements a full reduction's gradient is a filled array rather
# than a broadcast view (which costs no memory, but its setup costs more than the fill).
_FILLED_GRADIENT_SIZE = 4096


def keep_shape(in_shape, axes):
    """The shape of a reduction over `axes` (None: all) with keepdim=True.

    Example:
        >>> keep_shape((2, 3, 4), (0, 2))
        (1, 3, 1)
    """
    if axes is None:
        return (1,) * len(in_shape)
    shape = list(in_shape)
    for a in axes:
        shape[a] = 1
    return tuple(shape)


def unreduce(m, t, in_shape, axes, keepdim):
    """A reduced result or gradient reshaped so that it broadcasts against the input.

    Example:
        >>> import numpy as np
        >>> from dygraph.autograd.backward_math import math_for
        >>> unreduce(math_for(np.zeros(1), False), np.ones(3), (3, 4), (1,), False).shape
        (3, 1)
    """
    if keepdim:
        return t
    return m.reshape(t, keep_shape(in_shape, axes))


def expand_back(m, g, in_shape, axes, keepdim):
    """Broadcast a reduced gradient back over the reduced axes (the input's shape).

    Example:
        >>> import numpy as np
        >>> from dygraph.autograd.backward_math import math_for
        >>> expand_back(math_for(np.zeros(1), False), np.ones(3), (3, 4), (1,), False).shape
        (3, 4)
    """
    if (not m.tensor_mode and m.xp is np and g.size == 1
            and reduced_count(in_shape, None) <= _FILLED_GRADIENT_SIZE):
        # A full reduction of a small input (a loss): a filled array. np.broadcast_to's
        # Python-level checks cost several times an empty + fill (figures:
        # docs/PERFORMANCE.md#small-ops-and-reductions).
        out = m.xp.empty(tuple(in_shape), g.dtype)
        out.fill(g.reshape(()))
        return out
    return m.broadcast_to(unreduce(m, g, in_shape, axes, keepdim), tuple(in_shape))


def reduced_count(in_shape, axes):
    """How many input elements go into each reduced value.

    Example:
        >>> reduced_count((2, 3, 4), (0, 2))
        8
    """
    n = 1
    for a in (axes if axes is not None else range(len(in_shape))):
        n *= in_shape[a]
    return n


def constant(m, array):
    """A raw array as a gradient formula must see it: the array itself in plain backward,
    a constant Tensor under create_graph (so it also works for CuPy arrays).

    Example:
        >>> import numpy as np
        >>> from dygraph.autograd.backward_math import math_for
        >>> constant(math_for(np.zeros(1), False), np.ones(2)).tolist()
        [1.0, 1.0]
    """
    return _new_tensor(array, None, 0, True) if m.tensor_mode else array


def check_not_empty(shape, axes, op):
    """Raise for a min/max-like reduction over an axis of length zero (no identity value).

    Example:
        >>> check_not_empty((2, 3), (1,), 'max') is None
        True
    """
    for a in (axes if axes is not None else range(len(shape))):
        if shape[a] == 0:
            raise op_error(op, f"cannot reduce axis {a} of length 0 (input shape "
                           f"{list(shape)}): the result would have no value")
    if axes is None and 0 in shape:
        raise op_error(op, f"cannot reduce a zero-size tensor of shape {list(shape)}")


def index_dtype(dtype, op):
    """The NumPy dtype for an index result: int32 or int64, TypeError otherwise.

    Example:
        >>> index_dtype('int32', 'argmax')
        dtype('int32')
    """
    np_dtype = _dt.convert_dtype(dtype).np_dtype
    if np_dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise op_error(op, f"dtype must be int32 or int64, got {dtype!r}", TypeError)
    return np_dtype

