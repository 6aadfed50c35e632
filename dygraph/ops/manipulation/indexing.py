"""`x[index]` and `x[index] = value` with gradients: basic slices, integer arrays, masks."""

import numpy as np

from dygraph.autograd.backward_math import register
from dygraph.autograd.function import Op, apply
from dygraph.autograd.grad_mode import state as _state
from dygraph.autograd.whole_call import captured_whole
from dygraph.backend.scatter_at import add_at
from dygraph.framework.errors import describe, op_error
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = []  # reached through Tensor.__getitem__ / __setitem__


def _convert_index(index, xp):
    """Tensors inside an index become arrays on the same device as the data."""
    if isinstance(index, tuple):
        return tuple(_convert_index(i, xp) for i in index)
    if isinstance(index, Tensor):
        data = index._data
        return data if data.ndim else data.item()
    if isinstance(index, list):
        if any(isinstance(i, Tensor) for i in index):
            return xp.asarray([i.item() if isinstance(i, Tensor) else i for i in index])
        return xp.asarray(index)
    return index


def _ints_first(index, shape):
    """Paddle (like PyTorch) applies integer indices before an array index, so
    `x[1, :, idx]` means `x[1][:, idx]`; NumPy instead joins the int to the advanced index
    and moves the result's dims to the front. For an index with integers and one array,
    return (the index with each integer as a length-1 slice, the result axes to squeeze),
    which NumPy reads the Paddle way; None when NumPy already agrees."""
    if not isinstance(index, tuple) or any(i is None for i in index):
        return None
    arrays = [i for i in index if hasattr(i, "ndim") and hasattr(i, "dtype")]
    ints = [i for i in index if isinstance(i, (int, np.integer)) and not isinstance(i, bool)]
    if len(arrays) != 1 or not ints:
        return None
    consumed = sum(i.ndim if getattr(i, "dtype", None) == np.bool_ else 1
                   for i in index if i is not Ellipsis)
    expanded = []
    for i in index:
        if i is Ellipsis:
            expanded.extend([slice(None)] * (len(shape) - consumed))
        else:
            expanded.append(i)
    new, squeeze, dim, out_axis = [], [], 0, 0
    for i in expanded:
        if isinstance(i, (int, np.integer)) and not isinstance(i, bool):
            size = shape[dim]
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for axis {dim} with size {size}")
            new.append(slice(i, i + 1 if i != -1 else None))
            squeeze.append(out_axis)
            dim, out_axis = dim + 1, out_axis + 1
        elif isinstance(i, slice):
            new.append(i)
            dim, out_axis = dim + 1, out_axis + 1
        else:  # the array: a bool mask gives one axis, an integer array its own dims
            new.append(i)
            is_mask = i.dtype == np.bool_
            dim += i.ndim if is_mask else 1
            out_axis += 1 if is_mask else i.ndim
    return tuple(new), tuple(squeeze)


def _is_basic(index):
    items = index if isinstance(index, tuple) else (index,)
    return all(isinstance(i, (int, np.integer, slice)) or i is None or i is Ellipsis
               for i in items)


def _index_on(op, xp, index):
    """`index` with its host arrays on xp's device (a GPU), made once per op: a program's
    index arrays are host attributes, which CuPy would copy at every call (and a CUDA
    graph cannot hold such a copy), and its add.at takes no host index."""
    if xp is np:
        return index
    kept = op.__dict__.get("_index_on")
    if kept is None or kept[0] is not index:
        items = index if isinstance(index, tuple) else (index,)
        moved = tuple(xp.asarray(i) if type(i) is np.ndarray else i for i in items)
        kept = op._index_on = (index, moved if isinstance(index, tuple) else moved[0])
    return kept[1]


class GetItem(Op):
    attrs = ("index",)

    complex_grad = "same"

    def __init__(self, index):
        self.index = index

    def forward(self, xp, x):
        self.in_shape, self.in_dtype = x.shape, x.dtype
        out = x[_index_on(self, xp, self.index)]
        if not isinstance(out, type(x)):
            return xp.asarray(out)
        # Basic slicing gives a view: copy so later in-place changes stay apart.
        return out.copy() if xp.may_share_memory(out, x) else out

    def backward(self, m, g):
        # (with create_graph the IndexPutZeros op moves the index itself)
        index = self.index if m.tensor_mode else _index_on(self, m.xp, self.index)
        return (m.index_put_zeros(self.in_shape, self.in_dtype, index, g),)


class IndexPutZeros(Op):
    """zeros(shape) with `g` scattered (added) at `index`: the adjoint of GetItem."""

    attrs = ("dtype", "index", "shape")

    complex_grad = "same"

    def __init__(self, shape, dtype, index):
        self.shape, self.dtype, self.index = shape, dtype, index

    def forward(self, xp, g):
        return _scatter_zeros(xp, self.shape, self.dtype, _index_on(self, xp, self.index), g)

    def backward(self, m, gg):
        return (m.getitem(gg, self.index),)


def _scatter_zeros(xp, shape, dtype, index, g):
    out = xp.zeros(shape, dtype)
    if _is_basic(index):
        out[index] = g
    else:
        add_at(xp, out, index, g)
    return out


def _getitem_tensor(g, index):
    return apply(GetItem(index), g)


register("index_put_zeros",
         lambda xp: (lambda shape, dtype, index, g: _scatter_zeros(xp, shape, dtype, index, g)),
         lambda shape, dtype, index, g: apply(IndexPutZeros(shape, dtype, index), g))
