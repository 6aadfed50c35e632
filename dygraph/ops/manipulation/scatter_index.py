"""More scatter and gather ops: scatter_reduce, scatter_add, scatter_nd, index_fill,
index_put, masked_scatter, diagonal_scatter, select_scatter, slice_scatter (writes), and
index_sample, take, multiplex (reads).

As in ops/manipulation/scatter.py, every write works out the flat positions it touches by indexing
a grid of flat offsets, then runs the one `Scatter` op (or put_along_axis for reductions),
and every read runs `GetItem`: their gradients serve all of these.
"""

import builtins

import numpy as np

from dygraph.autograd.function import apply
from dygraph.autograd.whole_call import captured_whole
from dygraph.framework.errors import (
    AssertedTypeError,
    AssertedValueError,
    IndexValueError,
    RankIndexError,
    ValueTypeError,
    op_error,
)
from dygraph.ops.common import as_tensor, check_axis
from dygraph.ops.creation.constructors import zeros
from dygraph.ops.manipulation.args import (
    check_bounds,
    constant,
    index_array,
    int_list,
    tensor_list,
    xp_of,
)
from dygraph.ops.manipulation.indexing import GetItem, _convert_index
from dygraph.ops.manipulation.rearrange import stack
from dygraph.ops.manipulation.scatter import (
    Scatter,
    _grid,
    _same_dtype,
    put_along_axis,
    scatter_nd_add,
)
from dygraph.ops.manipulation.shape import broadcast_to, reshape
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["scatter_reduce", "scatter_add", "scatter_nd", "index_fill", "index_put",
           "masked_scatter", "diagonal_scatter", "select_scatter", "slice_scatter",
           "index_sample", "take", "multiplex"]
NONDIFF = set()
NOT_METHODS = set()

_REDUCE = {"sum": "add", "prod": "mul", "mean": "mean", "amin": "amin", "amax": "amax"}


def _values_at(value, x, shape, op):
    """`value` (number or tensor) broadcast to `shape`, in x's dtype."""
    if not isinstance(value, Tensor):
        xp = xp_of(x._data)
        if xp is not np and np.ndim(value) == 0:  # a fill on the device, no host copy
            return _new_tensor(xp.full(tuple(shape), value, x._data.dtype), None, 0, True)
        return constant(np.broadcast_to(np.asarray(value), shape), x)
    _same_dtype(x, value, op, "value")
    if value.shape != list(shape):
        try:
            np.broadcast_shapes(value._data.shape, tuple(shape))
        except ValueError:
            raise op_error(op, f"value of shape {value.shape} does not broadcast to the "
                           f"{list(shape)} positions it fills") from None
        value = broadcast_to(value, list(shape))
    return value


def _write(x, pos, value, op, mode="assign"):
    values = _values_at(value, x, pos.shape, op)
    return apply(Scatter(pos.reshape(-1), mode), x, values)


@captured_whole
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):  # noqa: A002
    """Reduce src into a copy of input along `dim` at `index` (index no larger than src in
    any dim; src's extra entries are unused). reduce: 'sum', 'prod', 'mean', 'amin' or
    'amax'; include_self=False leaves input's own value out at written positions.

    Example:
        >>> import dygraph
        >>> x = dygraph.zeros([3])
        >>> dygraph.scatter_reduce(x, 0, dygraph.to_tensor([0, 0, 2]),
        ...                        dygraph.to_tensor([1.0, 2.0, 3.0]), 'sum').numpy()
        array([3., 0., 3.], dtype=float32)
    """
    if reduce not in _REDUCE:
        raise op_error("scatter_reduce", f"reduce must be one of {sorted(_REDUCE)}, got "
                       f"{reduce!r}")
    x, src = as_tensor(input, "scatter_reduce"), as_tensor(src, "scatter_reduce")
    idx = index_array(index, "scatter_reduce", like=x._data)
    if idx.ndim != src._data.ndim or any(i > s for i, s in zip(idx.shape, src._data.shape)):
        raise op_error("scatter_reduce", f"index of shape {list(idx.shape)} must have the "
                       f"dims of src (shape {src.shape}) and be no larger in any of them")
    if list(idx.shape) != src.shape:
        src = apply(GetItem(tuple(builtins.slice(0, n) for n in idx.shape)), src)
    return put_along_axis(x, idx, src, dim, reduce=_REDUCE[reduce],
                          include_self=include_self, broadcast=False)


