"""Shape manipulation: join and split (concat, stack, split, chunk, unbind), tile, flip, roll,
moveaxis, expand_as. Indexing ops (gather, slice, ...), scatter ops and pad live in the
manipulation_* modules and are re-exported here, so this module is the whole family.

Split-type ops are one Op with a tuple forward; their backward joins the gradients in one
concatenate, and concat's backward splits in one call, so both stay one NumPy call each way.
"""

import builtins
from itertools import accumulate

import numpy as np

from dygraph.autograd.backward_math import register
from dygraph.autograd.function import Op, apply
from dygraph.framework.errors import AssertedValueError, IndexValueError, op_error
from dygraph.framework.kernel_dtypes import refuse_dtypes
from dygraph.ops.common import amp_casts, as_tensor, check_axis
from dygraph.ops.manipulation.args import int_list, tensor_list, xp_of
from dygraph.ops.manipulation.diag import diag, diagonal, tril, triu
from dygraph.ops.manipulation.gather import (
    gather,
    gather_nd,
    index_select,
    masked_select,
    repeat_interleave,
    slice,
    strided_slice,
    take_along_axis,
)
from dygraph.ops.manipulation.pad import pad
from dygraph.ops.manipulation.scatter import (
    index_add,
    masked_fill,
    put_along_axis,
    scatter,
    scatter_nd_add,
)
from dygraph.ops.manipulation.shape import broadcast_to, reshape, transpose
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["concat", "stack", "split", "chunk", "unbind", "tile", "flip", "roll", "moveaxis",
           "expand_as", "gather", "gather_nd", "index_select", "take_along_axis",
           "masked_select", "slice", "strided_slice", "repeat_interleave", "diag", "diagonal",
           "tril", "triu", "scatter", "scatter_nd_add", "index_add", "put_along_axis",
           "masked_fill", "pad"]
NONDIFF = set()

_ALL = builtins.slice(None)


def _zeros(m, ref, shape):
    """Zeros standing in for an output that got no gradient (same dtype/device as `ref`)."""
    data = m.data(ref)
    zeros = xp_of(data).zeros(shape, data.dtype)
    return _new_tensor(zeros, None, 0, True) if m.tensor_mode else zeros


def _fill_missing(m, grads, shapes):
    ref = next(g for g in grads if g is not None)
    return [g if g is not None else _zeros(m, ref, s) for g, s in zip(grads, shapes)]


class Concat(Op):
    attrs = ("axis",)

    complex_grad = "same"

    def __init__(self, axis):
        self.axis = axis

    def forward(self, xp, *arrays):
        ax = self.axis
        self.bounds = list(accumulate(a.shape[ax] for a in arrays[:-1]))
        return xp.concatenate(arrays, axis=ax)

    def backward(self, m, g):
        return tuple(m.split_at(g, self.bounds, self.axis))


class Split(Op):
    attrs = ("axis", "bounds")

    complex_grad = "same"

    def __init__(self, bounds, axis):
        self.bounds, self.axis = bounds, axis

    def forward(self, xp, x):
        lead = (_ALL,) * self.axis
        edges = [0, *self.bounds, x.shape[self.axis]]
        # Copies: a slice is a view, and results must not share memory with x.
        outs = tuple(x[lead + (builtins.slice(a, b),)].copy() for a, b in zip(edges, edges[1:]))
        self.shapes = [o.shape for o in outs]
        return outs

    def backward(self, m, *grads):
        return (m.concatenate(_fill_missing(m, grads, self.shapes), axis=self.axis),)


class Stack(Op):
    attrs = ("axis",)

    complex_grad = "same"

    def __init__(self, axis):
        self.axis = axis

    def forward(self, xp, *arrays):
        return xp.stack(arrays, axis=self.axis)

    def backward(self, m, g):
        return tuple(m.unstack(g, self.axis))


class Unbind(Op):
    attrs = ("axis",)

    complex_grad = "same"

    def __init__(self, axis):
        self.axis = axis

    def forward(self, xp, x):
        self.shape = x.shape[:self.axis] + x.shape[self.axis + 1:]
        return tuple(p.copy() for p in xp.moveaxis(x, self.axis, 0))

    def backward(self, m, *grads):
        return (m.stack(_fill_missing(m, grads, [self.shape] * len(grads)), axis=self.axis),)


