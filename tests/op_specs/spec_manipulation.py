"""Spec entries for the manipulation family (join/split, gather/scatter, slice, pad, diag).

These ops are linear in their float inputs, so the second derivative of the op alone is
zero and would not exercise its create_graph formula. Every entry therefore also comes as
an "-sq" variant, op(x) ** 2, whose double backward runs through the op's gradient formula
on Tensors.
"""

import numpy as np

import dygraph as D
from tests.op_specs import OpSpec

A = (3, 4)
B = (2, 3, 4)
I32, I64 = np.int32, np.int64


def _square(result):
    if isinstance(result, (list, tuple)):
        return [r * r for r in result]
    return result * result


def _both(name, fn, ref, inputs, id="", **kw):  # noqa: A002 - OpSpec's field name
    """The entry itself and its squared variant."""
    return [OpSpec(name, fn, ref, inputs, id=id, **kw),
            OpSpec(name, lambda *a: _square(fn(*a)), lambda *a: _square(ref(*a)), inputs,
                   id=f"{id}-sq" if id else "sq", **kw)]


def _scatter_ref(overwrite):
    def ref(x, index, updates):
        out = x.copy()
        if overwrite:
            for k, i in enumerate(index):
                out[i] = updates[k]
        else:
            out[index] = 0
            np.add.at(out, index, updates[:len(index)])
        return out

    return ref


def _index_add_ref(axis):
    def ref(x, index, value):
        out = x.copy()
        np.add.at(out, (slice(None),) * axis + (index,), value)
        return out

    return ref


def _nd_add_ref(x, index, updates):
    out = x.copy()
    np.add.at(out, (index[:, 0], index[:, 1]), updates)
    return out


def _put_ref(reduce, axis, include_self=True):
    """Element-by-element reference for put_along_axis (writes in C order)."""
    combine = {"add": np.add, "mul": np.multiply, "amax": np.maximum, "amin": np.minimum,
               "mean": np.add}

    def ref(arr, indices, values):
        values = np.broadcast_to(values, indices.shape)
        out = arr.copy()
        counts = {}
        for pos in np.ndindex(indices.shape):
            t = list(pos)
            t[axis] = indices[pos]
            t = tuple(t)
            first = t not in counts
            counts[t] = counts.get(t, 1 if include_self else 0) + 1
            if reduce == "assign" or (first and not include_self):
                out[t] = values[pos]
            else:
                out[t] = combine[reduce](out[t], values[pos])
        if reduce == "mean":
            for t, c in counts.items():
                out[t] = out[t] / c
        return out

    return ref


def _diag_ref(offset, padding):
    def ref(x):
        if x.ndim == 2:
            return np.diag(x, offset)
        out = np.diag(x, offset)
        return np.where(np.diag(np.ones_like(x), offset) == 1, out, padding)

    return ref


MASK = np.array([[True, False, True, False], [False, False, True, True], [True] * 4])
DUP = np.array([2, 0, 2], I64)
TAKE = np.array([[0, 3], [1, 1], [2, 0]], I64)

