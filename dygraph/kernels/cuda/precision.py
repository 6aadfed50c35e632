"""Rounding float32 values to bfloat16 precision on the GPU in one kernel (auto_cast's
bfloat16, which stores bfloat16 values in float32 arrays: dygraph/amp/auto_cast.py).

Round to nearest even on the bit pattern, as ml_dtypes' conversion does: a carry into the
exponent gives the next power of two or infinity, and a NaN becomes the quiet NaN of its
sign (its payload dropped).

Example:
    >>> from dygraph.kernels.cuda.registry import KERNEL_SPECS
    >>> KERNEL_SPECS["round_bfloat16"][:2]
    ('float32 x', 'float32 y')
"""

from dygraph.kernels.cuda.registry import define, kernel

__all__ = ["round_bfloat16"]

_ROUND = """
const unsigned int u = __float_as_uint(x);
if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu) != 0u) {
    y = __uint_as_float((u & 0x80000000u) | 0x7FC00000u);
} else {
    y = __uint_as_float((u + 0x7FFFu + ((u >> 16) & 1u)) & 0xFFFF0000u);
}
"""

define("round_bfloat16", "float32 x", "float32 y", _ROUND)


def round_bfloat16(x):
    """A new float32 CuPy array of x's values rounded to bfloat16 precision, one kernel.

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> tie = cupy.array([1.00390625], cupy.float32)  # halfway: to even  # doctest: +SKIP
        >>> round_bfloat16(tie)  # doctest: +SKIP
        array([1.], dtype=float32)
    """
    return kernel("round_bfloat16")(x)
