"""Reshaping and re-indexing views: unflatten, view, view_as, as_strided, unfold, narrow,
permute, ravel, reverse, rot90, crop, diag_embed, diagflat.

DyGraph tensors never share memory, so the "views" are copies with the view's values.
Index-type views (as_strided, unfold) gather x at precomputed flat positions with
`GetItem`, whose gradient scatter-adds back (overlapping windows accumulate).
"""

import builtins
import math

from dygraph.autograd.function import apply
from dygraph.autograd.whole_call import captured_whole
from dygraph.framework import dtype as _dt
from dygraph.framework.errors import AssertedValueError, IndexValueError, op_error
from dygraph.ops.common import as_tensor, check_axis
from dygraph.ops.manipulation.args import constant, int_list, xp_of
from dygraph.ops.manipulation.diag import _diag_positions, diag
from dygraph.ops.manipulation.indexing import GetItem
from dygraph.ops.manipulation.rearrange import flip
from dygraph.ops.manipulation.scatter import Scatter
from dygraph.ops.manipulation.shape import flatten, reshape, reshape_computed, transpose
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["unflatten", "view", "view_as", "as_strided", "unfold", "narrow", "permute",
           "ravel", "reverse", "rot90", "crop", "diag_embed", "diagflat"]
NONDIFF = set()
NOT_METHODS = {"crop"}


def unflatten(x, axis, shape, name=None):
    """Expand dim `axis` into `shape` (whose product is that dim's size; one entry may be
    -1).

    Example:
        >>> import dygraph
        >>> dygraph.unflatten(dygraph.ones([2, 6]), 1, [2, -1]).shape
        [2, 2, 3]
    """
    x = as_tensor(x, "unflatten")
    if x._data.ndim == 0:  # Paddle asserts the axis is in range (AssertionError)
        raise op_error("unflatten", "cannot unflatten a 0-D tensor", AssertedValueError)
    ax = check_axis(axis, x._data.ndim, "unflatten")
    sizes = int_list(shape, "unflatten", "shape")
    old = list(x.shape)
    if not x._data.size:
        return _unflatten_empty(x, ax, sizes)
    known = 1
    for s in sizes:
        known *= s if s != -1 else 1
    if sizes.count(-1) > 1 or (-1 not in sizes and known != old[ax]) or (
            -1 in sizes and (known == 0 or old[ax] % known)):
        raise op_error("unflatten", f"shape {sizes} does not fit dim {ax} (size {old[ax]}) "
                       f"of a tensor of shape {old}")
    # 0 keeps the dims before `axis` as they come (a static program's free batch dim).
    return reshape(x, [0] * ax + sizes + old[ax + 1:])


def _unflatten_empty(x, ax, sizes):
    """unflatten of a tensor without elements, as Paddle 3.3 reshapes one: `shape` need
    not match dim `axis`, the new shape only has to hold no elements either; its 0s are
    sizes (not "keep this dim"), and a -1 is 0 unless the shape has a 0 elsewhere, when
    it is what makes the non-zero sizes of both shapes agree."""
    old = list(x._data.shape)
    target = old[:ax] + sizes + old[ax + 1:]
    known = math.prod(s for s in target if s != -1)
    fits = sizes.count(-1) <= 1 and known == 0
    if -1 in sizes and 0 in target:
        have = math.prod(s for s in old if s)
        want = math.prod(s for s in target if s not in (0, -1))
        fits = sizes.count(-1) == 1 and have % want == 0
        target[target.index(-1)] = have // want
    elif -1 in sizes:
        fits = sizes.count(-1) == 1
        target[target.index(-1)] = 0
    if not fits:
        raise op_error("unflatten", f"shape {sizes} at dim {ax} makes shape {target}, "
                       f"which cannot hold the 0 elements of a tensor of shape {old}")
    return reshape_computed(x, target)