register("getitem", lambda xp: (lambda a, index: a[index]), _getitem_tensor)


def _placeholders(index, parts):
    """`index` with each Tensor in it replaced by {"part": i}, the Tensor going to parts[i]
    (a program records the index as data and the Tensors as inputs)."""
    if isinstance(index, Tensor):
        parts.append(index)
        return {"part": len(parts) - 1}
    if isinstance(index, (tuple, list)):
        return type(index)(_placeholders(i, parts) for i in index)
    return index


def _filled(template, parts):
    if isinstance(template, dict):
        return parts[template["part"]]
    if isinstance(template, (tuple, list)):
        return type(template)(_filled(t, parts) for t in template)
    return template


@captured_whole(free_dims=(0,))
def _index_by_tensors(x, parts, template):
    """x[index] for an index holding program values (a mask, indices computed by ops):
    one op of the program that indexes with each run's values (its first dimension free:
    a mask's count of True values is the run's)."""
    return getitem(x, _filled(template, parts))


def getitem(x, index):
    """x[index]: basic slicing, integer arrays, bool masks, None and Ellipsis.

    Example:
        >>> import dygraph
        >>> dygraph.arange(6).reshape([2, 3])[:, 1].tolist()
        [1, 4]
    """
    if _state.static_program is not None:
        parts = []
        template = _placeholders(index, parts)
        from dygraph.static.program import Variable

        if any(isinstance(p, Variable) for p in parts):  # a program value indexes
            return _index_by_tensors(x, parts, template)
    xp = np if type(x._data) is np.ndarray else _xp(x._data)
    idx = _convert_index(index, xp)
    try:
        reordered = _ints_first(idx, x._data.shape)
        if reordered is None:
            return apply(GetItem(idx), x)
        from dygraph.ops.manipulation.shape import squeeze

        return squeeze(apply(GetItem(reordered[0]), x), list(reordered[1]))
    except IndexError as exc:
        cause = getattr(exc, "dygraph_cause", exc)  # NumPy's words, not an earlier wrapping
        raise op_error("getitem", f"index {index!r} is out of range for a tensor of shape "
                       f"{x.shape}: {cause}", IndexError) from None


def _xp(array):
    from dygraph.backend import get_array_module

    return get_array_module(array)


class SetItem(Op):
    attrs = ("index",)

    complex_grad = "same"

    def __init__(self, index):
        self.index = index

    def forward(self, xp, x, v):
        self.v_shape = v.shape
        out = x.copy()
        out[self.index] = v
        return out

    def backward(self, m, g):
        gx = _mask_out(m, g, self.index) if self.edges[0] is not None else None
        gv = None
        if self.edges[1] is not None:
            gv = m.getitem(g, self.index)
        return gx, gv


def _mask_out(m, g, index):
    """g with the assigned positions zeroed (they no longer depend on the old x)."""
    data = m.data(g)
    xp = np if type(data) is np.ndarray else _xp(data)
    keep = xp.ones(data.shape, dtype=data.dtype)
    keep[index] = 0
    return g * keep


def setitem(x, index, value):
    """x[index] = value, in place; recorded for backward when x or value needs gradients.

    Example:
        >>> import dygraph
        >>> x = dygraph.zeros([3]); x[1] = 5.0; x.tolist()
        [0.0, 5.0, 0.0]
    """
    try:
        _setitem(x, index, value)
    except (IndexError, ValueError) as exc:
        if getattr(exc, "dygraph_op", None) and not hasattr(exc, "dygraph_cause"):
            raise exc from None  # a check of ours, already in the final form
        exc = getattr(exc, "dygraph_cause", exc)
        what = "is out of range for" if isinstance(exc, IndexError) else "does not fit"
        raise op_error("setitem", f"index {index!r} {what} a tensor of shape {x.shape} "
                       f"(value: {describe(value)}): {exc}", type(exc)) from None


def _setitem(x, index, value):
    xp = np if type(x._data) is np.ndarray else _xp(x._data)
    idx = _convert_index(index, xp)
    tracked = _state.grad_on and (
        not x._sg or (isinstance(value, Tensor) and not value._sg))
    if not isinstance(value, Tensor):
        value = _new_tensor(xp.asarray(value, dtype=x._data.dtype), None, 0, True)
    elif value._data.dtype != x._data.dtype:
        from dygraph.ops.common import cast

        value = cast(value, x._data.dtype)
    reordered = _ints_first(idx, x._data.shape)
    if reordered is not None:  # see _ints_first: the value goes where Paddle puts it
        from dygraph.ops.manipulation.shape import broadcast_to, unsqueeze

        idx, axes = reordered
        target = list(np.empty(x._data.shape, dtype=np.bool_)[idx].shape)
        for axis in reversed(axes):
            del target[axis]
        value = unsqueeze(broadcast_to(value, target), list(axes)) if axes else value
    if _state.static_program is not None:
        from dygraph.static.program import Variable

        if isinstance(x, Variable):  # a program value: the op is recorded, x takes it
            x._take(apply(SetItem(idx), x, value), "__setitem__")
            return
    if not tracked:
        x._data[idx] = value._data
        x._version[0] += 1
        return
    x._bump_version("__setitem__")
    snapshot = _new_tensor(x._data, x._node, x._idx, x._sg)
    out = apply(SetItem(idx), snapshot, value)
    x._data, x._node, x._idx, x._sg = out._data, out._node, out._idx, out._sg
