"""ONNX mappings of the shape ops: shape queries, reshape, transpose, concat, split, stack,
unbind, basic indexing (slices, integers, None, Ellipsis), tile, broadcast, flip and
constant padding.

Reshape targets keep the -1 and 0 entries the op was built with, so an export with a free
batch dimension runs at any batch size.

Example:
    >>> from dygraph.ops.manipulation.shape import Reshape
    >>> from dygraph.onnx.graph import MAPPINGS
    >>> Reshape in MAPPINGS
    True
"""

import numpy as np

from dygraph.onnx.graph import INT64_MAX, INT64_MIN, maps
from dygraph.ops.manipulation.indexing import GetItem
from dygraph.ops.manipulation.pad import ConstantPad
from dygraph.ops.manipulation.rearrange import Concat, Flip, Split, Stack, Tile, Unbind
from dygraph.ops.manipulation.shape import BroadcastTo, Reshape, ShapeOf, Transpose

__all__ = []


def unsupported(what):
    return NotImplementedError(f"paddle.onnx.export: {what} has no ONNX mapping")


@maps(Reshape)
def _reshape(g, op, ins, outs):
    return g.add("Reshape", [ins[0], g.ints(op.shape)], outs)


@maps(ShapeOf)
def _shape_of(g, op, ins, outs):
    """Shape, then Gather of one dimension (a 0-D result) or Size for the element count:
    a free dimension's size is read from each run's input."""
    if op.axis == "numel":
        return g.add("Size", ins, outs)
    if op.axis is None:
        return g.add("Shape", ins, outs)
    shape = g.add("Shape", ins)
    return g.add("Gather", [shape, g.const(np.int64(op.axis), hint="axis")], outs, axis=0)


@maps(Transpose)
def _transpose(g, op, ins, outs):
    return g.add("Transpose", ins, outs, perm=[int(p) for p in op.perm])


@maps(BroadcastTo)
def _broadcast(g, op, ins, outs):
    return g.add("Expand", [ins[0], g.ints(op.shape)], outs)


@maps(Concat)
def _concat(g, op, ins, outs):
    return g.add("Concat", ins, outs, axis=int(op.axis))


@maps(Split)
def _split(g, op, ins, outs):
    # Slices between the bounds (the last one open), so the split axis may even be free.
    edges = [0, *op.bounds, INT64_MAX]
    axis = g.ints([op.axis])
    for start, end, out in zip(edges, edges[1:], outs):
        g.add("Slice", [ins[0], g.ints([start]), g.ints([end]), axis], [out])
    return outs


@maps(Stack)
def _stack(g, op, ins, outs):
    axis = int(op.axis) % (g.rank(ins[0]) + 1)
    parts = [g.axes_op("Unsqueeze", x, [axis]) for x in ins]
    return g.add("Concat", parts, outs, axis=axis)


@maps(Unbind)
def _unbind(g, op, ins, outs):
    for i, out in enumerate(outs):
        g.add("Gather", [ins[0], g.const(np.int64(i))], [out], axis=int(op.axis))
    return outs


@maps(Tile)
def _tile(g, op, ins, outs):
    return g.add("Tile", [ins[0], g.ints(op.reps)], outs)


@maps(Flip)
def _flip(g, op, ins, outs):
    n = len(op.axes)
    return g.add("Slice", [ins[0], g.ints([-1] * n), g.ints([INT64_MIN] * n),
                           g.ints(op.axes), g.ints([-1] * n)], outs)


@maps(ConstantPad)
def _pad(g, op, ins, outs):
    pads = [int(a) for a, _ in op.widths] + [int(b) for _, b in op.widths]
    return g.add("Pad", [ins[0], g.ints(pads), g.scalar(op.value, ins[0])], outs)


def _expand_ellipsis(items, rank):
    consumed = sum(1 for i in items if i is not None and i is not Ellipsis)
    out = []
    for i in items:
        out.extend([slice(None)] * (rank - consumed) if i is Ellipsis else [i])
    if Ellipsis not in items:
        out.extend([slice(None)] * (rank - consumed))
    return out


@maps(GetItem)
def _getitem(g, op, ins, outs):
    items = op.index if isinstance(op.index, tuple) else (op.index,)
    for i in items:
        if not (i is None or i is Ellipsis or isinstance(i, slice) or
                isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_))):
            raise unsupported(f"indexing with {type(i).__name__} (only slices, integers, None "
                              "and ... are exported)")
    starts, ends, axes, steps, squeeze, unsqueeze = [], [], [], [], [], []
    axis = position = 0
    for i in _expand_ellipsis(items, g.rank(ins[0])):
        if i is None:
            unsqueeze.append(position)
            position += 1
            continue
        if isinstance(i, slice):
            step = 1 if i.step is None else int(i.step)
            if i != slice(None):
                lo, hi = (0, INT64_MAX) if step > 0 else (-1, INT64_MIN)
                starts.append(lo if i.start is None else int(i.start))
                ends.append(hi if i.stop is None else int(i.stop))
                axes.append(axis)
                steps.append(step)
            position += 1
        else:  # an integer: a length-1 slice, squeezed below
            i = int(i)
            starts.append(i)
            ends.append(i + 1 if i != -1 else INT64_MAX)
            axes.append(axis)
            steps.append(1)
            squeeze.append(axis)
        axis += 1
    x = ins[0]
    if axes:
        x = g.add("Slice", [x, g.ints(starts), g.ints(ends), g.ints(axes), g.ints(steps)])
    if squeeze:
        x = g.axes_op("Squeeze", x, squeeze)
    if unsqueeze:
        x = g.axes_op("Unsqueeze", x, unsqueeze)
    return g.add("Identity", [x], outs)