def view(x, shape_or_dtype, name=None):
    """x with another shape (a list, as reshape) or its bytes read as another dtype (the
    last dim scales by the ratio of item sizes; no gradient in that case).

    Example:
        >>> import dygraph
        >>> dygraph.view(dygraph.ones([2, 3]), [3, 2]).shape
        [3, 2]
        >>> dygraph.view(dygraph.to_tensor([1.0]), 'int32').numpy()
        array([1065353216], dtype=int32)
    """
    x = as_tensor(x, "view")
    if isinstance(shape_or_dtype, (list, tuple, Tensor)):
        _refuse_empty_view(x, "view")
        return reshape(x, shape_or_dtype)
    target = _dt.convert_dtype(shape_or_dtype).np_dtype
    data = x._data
    if data.ndim == 0 or (data.shape[-1] * data.itemsize) % target.itemsize:
        raise op_error("view", f"cannot view a tensor of shape {x.shape} and dtype "
                       f"{data.dtype.name} as {target.name}: the last dim's bytes must "
                       f"divide into {target.itemsize}-byte items")
    return _new_tensor(xp_of(data).ascontiguousarray(data).view(target).copy(), None, 0, True)


def view_as(x, other, name=None):
    """x reshaped to the shape of `other` (a RuntimeError for an x without elements, as
    Paddle's view kernel gives).

    Example:
        >>> import dygraph
        >>> dygraph.view_as(dygraph.ones([6]), dygraph.zeros([2, 3])).shape
        [2, 3]
    """
    x = as_tensor(x, "view_as")
    shape = as_tensor(other, "view_as").shape
    _refuse_empty_view(x, "view_as")
    return reshape(x, shape)


def _refuse_empty_view(x, op):
    """Paddle's view to a new shape refuses a tensor of 0 elements (RuntimeError)."""
    if not x._data.size:
        raise op_error(op, f"cannot view a tensor of 0 elements (shape {x.shape}) with "
                       "another shape; use reshape", RuntimeError)


def _gather_flat(x, pos):
    return apply(GetItem(pos), reshape(x, [-1]))


@captured_whole
def as_strided(x, shape, stride, offset=0, name=None):
    """The tensor of `shape` whose element [i0, i1, ...] is x's flat element
    offset + i0 * stride[0] + i1 * stride[1] + ... (strides count elements).

    Example:
        >>> import dygraph
        >>> dygraph.as_strided(dygraph.arange(6), [2, 2], [2, 1], 1).numpy()
        array([[1, 2],
               [3, 4]])
    """
    x = as_tensor(x, "as_strided")
    shape = int_list(shape, "as_strided", "shape")
    stride = int_list(stride, "as_strided", "stride")
    if len(shape) != len(stride):
        raise op_error("as_strided", f"shape {shape} and stride {stride} must have the same "
                       "length")
    xp = xp_of(x._data)
    start = int(offset)
    pos = xp.full(shape, start, dtype="int64")
    for d, (n, s) in enumerate(zip(shape, stride)):
        view = [1] * len(shape)
        view[d] = n
        pos = pos + (xp.arange(n) * s).reshape(view)
    size = x._data.size
    # The lowest and highest positions, from the arguments (reading them from pos on the
    # host would stop a CUDA graph capturing this).
    low = start + sum(min(0, (n - 1) * s) for n, s in zip(shape, stride))
    high = start + sum(max(0, (n - 1) * s) for n, s in zip(shape, stride))
    if pos.size and (low < 0 or high >= size):
        raise op_error("as_strided", f"shape {shape}, stride {stride} and offset {offset} "
                       f"reach outside the {size} elements of x (shape {x.shape})")
    return _gather_flat(x, pos)


