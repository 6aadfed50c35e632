"""Random numbers drawn on the GPU, one kernel a draw, from a counter-based generator
(Philox4x32-10: Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011):
dropout masks, uniform and normal values. Element i of a draw is Philox of the counter
state[1] + i under the key state[0]; dygraph/backend/device_random.py keeps `state` on the
device and advances the counter after each draw.

From the four output words c0..c3: a float32 uniform is (c0 >> 8) * 2^-24 and a float64 one
((c0 >> 11) * 2^32 + c1) * 2^-53, on [0, 1); a normal value is Box-Muller's
sqrt(-2 ln u1) cos(2 pi u2) with u1 taken on (0, 1] (so the log is finite) from c0 (c0, c1
in float64) and u2 from c1 (c2, c3).

Example:
    >>> from dygraph.kernels.cuda.registry import KERNEL_SPECS
    >>> KERNEL_SPECS["dropout_mask"][1], KERNEL_SPECS["uniform_draw"][1]
    ('T keep', 'T out')
"""

import numpy as np

from dygraph.kernels.cuda.registry import define, kernel

__all__ = ["dropout_mask", "uniform_draw", "normal_draw"]

# The Philox words c0..c3 of element i.
_PHILOX = """
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
"""
_TWO_24, _TWO_53 = "5.9604644775390625e-08", "1.1102230246251565e-16"

# Kept where the float32 uniform is at least p.
_DROPOUT_MASK = _PHILOX + f"""
const float u = (float)(c0 >> 8) * {_TWO_24}f;
keep = u >= p ? scale : (T)0;
"""

_UNIFORM = _PHILOX + f"""
if (sizeof(T) == 8) {{
    const double u = ((double)(c0 >> 11) * 4294967296.0 + (double)c1) * {_TWO_53};
    out = (T)(low + (high - low) * u);
}} else {{
    const float u = (float)(c0 >> 8) * {_TWO_24}f;
    out = (T)(low + (high - low) * (T)u);
}}
"""

_NORMAL = _PHILOX + f"""
if (sizeof(T) == 8) {{
    const double u1 = ((double)(c0 >> 11) * 4294967296.0 + (double)c1 + 1.0) * {_TWO_53};
    const double u2 = ((double)(c2 >> 11) * 4294967296.0 + (double)c3) * {_TWO_53};
    out = (T)(mu + sigma * (sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2)));
}} else {{
    const float u1 = ((float)(c0 >> 8) + 1.0f) * {_TWO_24}f;
    const float u2 = (float)(c1 >> 8) * {_TWO_24}f;
    out = (T)(mu + sigma * (T)(sqrtf(-2.0f * logf(u1)) * cosf(6.2831855f * u2)));
}}
"""

define("dropout_mask", "raw uint64 state, float32 p, T scale", "T keep", _DROPOUT_MASK)
define("uniform_draw", "raw uint64 state, T low, T high", "T out", _UNIFORM)
define("normal_draw", "raw uint64 state, T mu, T sigma", "T out", _NORMAL)


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


def uniform_draw(state, low, high, out):
    """Fill `out` (a C-ordered float CuPy array) with uniform values on [low, high) drawn
    from the counters state[1] + i under the key state[0], one kernel.

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> out = cupy.empty(1000, cupy.float32)  # doctest: +SKIP
        >>> uniform_draw(cupy.array([7, 0], cupy.uint64), 2.0, 3.0, out)  # doctest: +SKIP
        >>> bool(((out >= 2) & (out < 3)).all())  # doctest: +SKIP
        True
    """
    t = out.dtype.type
    kernel("uniform_draw")(state, t(low), t(high), out)


def normal_draw(state, mean, std, out):
    """Fill `out` (a C-ordered float CuPy array) with normal values N(mean, std) drawn from
    the counters state[1] + i under the key state[0], one kernel.

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> out = cupy.empty(100000, cupy.float32)  # doctest: +SKIP
        >>> normal_draw(cupy.array([7, 0], cupy.uint64), 0.0, 1.0, out)  # doctest: +SKIP
        >>> abs(float(out.mean())) < 0.02  # doctest: +SKIP
        True
    """
    t = out.dtype.type
    kernel("normal_draw")(state, t(mean), t(std), out)
