"""Spec entries for the Paddle 3 order statistics (ops/search/order_and_membership.py:
kthvalue, mode, msort) and products and distances (ops/math/composite.py).

Random float inputs have no ties and no zero distances with probability one, so the
orders are unique and the norms differentiable at the sampled points.
"""

import itertools

import numpy as np

import dygraph as D
from tests.op_specs import OpSpec
from tests.op_specs.spec_manipulation import _both

A = (3, 4)
B = (2, 3, 4)


def _kth_ref(x):
    idx = np.argsort(x, axis=0, kind="stable")[1:2]
    return np.take_along_axis(x, idx, 0)[0], idx[0]


def _mode_ref(x):
    idx = np.argmin(x, axis=-1)  # distinct values: each occurs once, the smallest wins
    return np.min(x, axis=-1, keepdims=True), idx[:, None]


def _cdist_ref(p):
    def ref(x, y):
        return np.linalg.norm(x[..., :, None, :] - y[..., None, :, :], ord=p, axis=-1)

    return ref


def _pdist_ref(x):
    return np.array([np.linalg.norm(x[i] - x[j]) for i, j in
                     itertools.combinations(range(x.shape[0]), 2)])


def _renorm_ref(x):
    norms = np.linalg.norm(x.reshape(3, -1), axis=1).reshape(3, 1, 1)
    return x * np.where(norms > 1.0, 1.0 / (norms + 1e-7), 1.0)


SPECS = [
    OpSpec("kthvalue", lambda x: D.kthvalue(x, 2, axis=0), _kth_ref, [A]),
    OpSpec("mode", lambda x: D.mode(x, keepdim=True), _mode_ref, [A]),
    OpSpec("msort", D.msort, lambda x: np.sort(x, 0), [A]),
    OpSpec("tensordot", lambda x, y: D.tensordot(x, y, [[1, 2], [1, 0]]),
           lambda x, y: np.tensordot(x, y, [[1, 2], [1, 0]]), [B, (4, 3)]),
    OpSpec("tensordot", lambda x, y: D.tensordot(x, y, 1),
           lambda x, y: np.tensordot(x, y, 1), [A, (4, 2)], id="int"),
    OpSpec("inner", D.inner, np.inner, [B, A]),
    OpSpec("ger", D.ger, np.outer, [(3,), (4,)]),
    OpSpec("addmm", lambda c, x, y: D.addmm(c, x, y, beta=0.5, alpha=2.0),
           lambda c, x, y: 0.5 * c + 2.0 * x @ y, [(1, 2), (3, 4), (4, 2)]),
    OpSpec("baddbmm", lambda c, x, y: D.baddbmm(c, x, y, alpha=-1.0),
           lambda c, x, y: c - x @ y, [(2, 3, 2), B, (2, 4, 2)]),
    OpSpec("cdist", D.cdist, _cdist_ref(2), [(2, 3, 4), (2, 2, 4)]),
    OpSpec("cdist", lambda x, y: D.cdist(x, y, p=1.5), _cdist_ref(1.5), [A, (2, 4)],
           id="p1.5"),
    OpSpec("pdist", D.pdist, _pdist_ref, [(4, 3)]),
    OpSpec("dist", lambda x, y: D.dist(x, y, 3), lambda x, y: np.sum(np.abs(x - y) ** 3)
           ** (1 / 3), [A, (4,)]),
    OpSpec("dist", D.dist, lambda x, y: np.linalg.norm((x - y).ravel()), [A, A], id="p2"),
    *_both("diff", lambda x, p: D.diff(x, 2, axis=0, prepend=p),
           lambda x, p: np.diff(x, 2, axis=0, prepend=p), [A, (1, 4)]),
    OpSpec("vander", lambda x: D.vander(x, 4), lambda x: np.vander(x, 4), [(3,)]),
    OpSpec("vander", lambda x: D.vander(x, increasing=True),
           lambda x: np.vander(x, increasing=True), [(3,)], id="increasing"),
    OpSpec("renorm", lambda x: D.renorm(x, 2, 0, 1.0), _renorm_ref, [(3, 2, 2)],
           domain=(-0.8, 0.8)),
    *_both("reduce_as", D.reduce_as, lambda x, t: x.sum(axis=(0, 2), keepdims=True)[0],
           [B, (3, 1)], grad_inputs=[0]),
    *_both("combinations", lambda x: D.combinations(x, 2),
           lambda x: np.array(list(itertools.combinations(x, 2))), [(4,)]),
    *_both("combinations", lambda x: D.combinations(x, 2, with_replacement=True),
           lambda x: np.array(list(itertools.combinations_with_replacement(x, 2))), [(3,)],
           id="replacement"),
]
