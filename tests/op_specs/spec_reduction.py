"""Spec entries for the reduction family: max/min, amax/amin, prod, statistics, cumulative.

Random float inputs have no ties with probability one, so the picked element of max, min,
median and quantile is unique and central differences are valid.
"""

import numpy as np

import dygraph as D
from tests.op_specs import OpSpec

A = (3, 4)
B = (2, 3, 4)
INF = float("inf")
# A zero in the middle of a line (and a line holding two) exercises the zero-aware
# gradients of prod and cumprod.
WITH_ZEROS = np.array([[0.5, 0.0, -1.5, 2.0], [1.2, -0.7, 0.9, 1.1], [0.0, 0.3, 0.0, -0.4]])


def _pnorm(p, axis=None, keepdims=False):
    def ref(x):
        a = np.abs(x)
        if p == INF:
            return a.max(axis=axis, keepdims=keepdims)
        if p == -INF:
            return a.min(axis=axis, keepdims=keepdims)
        if p == 0:
            return (x != 0).sum(axis=axis, keepdims=keepdims).astype(x.dtype)
        return (a ** p).sum(axis=axis, keepdims=keepdims) ** (1.0 / p)

    return ref


SPECS = [
    OpSpec("max", lambda x: D.max(x, axis=1), lambda x: x.max(1), [A]),
    OpSpec("max", D.max, np.max, [B], id="all"),
    OpSpec("min", lambda x: D.min(x, axis=[0, 2], keepdim=True),
           lambda x: x.min((0, 2), keepdims=True), [B]),
    OpSpec("amax", lambda x: D.amax(x, axis=0), lambda x: x.max(0), [A]),
    OpSpec("amin", lambda x: D.amin(x, axis=-1, keepdim=True),
           lambda x: x.min(-1, keepdims=True), [A]),
    OpSpec("prod", lambda x: D.prod(x, axis=1), lambda x: x.prod(1), [A]),
    OpSpec("prod", D.prod, np.prod, [(2, 3)], domain=(0.5, 1.5), id="all"),
    # With zeros the second derivative of the formula is exact only away from the zeros
    # (the gradient there is held at 0 rather than differentiated), so no double check.
    OpSpec("prod", lambda x: D.prod(x, axis=1, keepdim=True),
           lambda x: x.prod(1, keepdims=True), [WITH_ZEROS], double=False, id="zeros"),
    OpSpec("var", lambda x: D.var(x, axis=0), lambda x: x.var(0, ddof=1), [A]),
    OpSpec("var", lambda x: D.var(x, unbiased=False, keepdim=True),
           lambda x: x.var(keepdims=True).reshape(1, 1), [A], id="all-biased"),
    OpSpec("std", lambda x: D.std(x, axis=[0, 2]), lambda x: x.std((0, 2), ddof=1), [B]),
    OpSpec("std", lambda x: D.std(x, axis=1, unbiased=False, keepdim=True),
           lambda x: x.std(1, keepdims=True), [A], id="biased"),
    OpSpec("logsumexp", lambda x: D.logsumexp(x, axis=1),
           lambda x: np.log(np.exp(x).sum(1)), [A]),
    OpSpec("logsumexp", lambda x: D.logsumexp(x, axis=[0, 1], keepdim=True),
           lambda x: np.log(np.exp(x).sum((0, 1), keepdims=True)), [B], id="axes"),
    OpSpec("norm", D.norm, lambda x: np.sqrt((x * x).sum()), [A], id="fro"),
    OpSpec("norm", lambda x: D.norm(x, p=2, axis=1, keepdim=True), _pnorm(2, 1, True), [A],
           id="p2"),
    OpSpec("norm", lambda x: D.norm(x, p=1, axis=0), _pnorm(1, 0), [A], id="p1"),
    OpSpec("norm", lambda x: D.norm(x, p=3, axis=[0, 2]), _pnorm(3, (0, 2)), [B], id="p3"),
    OpSpec("norm", lambda x: D.norm(x, p=0.5, axis=-1), _pnorm(0.5, -1), [A], id="p0.5"),
    OpSpec("norm", lambda x: D.norm(x, p=INF, axis=1), _pnorm(INF, 1), [A], id="inf"),
    OpSpec("norm", lambda x: D.norm(x, p=-INF), _pnorm(-INF), [A], id="-inf"),
    OpSpec("norm", lambda x: D.norm(x, p=0, axis=1), _pnorm(0, 1), [A], id="p0"),
    OpSpec("cumsum", lambda x: D.cumsum(x, axis=1), lambda x: x.cumsum(1), [A]),
    OpSpec("cumsum", D.cumsum, np.cumsum, [A], id="flat"),
    OpSpec("cumsum", lambda x: D.cumsum(x, axis=0), lambda x: x.cumsum(0), [B], id="axis0"),
    OpSpec("cumprod", lambda x: D.cumprod(x, dim=1), lambda x: x.cumprod(1), [A],
           domain=(0.5, 1.5)),
    OpSpec("cumprod", lambda x: D.cumprod(x, dim=-1), lambda x: x.cumprod(-1), [A],
           id="signed"),
    # As for prod: exact first derivative through zeros, second derivative not at zeros.
    OpSpec("cumprod", lambda x: D.cumprod(x, dim=1), lambda x: x.cumprod(1), [WITH_ZEROS],
           double=False, id="zeros"),
    OpSpec("median", D.median, np.median, [A], id="even"),
    OpSpec("median", lambda x: D.median(x, axis=1, mode="min")[0],
           lambda x: np.sort(x, 1)[:, 1], [A], id="min"),
    OpSpec("median", lambda x: D.median(x, axis=0), lambda x: np.median(x, 0), [A],
           id="odd"),
    OpSpec("median", lambda x: D.median(x, axis=-1, keepdim=True),
           lambda x: np.median(x, -1, keepdims=True), [B], id="keepdim"),
    OpSpec("quantile", lambda x: D.quantile(x, 0.3, axis=1), lambda x: np.quantile(x, 0.3, 1),
           [A]),
    OpSpec("quantile", lambda x: D.quantile(x, [0.1, 0.5, 0.8], axis=[0, 2]),
           lambda x: np.quantile(x, [0.1, 0.5, 0.8], axis=(0, 2)), [B], id="list-axes"),
    OpSpec("quantile", lambda x: D.quantile(x, [0.25, 0.9], keepdim=True),
           lambda x: np.quantile(x, [0.25, 0.9], keepdims=True), [A], id="all-keepdim"),
    OpSpec("quantile", lambda x: D.quantile(x, 0.4, axis=0, interpolation="midpoint"),
           lambda x: np.quantile(x, 0.4, 0, method="midpoint"), [A], id="midpoint"),
    OpSpec("quantile", lambda x: D.quantile(x, 0.4, axis=0, interpolation="lower"),
           lambda x: np.quantile(x, 0.4, 0, method="lower"), [A], id="lower"),
    OpSpec("quantile", lambda x: D.quantile(x, 0.35, axis=1, interpolation="nearest"),
           lambda x: np.quantile(x, 0.35, 1, method="nearest"), [A], id="nearest"),
]
