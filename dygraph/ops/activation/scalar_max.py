"""max(x, c) for a constant c, blockwise, at NumPy's array-array speed.

NumPy 2.4's `maximum` runs its SIMD loop only when both operands are arrays: against a
scalar (or a stride-0 broadcast view) it takes a slower loop. A whole array of the constant
would cost memory the size of the input, so the input is taken in blocks of `_BLOCK`
elements against one cached block of the constant, which stays in cache. The result is
bit-identical to `np.maximum(x, c)` (NaN and signed zeros included): it is the same ufunc.
Figures: docs/PERFORMANCE.md#activations-and-element-wise-ops.

Example:
    >>> import numpy as np
    >>> maximum_scalar(np, np.array([-1.0, 2.0]), 0.0, np.empty(2))
    array([0., 2.])
"""

import numpy as np

__all__ = ["maximum_scalar"]

# Elements per block: 256 KiB of float32, which stays in cache. Smaller blocks pay NumPy's
# per-call cost more often, bigger ones gain nothing.
_BLOCK = 1 << 16
# Below this many elements one plain call costs about what the blocks save.
_MIN_SIZE = 1 << 12
_constants = {}


def _constant_block(dtype, value):
    key = (dtype, value)
    block = _constants.get(key)
    if block is None:
        block = np.full(_BLOCK, value, dtype)
        block.flags.writeable = False
        _constants[key] = block
    return block


def maximum_scalar(xp, x, value, out):
    """out = maximum(x, value) for a Python number `value`; returns out.

    Float NumPy arrays with both x and out contiguous run blockwise against a cached block
    of `value`; anything else (CuPy arrays, other dtypes, strided views) is one
    `xp.maximum` call. `out` may be x itself, and for CuPy None (a new array).

    Example:
        >>> import numpy as np
        >>> x = np.arange(-3.0, 3.0)
        >>> maximum_scalar(np, x, 0.0, x)
        array([0., 0., 0., 0., 1., 2.])
    """
    if (xp is not np or x.dtype.kind != "f" or out.dtype != x.dtype or x.size < _MIN_SIZE
            or not (x.flags.c_contiguous and out.flags.c_contiguous)):
        return xp.maximum(x, value, out=out)
    block = _constant_block(x.dtype, value)
    flat_x, flat_out = x.reshape(-1), out.reshape(-1)
    size = flat_x.size
    for start in range(0, size, _BLOCK):
        stop = min(start + _BLOCK, size)
        np.maximum(flat_x[start:stop], block[:stop - start], out=flat_out[start:stop])
    return out