def _split_tensor(g, bounds, axis):
    return apply(Split(list(bounds), axis), g)


def _concat_tensors(parts, axis=0):
    return apply(Concat(axis), *parts)


def _unbind_tensor(g, axis):
    return apply(Unbind(axis), g)


def _stack_tensors(parts, axis=0):
    return apply(Stack(axis), *parts)


register("split_at", lambda xp: (lambda a, bounds, axis: xp.split(a, bounds, axis=axis)),
         _split_tensor)
register("concatenate", tensor_fn=_concat_tensors)
register("unstack", lambda xp: (lambda a, axis: tuple(xp.moveaxis(a, axis, 0))),
         _unbind_tensor)
register("stack", tensor_fn=_stack_tensors)


def concat(x, axis=0, name=None):
    """Join tensors of one dtype along an existing axis; the other dims must match.

    Example:
        >>> import dygraph
        >>> a, b = dygraph.ones([2, 3]), dygraph.zeros([1, 3])
        >>> dygraph.concat([a, b], axis=0).shape
        [3, 3]
    """
    tensors = tensor_list(x, "concat")
    first = tensors[0]._data
    nd = first.ndim
    if nd == 0:
        raise op_error("concat", "cannot concatenate 0-D tensors; use stack, or reshape them "
                       "to 1-D first")
    ax = check_axis(axis, nd, "concat")
    shape, dtype = first.shape, first.dtype
    for i, t in enumerate(tensors):
        data = t._data
        if data.shape != shape:
            _check_concat_shape(i, data.shape, shape, ax)
        if data.dtype != dtype and not amp_casts():
            raise op_error("concat", f"all inputs must have one dtype: input 0 is "
                           f"{dtype.name} but input {i} is {data.dtype.name}", TypeError)
    return apply(Concat(ax), *tensors)


def _check_concat_shape(i, got, want, axis):
    if len(got) != len(want):
        raise op_error("concat", f"input {i} has shape {list(got)} ({len(got)} dims) but "
                       f"input 0 has shape {list(want)} ({len(want)} dims)")
    for d, (a, b) in enumerate(zip(got, want)):
        if d != axis and a != b:
            raise op_error("concat", f"input {i} has shape {list(got)} but input 0 has shape "
                           f"{list(want)}: dim {d} differs ({a} vs {b}); only the concat "
                           f"axis {axis} may differ")


def stack(x, axis=0, name=None):
    """Join same-shaped tensors along a new axis.

    Example:
        >>> import dygraph
        >>> dygraph.stack([dygraph.ones([2]), dygraph.zeros([2])], axis=1).shape
        [2, 2]
    """
    tensors = tensor_list(x, "stack")
    first = tensors[0]._data
    shape, dtype = first.shape, first.dtype
    for i, t in enumerate(tensors):
        if t._data.shape != shape:
            raise op_error("stack", f"all inputs must have one shape: input 0 has shape "
                           f"{list(shape)} but input {i} has shape {t.shape}")
        if t._data.dtype != dtype and not amp_casts():
            raise op_error("stack", f"all inputs must have one dtype: input 0 is "
                           f"{dtype.name} but input {i} is {t._data.dtype.name}", TypeError)
    ax = check_axis(axis, len(shape) + 1, "stack")
    return apply(Stack(ax), *tensors)


def split(x, num_or_sections, axis=0, name=None):
    """Split into `num_or_sections` equal parts (int) or parts of the given sizes (list;
    one size may be -1, meaning the rest). Returns a list of tensors.

    Example:
        >>> import dygraph
        >>> [p.shape for p in dygraph.split(dygraph.ones([5, 2]), [2, -1])]
        [[2, 2], [3, 2]]
    """
    x = as_tensor(x, "split")
    if isinstance(num_or_sections, (int, np.integer)):  # Paddle's split_with_num kernel
        refuse_dtypes("split", x, ("complex64",), " split into a number of parts")
    nd = x._data.ndim
    if nd == 0:
        raise op_error("split", "cannot split a 0-D tensor")
    ax = check_axis(axis, nd, "split")
    size = x._data.shape[ax]
    sizes = _section_sizes(num_or_sections, size, ax, x.shape)
    return list(apply(Split(list(accumulate(sizes[:-1])), ax), x))