@captured_whole
def scatter_add(input, dim, index, src):  # noqa: A002 - Paddle's argument name
    """Add src into a copy of input along `dim` at `index` (scatter_reduce with 'sum').

    Example:
        >>> import dygraph
        >>> dygraph.scatter_add(dygraph.ones([3]), 0, dygraph.to_tensor([1, 1]),
        ...                     dygraph.to_tensor([1.0, 2.0])).numpy()
        array([1., 4., 1.], dtype=float32)
    """
    return scatter_reduce(input, dim, index, src, "sum")


@captured_whole
def scatter_nd(index, updates, shape, name=None):
    """Zeros of `shape` with `updates` added at the multi-dim `index` (see scatter_nd_add).

    Example:
        >>> import dygraph
        >>> dygraph.scatter_nd(dygraph.to_tensor([[1], [1]]), dygraph.to_tensor([1.0, 2.0]),
        ...                    [3]).numpy()
        array([0., 3., 0.], dtype=float32)
    """
    updates = as_tensor(updates, "scatter_nd")
    base = zeros(int_list(shape, "scatter_nd", "shape"), dtype=updates._data.dtype)
    return scatter_nd_add(base, index, updates)


@captured_whole
def index_fill(x, index, axis, value, name=None):
    """x with the slices at `index` (1-D) along `axis` set to `value` (a number or a 0-D
    tensor).

    Example:
        >>> import dygraph
        >>> dygraph.index_fill(dygraph.zeros([2, 2]), dygraph.to_tensor([1]), 1, 5.0).numpy()
        array([[0., 5.],
               [0., 5.]], dtype=float32)
    """
    x = as_tensor(x, "index_fill")
    if x._data.ndim == 0:
        raise op_error("index_fill", "x must have at least 1 dim, got a 0-D tensor")
    ax = check_axis(axis, x._data.ndim, "index_fill")
    idx = index_array(index, "index_fill", like=x._data).reshape(-1)
    check_bounds(idx, x._data.shape[ax], "index_fill", negative=True, dim=ax)
    if isinstance(value, Tensor) and value._data.size != 1:
        raise op_error("index_fill", f"value must be a number or a 1-element tensor, got "
                       f"shape {value.shape}")
    if isinstance(value, Tensor) and value._data.ndim:
        value = reshape(value, [])
    pos = xp_of(idx).take(_grid(x), idx, axis=ax)
    return _write(x, pos, value, "index_fill")


@captured_whole
def index_put(x, indices, value, accumulate=False, name=None):
    """x with x[indices] = value (indices: a tuple of integer or bool tensors, as in
    NumPy advanced indexing); accumulate=True adds instead, repeated positions summing.

    Example:
        >>> import dygraph
        >>> x = dygraph.zeros([2, 3])
        >>> idx = (dygraph.to_tensor([0, 1]), dygraph.to_tensor([2, 2]))
        >>> dygraph.index_put(x, idx, dygraph.to_tensor(7.0)).numpy()
        array([[0., 0., 7.],
               [0., 0., 7.]], dtype=float32)
    """
    # Paddle refuses a wrong argument type with ValueError: ValueTypeError is both
    if not isinstance(x, Tensor):
        raise op_error("index_put", f"x must be a Tensor, got {type(x).__name__}",
                       ValueTypeError)
    if not isinstance(indices, (list, tuple)):
        raise op_error("index_put", f"indices must be a tuple of tensors, got "
                       f"{type(indices).__name__}", ValueTypeError)
    index = _convert_index(tuple(indices), xp_of(x._data))
    try:
        pos = _grid(x)[index]
    except IndexError as exc:
        raise op_error("index_put", f"indices do not index x of shape {x.shape}: {exc}",
                       IndexError) from None
    return _write(x, pos, value, "index_put", "add" if accumulate else "assign")


