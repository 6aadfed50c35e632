"""The column copies of the channels-last conv (dygraph.ops.conv.channels_last) for 2-D
convolutions, compiled by Numba.

There the input is laid out as (N, padded H, padded W, C) and the columns as
(N * O_h * O_w, k_h * k_w * C): one row per output position, holding its window with the
channels innermost. A window row of a filter, k_w taps of C channels each, is then one
contiguous run of k_w * C values in both arrays (at dilation 1), so
- `gather` fills the columns with one copy per (position, filter row): 100 values on
  LeNet's second conv;
- `scatter` adds columns back into a zeroed (N, padded H, padded W, C) accumulator the same
  way, for the data gradient.
NumPy does the gather as one strided copy nearly as fast, but the scatter adds into
overlapping windows and takes one NumPy call per (filter row, output column), several
times slower than the loop here (figures: docs/PERFORMANCE.md#conv-paths).

Example:
    >>> import numpy as np
    >>> grid = np.arange(3.0).reshape(1, 1, 3, 1)          # N, H, W, C
    >>> cols = np.empty((2, 2))                            # 2 positions, a 1x2 filter
    >>> gather(grid, cols, (1, 2), (1, 2), (1, 1), (1, 1))
    >>> cols
    array([[0., 1.],
           [1., 2.]])
"""

from numba import njit

__all__ = ["gather", "scatter"]


@njit(nogil=True, cache=True)
def _copy_windows(grid, cols, dims, add):
    """The window walk both ways: cols from grid (gather), or cols added into grid
    (scatter, with `add`). The choice is made per run, outside the loops that vectorize."""
    n, hp, wp, c, oh_n, ow_n, kh_n, kw_n, sh, sw, dh, dw = dims
    # At dilation 1 a filter row is one run of kw_n * c values; else kw_n runs of c.
    run, runs, hop = (kw_n * c, 1, 0) if dw == 1 else (c, kw_n, dw * c)
    d = 0
    for s in range(n):
        for oh in range(oh_n):
            for ow in range(ow_n):
                for kh in range(kh_n):
                    o = ((s * hp + oh * sh + kh * dh) * wp + ow * sw) * c
                    for _ in range(runs):
                        window, row = grid[o:o + run], cols[d:d + run]
                        if add:
                            for i in range(run):
                                window[i] += row[i]
                        else:
                            for i in range(run):
                                row[i] = window[i]
                        o += hop
                        d += run


def _dims(grid, out_sizes, ksize, stride, dilation):
    n, hp, wp, c = grid.shape
    return (n, hp, wp, c, *(int(v) for v in (*out_sizes, *ksize, *stride, *dilation)))


def gather(grid, cols, out_sizes, ksize, stride, dilation):
    """cols[(n, oh, ow), (kh, kw, c)] = grid[n, oh * sh + kh * dh, ow * sw + kw * dw, c]
    for a C-ordered (N, padded H, padded W, C) grid and (N * O_h * O_w, k_h * k_w * C)
    columns. (Example: the module's.)"""
    _copy_windows(grid.reshape(-1), cols.reshape(-1),
                  _dims(grid, out_sizes, ksize, stride, dilation), False)


def scatter(cols, grid, out_sizes, ksize, stride, dilation):
    """The adjoint of `gather`: grid[window of each position] += its row of cols, for
    the same layouts; grid holds the sums so far (zeros to start).

    Example:
        >>> import numpy as np
        >>> grid = np.zeros((1, 1, 3, 1))
        >>> scatter(np.ones((2, 2)), grid, (1, 2), (1, 2), (1, 1), (1, 1))
        >>> grid.ravel()
        array([1., 2., 1.])
    """
    _copy_windows(grid.reshape(-1), cols.reshape(-1),
                  _dims(grid, out_sizes, ksize, stride, dilation), True)
