"""Shape ops: reshape, transpose, broadcast, squeeze/unsqueeze (the family extends this file).

Results are copies when NumPy would return a view, so an in-place change to one tensor never
silently changes another. Paddle 3.3 differs: its reshape, transpose, squeeze, unsqueeze,
flatten and slices are views (an in-place change through one changes the input, and its
autograd does not see that change); DyGraph keeps the copies, which cost a pass over memory
(on a GPU a launch) per call.
"""

import numpy as np

from dygraph.autograd.function import Op, apply
from dygraph.backend.workspace import POOLED_SIZE, workspace
from dygraph.framework.errors import op_error
from dygraph.framework.free_dim import FreeDim
from dygraph.ops.common import as_tensor, check_axis, shape_list
from dygraph.ops.inplace import run_inplace
from dygraph.tensor.tensor import Tensor

__all__ = ["reshape", "transpose", "broadcast_to", "expand", "squeeze", "unsqueeze", "flatten",
           "shape_of"]
NONDIFF = {"shape_of"}


class ShapeOf(Op):
    """The shape of x (or its size along `axis`, or its element count for axis 'numel') as
    int64: an op, so that a program reads each run's shape, not the build-time one."""

    attrs = ("axis",)

    differentiable = False

    def __init__(self, axis=None):
        self.axis = axis

    def forward(self, xp, x):
        if self.axis is None:
            value = x.shape
        elif self.axis == "numel":
            value = x.size
        else:
            value = x.shape[self.axis]
        return xp.asarray(value, dtype=np.int64)

    def backward(self, m, g):
        return (None,)


def shape_of(x, axis=None):
    """x's shape as a 1-D int64 tensor; with `axis`, that dimension's size (0-D); with
    axis='numel', the element count (0-D).

    Example:
        >>> import dygraph
        >>> shape_of(dygraph.ones([2, 3])).tolist(), shape_of(dygraph.ones([2, 3]), 1).item()
        ([2, 3], 3)
    """
    return apply(ShapeOf(axis), as_tensor(x, "shape"))


class Reshape(Op):
    """x in a new shape. A 0 in `shape` keeps the input's dim there (Paddle's rule), unless
    `literal`: then every entry is the size itself (the shapes of 0-size results)."""

    attrs = ("shape", "literal")

    complex_grad = "same"
    literal = False  # programs saved before the attribute existed read 0 as "keep"

    def __init__(self, shape, literal=False):
        self.shape = shape
        self.literal = literal

    def forward(self, xp, x):
        self.in_shape = x.shape
        shape = self.shape
        if 0 in shape and not self.literal:
            # 0 keeps the input's dim (resolved here, so any batch size fits)
            shape = tuple(x.shape[i] if s == 0 else s for i, s in enumerate(shape))
        if x.size < POOLED_SIZE or xp is not np:  # CuPy: an array of its pool, 2 calls
            if x.flags.c_contiguous:
                return xp.reshape(x, shape).copy()
            return xp.ascontiguousarray(x).reshape(shape)
        out = workspace.output(xp, xp.reshape(x, shape).shape if -1 in shape else shape,
                               x.dtype)  # reused memory: backend/workspace.py
        out.reshape(x.shape)[...] = x  # one copy, also from a non-contiguous x
        return out

    def backward(self, m, g):
        return (m.reshape(g, self.in_shape),)


class Transpose(Op):
    attrs = ("perm",)

    complex_grad = "same"

    def __init__(self, perm):
        self.perm = perm

    def forward(self, xp, x):
        view = xp.transpose(x, self.perm)
        if x.size < POOLED_SIZE or xp is not np:  # CuPy: an array of its pool, one copy
            # A perm that keeps the order in memory (the identity, a size-1 dim moved) gives
            # a contiguous view, which ascontiguousarray would hand back: copy it, so the
            # result never shares the input's memory (an in-place op on it would change x).
            return view.copy() if view.flags.c_contiguous else xp.ascontiguousarray(view)
        out = workspace.output(xp, view.shape, x.dtype)  # reused memory: backend/workspace.py
        out[...] = view
        return out

    def backward(self, m, g):
        inverse = [0] * len(self.perm)
        for i, p in enumerate(self.perm):
            inverse[p] = i
        return (m.transpose(g, tuple(inverse)),)