@captured_whole
def unfold(x, axis, size, step, name=None):
    """Sliding windows of `size` elements every `step` along `axis`: that dim becomes the
    number of windows and a new last dim of length `size` holds each window.

    Example:
        >>> import dygraph
        >>> dygraph.arange(5).unfold(0, 2, 2).numpy()
        array([[0, 1],
               [2, 3]])
    """
    x = as_tensor(x, "unfold")
    nd = max(x._data.ndim, 1)
    if x._data.ndim == 0:
        x = reshape(x, [1])
    ax = check_axis(axis, nd, "unfold")
    length = x._data.shape[ax]
    size, step = int(size), int(step)
    if size < 0 or size > length or step <= 0:
        raise op_error("unfold", f"size {size} must be in [0, {length}] (dim {ax} of shape "
                       f"{x.shape}) and step {step} positive")
    xp = xp_of(x._data)
    count = (length - size) // step + 1
    windows = xp.arange(count)[:, None] * step + xp.arange(size)[None, :]
    grid = xp.arange(x._data.size).reshape(x._data.shape)
    pos = xp.moveaxis(xp.take(grid, windows, axis=ax), ax + 1, -1)
    return _gather_flat(x, pos)


def narrow(input, dim, start, length):  # noqa: A002 - Paddle's argument name
    """The `length` elements from `start` (negative counts from the end) along `dim`.

    Example:
        >>> import dygraph
        >>> dygraph.narrow(dygraph.arange(6).reshape([2, 3]), 1, 1, 2).numpy()
        array([[1, 2],
               [4, 5]])
    """
    x = as_tensor(input, "narrow")
    if x._data.ndim == 0:
        raise op_error("narrow", "cannot narrow a 0-D tensor")
    ax = check_axis(dim, x._data.ndim, "narrow")
    n = x._data.shape[ax]
    start = int(start.item()) if isinstance(start, Tensor) else int(start)
    if not -n <= start <= n:
        raise op_error("narrow", f"start {start} is out of range for dim {ax} of size {n}",
                       IndexError)
    start %= n if n else 1
    length = int(length)
    if length < 0 or start + length > n:
        raise op_error("narrow", f"start {start} + length {length} exceeds dim {ax} of size "
                       f"{n} (shape {x.shape})")
    index = (builtins.slice(None),) * ax + (builtins.slice(start, start + length),)
    return apply(GetItem(index), x)


def permute(input, *dims):  # noqa: A002 - Paddle's argument name
    """Reorder the dims: given as one list or as separate ints.

    Example:
        >>> import dygraph
        >>> x = dygraph.ones([2, 3, 4])
        >>> dygraph.permute(x, 1, 0, 2).shape, x.permute([2, 0, 1]).shape
        ([3, 2, 4], [4, 2, 3])
    """
    if len(dims) == 1 and isinstance(dims[0], (list, tuple, Tensor)):
        dims = dims[0]
    return transpose(as_tensor(input, "permute"), int_list(dims, "permute", "dims"))


def ravel(input):  # noqa: A002 - Paddle's argument name
    """x as a 1-D tensor.

    Example:
        >>> import dygraph
        >>> dygraph.ravel(dygraph.ones([2, 3])).shape
        [6]
    """
    return flatten(as_tensor(input, "ravel"))


def reverse(x, axis, name=None):
    """Paddle's older name for flip.

    Example:
        >>> import dygraph
        >>> dygraph.reverse(dygraph.to_tensor([1, 2, 3]), 0).numpy()
        array([3, 2, 1])
    """
    return flip(x, axis)


def rot90(x, k=1, axes=(0, 1), name=None):
    """Rotate by 90 degrees `k` times in the plane of `axes`, from the first axis towards
    the second (NumPy's rot90).

    Example:
        >>> import dygraph
        >>> dygraph.rot90(dygraph.to_tensor([[1, 2], [3, 4]])).numpy()
        array([[2, 4],
               [1, 3]])
    """
    x = as_tensor(x, "rot90")
    nd = x._data.ndim
    axes = int_list(axes, "rot90", "axes")
    if len(axes) != 2 or nd < 2:
        raise op_error("rot90", f"axes must be two dims of a tensor with at least 2 dims, "
                       f"got axes {axes} for shape {x.shape}")
    a, b = (check_axis(v, nd, "rot90") for v in axes)
    if a == b:
        raise op_error("rot90", f"axes must differ, got {axes}")
    k = int(k) % 4
    if k == 0:
        return flip(x, [])
    if k == 2:
        return flip(x, [a, b])
    perm = list(range(nd))
    perm[a], perm[b] = perm[b], perm[a]
    if k == 1:
        return transpose(flip(x, b), perm)
    return flip(transpose(x, perm), b)


