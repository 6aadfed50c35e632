"""Joins and splits in NumPy's spellings: atleast_1d/2d/3d, hstack/vstack/dstack,
column_stack/row_stack, tensor_split/hsplit/vsplit/dsplit, split_with_sizes, unstack,
block_diag, cartesian_prod, meshgrid, broadcast_tensors.

Each is a composition of the differentiable core ops (reshape, concat, getitem, broadcast),
so gradients and double backward come from those ops.
"""

import builtins

import numpy as np

from dygraph.autograd.function import apply
from dygraph.framework.errors import AssertedTypeError, ValueTypeError, op_error
from dygraph.ops.common import as_tensor, check_axis
from dygraph.ops.manipulation.args import int_list, tensor_list
from dygraph.ops.manipulation.indexing import GetItem
from dygraph.ops.manipulation.rearrange import concat, pad, split, unbind
from dygraph.ops.manipulation.shape import broadcast_to, reshape
from dygraph.tensor.tensor import Tensor

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "dstack",
           "column_stack", "row_stack", "tensor_split", "hsplit", "vsplit", "dsplit",
           "split_with_sizes", "unstack", "block_diag", "cartesian_prod", "meshgrid",
           "broadcast_tensors"]
NONDIFF = set()
# Paddle has these only at the top level (they take a list of tensors).
NOT_METHODS = {"hstack", "vstack", "dstack", "column_stack", "row_stack", "cartesian_prod",
               "meshgrid"}


def _atleast(inputs, nd, op):
    """Each input viewed with at least `nd` dims, NumPy's way: a 1-D [N] becomes [1, N]
    (2-D) or [1, N, 1] (3-D), a 2-D [M, N] becomes [M, N, 1]."""
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
        inputs = inputs[0]
    out = []
    for t in inputs:
        t = as_tensor(t, op)
        shape = t.shape
        if len(shape) < nd:
            if len(shape) == 0:
                shape = [1] * nd
            elif len(shape) == 1:
                shape = [1, *shape, 1][:nd]
            else:
                shape = [*shape, 1]
            t = reshape(t, shape)
        out.append(t)
    return out[0] if len(out) == 1 else out


def atleast_1d(*inputs, name=None):
    """Each input with at least 1 dim (a 0-D tensor becomes shape [1]); one input gives a
    Tensor, several a list.

    Example:
        >>> import dygraph
        >>> dygraph.atleast_1d(dygraph.to_tensor(3.0)).shape
        [1]
    """
    return _atleast(inputs, 1, "atleast_1d")


def atleast_2d(*inputs, name=None):
    """Each input with at least 2 dims: [N] becomes [1, N].

    Example:
        >>> import dygraph
        >>> dygraph.atleast_2d(dygraph.ones([3])).shape
        [1, 3]
    """
    return _atleast(inputs, 2, "atleast_2d")


def atleast_3d(*inputs, name=None):
    """Each input with at least 3 dims: [N] becomes [1, N, 1], [M, N] becomes [M, N, 1].

    Example:
        >>> import dygraph
        >>> [t.shape for t in dygraph.atleast_3d(dygraph.ones([3]), dygraph.ones([2, 3]))]
        [[1, 3, 1], [2, 3, 1]]
    """
    return _atleast(inputs, 3, "atleast_3d")


def _rows(x, op, zero_d_error=AssertedTypeError):
    """The tensors to join: a list, or a Tensor taken as the list of its rows (Paddle
    iterates a Tensor given where a list goes, as NumPy does). A 0-D Tensor has no rows:
    `zero_d_error` is the type Paddle's refusal has (an assert, or a ValueError)."""
    if isinstance(x, Tensor):
        if x._data.ndim == 0:
            raise op_error(op, "x is a 0-D Tensor, which has no rows to join",
                           zero_d_error)
        x = unbind(x, 0)
    return tensor_list(x, op)


