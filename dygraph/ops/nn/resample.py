"""Separable resampling: a chain of linear maps, each along one axis (the engine of
interpolate).

An AxisMap says out[k] = sum_t weight[t, k] * x[index[t, k]] along its axis, a few taps per
output. It runs as one GEMM with its dense (n_out, n_in) matrix while the input axis is
short, up to `_DENSE_PER_TAP` input positions per tap (a GEMM costs n_in multiply-adds per
output, a gather pass many times more per tap; figures:
docs/PERFORMANCE.md#linear-embedding-and-resampling), and as `take` plus a weighted sum
otherwise. Its transpose (the gradient) is again an AxisMap: the same (output, input,
weight) triples grouped by input, so the backward pass gathers too instead of
scatter-adding (NumPy's add.at and reduceat are many times slower). Resample is the op;
its gradient is Resample with the transposed maps in reverse order, so derivatives of every
order come for free.

Example:
    >>> import numpy as np
    >>> stretch = AxisMap(0, 2, np.array([[0, 0, 1, 1]]), None)  # nearest, 2 -> 4
    >>> stretch.apply(np, np.array([1.0, 2.0]))
    array([1., 1., 2., 2.])
    >>> stretch.transpose().apply(np, np.array([1.0, 1.0, 1.0, 1.0]))
    array([2., 2.])
"""

import collections

import numpy as np

from dygraph.autograd.backward_math import register
from dygraph.autograd.function import Op, apply

__all__ = ["AxisMap", "Resample"]

_DENSE_PER_TAP = 32  # a dense GEMM beats K gather passes up to about 32 K input positions


class AxisMap:
    """A linear map along `axis`: out[k] = sum_t weight[t, k] * x[index[t, k]].

    `weight` None means all ones (a pure gather, as nearest resizing).

    Example:
        >>> import numpy as np
        >>> halve = AxisMap(0, 4, np.array([[0, 2], [1, 3]]), np.full((2, 2), 0.5))
        >>> halve.apply(np, np.array([1.0, 3.0, 5.0, 7.0]))
        array([2., 6.])
    """

    __slots__ = ("axis", "n_in", "index", "weight", "matrix", "_transpose")

    def __init__(self, axis, n_in, index, weight):
        self.axis, self.n_in, self.index, self.weight = axis, n_in, index, weight
        self._transpose = None
        self.matrix = None
        taps, n_out = index.shape
        # A pure gather (weight None) is one `take`, cheaper than any GEMM.
        if weight is not None and n_in <= _DENSE_PER_TAP * taps:
            matrix = np.zeros((n_out, n_in))
            rows = np.arange(n_out)
            for t in range(taps):
                np.add.at(matrix, (rows, index[t]), weight[t])
            self.matrix = matrix

    def is_identity(self):
        n = self.index.shape[1]
        if n != self.n_in or not (self.index[0] == np.arange(n)).all():
            return False
        return self.weight is None or ((self.weight[0] == 1).all()
                                       and not self.weight[1:].any())

    def transpose(self):
        """The adjoint map (input and output swapped), built once."""
        if self._transpose is None:
            self._transpose = _transposed(self)
            self._transpose._transpose = self
        return self._transpose

    def apply(self, xp, x):
        """The map applied to the array x along self.axis."""
        matrix, index, weight = _tables(xp, self, x.dtype)
        if matrix is not None:
            return _dense(xp, x, self.axis, matrix)
        shape = [1] * x.ndim
        shape[self.axis] = -1
        out = None
        for t in range(self.index.shape[0]):
            term = xp.take(x, index[t], axis=self.axis)
            if weight is not None:
                term *= weight[t].reshape(shape)
            if out is None:
                out = term
            else:
                out += term
        return out


# A map's tables as arrays of a GPU, made once per (map, device, dtype): a copy from the
# host per call costs a transfer, and a CUDA graph cannot hold one. The entries keep their
# maps alive, so an id is not reused while cached; at most _MAX_TABLES are kept.
_DEVICE_TABLES = collections.OrderedDict()
_MAX_TABLES = 256


def _tables(xp, amap, dtype):
    """(matrix or None, index rows, weight rows or None) of `amap` in `dtype`, as arrays of
    xp (the host's own arrays on the CPU)."""
    if xp is np:
        matrix = None if amap.matrix is None else amap.matrix.astype(dtype)
        weight = None if amap.weight is None else amap.weight.astype(dtype)
        return matrix, amap.index, weight
    key = (id(amap), xp.cuda.runtime.getDevice(), np.dtype(dtype).str)
    entry = _DEVICE_TABLES.get(key)
    if entry is None:
        host = _tables(np, amap, dtype)
        entry = _DEVICE_TABLES[key] = (amap,) + tuple(
            None if a is None else xp.asarray(a) for a in host)
        while len(_DEVICE_TABLES) > _MAX_TABLES:
            _DEVICE_TABLES.popitem(last=False)
    else:
        _DEVICE_TABLES.move_to_end(key)
    return entry[1:]


def _dense(xp, x, axis, matrix):
    # xp.matmul, not @: a CUDA graph capture routes the function to cuBLAS
    # (backend/capture_products.py), which the operator would bypass.
    shape = x.shape
    n_out, n_in = matrix.shape
    if axis == x.ndim - 1:
        return xp.matmul(x.reshape(-1, n_in), matrix.T).reshape(shape[:-1] + (n_out,))
    lead = int(np.prod(shape[:axis]))
    out = xp.matmul(matrix, x.reshape(lead, n_in, -1))  # one (n_out, n_in) GEMM per leading index
    return out.reshape(shape[:axis] + (n_out,) + shape[axis + 1:])


def _transposed(amap):
    """The (output, input, weight) triples of amap regrouped by input position."""
    taps, n_out = amap.index.shape
    src = amap.index.ravel()
    dst = np.tile(np.arange(n_out), taps)
    weight = np.ones(src.size) if amap.weight is None else amap.weight.ravel()
    keep = weight != 0
    src, dst, weight = src[keep], dst[keep], weight[keep]
    order = np.argsort(src, kind="stable")
    src, dst, weight = src[order], dst[order], weight[order]
    counts = np.bincount(src, minlength=amap.n_in)
    slot = np.arange(src.size) - np.repeat(np.cumsum(counts) - counts, counts)
    index = np.zeros((max(int(counts.max(initial=0)), 1), amap.n_in), np.int64)
    weights = np.zeros(index.shape)
    index[slot, src] = dst
    weights[slot, src] = weight
    return AxisMap(amap.axis, n_out, index, weights)


def _resample(xp, x, maps):
    if not maps:
        return x.copy()
    for amap in maps:
        x = amap.apply(xp, x)
    return x


class Resample(Op):
    """x passed through AxisMaps in order; the gradient passes through their transposes."""

    attrs = ("maps",)

    complex_grad = "same"

    def __init__(self, maps):
        self.maps = maps

    def forward(self, xp, x):
        return _resample(xp, x, self.maps)

    def backward(self, m, g):
        return (m.nn_resample(g, [amap.transpose() for amap in reversed(self.maps)]),)


register("nn_resample", lambda xp: (lambda x, maps: _resample(xp, x, maps)),
         lambda x, maps: apply(Resample(maps), x))