def crop(x, shape=None, offsets=None, name=None):
    """The block of `shape` (-1: to the end) starting at `offsets` (default 0s).

    Example:
        >>> import dygraph
        >>> x = dygraph.arange(12).reshape([3, 4])
        >>> dygraph.crop(x, [2, 2], [1, 1]).numpy()
        array([[ 5,  6],
               [ 9, 10]])
    """
    x = as_tensor(x, "crop")
    if x._data.ndim == 0:
        raise op_error("crop", "x must have at least 1 dim, got a 0-D tensor")
    full = list(x._data.shape)
    shape = [-1] * len(full) if shape is None else int_list(shape, "crop", "shape")
    offsets = [0] * len(full) if offsets is None else int_list(offsets, "crop", "offsets")
    if len(shape) != len(full) or len(offsets) != len(full):
        raise op_error("crop", f"shape {shape} and offsets {offsets} must each have one "
                       f"entry per dim of x (shape {full})")
    index = []
    for d, (n, s, o) in enumerate(zip(full, shape, offsets)):
        if o < 0 or s < -1 or o + max(s, 0) > n:
            raise op_error("crop", f"offset {o} + size {s} does not fit dim {d} of x "
                           f"(shape {full})")
        # -1 runs to the end: an open slice, so a static program's free dim stays free.
        index.append(builtins.slice(o, None if s == -1 else o + s))
    return apply(GetItem(tuple(index)), x)


@captured_whole
def diag_embed(input, offset=0, dim1=-2, dim2=-1):  # noqa: A002 - Paddle's argument name
    """Matrices with the last dim of `input` on diagonal `offset` of the planes spanned by
    dims dim1 and dim2 of the result (which has one more dim); zeros elsewhere.

    Example:
        >>> import dygraph
        >>> dygraph.diag_embed(dygraph.to_tensor([1.0, 2.0])).numpy()
        array([[1., 0.],
               [0., 2.]], dtype=float32)
    """
    x = as_tensor(input, "diag_embed")
    if x._data.ndim == 0:
        raise op_error("diag_embed", "input must have at least 1 dim, got a 0-D tensor",
                       IndexValueError)  # Paddle: dim1 is out of range (IndexError)
    nd = x._data.ndim + 1
    d1, d2 = check_axis(dim1, nd, "diag_embed"), check_axis(dim2, nd, "diag_embed")
    if d1 == d2:
        raise op_error("diag_embed", f"dim1 and dim2 must differ, got {dim1} and {dim2}")
    offset = int(offset)
    batch, m = list(x._data.shape[:-1]), x._data.shape[-1]
    n = m + abs(offset)
    xp = xp_of(x._data)
    rows, cols = _diag_positions(xp, n, n, offset)
    count = 1
    for s in batch:
        count *= s
    pos = (xp.arange(count)[:, None] * (n * n) + (rows * n + cols)[None, :]).reshape(-1)
    base = constant(xp.zeros(batch + [n, n], dtype=x._data.dtype), x)
    out = apply(Scatter(pos, "assign"), base, x)
    rest = iter(range(nd - 2))
    perm = [nd - 2 if d == d1 else nd - 1 if d == d2 else next(rest) for d in range(nd)]
    return out if perm == list(range(nd)) else transpose(out, perm)


def diagflat(x, offset=0, name=None):
    """A square matrix with the flattened x on diagonal `offset`.

    Example:
        >>> import dygraph
        >>> dygraph.diagflat(dygraph.to_tensor([[1, 2]])).numpy()
        array([[1, 0],
               [0, 2]])
    """
    return diag(flatten(as_tensor(x, "diagflat")), offset)