SPECS = [
    *_both("concat", lambda a, b: D.concat([a, b], axis=1),
           lambda a, b: np.concatenate([a, b], 1), [(3, 2), A]),
    *_both("concat", lambda a, b, c: D.concat([a, b, c], axis=-1),
           lambda a, b, c: np.concatenate([a, b, c], -1), [(2, 1), (2, 3), (2, 2)],
           id="three-neg-axis"),
    *_both("stack", lambda a, b: D.stack([a, b], axis=1), lambda a, b: np.stack([a, b], 1),
           [A, A]),
    *_both("split", lambda x: D.split(x, [1, -1, 2], axis=1),
           lambda x: np.split(x, [1, 3], axis=1), [(3, 5)]),
    *_both("split", lambda x: D.split(x, 2, axis=-1), lambda x: np.split(x, 2, axis=-1),
           [A], id="equal"),
    *_both("chunk", lambda x: D.chunk(x, 3, axis=0), lambda x: np.split(x, 3, axis=0),
           [(3, 2)]),
    *_both("unbind", lambda x: D.unbind(x, axis=1), lambda x: list(np.moveaxis(x, 1, 0)),
           [A]),
    *_both("tile", lambda x: D.tile(x, [2, 1, 3]), lambda x: np.tile(x, (2, 1, 3)), [A]),
    *_both("flip", lambda x: D.flip(x, [0, -1]), lambda x: x[::-1, ::-1], [A]),
    *_both("roll", lambda x: D.roll(x, [1, -2], [0, 1]),
           lambda x: np.roll(x, (1, -2), (0, 1)), [A]),
    *_both("roll", lambda x: D.roll(x, 5), lambda x: np.roll(x, 5), [A], id="flat"),
    *_both("moveaxis", lambda x: D.moveaxis(x, [0, 1], [-1, 0]),
           lambda x: np.moveaxis(x, [0, 1], [-1, 0]), [B]),
    *_both("expand_as", D.expand_as, lambda x, y: np.broadcast_to(x, y.shape),
           [(3, 1), B], grad_inputs=[0]),
    *_both("gather", lambda x, i: D.gather(x, i, axis=1), lambda x, i: np.take(x, i, 1),
           [A, np.array([3, 0, 3], I32)]),
    *_both("gather_nd", D.gather_nd, lambda x, i: x[i[:, 0], i[:, 1]],
           [B, np.array([[0, 1], [1, 2], [0, 1]], I64)]),
    *_both("index_select", lambda x, i: D.index_select(x, i, axis=0),
           lambda x, i: x[i], [A, DUP]),
    *_both("take_along_axis", lambda x, i: D.take_along_axis(x, i, 1),
           lambda x, i: np.take_along_axis(x, i, 1), [A, TAKE]),
    *_both("take_along_axis", lambda x, i: D.take_along_axis(x, i, 0),
           lambda x, i: np.take_along_axis(x, i, 0), [A, np.array([[2, 0, -1, 1]], I32)],
           id="broadcast-negative"),
    *_both("masked_select", D.masked_select, lambda x, m: x[m], [A, MASK]),
    *_both("masked_select", D.masked_select, lambda x, m: x[np.broadcast_to(m, A)],
           [A, MASK[1]], id="broadcast"),
    *_both("masked_fill", lambda x, m: D.masked_fill(x, m, 0.5),
           lambda x, m: np.where(m, 0.5, x), [A, MASK[0]]),
    *_both("masked_fill", D.masked_fill, lambda x, m, v: np.where(m, v, x),
           [A, MASK, lambda rng: rng.uniform(-1, 1, ())], id="tensor-value"),
    *_both("slice", lambda x: D.slice(x, [0, 1], [1, -3], [10, -1]),
           lambda x: x[1:10, -3:-1], [A]),
    *_both("strided_slice", lambda x: D.strided_slice(x, [0, 1], [2, 0], [-4, 4], [-1, 2]),
           lambda x: x[2::-1, 0:4:2], [A]),
    *_both("repeat_interleave", lambda x, r: D.repeat_interleave(x, r, 0),
           lambda x, r: np.repeat(x, r, 0), [A, np.array([1, 0, 2], I64)]),
    *_both("repeat_interleave", lambda x: D.repeat_interleave(x, 2),
           lambda x: np.repeat(x, 2), [A], id="flat"),
    *_both("tril", lambda x: D.tril(x, -1), lambda x: np.tril(x, -1), [B]),
    *_both("triu", lambda x: D.triu(x, 1), lambda x: np.triu(x, 1), [B]),
    *_both("diag", lambda x: D.diag(x, 1, 0.5), _diag_ref(1, 0.5), [(3,)]),
    *_both("diag", lambda x: D.diag(x, -1), _diag_ref(-1, 0), [A], id="extract"),
    *_both("diagonal", lambda x: D.diagonal(x, 1, 2, 0),
           lambda x: np.diagonal(x, 1, 2, 0), [B]),
    *_both("scatter", D.scatter, _scatter_ref(True), [A, np.array([2, 0], I64), (2, 4)]),
    *_both("scatter", D.scatter, _scatter_ref(True), [A, DUP, A], id="repeated"),
    *_both("scatter", lambda x, i, u: D.scatter(x, i, u, overwrite=False),
           _scatter_ref(False), [A, DUP, A], id="accumulate"),
    *_both("scatter_nd_add", D.scatter_nd_add, _nd_add_ref,
           [B, np.array([[0, 1], [1, 2], [0, 1]], I64), (3, 4)]),
    *_both("index_add", lambda x, i, v: D.index_add(x, i, 1, v), _index_add_ref(1),
           [A, np.array([3, 0, 3], I32), (3, 3)]),
    *_both("put_along_axis", lambda x, i, v: D.put_along_axis(x, i, v, 1),
           _put_ref("assign", 1), [A, TAKE, (3, 2)]),
    *_both("put_along_axis", lambda x, i, v: D.put_along_axis(x, i, v, 1, "add"),
           _put_ref("add", 1), [A, TAKE, (3, 2)], id="add"),
    *_both("put_along_axis", lambda x, i, v: D.put_along_axis(x, i, v, 0, "mul"),
           _put_ref("mul", 0), [A, np.array([[2, 0, 1, 1]], I64), (1, 4)], id="mul"),
    *_both("put_along_axis",
           lambda x, i, v: D.put_along_axis(x, i, v, 1, "mean", include_self=False),
           _put_ref("mean", 1, include_self=False), [A, TAKE, (3, 2)], id="mean"),
    *_both("put_along_axis", lambda x, i, v: D.put_along_axis(x, i, v, 1, "amax"),
           _put_ref("amax", 1), [A, TAKE, (3, 2)], id="amax"),
    *_both("put_along_axis",
           lambda x, i, v: D.put_along_axis(x, i, v, 1, "amin", include_self=False),
           _put_ref("amin", 1, include_self=False), [A, TAKE, (3, 2)], id="amin"),
    *_both("pad", lambda x: D.pad(x, [1, 0, 0, 2], value=0.5),
           lambda x: np.pad(x, ((1, 0), (0, 2)), constant_values=0.5), [A]),
    *_both("pad", lambda x: D.pad(x, [1, 2, 0, 1], mode="reflect"),
           lambda x: np.pad(x, ((0, 0), (0, 0), (0, 1), (1, 2)), mode="reflect"),
           [(1, 2, 3, 4)], id="reflect"),
    *_both("pad", lambda x: D.pad(x, [2, 1], mode="replicate", data_format="NCL"),
           lambda x: np.pad(x, ((0, 0), (0, 0), (2, 1)), mode="edge"), [B], id="replicate"),
    *_both("pad", lambda x: D.pad(x, [1, 1, 2, 0], mode="circular", data_format="NHWC"),
           lambda x: np.pad(x, ((0, 0), (2, 0), (1, 1), (0, 0)), mode="wrap"),
           [(1, 3, 4, 2)], id="circular"),
]
