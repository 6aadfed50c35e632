"""Spec entries for the Paddle 3 shape ops: joins and splits (ops/manipulation/join.py),
views (ops/manipulation/view.py) and the index scatters (ops/manipulation/scatter_index.py).

They are linear in their float inputs, so, as in spec_manipulation, each entry also comes
as an "-sq" variant (the result squared) whose double backward runs through the op's
gradient formula.
"""

import numpy as np

import dygraph as D
from tests.op_specs.spec_manipulation import _both

A = (3, 4)
B = (2, 3, 4)
I64 = np.int64


def _block_diag_ref(*blocks):
    mats = [np.atleast_2d(b) for b in blocks]
    out = np.zeros((sum(m.shape[0] for m in mats), sum(m.shape[1] for m in mats)))
    r = c = 0
    for m in mats:
        out[r:r + m.shape[0], c:c + m.shape[1]] = m
        r, c = r + m.shape[0], c + m.shape[1]
    return out


def _as_strided_ref(x):
    return np.lib.stride_tricks.as_strided(x.reshape(-1)[1:], (3, 2), (8, 16)).copy()


def _unfold_ref(x):
    return np.lib.stride_tricks.sliding_window_view(x, 2, axis=1)[:, ::2].copy()


def _diag_embed_ref(x):
    out = np.zeros(x.shape[:-1] + (4, 4))
    for i in range(3):
        out[..., i, i + 1] = x[..., i]
    return np.moveaxis(out, (-2, -1), (0, 2))


def _scatter_reduce_ref(reduce, include_self):
    combine = {"sum": np.add, "prod": np.multiply, "amax": np.maximum, "amin": np.minimum}

    def ref(x, index, src):
        out = x.copy()
        seen = set()
        for i, j in np.ndindex(index.shape):
            t = (i, index[i, j])
            if t not in seen and not include_self:
                out[t] = src[i, j]
            else:
                out[t] = combine[reduce](out[t], src[i, j])
            seen.add(t)
        return out

    return ref


def _index_put_ref(accumulate):
    def ref(x, rows, cols, value):
        out = x.copy()
        if accumulate:
            np.add.at(out, (rows, cols), value)
        else:
            out[rows, cols] = value
        return out

    return ref


def _masked_scatter_ref(x, mask, value):
    out = x.copy()
    m = np.broadcast_to(mask, x.shape)
    out[m] = value.reshape(-1)[:m.sum()]
    return out


def _diagonal_scatter_ref(x, y):
    out = x.copy()
    for b in range(x.shape[1]):
        for i in range(y.shape[1]):
            out[i, b, i + 1] = y[b, i]
    return out


def _slice_scatter_ref(x, v):
    out = x.copy()
    out[:, 3:0:-2] = v
    return out


def _select_scatter_ref(x, v):
    out = x.copy()
    out[:, -1] = v
    return out


ROWS = np.array([0, 2, 0], I64)
COLS = np.array([1, 3, 1], I64)
SCAT = np.array([[0, 0, 2], [3, 1, 1], [2, 2, 2]], I64)
MASK = np.array([True, False, True, True])