class BroadcastTo(Op):
    attrs = ("shape",)

    complex_grad = "same"

    def __init__(self, shape):
        self.shape = shape

    def forward(self, xp, x):
        return xp.broadcast_to(x, self.shape).copy()

    def backward(self, m, g):
        return (g,)  # the engine sums the gradient back to the input's shape


def reshape(x, shape, name=None):
    """Give the data a new shape; one entry may be -1 (inferred), 0 keeps that input dim.

    Example:
        >>> import dygraph
        >>> dygraph.reshape(dygraph.arange(6), [2, -1]).shape
        [2, 3]
    """
    x = as_tensor(x, "reshape")
    if isinstance(shape, (list, tuple)) and any(type(s) is FreeDim for s in shape):
        # A free dimension of x kept in place is 0 (copy it), any other is the one -1.
        shape = [(0 if s.var is x and s.axis == i else -1) if type(s) is FreeDim else s
                 for i, s in enumerate(shape)]
    target = list(shape_list(shape, "reshape"))
    in_shape = x._data.shape
    spec = tuple(target)  # 0 and -1 stay in the op: a static program reshapes any batch
    for i, s in enumerate(target):
        if s == 0:
            if i >= len(in_shape):
                raise op_error("reshape", f"shape {target} uses 0 at position {i} but the "
                               f"input has only {len(in_shape)} dims")
            target[i] = in_shape[i]
    known = 1
    for s in target:
        if s != -1:
            known *= s
    if target.count(-1) > 1:
        raise op_error("reshape", f"only one dimension can be -1, got shape {target}")
    if -1 in target:
        if known == 0 or x._data.size % known:
            raise op_error("reshape", f"cannot reshape a tensor of shape {list(in_shape)} "
                           f"({x._data.size} elements) into {list(shape_list(shape, 'r'))}")
        target[target.index(-1)] = x._data.size // known
    elif known != x._data.size:
        raise op_error("reshape", f"cannot reshape a tensor of shape {list(in_shape)} "
                       f"({x._data.size} elements) into {target} ({known} elements)")
    return apply(Reshape(spec), x)


def transpose(x, perm, name=None):
    """Permute the dimensions: output dim i is input dim perm[i].

    Example:
        >>> import dygraph
        >>> dygraph.transpose(dygraph.ones([2, 3]), [1, 0]).shape
        [3, 2]
    """
    x = as_tensor(x, "transpose")
    perm = tuple(int(p) for p in perm)
    if sorted(p % max(x._data.ndim, 1) for p in perm) != list(range(x._data.ndim)):
        raise op_error("transpose", f"perm {list(perm)} is not a permutation of the "
                       f"{x._data.ndim} dims of a tensor of shape {x.shape}")
    return apply(Transpose(tuple(p % x._data.ndim for p in perm)), x)


def broadcast_to(x, shape, name=None):
    """Broadcast to `shape` (NumPy rules; -1 keeps the input's size).

    Example:
        >>> import dygraph
        >>> dygraph.broadcast_to(dygraph.ones([3]), [2, 3]).shape
        [2, 3]
    """
    x = as_tensor(x, "broadcast_to")
    target = list(shape_list(shape, "broadcast_to"))
    lead = len(target) - x._data.ndim
    if lead < 0:
        raise op_error("broadcast_to", f"cannot broadcast shape {x.shape} to fewer dims "
                       f"{target}")
    for i, s in enumerate(target):
        if s == -1:
            target[i] = x._data.shape[i - lead]
    for i, n in enumerate(x._data.shape):
        if n != 1 and n != target[i + lead]:
            raise op_error("broadcast_to", f"cannot broadcast shape {x.shape} to {target}: "
                           f"dim {i} is {n}, expected 1 or {target[i + lead]}")
    return apply(BroadcastTo(tuple(target)), x)


