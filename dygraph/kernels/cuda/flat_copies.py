"""Copies of a few arrays end to end into one flat array, in one GPU kernel: the deferred
gradient copies into the optimizer's flat buffer (dygraph/tensor/deferred_grads.py) of a
model with few parameters.

CuPy's concatenate copies eight arrays or fewer with a kernel each (from nine on it takes
them in one kernel, through a table of pointers it copies to the device first); the GRU
benchmark's six gradients were six launches. `copy_into_flat` takes up to eight arrays a
launch, their pointers passed as the kernel's arguments: nothing to copy to the device
first, so it can be captured too.

Example:
    >>> from dygraph.kernels.cuda.registry import KERNEL_SPECS
    >>> KERNEL_SPECS["copy_into_flat_8"][1]
    'raw T y'
"""

import numpy as np

from dygraph.kernels.cuda.registry import define, kernel

__all__ = ["SLOTS", "copy_into_flat"]

# Arrays one launch takes.
SLOTS = 8

# Element i of the arrays x0..x7 end to end (n0..n6 elements, x7 the rest), each read in
# C order whatever its strides (CuPy's raw indexing), into y[start + i] (flat, C-ordered:
# the offset spares a view of y, a CuPy call). The launch's size is the elements of all
# eight.
define("copy_into_flat_8",
       ", ".join(f"raw T x{k}" for k in range(SLOTS)) + ", "
       + ", ".join(f"int64 n{k}" for k in range(SLOTS - 1)) + ", int64 start",
       "raw T y", """
long long j = i;
T v;
if (j < n0) {
    v = x0[j];
} else if ((j -= n0) < n1) {
    v = x1[j];
} else if ((j -= n1) < n2) {
    v = x2[j];
} else if ((j -= n2) < n3) {
    v = x3[j];
} else if ((j -= n3) < n4) {
    v = x4[j];
} else if ((j -= n4) < n5) {
    v = x5[j];
} else if ((j -= n5) < n6) {
    v = x6[j];
} else {
    v = x7[j - n6];
}
y[start + i] = v;
""")


def copy_into_flat(out, arrays, start=0):
    """Copy `arrays` (of out's dtype, any shapes and layouts) end to end into the
    C-ordered CuPy array `out`, read flat, from its element `start` on: one kernel for
    each eight.

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> out = cupy.zeros(6)  # doctest: +SKIP
        >>> copy_into_flat(out, [cupy.ones((2, 1)), cupy.full(3, 2.0)], 1)  # doctest: +SKIP
        >>> out  # doctest: +SKIP
        array([0., 1., 1., 2., 2., 2.])
    """
    for first in range(0, len(arrays), SLOTS):
        group = list(arrays[first:first + SLOTS])
        sizes = [a.size for a in group]
        total = sum(sizes)
        if total:  # (no launch of no elements)
            pad = SLOTS - len(group)  # empty slots: n = 0, so nothing is read
            kernel("copy_into_flat_8")(*group, *[group[0]] * pad,
                                       *(sizes + [0] * pad)[:SLOTS - 1], np.int64(start),
                                       out, size=total)
        start += total