SPECS = [
    *_both("atleast_1d", D.atleast_1d, np.atleast_1d, [()]),
    *_both("atleast_2d", lambda a, b: D.atleast_2d(a, b),
           lambda a, b: [np.atleast_2d(a), np.atleast_2d(b)], [(3,), A]),
    *_both("atleast_3d", lambda a, b: D.atleast_3d(a, b),
           lambda a, b: [np.atleast_3d(a), np.atleast_3d(b)], [(3,), A]),
    *_both("hstack", lambda a, b: D.hstack([a, b]), lambda a, b: np.hstack([a, b]),
           [(3, 2), A]),
    *_both("vstack", lambda a, b: D.vstack([a, b]), lambda a, b: np.vstack([a, b]),
           [(4,), A]),
    *_both("row_stack", lambda a, b: D.row_stack([a, b]), lambda a, b: np.vstack([a, b]),
           [(2, 4), A]),
    *_both("dstack", lambda a, b: D.dstack([a, b]), lambda a, b: np.dstack([a, b]),
           [A, A]),
    *_both("column_stack", lambda a, b: D.column_stack([a, b]),
           lambda a, b: np.column_stack([a, b]), [(3,), A]),
    *_both("tensor_split", lambda x: D.tensor_split(x, 3, axis=1),
           lambda x: np.array_split(x, 3, axis=1), [A]),
    *_both("tensor_split", lambda x: D.tensor_split(x, [1, 3], axis=1),
           lambda x: np.array_split(x, [1, 3], axis=1), [A], id="indices"),
    *_both("hsplit", lambda x: D.hsplit(x, 2), lambda x: np.hsplit(x, 2), [A]),
    *_both("vsplit", lambda x: D.vsplit(x, [2]), lambda x: np.vsplit(x, [2]), [A]),
    *_both("dsplit", lambda x: D.dsplit(x, 2), lambda x: np.dsplit(x, 2), [B]),
    *_both("split_with_sizes", lambda x: D.split_with_sizes(x, [1, 3], 1),
           lambda x: np.split(x, [1], axis=1), [A]),
    *_both("unstack", lambda x: D.unstack(x, axis=1), lambda x: list(np.moveaxis(x, 1, 0)),
           [A]),
    *_both("block_diag", lambda a, b, c: D.block_diag([a, b, c]), _block_diag_ref,
           [(2, 3), (3,), ()]),
    *_both("cartesian_prod", lambda a, b: D.cartesian_prod([a, b]),
           lambda a, b: np.stack([np.repeat(a, 3), np.tile(b, 2)], 1), [(2,), (3,)]),
    *_both("broadcast_tensors", lambda a, b: D.broadcast_tensors([a, b]),
           lambda a, b: list(np.broadcast_arrays(a, b)), [(3, 1), (4,)]),
    *_both("meshgrid", lambda a, b: D.meshgrid(a, b),
           lambda a, b: list(np.meshgrid(a, b, indexing="ij")), [(3,), (2,)]),
    *_both("meshgrid", lambda a, b, c: D.meshgrid([a, b, c], indexing="xy"),
           lambda a, b, c: list(np.meshgrid(a, b, c, indexing="xy")), [(3,), (2,), (4,)],
           id="xy"),
    *_both("unflatten", lambda x: D.unflatten(x, 1, [2, -1]),
           lambda x: x.reshape(3, 2, 2), [A]),
    *_both("view", lambda x: D.view(x, [4, 3]), lambda x: x.reshape(4, 3), [A]),
    *_both("view_as", D.view_as, lambda x, y: x.reshape(y.shape), [A, (2, 6)],
           grad_inputs=[0]),
    *_both("as_strided", lambda x: D.as_strided(x, [3, 2], [1, 2], 1), _as_strided_ref,
           [A]),
    *_both("unfold", lambda x: D.unfold(x, 1, 2, 2), _unfold_ref, [A]),
    *_both("unfold", lambda x: D.unfold(x, 0, 2, 1),
           lambda x: np.stack([x[0:2], x[1:3]]).transpose(0, 2, 1), [A], id="overlap"),
    *_both("narrow", lambda x: D.narrow(x, 1, -3, 2), lambda x: x[:, 1:3], [A]),
    *_both("permute", lambda x: D.permute(x, 2, 0, 1), lambda x: x.transpose(2, 0, 1), [B]),
    *_both("ravel", D.ravel, np.ravel, [A]),
    *_both("reverse", lambda x: D.reverse(x, [0, 1]), lambda x: x[::-1, ::-1], [A]),
    *_both("rot90", lambda x: D.rot90(x, 1, [0, 2]), lambda x: np.rot90(x, 1, (0, 2)), [B]),
    *_both("rot90", lambda x: D.rot90(x, -1), lambda x: np.rot90(x, -1), [A], id="k=-1"),
    *_both("crop", lambda x: D.crop(x, [2, -1], [1, 1]), lambda x: x[1:3, 1:], [A]),
    *_both("diag_embed", lambda x: D.diag_embed(x, 1, 0, 2), _diag_embed_ref, [(2, 3)]),
    *_both("diagflat", lambda x: D.diagflat(x, -1), lambda x: np.diagflat(x, -1), [(2, 2)]),
    *_both("scatter_reduce", lambda x, i, s: D.scatter_reduce(x, 1, i, s, "sum"),
           _scatter_reduce_ref("sum", True), [A, SCAT, (3, 3)]),
    *_both("scatter_reduce",
           lambda x, i, s: D.scatter_reduce(x, 1, i, s, "prod", include_self=False),
           _scatter_reduce_ref("prod", False), [A, SCAT, (3, 3)], id="prod"),
    *_both("scatter_reduce", lambda x, i, s: D.scatter_reduce(x, 1, i, s, "amax"),
           _scatter_reduce_ref("amax", True), [A, SCAT, (3, 3)], id="amax"),
    *_both("scatter_add", lambda x, i, s: D.scatter_add(x, 1, i, s),
           _scatter_reduce_ref("sum", True), [A, SCAT, (3, 3)]),
    *_both("scatter_nd", lambda i, u: D.scatter_nd(i, u, [3, 4]),
           lambda i, u: _index_put_ref(True)(np.zeros(A), i[:, 0], i[:, 1], u),
           [np.array([[0, 1], [2, 3], [0, 1]], I64), (3,)]),
    *_both("index_fill", lambda x, i: D.index_fill(x, i, 1, 0.5),
           lambda x, i: np.where(np.isin(np.arange(4), i), 0.5, x),
           [A, np.array([0, 2], I64)]),
    *_both("index_fill", lambda x, i, v: D.index_fill(x, i, 0, v),
           lambda x, i, v: np.where(np.isin(np.arange(3), i)[:, None], v, x),
           [A, np.array([1], I64), ()], id="tensor-value"),
    *_both("index_put", lambda x, r, c, v: D.index_put(x, (r, c), v),
           _index_put_ref(False), [A, ROWS, COLS, (1,)]),
    *_both("index_put", lambda x, r, c, v: D.index_put(x, (r, c), v, accumulate=True),
           _index_put_ref(True), [A, ROWS, COLS, (3,)], id="accumulate"),
    *_both("masked_scatter", D.masked_scatter, _masked_scatter_ref, [A, MASK, (10,)]),
    *_both("diagonal_scatter", lambda x, y: D.diagonal_scatter(x, y, 1, 0, 2),
           _diagonal_scatter_ref, [B, (3, 2)]),
    *_both("select_scatter", lambda x, v: D.select_scatter(x, v, 1, -1),
           _select_scatter_ref, [A, (3,)]),
    *_both("slice_scatter", lambda x, v: D.slice_scatter(x, v, [1], [3], [0], [-2]),
           _slice_scatter_ref, [A, (3, 2)]),
    *_both("index_sample", D.index_sample,
           lambda x, i: np.take_along_axis(x, i, 1), [A, SCAT]),
    *_both("take", lambda x, i: D.take(x, i), lambda x, i: np.take(x, i),
           [A, np.array([[0, -1], [5, 5]], I64)]),
    *_both("take", lambda x, i: D.take(x, i, mode="clip"),
           lambda x, i: np.take(x, i, mode="clip"), [A, np.array([-3, 20, 2], I64)],
           id="clip"),
    *_both("multiplex", lambda a, b, i: D.multiplex([a, b], i),
           lambda a, b, i: np.where(i == 1, b, a), [A, A, np.array([[1], [0], [1]], I64)]),
]
