"""Spec entries for dygraph.sparse: the sparse x dense product op (SparseDenseMatmul) and
the sparse functions built on gathers and scatters of the stored values.

Each entry builds its sparse tensors from a fixed index pattern and the entry's random
values (sparse_coo_tensor / sparse_csr_tensor with stop_gradient=False, so the values
carry the gradient) and returns a dense result: the product, or the output's values.
References scatter the values into dense NumPy arrays and compute densely.
"""

import itertools

import numpy as np

import dygraph as D
from tests.op_specs import OpSpec

S = D.sparse
F = D.sparse.nn.functional

IDX = np.array([[0, 0, 1, 2, 3, 3, 3], [1, 4, 2, 0, 0, 2, 4]])  # 7 entries of a [4, 5]
CROWS = [0, 2, 2, 3, 0, 1, 3, 3]  # a batch of two [3, 4] matrices
COLS = [0, 3, 1, 2, 0, 3]
REPEATED = np.array([[2, 0, 2, 1], [1, 1, 1, 0]])  # (2, 1) twice
POINTS = np.array([[0, 0, 0, 0, 1, 1], [0, 1, 1, 2, 0, 2], [1, 0, 2, 2, 1, 1],
                   [2, 1, 0, 2, 0, 3]])  # 6 points of a [2, 3, 3, 4] grid


def _coo(v, idx=IDX, shape=(4, 5)):
    return S.sparse_coo_tensor(idx, v, list(shape), stop_gradient=False)


def _csr(v):
    return S.sparse_csr_tensor(CROWS, COLS, v, [2, 3, 4], stop_gradient=False)


def _dense(v, idx=IDX, shape=(4, 5)):
    out = np.zeros(tuple(shape) + v.shape[1:], v.dtype)
    np.add.at(out, tuple(idx), v)
    return out


def _csr_dense(v):
    out = np.zeros((2, 3, 4), v.dtype)
    start = 0
    for b in range(2):
        offsets = CROWS[4 * b:4 * b + 4]
        for r in range(3):
            for k in range(offsets[r], offsets[r + 1]):
                out[b, r, COLS[start + k]] = v[start + k]
        start += offsets[-1]
    return out


def _grid_conv(v, w, stride, pad):
    """Dense correlation of the points' features (scattered into [2, 3, 3, 4, C]) with w
    [k, k, k, C, O]: outputs [2, *out, O], and which output positions a point reaches."""
    grid = _dense(v, POINTS, (2, 3, 3, 4))
    occupied = _dense(np.ones(len(v)), POINTS, (2, 3, 3, 4))
    k = w.shape[0]
    grid = np.pad(grid, [(0, 0)] + [(pad, pad)] * 3 + [(0, 0)])
    occupied = np.pad(occupied, [(0, 0)] + [(pad, pad)] * 3)
    out_size = [(s - k) // stride + 1 for s in grid.shape[1:4]]
    out = np.zeros([2] + out_size + [w.shape[-1]], v.dtype)
    reached = np.zeros([2] + out_size, bool)
    for a, b, c in itertools.product(range(k), repeat=3):
        window = (slice(None), slice(a, a + stride * out_size[0], stride),
                  slice(b, b + stride * out_size[1], stride),
                  slice(c, c + stride * out_size[2], stride))
        out += grid[window] @ w[a, b, c]
        reached |= occupied[window] > 0
    return out, reached


def _conv_ref(v, w, stride=1, pad=0, subm=False):
    out, reached = _grid_conv(v, w, stride, pad)
    return out[tuple(POINTS)] if subm else out[reached]


def _pool_ref(v):
    """2 x 2 x 2 max pooling (stride 2) over the points only."""
    grid = np.full((2, 3, 3, 4, v.shape[1]), -np.inf)
    grid[tuple(POINTS)] = v
    out = []
    for n, d, h, w in itertools.product(range(2), range(1), range(1), range(2)):
        block = grid[n, 2 * d:2 * d + 2, 2 * h:2 * h + 2, 2 * w:2 * w + 2]
        if np.isfinite(block).any():
            out.append(block.reshape(-1, v.shape[1]).max(axis=0))
    return np.array(out)


def _row_softmax(v):
    dense = np.where(_dense(np.ones(7)) > 0, _dense(v), -np.inf)
    e = np.exp(dense - dense.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True))[tuple(IDX)]


SPECS = [
    OpSpec("sparse.matmul", lambda v, d: S.matmul(_coo(v), d),
           lambda v, d: _dense(v) @ d, [(7,), (5, 3)], family="matmul"),
    OpSpec("sparse.matmul", lambda v, d: S.matmul(_csr(v), d),
           lambda v, d: _csr_dense(v) @ d, [(6,), (2, 4, 2)], family="matmul",
           id="csr_batch"),
    OpSpec("sparse.matmul",
           lambda a, b: S.matmul(_coo(a), _coo(b, IDX[::-1], (5, 4))).to_dense(),
           lambda a, b: _dense(a) @ _dense(b, IDX[::-1], (5, 4)), [(7,), (7,)],
           family="matmul", id="sparse"),
    OpSpec("sparse.mv", lambda v, x: S.mv(_coo(v), x), lambda v, x: _dense(v) @ x,
           [(7,), (5,)], family="matmul"),
    OpSpec("sparse.addmm", lambda c, v, d: S.addmm(c, _coo(v), d, beta=0.5, alpha=2.0),
           lambda c, v, d: 0.5 * c + 2.0 * (_dense(v) @ d), [(4, 3), (7,), (5, 3)],
           family="matmul"),
    OpSpec("sparse.masked_matmul",
           lambda x, y: S.masked_matmul(x, y, _coo(np.ones(7))).values(),
           lambda x, y: (x @ y)[tuple(IDX)], [(4, 3), (3, 5)], family="matmul"),
    OpSpec("sparse.nn.functional.softmax", lambda v: F.softmax(_coo(v)).values(),
           _row_softmax, [(7,)], domain=(-2.0, 2.0), family="elementwise"),
    OpSpec("sparse.sum", lambda v: S.sum(_coo(v), axis=0).values(),
           lambda v: _dense(v).sum(axis=0)[[0, 1, 2, 4]], [(7,)], family="reduction"),
    OpSpec("sparse.coalesce",
           lambda v: S.coalesce(_coo(v, REPEATED, (3, 2))).to_dense(),
           lambda v: _dense(v, REPEATED, (3, 2)), [(4,)], family="manipulation"),
    OpSpec("sparse.nn.functional.subm_conv3d",
           lambda v, w: F.subm_conv3d(_coo(v, POINTS, (2, 3, 3, 4, 2)), w).values(),
           lambda v, w: _conv_ref(v, w, pad=1, subm=True), [(6, 2), (3, 3, 3, 2, 3)],
           family="conv"),
    OpSpec("sparse.nn.functional.conv3d",
           lambda v, w: F.conv3d(_coo(v, POINTS, (2, 3, 3, 4, 2)), w, stride=2,
                                 padding=1).values(),
           lambda v, w: _conv_ref(v, w, stride=2, pad=1), [(6, 2), (3, 3, 3, 2, 3)],
           family="conv"),
    OpSpec("sparse.nn.functional.max_pool3d",
           lambda v: F.max_pool3d(_coo(v, POINTS, (2, 3, 3, 4, 2)), 2).values(),
           _pool_ref, [(6, 2)], family="pooling"),
]
