"""Programs written as Paddle's own tests and tutorials write them, run twice: by Paddle 3.3
(tools/record_static_refs.py stores what it computes under tests/data/static_*.json) and
by DyGraph (test_recorded_programs.py compares). A case is a function of the framework
module (`paddle`, or `dygraph` standing in for it) returning a dict of named results:
arrays, numbers, shapes, or the name of the exception a call raised. Weights are fixed
(initializers from NumPy values), so both frameworks compute the same numbers.

This module imports neither framework: the recorder runs it under Paddle's Python.
"""

import importlib
import math

import numpy as np

__all__ = ["Cases", "values", "encode", "decode", "run_case", "raises"]


class Cases(dict):
    """name -> case function, filled by the `case` decorator of a cases module."""

    def case(self, fn):
        self[fn.__name__] = fn
        return fn


def values(shape, seed=0, scale=1.0, dtype="float32"):
    """Deterministic values of `shape` (a smooth function of the position and `seed`)."""
    n = math.prod(shape)
    return (np.sin(np.arange(n) * 0.37 + seed) * scale).reshape(shape).astype(dtype)


def raises(fn):
    """The name of the exception fn() raises ('' when it returns)."""
    try:
        fn()
    except Exception as exc:  # the type is the result
        return type(exc).__name__
    return ""


def base_of(paddle):
    """`paddle.base` of the framework given."""
    return importlib.import_module(paddle.__name__ + ".base")


def encode(value):
    """A JSON value for a result (arrays keep dtype and shape)."""
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {k: encode(v) for k, v in value.items()}
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    array = np.asarray(value)
    return {"dtype": array.dtype.name, "shape": list(array.shape),
            "data": array.ravel().tolist()}


def decode(value):
    """encode's inverse."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if isinstance(value, dict) and set(value) == {"dtype", "shape", "data"}:
        return np.array(value["data"], dtype=value["dtype"]).reshape(value["shape"])
    if isinstance(value, dict):
        return {k: decode(v) for k, v in value.items()}
    return value


def run_case(fn, paddle):
    """fn(paddle)'s results, static mode switched off again afterwards."""
    try:
        return fn(paddle)
    finally:
        paddle.disable_static()
