"""The tap additions of the batch-last data gradient (dygraph.ops.conv.batch_last) for 2-D
convolutions, compiled by Numba.

There, the GEMM's columns hold every tap's contribution with the batch innermost, and each
tap is added into its window of a (C, *padded S, N) accumulator. NumPy runs those 25 adds (a
5x5 filter) as strided passes. Here one loop per channel, tap and output row adds a
contiguous run, O_w * N values with a stride of 1 in the last dim (N with a stride), in
about the time it takes to read the columns once (figures: docs/PERFORMANCE.md#conv-paths).
The taps are added in the same order as NumPy's, so the sums are the same.

Example:
    >>> import numpy as np
    >>> from dygraph.ops.conv.im2col import Geometry
    >>> acc = np.zeros((1, 1, 3, 1))  # a 1x2 filter over a 1x2 output
    >>> add_taps(np.ones((1, 1, 2, 1, 2, 1)), acc, Geometry((1, 1), (1, 1), ((0, 0),) * 2, 1))
    >>> acc.ravel()
    array([1., 2., 1.])
"""

from numba import njit

__all__ = ["fits", "add_taps"]


def fits(per_tap, target):
    """Whether these loops take the addition: a 2-D conv's (cc, kh, kw, oh, ow, n) columns
    into a (cc, padded h, padded w, n) accumulator, both C-ordered.

    Example:
        >>> import numpy as np
        >>> fits(np.ones((1, 2, 2, 3, 3, 4)), np.ones((1, 4, 4, 4)))
        True
    """
    return (per_tap.ndim == 6 and target.ndim == 4 and per_tap.flags.c_contiguous
            and target.flags.c_contiguous)


@njit(nogil=True, cache=True)
def _add_2d(cols, acc, sh, sw, dh, dw):
    channels, k_h, k_w, out_h, out_w, n = cols.shape
    for c in range(channels):
        for kh in range(k_h):
            for kw in range(k_w):
                for oh in range(out_h):
                    row, src = acc[c, oh * sh + kh * dh], cols[c, kh, kw, oh]
                    if sw == 1:
                        # Output columns land on consecutive positions: one run.
                        run = row.reshape(row.size)[kw * dw * n:(kw * dw + out_w) * n]
                        values = src.reshape(src.size)
                        for i in range(out_w * n):
                            run[i] += values[i]
                    else:
                        for ow in range(out_w):
                            dst, v = row[ow * sw + kw * dw], src[ow]
                            for i in range(n):
                                dst[i] += v[i]


def add_taps(per_tap, target, geo):
    """target[:, window of tap] += per_tap[:, tap] for every tap of a 2-D conv with
    geometry `geo` (its stride and dilation; padding is in target's shape).

    Example:
        >>> import numpy as np
        >>> from dygraph.ops.conv.im2col import Geometry
        >>> acc = np.zeros((1, 3, 3, 1))
        >>> add_taps(np.ones((1, 2, 2, 2, 2, 1)), acc, Geometry((1, 1), (1, 1),
        ...                                                     ((0, 0), (0, 0)), 1))
        >>> acc[0, :, :, 0]
        array([[1., 2., 1.],
               [2., 4., 2.],
               [1., 2., 1.]])
    """
    (sh, sw), (dh, dw) = geo.stride, geo.dilation
    _add_2d(per_tap, target, int(sh), int(sw), int(dh), int(dw))
