"""Dropout masks drawn on the GPU in one kernel from a counter-based generator
(Philox4x32-10); dygraph/backend/device_random.py keeps the counter.

Example:
    >>> from dygraph.kernels.cuda.registry import KERNEL_SPECS
    >>> KERNEL_SPECS["dropout_mask"][1]
    'T keep'
"""

import numpy as np

from dygraph.kernels.cuda.registry import define, kernel

__all__ = ["dropout_mask"]

# Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011) of
# the counter state[1] + i under the key state[0]; the first output word's top 24 bits make
# u, uniform on [0, 1) in steps of 2^-24, and the element is kept when u >= p.
_DROPOUT_MASK = """
const unsigned long long n = state[1] + (unsigned long long)i;
unsigned int c0 = (unsigned int)n, c1 = (unsigned int)(n >> 32), c2 = 0, c3 = 0;
unsigned int k0 = (unsigned int)state[0], k1 = (unsigned int)(state[0] >> 32);
for (int r = 0; r < 10; ++r) {
    const unsigned long long p0 = 0xD2511F53ull * c0, p1 = 0xCD9E8D57ull * c2;
    const unsigned int h0 = (unsigned int)(p0 >> 32), l0 = (unsigned int)p0;
    const unsigned int h1 = (unsigned int)(p1 >> 32), l1 = (unsigned int)p1;
    c0 = h1 ^ c1 ^ k0;
    c1 = l1;
    c2 = h0 ^ c3 ^ k1;
    c3 = l0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
}
const float u = (float)(c0 >> 8) * 5.9604644775390625e-08f;
keep = u >= p ? scale : (T)0;
"""

define("dropout_mask", "raw uint64 state, float32 p, T scale",
                     "T keep", _DROPOUT_MASK)


def dropout_mask(state, p, scale, keep):
    """Fill `keep` (a C-ordered CuPy array) with `scale` where the element's uniform draw
    is at least p and 0 elsewhere, one kernel; the draws are Philox4x32-10 of the counters
    state[1] + i (i the element's index) under the key state[0], `state` a uint64 CuPy
    array [key, counter] that the caller advances (dygraph/backend/device_random.py).

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> state = cupy.array([7, 0], cupy.uint64)  # doctest: +SKIP
        >>> keep = cupy.empty(1000, cupy.float32)  # doctest: +SKIP
        >>> dropout_mask(state, 0.5, 2.0, keep)  # doctest: +SKIP
        >>> 400 < int((keep == 2.0).sum()) < 600  # doctest: +SKIP
        True
    """
    run = kernel("dropout_mask")
    run(state, np.float32(p), keep.dtype.type(scale), keep)
