"""Spec entries for the elementwise unary math beyond the core set: exp/log variants,
trigonometry, clip, nan_to_num, erf and erfinv."""

import math

import numpy as np

import dygraph as D
from tests.op_specs import OpSpec

A = (3, 4)
POS = (0.5, 2.0)
_erf = np.vectorize(math.erf)


def _erfinv_ref(y):
    """erfinv by bisection on math.erf: slow but independent of the code under test."""
    low, high = np.full(y.shape, -6.0), np.full(y.shape, 6.0)
    for _ in range(200):
        mid = 0.5 * (low + high)
        above = _erf(mid) > y
        high = np.where(above, mid, high)
        low = np.where(above, low, mid)
    return 0.5 * (low + high)


def _away_from(points, low, high, gap=0.05):
    """Uniform values in [low, high], none within `gap` of a kink in `points`."""
    def make(rng):
        v = rng.uniform(low, high, A)
        for p in points:
            near = np.abs(v - p) < gap
            v = np.where(near, p + np.where(v >= p, gap, -gap), v)
        return v

    return make


SPECS = [
    OpSpec("expm1", D.expm1, np.expm1, [A]),
    OpSpec("log2", D.log2, np.log2, [A], domain=POS),
    OpSpec("log10", D.log10, np.log10, [A], domain=POS),
    OpSpec("log1p", D.log1p, np.log1p, [A], domain=(-0.5, 2.0)),
    OpSpec("rsqrt", D.rsqrt, lambda x: 1 / np.sqrt(x), [A], domain=POS),
    OpSpec("reciprocal", D.reciprocal, np.reciprocal, [A], domain=POS),
    OpSpec("reciprocal", D.reciprocal, np.reciprocal, [A], domain=(-2.0, -0.5), id="negative"),
    OpSpec("tan", D.tan, np.tan, [A]),
    OpSpec("asin", D.asin, np.arcsin, [A], domain=(-0.9, 0.9)),
    OpSpec("acos", D.acos, np.arccos, [A], domain=(-0.9, 0.9)),
    OpSpec("atan", D.atan, np.arctan, [A], domain=(-2.0, 2.0)),
    OpSpec("sinh", D.sinh, np.sinh, [A], domain=(-2.0, 2.0)),
    OpSpec("cosh", D.cosh, np.cosh, [A], domain=(-2.0, 2.0)),
    OpSpec("asinh", D.asinh, np.arcsinh, [A], domain=(-2.0, 2.0)),
    OpSpec("acosh", D.acosh, np.arccosh, [A], domain=(1.2, 3.0)),
    OpSpec("atanh", D.atanh, np.arctanh, [A], domain=(-0.9, 0.9)),
    OpSpec("clip", lambda x: D.clip(x, -0.5, 0.5), lambda x: np.clip(x, -0.5, 0.5),
           [_away_from((-0.5, 0.5), -1.0, 1.0)]),
    OpSpec("clip", lambda x: D.clip(x, min=0.2), lambda x: np.maximum(x, 0.2),
           [_away_from((0.2,), -1.0, 1.0)], id="min-only"),
    OpSpec("clip", lambda x: D.clip(x, D.to_tensor([-0.3]), D.to_tensor(0.4)),
           lambda x: np.clip(x, -0.3, 0.4), [_away_from((-0.3, 0.4), -1.0, 1.0)],
           id="tensor-bounds"),
    OpSpec("nan_to_num", D.nan_to_num, np.nan_to_num, [A]),
    OpSpec("erf", D.erf, _erf, [A], domain=(-2.5, 2.5)),
    OpSpec("erfinv", D.erfinv, _erfinv_ref, [A], domain=(-0.9, 0.9)),
]