@captured_whole
def masked_scatter(x, mask, value, name=None):
    """x with its positions where the bool `mask` (broadcast to x) is True filled, in
    order, from the first values of `value`.

    Example:
        >>> import dygraph
        >>> x = dygraph.zeros([2, 2])
        >>> dygraph.masked_scatter(x, dygraph.to_tensor([True, False]),
        ...                        dygraph.to_tensor([1.0, 2.0, 3.0])).numpy()
        array([[1., 0.],
               [2., 0.]], dtype=float32)
    """
    x, value = as_tensor(x, "masked_scatter"), as_tensor(value, "masked_scatter")
    mask = as_tensor(mask, "masked_scatter")
    if mask._data.dtype != np.bool_:
        raise op_error("masked_scatter", f"mask must be a bool tensor, got dtype "
                       f"{mask._data.dtype.name}", TypeError)
    _same_dtype(x, value, "masked_scatter", "value")
    try:
        m = xp_of(x._data).broadcast_to(mask._data, x._data.shape)
    except ValueError:
        # Paddle asserts this: AssertedValueError is also an AssertionError
        raise op_error("masked_scatter", f"mask of shape {mask.shape} does not broadcast "
                       f"to x of shape {x.shape}", AssertedValueError) from None
    pos = _grid(x)[m]
    if pos.size > value._data.size:
        raise op_error("masked_scatter", f"mask selects {pos.size} positions but value "
                       f"(shape {value.shape}) has only {value._data.size} elements")
    values = apply(GetItem(builtins.slice(0, pos.size)), reshape(value, [-1]))
    return apply(Scatter(pos, "assign"), x, values)


@captured_whole
def diagonal_scatter(x, y, offset=0, axis1=0, axis2=1, name=None):
    """x with its diagonal `offset` of the planes of (axis1, axis2) replaced by y, shaped
    as `diagonal(x, offset, axis1, axis2)` is.

    Example:
        >>> import dygraph
        >>> dygraph.diagonal_scatter(dygraph.zeros([2, 2]), dygraph.ones([2])).numpy()
        array([[1., 0.],
               [0., 1.]], dtype=float32)
    """
    from dygraph.ops.manipulation.diag import _diag_positions

    # Paddle checks the ranks, the axes and y's shape with asserts: AssertedValueError
    x, y = as_tensor(x, "diagonal_scatter"), as_tensor(y, "diagonal_scatter")
    nd = x._data.ndim
    if nd < 2:
        raise op_error("diagonal_scatter", f"x must have at least 2 dims, got shape "
                       f"{x.shape}", AssertedValueError)
    for axis in (axis1, axis2):
        if not -nd <= axis < nd:
            raise op_error("diagonal_scatter", f"axis {axis} is out of range for x of shape "
                           f"{x.shape}; expected {-nd} <= axis < {nd}", AssertedValueError)
    a1, a2 = axis1 % nd, axis2 % nd
    if a1 == a2:
        raise op_error("diagonal_scatter", f"axis1 and axis2 must differ, got {axis1} and "
                       f"{axis2}", AssertedValueError)
    xp = xp_of(x._data)
    grid = xp.moveaxis(_grid(x), (a1, a2), (-2, -1))
    rows, cols = _diag_positions(xp, grid.shape[-2], grid.shape[-1], int(offset))
    pos = grid[..., rows, cols]
    if list(pos.shape) != y.shape:
        raise op_error("diagonal_scatter", f"y must have the diagonal's shape "
                       f"{list(pos.shape)} (x shape {x.shape}), got {y.shape}",
                       AssertedValueError)
    return _write(x, pos, y, "diagonal_scatter")


@captured_whole
def select_scatter(x, values, axis, index, name=None):
    """x with its slice at `index` along `axis` replaced by `values`.

    Example:
        >>> import dygraph
        >>> dygraph.select_scatter(dygraph.zeros([2, 2]), dygraph.ones([2]), 0, 1).numpy()
        array([[0., 0.],
               [1., 1.]], dtype=float32)
    """
    x, values = as_tensor(x, "select_scatter"), as_tensor(values, "select_scatter")
    if isinstance(index, Tensor) and index._data.size != 1:  # Paddle asserts one element
        raise op_error("select_scatter", f"index must be an int or a 1-element tensor, got "
                       f"a tensor of shape {index.shape}", AssertedTypeError)
    if x._data.ndim == 0:
        raise op_error("select_scatter", "x must have at least 1 dim, got a 0-D tensor",
                       IndexValueError)
    ax = check_axis(axis, x._data.ndim, "select_scatter")
    n = x._data.shape[ax]
    if not -n <= int(index) < n:
        raise op_error("select_scatter", f"index {index} is out of range for dim {ax} of "
                       f"size {n}", IndexError)
    pos = xp_of(x._data).take(_grid(x), int(index), axis=ax)
    if list(pos.shape) != values.shape:
        raise op_error("select_scatter", f"values must have shape {list(pos.shape)} (x "
                       f"shape {x.shape} without dim {ax}), got {values.shape}")
    return _write(x, pos, values, "select_scatter")


