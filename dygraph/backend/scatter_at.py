"""`add.at`, `maximum.at` and `minimum.at` for every dtype, on NumPy and CuPy alike.

CuPy's `ufunc.at` rests on CUDA atomics and takes only int32, uint32, uint64, float32 and
float64 (add also float16); int64, the smaller integers, bool and complex raise TypeError.
The others run through a supported dtype, exactly:

- int64 sums add as uint64: two's-complement addition is the same bits either way;
- int64 maxima and minima compare as uint64 after the sign bit is flipped (that map keeps
  the order);
- int8/int16/uint8/uint16 go through int32 or uint32 and back (sums wrap as they would);
- float16 maxima go through float32; complex sums add the real and imaginary parts apart;
- bool sums are logical or, maxima or, minima and: through uint32.

NumPy takes every dtype, so there these are NumPy's own `ufunc.at`.

Example:
    >>> import numpy as np
    >>> out = np.zeros(3, np.int64)
    >>> add_at(np, out, np.array([0, 2, 0]), np.array([5, 1, -2]))
    >>> out.tolist()
    [3, 0, 1]
"""

import numpy as np

__all__ = ["add_at", "extreme_at", "bincount"]

_SIGN64 = np.uint64(1 << 63)


def _narrow_int(dtype):
    return dtype.kind in "iu" and dtype.itemsize < 4


def add_at(xp, out, index, values):
    """out[index] += values, with repeated indices adding up (NumPy's `add.at`).

    Example:
        >>> out = np.zeros(2)
        >>> add_at(np, out, np.array([1, 1]), np.array([0.5, 2.0]))
        >>> out.tolist()
        [0.0, 2.5]
    """
    if xp is np:
        np.add.at(out, index, values)
        return
    values = xp.asarray(values).astype(out.dtype, copy=False)
    kind = out.dtype
    if kind.kind == "c":
        add_at(xp, out.real, index, values.real)
        add_at(xp, out.imag, index, values.imag)
    elif kind == np.int64:
        xp.add.at(out.view(np.uint64), index, values.view(np.uint64))
    elif _narrow_int(kind) or kind == np.bool_:
        wide = out.astype(np.uint32 if kind.kind in "ub" else np.int32)
        xp.add.at(wide, index, values.astype(wide.dtype))
        out[...] = (wide != 0) if kind == np.bool_ else wide.astype(kind)
    else:
        xp.add.at(out, index, values)


def extreme_at(xp, reduce, out, index, values):
    """out[index] = maximum (`reduce` 'max') or minimum ('min') of itself and values, with
    repeated indices (NumPy's `maximum.at` / `minimum.at`).

    Example:
        >>> out = np.array([0, 0], np.int64)
        >>> extreme_at(np, "max", out, np.array([1, 1]), np.array([4, -9]))
        >>> out.tolist()
        [0, 4]
    """
    if xp is np:
        (np.maximum if reduce == "max" else np.minimum).at(out, index, values)
        return
    ufunc = xp.maximum if reduce == "max" else xp.minimum
    values = xp.asarray(values).astype(out.dtype, copy=False)
    kind = out.dtype
    if kind == np.int64:
        flipped = out.view(np.uint64) ^ _SIGN64
        ufunc.at(flipped, index, values.view(np.uint64) ^ _SIGN64)
        out.view(np.uint64)[...] = flipped ^ _SIGN64
    elif _narrow_int(kind) or kind in (np.bool_, np.float16):
        wide = out.astype(np.float32 if kind == np.float16 else
                          np.uint32 if kind.kind in "ub" else np.int32)
        ufunc.at(wide, index, values.astype(wide.dtype))
        out[...] = wide.astype(kind)
    else:
        ufunc.at(out, index, values)


def bincount(xp, index, size):
    """How many times each of 0..size-1 occurs in the non-negative `index` below `size`.
    On a GPU a scatter of ones: CuPy's bincount reads the largest index on the host.

    Example:
        >>> bincount(np, np.array([2, 0, 2]), 4).tolist()
        [1, 0, 2, 0]
    """
    if xp is np:
        return np.bincount(index.reshape(-1), minlength=size)
    counts = xp.zeros(size, np.int64)
    add_at(xp, counts, index.reshape(-1), xp.ones(index.size, np.int64))
    return counts
