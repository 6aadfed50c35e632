"""im2col and col2im on raw arrays, built one spatial dim at a time, and the geometry of a
convolution.

Layout: the column matrix is (C, k1..kd, N, O1..Od) flattened to (C*K, N*L): rows are the
filter taps, columns the (sample, output position) pairs (ops/conv/columns.py multiplies it).

im2col expands one spatial dim per step, the last dim first: each step is one strided copy,
and the big final copy (the first dim) moves whole rows of O2*..*Od values at a time instead
of one row of Od values per tap. col2im folds the taps back the other way round, first dim
first, with one slice-add per tap of that dim (k1 + .. + kd adds instead of k1 * .. * kd):
no Python loop over pixels.

Example:
    >>> import numpy as np
    >>> x = np.arange(9.0).reshape(1, 1, 3, 3)
    >>> geo = Geometry((1, 1), (1, 1), ((0, 0), (0, 0)), 1)
    >>> im2col(np, x, (2, 2), geo).shape
    (4, 4)
"""


from dygraph.backend.workspace import workspace

__all__ = ["Geometry", "im2col", "col2im", "prod", "chunk"]

# Columns for a batch above this size are built per chunk of samples, so a big input (large
# images, wide kernels) never allocates a huge column matrix at once.
CHUNK_BYTES = 64 << 20


class Geometry:
    """Stride, dilation, (low, high) padding per spatial dim and groups of a convolution.

    Example:
        >>> Geometry((2,), (1,), ((1, 1),), 1).out_sizes((8,), (3,))
        (4,)
    """

    __slots__ = ("stride", "dilation", "pads", "groups")

    def __init__(self, stride, dilation, pads, groups):
        self.stride, self.dilation, self.pads, self.groups = stride, dilation, pads, groups

    def out_sizes(self, in_sizes, ksizes):
        return tuple((s + lo + hi - d * (k - 1) - 1) // st + 1 for s, k, st, d, (lo, hi) in
                     zip(in_sizes, ksizes, self.stride, self.dilation, self.pads))

    def padded(self, in_sizes):
        return tuple(s + lo + hi for s, (lo, hi) in zip(in_sizes, self.pads))

    def unpadded(self, in_sizes):
        """The slices of the input's own positions in each padded spatial dim.

        Example:
            >>> Geometry((1,), (1,), ((2, 1),), 1).unpadded((4,))
            (slice(2, 6, None),)
        """
        return tuple(slice(lo, lo + s) for s, (lo, _) in zip(in_sizes, self.pads))

    def __repr__(self):
        return (f"Geometry(stride={self.stride}, dilation={self.dilation}, pads={self.pads}, "
                f"groups={self.groups})")


def _as_strided(xp, a, shape, strides):
    return xp.lib.stride_tricks.as_strided(a, shape, strides)


def _pad(xp, x, pads, value=0):
    """x (N, C, *S) with `value` added around the spatial dims (x itself when no padding)."""
    if not any(lo or hi for lo, hi in pads):
        return x
    shape = x.shape[:2] + tuple(s + lo + hi for s, (lo, hi) in zip(x.shape[2:], pads))
    out = xp.full(shape, value, dtype=x.dtype)
    out[(slice(None), slice(None)) + tuple(slice(lo, lo + s) for s, (lo, _) in
                                           zip(x.shape[2:], pads))] = x
    return out


def im2col(xp, x, ksize, geo, out=None):
    """x (N, C, *S) -> columns (C*prod(k), N*prod(O)) in the layout of the module docstring.

    `out`, when given, is a contiguous array with that many elements that receives them.

    Example:
        >>> import numpy as np
        >>> geo = Geometry((1,), (1,), ((0, 0),), 1)
        >>> im2col(np, np.arange(4.0).reshape(1, 1, 4), (2,), geo)
        array([[0., 1., 2.],
               [1., 2., 3.]])
    """
    xpad = _pad(xp, x, geo.pads)
    osz = geo.out_sizes(x.shape[2:], ksize)
    d = len(ksize)
    cur = xpad.swapaxes(0, 1)  # (C, N, *Sp), a view
    scratch = None
    for a in reversed(range(d)):
        shape, strides = cur.shape, cur.strides
        ax = 2 + (d - 1 - a) + a  # where spatial dim a sits in cur
        view = _as_strided(
            xp, cur,
            (shape[0], ksize[a]) + shape[1:ax] + (osz[a],) + shape[ax + 1:],
            (strides[0], strides[ax] * geo.dilation[a]) + strides[1:ax]
            + (strides[ax] * geo.stride[a],) + strides[ax + 1:])
        if a:
            cur = workspace.take(xp, view.shape, x.dtype)
        elif out is None:
            cur = xp.empty(view.shape, x.dtype)
        else:
            cur = out.reshape(view.shape)
        cur[...] = view
        if scratch is not None:
            workspace.give(scratch)
        scratch = cur if a else None
    return cur.reshape(view.shape[0] * prod(ksize), -1)


def col2im(xp, cols, channels, ksize, osz, in_sizes, geo, out):
    """Add columns (C*prod(k), N*prod(O)) back onto out (N, C, *S), which must be zeroed.

    Each tap adds into its strided slice of the padded input; positions the windows never
    cover (the rest of a stride, the padding) get nothing.

    Example:
        >>> import numpy as np
        >>> geo = Geometry((1,), (1,), ((0, 0),), 1)
        >>> col2im(np, np.ones((2, 3)), 1, (2,), (3,), (4,), geo, np.zeros((1, 1, 4)))
        array([[[1., 2., 2., 1.]]])
    """
    n = out.shape[0]
    d = len(ksize)
    psz = geo.padded(in_sizes)
    padded = any(lo or hi for lo, hi in geo.pads)
    final = xp.zeros((n, channels) + psz, out.dtype) if padded else out
    cur = cols.reshape((channels,) + tuple(ksize) + (n,) + tuple(osz))
    scratch = None
    for a in range(d):
        if a == d - 1:
            target = final.swapaxes(0, 1)
        else:
            target = workspace.take(xp, (channels,) + tuple(ksize[a + 1:]) + (n,) + psz[:a + 1]
                                    + tuple(osz[a + 1:]), out.dtype)
            target.fill(0)
        ax = 2 + (d - 1 - a) + a
        st, dil, o = geo.stride[a], geo.dilation[a], osz[a]
        index = [slice(None)] * target.ndim
        for i in range(ksize[a]):
            index[ax] = slice(i * dil, i * dil + st * (o - 1) + 1, st)
            target[tuple(index)] += cur[:, i]
        if scratch is not None:
            workspace.give(scratch)
        scratch = cur = target
    if padded:
        out[...] = final[(slice(None), slice(None)) + geo.unpadded(in_sizes)]
    return out


def prod(values):
    p = 1
    for v in values:
        p *= v
    return p


def chunk(n, bytes_per_sample):
    """Samples per chunk so that one chunk's columns stay under CHUNK_BYTES.

    Example:
        >>> prod((2, 3, 4))
        24

    Example:
        >>> chunk(64, 1024)
        64
    """
    return max(1, min(n, CHUNK_BYTES // max(bytes_per_sample, 1)))
