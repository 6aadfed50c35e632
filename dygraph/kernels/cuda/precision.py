"""Rounding float32 values to bfloat16 precision on the GPU in one kernel (auto_cast's
bfloat16, which stores bfloat16 values in float32 arrays: dygraph/amp/auto_cast.py).

Round to nearest even on the bit pattern, as ml_dtypes' conversion does: a carry into the
exponent gives the next power of two or infinity, and a NaN becomes the quiet NaN of its
sign (its payload dropped).

An op under auto_cast rounds all its operands (a linear's input, weight and bias) and
later all their gradients: `round_bfloat16_all` rounds up to four arrays, of any sizes
and layouts, in one launch (`round_bfloat16_4`, over their elements end to end), where a
kernel per array would be a launch each.

Example:
    >>> from dygraph.kernels.cuda.registry import KERNEL_SPECS
    >>> KERNEL_SPECS["round_bfloat16"][:2]
    ('float32 x', 'float32 y')
"""

from dygraph.kernels.cuda.registry import define, kernel

__all__ = ["round_bfloat16", "round_bfloat16_all"]

_ROUND = """
const unsigned int u = __float_as_uint(x);
if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu) != 0u) {
    y = __uint_as_float((u & 0x80000000u) | 0x7FC00000u);
} else {
    y = __uint_as_float((u + 0x7FFFu + ((u >> 16) & 1u)) & 0xFFFF0000u);
}
"""

define("round_bfloat16", "float32 x", "float32 y", _ROUND)
# Element i of the arrays x0..x3 end to end (n0, n1, n2 elements, x3 the rest), each read
# in C order whatever its strides (CuPy's raw indexing), into its place in y0..y3 (new
# C-ordered arrays). The launch's size is the elements of all four.
define("round_bfloat16_4", "raw float32 x0, raw float32 x1, raw float32 x2, raw float32 x3, "
       "int64 n0, int64 n1, int64 n2",
       "raw float32 y0, raw float32 y1, raw float32 y2, raw float32 y3", """
long long j = i;
int k = 0;
float x;
if (j < n0) {
    x = x0[j];
} else if ((j -= n0) < n1) {
    k = 1;
    x = x1[j];
} else if ((j -= n1) < n2) {
    k = 2;
    x = x2[j];
} else {
    j -= n2;
    k = 3;
    x = x3[j];
}
float y;
""" + _ROUND + """
if (k == 0) {
    y0[j] = y;
} else if (k == 1) {
    y1[j] = y;
} else if (k == 2) {
    y2[j] = y;
} else {
    y3[j] = y;
}
""")
# Arrays one launch of round_bfloat16_4 takes.
_SLOTS = 4


def round_bfloat16(x):
    """A new float32 CuPy array of x's values rounded to bfloat16 precision, one kernel.

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> tie = cupy.array([1.00390625], cupy.float32)  # halfway: to even  # doctest: +SKIP
        >>> round_bfloat16(tie)  # doctest: +SKIP
        array([1.], dtype=float32)
    """
    return kernel("round_bfloat16")(x)


def round_bfloat16_all(arrays):
    """New float32 CuPy arrays of the arrays' values rounded to bfloat16 precision, in their
    shapes: one kernel for each four arrays.

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> w = cupy.ones((2, 3), cupy.float32) / 3  # doctest: +SKIP
        >>> b = cupy.full(3, 1.00390625, cupy.float32)  # doctest: +SKIP
        >>> [a.shape for a in round_bfloat16_all([w, b])]  # doctest: +SKIP
        [(2, 3), (3,)]
    """
    import cupy

    out = []
    for start in range(0, len(arrays), _SLOTS):
        group = arrays[start:start + _SLOTS]
        if len(group) == 1:
            out.append(round_bfloat16(group[0]))
            continue
        results = [cupy.empty(a.shape, cupy.float32) for a in group]
        pad = _SLOTS - len(group)  # empty slots: n = 0, so nothing is read or written
        sizes = [a.size for a in group]
        if sum(sizes):  # (no launch of no elements)
            kernel("round_bfloat16_4")(*group, *[group[0]] * pad, *(sizes + [0] * pad)[:3],
                                       *results, *[results[0]] * pad, size=sum(sizes))
        out.extend(results)
    return out