def hstack(x, name=None):
    """Join along the second axis (along the first for 1-D tensors).

    Example:
        >>> import dygraph
        >>> dygraph.hstack([dygraph.ones([2, 1]), dygraph.zeros([2, 2])]).shape
        [2, 3]
    """
    tensors = _atleast(_rows(x, "hstack"), 1, "hstack")
    tensors = tensors if isinstance(tensors, list) else [tensors]
    return concat(tensors, axis=0 if tensors[0]._data.ndim == 1 else 1)


def vstack(x, name=None):
    """Join along the first axis, 1-D tensors taken as rows.

    Example:
        >>> import dygraph
        >>> dygraph.vstack([dygraph.ones([3]), dygraph.zeros([3])]).shape
        [2, 3]
    """
    tensors = _atleast(_rows(x, "vstack"), 2, "vstack")
    return concat(tensors if isinstance(tensors, list) else [tensors], axis=0)


def row_stack(x, name=None):
    """Paddle's alias of vstack.

    Example:
        >>> import dygraph
        >>> dygraph.row_stack([dygraph.ones([3]), dygraph.zeros([3])]).shape
        [2, 3]
    """
    return vstack(x)


def dstack(x, name=None):
    """Join along the third axis (inputs made at least 3-D as by atleast_3d).

    Example:
        >>> import dygraph
        >>> dygraph.dstack([dygraph.ones([3]), dygraph.zeros([3])]).shape
        [1, 3, 2]
    """
    tensors = _atleast(_rows(x, "dstack"), 3, "dstack")
    return concat(tensors if isinstance(tensors, list) else [tensors], axis=2)


def column_stack(x, name=None):
    """Join 1-D tensors as the columns of a 2-D one (higher-dim inputs join on axis 1).

    Example:
        >>> import dygraph
        >>> dygraph.column_stack([dygraph.ones([3]), dygraph.zeros([3])]).shape
        [3, 2]
    """
    tensors = [reshape(t, [-1, 1]) if t._data.ndim <= 1 else t
               for t in _rows(x, "column_stack", ValueTypeError)]
    return concat(tensors, axis=1)


def _tensors(x, op, name):
    """A list of Tensors (see tensor_list); a 0-D Tensor in its place is refused with an
    AssertedTypeError, as Paddle asserts it has a length."""
    if isinstance(x, Tensor) and x._data.ndim == 0:
        raise op_error(op, f"{name} must be a list or tuple of Tensors, got a 0-D Tensor",
                       AssertedTypeError)
    return tensor_list(x, op, name)


def _piece(x, axis, start, stop):
    return apply(GetItem((builtins.slice(None),) * axis + (builtins.slice(start, stop),)), x)