def _section_sizes(num_or_sections, size, axis, shape):
    if isinstance(num_or_sections, Tensor) and num_or_sections._data.ndim == 0:
        num_or_sections = int(num_or_sections)
    if isinstance(num_or_sections, (int, np.integer)):
        num = int(num_or_sections)
        if num <= 0 or size % num:
            raise op_error("split", f"cannot split dim {axis} of shape {shape} (size {size}) "
                           f"into {num} equal parts")
        return [size // num] * num
    sizes = int_list(num_or_sections, "split", "num_or_sections")
    if sizes.count(-1) > 1:
        raise op_error("split", f"only one section may be -1, got {sizes}")
    if any(s < -1 for s in sizes):
        raise op_error("split", f"section sizes must be >= 0 (or one -1), got {sizes}")
    if -1 in sizes:
        rest = size - (sum(sizes) + 1)
        if rest < 0:
            raise op_error("split", f"sections {sizes} exceed dim {axis} of shape {shape} "
                           f"(size {size})")
        sizes[sizes.index(-1)] = rest
    elif sum(sizes) != size:
        raise op_error("split", f"sections {sizes} sum to {sum(sizes)} but dim {axis} of "
                       f"shape {shape} has size {size}")
    return sizes


def chunk(x, chunks, axis=0, name=None):
    """Split into `chunks` equal parts along `axis` (the size must divide evenly).

    Example:
        >>> import dygraph
        >>> len(dygraph.chunk(dygraph.ones([6, 2]), 3))
        3
    """
    if isinstance(x, Tensor) and x._data.ndim == 0:  # Paddle: IndexError
        raise op_error("chunk", "cannot chunk a 0-D tensor", IndexValueError)
    return split(x, int(chunks), axis)


def unbind(input, axis=0):  # noqa: A002 - Paddle's argument name
    """Remove `axis`, returning the slices along it as a list.

    Example:
        >>> import dygraph
        >>> [t.shape for t in dygraph.unbind(dygraph.ones([2, 3]), axis=1)]
        [[2], [2], [2]]
    """
    x = as_tensor(input, "unbind")
    if x._data.ndim == 0:
        raise op_error("unbind", "cannot unbind a 0-D tensor")
    ax = check_axis(axis, x._data.ndim, "unbind")
    return list(apply(Unbind(ax), x))


class Tile(Op):
    attrs = ("reps",)

    complex_grad = "same"

    def __init__(self, reps):
        self.reps = reps

    def forward(self, xp, x):
        self.shape = x.shape
        return xp.tile(x, self.reps)

    def backward(self, m, g):
        # Output dim d is (reps[d], shape[d]) flattened: sum over the repeat factors.
        inter = []
        for r, s in zip(self.reps, self.shape):
            inter += [r, s]
        summed = m.sum(m.reshape(g, tuple(inter)), axis=tuple(range(0, len(inter), 2)))
        return (summed,)


def tile(x, repeat_times, name=None):
    """Repeat the whole tensor `repeat_times[d]` times along each dim d.

    Example:
        >>> import dygraph
        >>> dygraph.tile(dygraph.to_tensor([1, 2]), [2, 2]).numpy()
        array([[1, 2, 1, 2],
               [1, 2, 1, 2]])
    """
    x = as_tensor(x, "tile")
    reps = int_list(repeat_times, "tile", "repeat_times")
    if any(r <= 0 for r in reps):
        raise op_error("tile", f"repeat_times must be positive, got {reps}")
    nd = max(len(reps), x._data.ndim)
    reps = [1] * (nd - len(reps)) + reps
    if x._data.ndim < nd:
        x = reshape(x, [1] * (nd - x._data.ndim) + list(x.shape))
    return apply(Tile(tuple(reps)), x)


class Flip(Op):
    attrs = ("axes",)

    complex_grad = "same"

    def __init__(self, axes):
        self.axes = axes

    def forward(self, xp, x):
        return xp.flip(x, self.axes).copy()

    def backward(self, m, g):
        return (m.flip(g, self.axes),)


def flip(x, axis, name=None):
    """Reverse the order of elements along `axis` (int or list).

    Example:
        >>> import dygraph
        >>> dygraph.flip(dygraph.to_tensor([1, 2, 3]), 0).numpy()
        array([3, 2, 1])
    """
    x = as_tensor(x, "flip")
    axes = tuple(check_axis(a, x._data.ndim, "flip") for a in int_list(axis, "flip", "axis"))
    return apply(Flip(axes), x)


class Roll(Op):
    attrs = ("axes", "shifts")

    complex_grad = "same"

    def __init__(self, shifts, axes):
        self.shifts, self.axes = shifts, axes

    def forward(self, xp, x):
        return xp.roll(x, self.shifts, self.axes)

    def backward(self, m, g):
        back = tuple(-s for s in self.shifts) if self.axes is not None else -self.shifts
        return (m.roll(g, back, self.axes),)


register("flip", tensor_fn=lambda g, axes: apply(Flip(axes), g))
register("roll", tensor_fn=lambda g, shifts, axes: apply(Roll(shifts, axes), g))


def roll(x, shifts, axis=None, name=None):
    """Shift elements circularly by `shifts` along `axis` (None: over the flattened tensor).

    Example:
        >>> import dygraph
        >>> dygraph.roll(dygraph.to_tensor([1, 2, 3]), 1).numpy()
        array([3, 1, 2])
    """
    x = as_tensor(x, "roll")
    shift_list = int_list(shifts, "roll", "shifts")
    if axis is None:
        if len(shift_list) != 1:
            raise op_error("roll", f"with axis=None shifts must be one int, got {shift_list}")
        return apply(Roll(shift_list[0], None), x)
    axes = tuple(check_axis(a, x._data.ndim, "roll") for a in int_list(axis, "roll", "axis"))
    if len(axes) != len(shift_list):
        raise op_error("roll", f"shifts {shift_list} and axis {list(axes)} must have the same "
                       "length")
    return apply(Roll(tuple(shift_list), axes), x)


def moveaxis(x, source, destination, name=None):
    """Move dims `source` to positions `destination` (ints or lists); the rest keep order.

    Example:
        >>> import dygraph
        >>> dygraph.moveaxis(dygraph.ones([2, 3, 4]), 0, -1).shape
        [3, 4, 2]
    """
    x = as_tensor(x, "moveaxis")
    nd = x._data.ndim
    src = int_list(source, "moveaxis", "source")
    dst = int_list(destination, "moveaxis", "destination")
    for a in src + dst:  # Paddle asserts the range (AssertionError); no axis of a 0-D
        if not -nd <= a < nd:
            raise op_error("moveaxis", f"axis {a} is out of range for a tensor of shape "
                           f"{x.shape}; expected {-nd} <= axis < {nd}", AssertedValueError)
    src, dst = [a % nd for a in src], [a % nd for a in dst]
    if len(src) != len(dst):
        raise op_error("moveaxis", f"source {src} and destination {dst} must have the same "
                       "length")
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise op_error("moveaxis", f"repeated axis in source {src} or destination {dst}")
    rest = [a for a in range(nd) if a not in src]
    perm = [None] * nd
    for s, d in zip(src, dst):
        perm[d] = s
    fill = iter(rest)
    perm = [p if p is not None else next(fill) for p in perm]
    return transpose(x, perm)


def expand_as(x, y, name=None):
    """Broadcast `x` to the shape of `y` (y gives only its shape; it gets no gradient).

    Example:
        >>> import dygraph
        >>> dygraph.expand_as(dygraph.ones([1, 3]), dygraph.zeros([2, 3])).shape
        [2, 3]
    """
    x = as_tensor(x, "expand_as")
    target = as_tensor(y, "expand_as")._data.shape
    shape = x._data.shape
    lead = len(target) - len(shape)
    if lead < 0 or any(s != 1 and s != target[i + lead] for i, s in enumerate(shape)):
        raise op_error("expand_as", f"cannot expand x of shape {list(shape)} to the shape "
                       f"{list(target)} of y")
    return broadcast_to(x, list(target))
