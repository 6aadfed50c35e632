"""Seeded input arrays for the generated cases: one generator per case id, so a case's
inputs do not depend on which other cases exist."""

import zlib

import numpy as np

INTS = np.array([-3, -2, -1, 1, 2, 3, 4])  # no zero: integer division by zero aborts Paddle


def rng_for(case_id):
    """A NumPy generator seeded from the case id.

    >>> int(rng_for("a").integers(10)) == int(rng_for("a").integers(10))
    True
    """
    return np.random.default_rng(zlib.crc32(case_id.encode()))


def array(rng, shape, dtype, positive=False):
    """Random values of ``dtype`` and ``shape``; ``positive`` keeps floats in [0.2, 2).

    Floats are drawn in [-2, 2) (positive: [0.2, 2)), integers from -3..4 without 0
    (positive: 1..4), complex numbers with both parts in [-2, 2).

    >>> bool(array(rng_for("x"), (2, 3), "int64", positive=True).min() >= 1)
    True
    """
    shape = tuple(shape)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype.startswith("complex"):
        parts = rng.uniform(-2, 2, shape + (2,))
        return (parts[..., 0] + 1j * parts[..., 1]).astype(dtype)
    if dtype.startswith("int") or dtype.startswith("uint"):
        values = rng.integers(1, 5, shape) if positive else rng.choice(INTS, shape)
        return values.astype(dtype)
    low = 0.2 if positive else -2.0
    return rng.uniform(low, 2.0, shape).astype(dtype)


def well_conditioned(rng, shape, dtype):
    """Symmetric positive definite matrices over the last two axes (square shapes), so that
    inverses, solves and factorizations exist; other shapes get plain values.

    >>> a = well_conditioned(rng_for("m"), (3, 3), "float64")
    >>> bool(np.all(np.linalg.eigvalsh(a) > 0))
    True
    """
    base = array(rng, shape, dtype)
    if len(shape) < 2 or shape[-1] != shape[-2] or not dtype.startswith("float"):
        return base
    n = shape[-1]
    return (base @ np.swapaxes(base, -1, -2) + n * np.eye(n)).astype(dtype)


def index_array(rng, shape, high):
    """int64 indices in [0, high).

    >>> index_array(rng_for("i"), (4,), 3).dtype
    dtype('int64')
    """
    return rng.integers(0, max(high, 1), tuple(shape)).astype("int64")