def tensor_split(x, num_or_indices, axis=0, name=None):
    """Split into `num_or_indices` nearly equal parts (int; the first size % n parts get
    one more) or at the given indices (list), as NumPy's array_split.

    Example:
        >>> import dygraph
        >>> [t.shape for t in dygraph.tensor_split(dygraph.arange(7), 3)]
        [[3], [2], [2]]
        >>> [t.numpy().tolist() for t in dygraph.tensor_split(dygraph.arange(5), [1, 3])]
        [[0], [1, 2], [3, 4]]
    """
    x = as_tensor(x, "tensor_split")
    if x._data.ndim == 0:
        raise op_error("tensor_split", "cannot split a 0-D tensor")
    ax = check_axis(int(axis.item()) if isinstance(axis, Tensor) else axis, x._data.ndim,
                    "tensor_split")
    size = x._data.shape[ax]
    if isinstance(num_or_indices, Tensor) and num_or_indices._data.ndim == 0:
        num_or_indices = int(num_or_indices.item())
    if isinstance(num_or_indices, (int, np.integer)):
        n = int(num_or_indices)
        if n <= 0:
            raise op_error("tensor_split", f"the number of sections must be positive, got "
                           f"{n}")
        sizes = [size // n + (1 if i < size % n else 0) for i in range(n)]
        return split(x, sizes, ax) if size else [_piece(x, ax, 0, 0) for _ in range(n)]
    indices = int_list(num_or_indices, "tensor_split", "num_or_indices")
    edges = [0, *indices, size]
    return [_piece(x, ax, a, b) for a, b in zip(edges, edges[1:])]


def _split_dim(x, num_or_indices, axis, min_nd, op):
    x = as_tensor(x, op)
    if x._data.ndim < min_nd:
        raise op_error(op, f"expected a tensor with at least {min_nd} dims, got shape "
                       f"{x.shape}")
    return tensor_split(x, num_or_indices, axis)


def hsplit(x, num_or_indices, name=None):
    """tensor_split along axis 1 (axis 0 for 1-D tensors): an int n gives n nearly equal
    parts, the first size % n one longer.

    Example:
        >>> import dygraph
        >>> [t.shape for t in dygraph.hsplit(dygraph.ones([2, 4]), 2)]
        [[2, 2], [2, 2]]
    """
    nd = as_tensor(x, "hsplit")._data.ndim
    return _split_dim(x, num_or_indices, 0 if nd == 1 else 1, 1, "hsplit")


def vsplit(x, num_or_indices, name=None):
    """tensor_split along axis 0 of a tensor with at least 2 dims.

    Example:
        >>> import dygraph
        >>> [t.shape for t in dygraph.vsplit(dygraph.ones([4, 2]), [1])]
        [[1, 2], [3, 2]]
    """
    return _split_dim(x, num_or_indices, 0, 2, "vsplit")


def dsplit(x, num_or_indices, name=None):
    """tensor_split along axis 2 of a tensor with at least 3 dims.

    Example:
        >>> import dygraph
        >>> [t.shape for t in dygraph.dsplit(dygraph.ones([1, 2, 4]), 2)]
        [[1, 2, 2], [1, 2, 2]]
    """
    return _split_dim(x, num_or_indices, 2, 3, "dsplit")


def split_with_sizes(x, split_sizes, dim=0):
    """Split into parts of the given sizes along `dim` (they must add up to its size).

    Example:
        >>> import dygraph
        >>> [t.shape for t in dygraph.ones([5]).split_with_sizes([2, 3])]
        [[2], [3]]
    """
    sizes = int_list(split_sizes, "split_with_sizes", "split_sizes")
    if any(s < 0 for s in sizes):
        raise op_error("split_with_sizes", f"split sizes must be >= 0, got {sizes}")
    return split(x, sizes, dim)


def unstack(x, axis=0, num=None):
    """Remove `axis`, returning the slices along it (num, if given, must equal its size).

    Example:
        >>> import dygraph
        >>> [t.shape for t in dygraph.unstack(dygraph.ones([2, 3]), axis=1)]
        [[2], [2], [2]]
    """
    x = as_tensor(x, "unstack")
    if num is not None and x._data.ndim and x._data.shape[check_axis(
            axis, x._data.ndim, "unstack")] != num:
        raise op_error("unstack", f"num={num} does not match dim {axis} of shape {x.shape}")
    return unbind(x, axis)


def block_diag(inputs, name=None):
    """A block-diagonal matrix of the inputs (0-D, 1-D or 2-D; a 1-D input is one row).

    Example:
        >>> import dygraph
        >>> dygraph.block_diag([dygraph.ones([1, 2]), dygraph.to_tensor(2.0)]).numpy()
        array([[1., 1., 0.],
               [0., 0., 2.]], dtype=float32)
    """
    blocks = tensor_list(inputs, "block_diag", "inputs")
    mats = []
    for i, t in enumerate(blocks):
        if t._data.ndim > 2:
            raise op_error("block_diag", f"inputs must have at most 2 dims, input {i} has "
                           f"shape {t.shape}")
        mats.append(reshape(t, [1, -1]) if t._data.ndim < 2 else t)
    cols = sum(t._data.shape[1] for t in mats)
    rows, left = [], 0
    for t in mats:
        w = t._data.shape[1]
        rows.append(pad(t, [0, 0, left, cols - left - w]))
        left += w
    return concat(rows, axis=0)


def cartesian_prod(x, name=None):
    """All combinations of one element from each 1-D input, as the rows of a 2-D tensor
    (one input gives that input back).

    Example:
        >>> import dygraph
        >>> dygraph.cartesian_prod([dygraph.to_tensor([1, 2]), dygraph.to_tensor([3])]).numpy()
        array([[1, 3],
               [2, 3]])
    """
    tensors = _tensors(x, "cartesian_prod", "x")
    for i, t in enumerate(tensors):
        if t._data.ndim != 1:
            raise op_error("cartesian_prod", f"inputs must be 1-D, input {i} has shape "
                           f"{t.shape}")
    if len(tensors) == 1:
        return tensors[0]
    sizes = [t._data.shape[0] for t in tensors]
    columns = []
    for i, t in enumerate(tensors):
        view = [1] * len(sizes)
        view[i] = sizes[i]
        columns.append(reshape(broadcast_to(reshape(t, view), sizes), [-1, 1]))
    return concat(columns, axis=1)


def meshgrid(*args, **kwargs):
    """Grids from 1-D (or 0-D) tensors of one dtype, given as arguments or as one list: the
    i-th result has the shape [len(t) for t in inputs] and varies along dim i. Keywords:
    `name`, and `indexing` ('ij', the default, or 'xy', which swaps the first two dims).

    Example:
        >>> import dygraph
        >>> a, b = dygraph.meshgrid(dygraph.to_tensor([1, 2, 3]), dygraph.to_tensor([4, 5]))
        >>> a.shape, b.numpy()[0].tolist()
        ([3, 2], [4, 5])
    """
    unknown = sorted(set(kwargs) - {"name", "indexing"})
    if unknown:
        raise op_error("meshgrid", f"unexpected keyword arguments {unknown}; it takes "
                       "name and indexing", TypeError)
    indexing = kwargs.get("indexing") or "ij"
    if indexing not in ("ij", "xy"):
        raise op_error("meshgrid", f"indexing must be 'ij' or 'xy', got {indexing!r}")
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    tensors = tensor_list(list(args), "meshgrid", "inputs")
    for i, t in enumerate(tensors):
        if t._data.ndim > 1:
            raise op_error("meshgrid", f"inputs must be 0-D or 1-D, input {i} has shape "
                           f"{t.shape}")
        if t._data.dtype != tensors[0]._data.dtype:
            raise op_error("meshgrid", f"inputs must have one dtype, input 0 is "
                           f"{tensors[0]._data.dtype.name} and input {i} is "
                           f"{t._data.dtype.name}")
    # dim i of the grid runs along input i; 'xy' lays the first two inputs out swapped
    dims = list(range(len(tensors)))
    if indexing == "xy" and len(dims) > 1:
        dims[0], dims[1] = 1, 0
    shape = [0] * len(tensors)
    for t, d in zip(tensors, dims):
        shape[d] = t._data.size
    out = []
    for t, d in zip(tensors, dims):
        view = [1] * len(shape)
        view[d] = shape[d]
        out.append(broadcast_to(reshape(t, view), shape))
    return out


def broadcast_tensors(input, name=None):  # noqa: A002 - Paddle's argument name
    """The inputs broadcast to their common shape.

    Example:
        >>> import dygraph
        >>> [t.shape for t in dygraph.broadcast_tensors([dygraph.ones([2, 1]),
        ...                                              dygraph.ones([3])])]
        [[2, 3], [2, 3]]
    """
    tensors = _tensors(input, "broadcast_tensors", "input")
    try:
        shape = list(np.broadcast_shapes(*(t._data.shape for t in tensors)))
    except ValueError:
        raise op_error("broadcast_tensors", f"shapes {[t.shape for t in tensors]} do not "
                       f"broadcast together") from None
    return [t if t.shape == shape else broadcast_to(t, shape) for t in tensors]