def expand(x, shape, name=None):
    """Paddle's name for broadcast_to.

    Example:
        >>> import dygraph
        >>> dygraph.expand(dygraph.ones([1, 3]), [2, 3]).shape
        [2, 3]
    """
    return broadcast_to(x, shape)


def squeeze(x, axis=None, name=None):
    """Remove size-1 dims (all of them, or those in `axis` that have size 1).

    Example:
        >>> import dygraph
        >>> dygraph.squeeze(dygraph.ones([1, 3, 1])).shape
        [3]
    """
    x = as_tensor(x, "squeeze")
    shape = x._data.shape
    if axis is None:
        target = [s for s in shape if s != 1]
    else:
        axes = axis if isinstance(axis, (list, tuple)) else [axis]
        axes = {check_axis(int(a), len(shape), "squeeze") for a in axes}
        target = [s for i, s in enumerate(shape) if not (i in axes and s == 1)]
    return apply(_computed_reshape(target), x)


def _computed_reshape(target):
    """The Reshape op to a shape computed from x's: its first dim above 1 is written -1
    (inferred), so the op fits any size there, as a static program's free batch dim needs;
    a 0-size target is taken literally (-1 cannot be inferred from no elements)."""
    if 0 in target:
        return Reshape(tuple(target), literal=True)
    spec = list(target)
    for i, s in enumerate(spec):
        if s != 1:
            spec[i] = -1
            break
    return Reshape(tuple(spec))


def reshape_computed(x, target):
    """x reshaped to `target`, a shape computed from x's (every entry is a size, 0 too),
    for ops that rearrange their input internally."""
    return apply(_computed_reshape(tuple(int(s) for s in target)), x)


def unsqueeze(x, axis, name=None):
    """Insert size-1 dims at the positions in `axis` (int or list).

    Example:
        >>> import dygraph
        >>> dygraph.unsqueeze(dygraph.ones([3]), 0).shape
        [1, 3]
    """
    x = as_tensor(x, "unsqueeze")
    axes = axis if isinstance(axis, (list, tuple)) else [axis]
    target = list(x._data.shape)
    for a in axes:
        a = int(a)
        n = len(target) + 1
        if not -n <= a < n:
            raise op_error("unsqueeze", f"axis {a} is out of range for a result of {n} dims")
        target.insert(a % n, 1)
    return apply(_computed_reshape(target), x)


def flatten(x, start_axis=0, stop_axis=-1, name=None):
    """Merge dims start_axis..stop_axis into one.

    Example:
        >>> import dygraph
        >>> dygraph.flatten(dygraph.ones([2, 3, 4]), 1).shape
        [2, 12]
    """
    x = as_tensor(x, "flatten")
    nd = x._data.ndim
    if nd == 0:
        return apply(Reshape((1,)), x)
    start = check_axis(start_axis, nd, "flatten")
    stop = check_axis(stop_axis, nd, "flatten")
    if start > stop:
        raise op_error("flatten", f"start_axis {start_axis} is after stop_axis {stop_axis}")
    shape = x._data.shape
    merged = 1
    for s in shape[start:stop + 1]:
        merged *= s
    return apply(_computed_reshape(tuple(shape[:start]) + (merged,) + tuple(shape[stop + 1:])),
                 x)


def flatten_(x, start_axis=0, stop_axis=-1, name=None):
    """In-place `flatten`; returns x. Unlike flatten, Paddle's flatten_ refuses a 0-D x
    (its axes are checked against x's zero dims): ValueError.

    Example:
        >>> import dygraph
        >>> dygraph.ones([2, 3]).flatten_().shape
        [6]
    """
    if isinstance(x, Tensor) and x._data.ndim == 0:
        raise op_error("flatten_", f"start_axis {start_axis} and stop_axis {stop_axis} are "
                       "out of range for a 0-D tensor")
    return run_inplace("flatten_", flatten, x, start_axis, stop_axis)


Tensor.flatten_ = flatten_