@captured_whole
def slice_scatter(x, value, axes, starts, ends, strides, name=None):
    """x with the strided slice (as strided_slice selects it) replaced by `value`.

    Example:
        >>> import dygraph
        >>> dygraph.slice_scatter(dygraph.zeros([4]), dygraph.ones([2]), [0], [0], [4],
        ...                       [2]).numpy()
        array([1., 0., 1., 0.], dtype=float32)
    """
    x, value = as_tensor(x, "slice_scatter"), as_tensor(value, "slice_scatter")
    if x._data.ndim == 0:
        raise op_error("slice_scatter", "cannot slice a 0-D tensor (it has no axes)",
                       RankIndexError)
    lists = [int_list(v, "slice_scatter", n) for v, n in
             ((axes, "axes"), (starts, "starts"), (ends, "ends"), (strides, "strides"))]
    if len({len(v) for v in lists}) != 1:
        raise op_error("slice_scatter", f"axes, starts, ends and strides must have one "
                       f"length, got {lists}")
    index = [builtins.slice(None)] * x._data.ndim
    for a, s, e, st in zip(*lists):
        if st == 0:
            raise op_error("slice_scatter", "strides must not be 0")
        index[check_axis(a, x._data.ndim, "slice_scatter")] = builtins.slice(s, e, st)
    pos = _grid(x)[tuple(index)]
    if pos.size == 0 and value._data.size == 0:  # nothing to write (Paddle's rule too)
        return x.clone()
    if list(pos.shape) != value.shape:
        raise op_error("slice_scatter", f"value must have the slice's shape "
                       f"{list(pos.shape)}, got {value.shape}")
    return _write(x, pos, value, "slice_scatter")


@captured_whole
def index_sample(x, index):
    """out[i, j] = x[i, index[i, j]] for a 2-D x and a 2-D index with x's rows.

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([[1, 2, 3], [4, 5, 6]])
        >>> dygraph.index_sample(x, dygraph.to_tensor([[2, 0], [1, 1]])).numpy()
        array([[3, 1],
               [5, 5]])
    """
    x = as_tensor(x, "index_sample")
    idx = index_array(index, "index_sample", like=x._data)
    if x._data.ndim != 2 or idx.ndim != 2 or idx.shape[0] != x._data.shape[0]:
        raise op_error("index_sample", f"x and index must be 2-D with one row count, got x "
                       f"shape {x.shape} and index shape {list(idx.shape)}")
    check_bounds(idx, x._data.shape[1], "index_sample", dim=1)
    rows = xp_of(idx).arange(idx.shape[0])[:, None]
    return apply(GetItem((rows, idx)), x)


@captured_whole
def take(x, index, mode="raise", name=None):
    """The elements of the flattened x at `index` (result shaped like index). mode 'raise'
    allows -numel <= index < numel, 'wrap' takes indices modulo numel, 'clip' clips them to
    [0, numel - 1].

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([[1, 2], [3, 4]])
        >>> dygraph.take(x, dygraph.to_tensor([0, -1, 5]), mode='wrap').numpy()
        array([1, 4, 2])
    """
    if mode not in ("raise", "wrap", "clip"):
        raise op_error("take", f"mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    x = as_tensor(x, "take")
    idx = index_array(index, "take", like=x._data)
    n = x._data.size
    xp = xp_of(idx)
    if mode == "raise":
        check_bounds(idx, n, "take", negative=True, exc_type=IndexValueError)
    elif mode == "wrap":
        idx = xp.mod(idx, n)
    else:
        idx = xp.clip(idx, 0, n - 1)
    return apply(GetItem(idx), reshape(x, [-1]))


@captured_whole
def multiplex(inputs, index, name=None):
    """Row i of the result is row i of inputs[index[i]] (inputs of one shape, index [N, 1]).

    Example:
        >>> import dygraph
        >>> a, b = dygraph.zeros([2, 2]), dygraph.ones([2, 2])
        >>> dygraph.multiplex([a, b], dygraph.to_tensor([[1], [0]])).numpy()
        array([[1., 1.],
               [0., 0.]], dtype=float32)
    """
    tensors = tensor_list(inputs, "multiplex", "inputs")
    stacked = stack(tensors, axis=0)
    idx = index_array(index, "multiplex", like=stacked._data).reshape(-1)
    rows = stacked._data.shape[1] if stacked._data.ndim > 1 else 0
    if idx.shape[0] != rows:
        raise op_error("multiplex", f"index has {idx.shape[0]} entries but the inputs have "
                       f"{rows} rows (shape {tensors[0].shape})")
    check_bounds(idx, len(tensors), "multiplex")
    return apply(GetItem((idx, xp_of(idx).arange(rows))), stacked)
