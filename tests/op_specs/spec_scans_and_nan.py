"""Spec entries for the scans and NaN-ignoring reductions
(dygraph/ops/reduction/scans_and_nan.py)."""

import numpy as np

import dygraph as D
from tests.op_specs import OpSpec

A = (3, 5)


def _with_nan(rng):
    v = rng.uniform(-1.0, 1.0, A)
    v[0, 1] = v[2, 3] = v[2, 0] = np.nan
    return v


def _logcumsumexp_ref(x, axis):
    return np.log(np.cumsum(np.exp(x), axis=axis))


def _cumulative_trapezoid_ref(y, dx=1.0):
    return np.cumsum((y[..., 1:] + y[..., :-1]) * dx / 2, axis=-1)


def _running(fn):
    """(values, indices) of a running max/min along axis 1 (distinct random values)."""
    def ref(x):
        values = fn.accumulate(x, axis=1)
        idx = np.maximum.accumulate(np.where(x == values, np.arange(x.shape[1]), 0), axis=1)
        return values, idx
    return ref


SPECS = [
    OpSpec("logcumsumexp", lambda x: D.logcumsumexp(x, axis=1),
           lambda x: _logcumsumexp_ref(x, 1), [A], domain=(-3.0, 3.0)),
    OpSpec("logcumsumexp", D.logcumsumexp, lambda x: _logcumsumexp_ref(x.reshape(-1), 0),
           [A], domain=(-3.0, 3.0), id="flat"),
    OpSpec("cummax", lambda x: D.cummax(x, axis=1)[0], lambda x: _running(np.maximum)(x)[0],
           [A]),
    OpSpec("cummin", lambda x: D.cummin(x, axis=1)[0], lambda x: _running(np.minimum)(x)[0],
           [A]),
    OpSpec("trapezoid", D.trapezoid, lambda y: np.trapezoid(y, axis=-1), [A]),
    OpSpec("trapezoid", lambda y, x: D.trapezoid(y, x=x, axis=0),
           lambda y, x: np.trapezoid(y, x=x, axis=0), [A, lambda rng: np.sort(
               rng.uniform(0, 3, 3))], grad_inputs=[0, 1], id="x"),
    OpSpec("cumulative_trapezoid", lambda y: D.cumulative_trapezoid(y, dx=0.5),
           lambda y: _cumulative_trapezoid_ref(y, 0.5), [A]),
    OpSpec("nansum", lambda x: D.nansum(x, axis=1), lambda x: np.nansum(x, axis=1),
           [_with_nan]),
    OpSpec("nanmean", lambda x: D.nanmean(x, axis=0), lambda x: np.nanmean(x, axis=0),
           [_with_nan]),
    OpSpec("nanquantile", lambda x: D.nanquantile(x, [0.3, 0.5], axis=1),
           lambda x: np.nanquantile(x, [0.3, 0.5], axis=1), [_with_nan]),
    OpSpec("nanmedian", lambda x: D.nanmedian(x, axis=1), lambda x: np.nanmedian(x, axis=1),
           [_with_nan]),
    OpSpec("nanmedian", D.nanmedian, np.nanmedian, [_with_nan], id="all"),
]
