"""Argument checks shared by the paddle.geometric functions: feature and index tensors,
the message and reduce names, out_size.

Every check raises through `op_error`, naming the function and the shapes and dtypes it
received. Checks that read index values (bounds) run in the ops' forward, at each run.
"""

import inspect

import numpy as np

from dygraph.autograd.whole_call import captured_whole
from dygraph.framework.errors import op_error
from dygraph.ops.common import as_tensor
from dygraph.ops.manipulation.shape import reshape, unsqueeze
from dygraph.tensor.tensor import Tensor

__all__ = ["REDUCE_OPS", "MESSAGE_OPS", "check_reduce", "check_message", "features",
           "index_tensor", "edge_indices", "out_rows", "aligned", "same_dtype",
           "whole_if_tensor_out_size"]

REDUCE_OPS = ("sum", "mean", "max", "min")
MESSAGE_OPS = ("add", "sub", "mul", "div")
_FEATURE_DTYPES = ("float16", "float32", "float64", "int32", "int64")
_INDEX_DTYPES = ("int32", "int64")


def check_reduce(reduce_op, op):
    """Raise ValueError unless reduce_op is one of REDUCE_OPS.

    Example:
        >>> check_reduce("mean", "send_u_recv")
    """
    if reduce_op not in REDUCE_OPS:
        raise op_error(op, "reduce_op should be `sum`, `mean`, `max` or `min`, but received "
                       f"{reduce_op}")


def check_message(message_op, op):
    """Raise ValueError unless message_op is one of MESSAGE_OPS.

    Example:
        >>> check_message("div", "send_uv")
    """
    if message_op not in MESSAGE_OPS:
        raise op_error(op, "message_op should be `add`, `sub`, `mul`, `div`, but received "
                       f"{message_op}")


def features(x, op, name="x"):
    """x as a Tensor of node or edge features: at least 1-D, of a dtype the ops compute.

    Example:
        >>> features([1.0, 2.0], "send_u_recv").shape
        [2]
    """
    x = as_tensor(x, op)
    data = x._data
    if data.dtype.name not in _FEATURE_DTYPES:
        raise op_error(op, f"{name} has dtype {data.dtype.name} (shape {list(data.shape)}); "
                       f"expected one of {', '.join(_FEATURE_DTYPES)}", TypeError)
    if data.ndim == 0:
        raise op_error(op, f"{name} is 0-D; expected a tensor with one row per node or edge")
    return x


def index_tensor(index, op, name):
    """An int32/int64 index tensor of shape [N] or [N, 1], as a 1-D Tensor.

    Example:
        >>> index_tensor([[0], [2]], "segment_sum", "segment_ids").shape
        [2]
    """
    index = as_tensor(index, op)
    data = index._data
    if data.dtype.name not in _INDEX_DTYPES:
        raise op_error(op, f"{name} has dtype {data.dtype.name} (shape {list(data.shape)}); "
                       "expected int32 or int64", TypeError)
    if data.ndim == 2 and data.shape[1] == 1:
        return reshape(index, [-1])
    if data.ndim != 1:
        raise op_error(op, f"{name} has shape {list(data.shape)}; expected [N] or [N, 1]")
    return index


def edge_indices(src_index, dst_index, op):
    """(src, dst) as 1-D index Tensors of one dtype.

    Example:
        >>> src, dst = edge_indices([0, 1], [1, 0], "send_uv")
        >>> src.shape, dst.shape
        ([2], [2])
    """
    src = index_tensor(src_index, op, "src_index")
    dst = index_tensor(dst_index, op, "dst_index")
    if src._data.dtype != dst._data.dtype:
        raise op_error(op, f"src_index has dtype {src._data.dtype.name} and dst_index "
                       f"{dst._data.dtype.name}; expected the same dtype")
    return src, dst


def out_rows(out_size, op):
    """The output's row count that out_size asks for, or None for x's (out_size None, or
    <= 0). A Tensor out_size is read (the call is then recorded whole in programs).

    Example:
        >>> out_rows(5, "send_u_recv"), out_rows(0, "send_u_recv")
        (5, None)
    """
    if out_size is None:
        return None
    if isinstance(out_size, Tensor):
        data = out_size._data
        if data.dtype.name not in _INDEX_DTYPES or data.size != 1:
            raise op_error(op, f"out_size Tensor has shape {list(data.shape)} and dtype "
                           f"{data.dtype.name}; expected one int32 or int64 value", TypeError)
        out_size = data.reshape(-1)[0]
    elif isinstance(out_size, bool) or not isinstance(out_size, (int, float, np.number)):
        raise op_error(op, f"out_size must be an int or a Tensor, got "
                       f"{type(out_size).__name__}", TypeError)
    rows = int(out_size)
    return rows if rows > 0 else None


def same_dtype(x, y, op):
    """Raise ValueError unless x and y have one dtype.

    Example:
        >>> same_dtype(as_tensor([1.0]), as_tensor([2.0]), "send_uv")
    """
    if x._data.dtype != y._data.dtype:
        raise op_error(op, f"x has dtype {x._data.dtype.name} and y {y._data.dtype.name}; "
                       "expected the same dtype")


def aligned(x, y, op):
    """x and y with the same number of dims: a 1-D one becomes [N, 1], and the one with
    fewer dims gets size-1 dims after the first, so that their features (all dims but the
    first) broadcast as NumPy's trailing dims do. Raises ValueError when they do not.

    Example:
        >>> a, b = aligned(as_tensor([[1.0, 2.0]]), as_tensor([3.0]), "send_uv")
        >>> a.shape, b.shape
        ([1, 2], [1, 1])
    """
    if x._data.ndim == 1:
        x = unsqueeze(x, [1])
    if y._data.ndim == 1:
        y = unsqueeze(y, [1])
    nx, ny = x._data.ndim, y._data.ndim
    if nx < ny:
        x = unsqueeze(x, list(range(1, 1 + ny - nx)))
    elif ny < nx:
        y = unsqueeze(y, list(range(1, 1 + nx - ny)))
    try:
        np.broadcast_shapes(x._data.shape[1:], y._data.shape[1:])
    except ValueError:
        raise op_error(op, f"the features of x (shape {list(x._data.shape)}) and y (shape "
                       f"{list(y._data.shape)}) do not broadcast: all dims but the first "
                       "must be equal or 1") from None
    return x, y


def whole_if_tensor_out_size(fn):
    """`captured_whole` for a function with an `out_size` argument: static programs record
    its ops as they are, unless out_size is a Tensor, whose value the function reads (the
    call is then one op of the program, run whole at each run).

    Example (send_u_recv is one):
        >>> from dygraph.ops.geometric.message_passing import send_u_recv
        >>> send_u_recv.__wrapped__.__name__
        'send_u_recv'
    """
    signature = inspect.signature(fn)

    def recorded_as_is(*args, **kwargs):
        if isinstance(signature.bind(*args, **kwargs).arguments.get("out_size"), Tensor):
            return NotImplemented
        return fn(*args, **kwargs)

    return captured_whole(fn, static_op=recorded_as_is)
