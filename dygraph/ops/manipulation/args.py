"""Argument checks shared by the manipulation ops: tensor lists, index tensors, int lists.

Every check raises through `op_error`, naming the op and the shapes/dtypes it received.
"""

import numpy as np

from dygraph.backend import capturing, defer_check, is_gpu_array, min_max
from dygraph.framework.errors import ValueTypeError, op_error
from dygraph.ops.common import as_tensor
from dygraph.tensor.tensor import Tensor, _new_tensor


def tensor_list(x, op, name="x"):
    """A non-empty list/tuple of Tensors (arrays and numbers are converted); anything else
    is a ValueTypeError (Paddle's ValueError, and a TypeError)."""
    if not isinstance(x, (list, tuple)):
        raise op_error(op, f"{name} must be a list or tuple of Tensors, got "
                       f"{type(x).__name__}", ValueTypeError)
    if not x:
        raise op_error(op, f"{name} is an empty list; expected at least one Tensor")
    return [t if isinstance(t, Tensor) else as_tensor(t, op) for t in x]


def xp_of(array):
    """numpy or cupy, whichever holds `array`."""
    if type(array) is np.ndarray:
        return np
    from dygraph.backend import get_array_module

    return get_array_module(array)


def index_array(index, op, name="index", like=None):
    """An integer index (Tensor, array, list or int) as a raw array on `like`'s device."""
    if isinstance(index, Tensor):
        data = index._data
    else:
        data = index if is_gpu_array(index) else np.asarray(index)
    if data.dtype.kind not in "iu":
        raise op_error(op, f"{name} must be an int32 or int64 tensor, got dtype "
                       f"{data.dtype.name} (shape {list(data.shape)})", TypeError)
    if like is not None and type(data) is not type(like):
        data = xp_of(like).asarray(data)
    return data


def check_bounds(idx, size, op, name="index", negative=False, dim=None,
                 exc_type=IndexError):
    """Raise `exc_type` unless every value is in [0, size) ([-size, size) if `negative`);
    IndexValueError for the ops where Paddle raises ValueError."""
    if idx.size == 0:
        return
    low = -size if negative else 0
    where = f" for dim {dim}" if dim is not None else ""
    if capturing():  # inside a CUDA graph no value reaches the host: checked after the run
        defer_check(((idx < low) | (idx >= size)).any(), lambda: op_error(
            op, f"{name} values out of range{where}: expected {low} <= {name} < {size}",
            exc_type))
        return
    lo, hi = min_max(idx)
    if lo < low or hi >= size:
        bad = lo if lo < low else hi
        raise op_error(op, f"{name} value {bad} is out of range{where}: expected "
                       f"{low} <= {name} < {size}", exc_type)


def int_list(values, op, name):
    """An int, list/tuple of ints or Tensors, or a Tensor -> list of Python ints."""
    if isinstance(values, Tensor):
        return [int(v) for v in values.numpy().reshape(-1)]
    if isinstance(values, (int, np.integer)):
        return [int(values)]
    try:
        return [int(v.item()) if isinstance(v, Tensor) else int(v) for v in values]
    except (TypeError, ValueError) as exc:
        raise op_error(op, f"{name} must be an int or a list of ints, got {values!r}",
                       TypeError) from exc


def constant(value, like):
    """A constant tensor (no gradient) with `like`'s dtype and device."""
    return _new_tensor(xp_of(like._data).asarray(value, dtype=like._data.dtype), None, 0, True)
