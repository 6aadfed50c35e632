"""The four ops under dygraph.fft: complex-to-complex, real-to-complex and complex-to-real
transforms over a set of axes, and zero-padding/truncation of those axes.

Gradients (the convention of ops/complex.py: a real loss's gradient for z = a + ib is
dL/da + i dL/db) are adjoints. The adjoint of a DFT is the inverse DFT with the opposite
normalisation ('backward' <-> 'forward', 'ortho' stays): fft(norm='backward') sums without
scaling, and its adjoint, the conjugate-transposed matrix, is an inverse transform that
also does not scale. A real input's gradient is the real part of that. The one-sided
real-to-complex transform drops the upper half of the spectrum, so its adjoint pads it
back with zeros; the complex-to-real transform reads each kept bin k (0 < k < n - n//2)
twice (as X[k] and conj X[k] at n - k), so its adjoint doubles those bins of the
real-to-complex transform of the gradient. Each backward is again one of these ops, so
double backward comes free.
"""

import numpy as np

from dygraph.autograd.backward_math import register
from dygraph.autograd.function import Op, apply

_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}
_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64),
               np.dtype(np.float64): np.dtype(np.complex128)}
_REAL_OF = {v: k for k, v in _COMPLEX_OF.items()}


def complex_dtype(dtype):
    """The complex dtype of a float precision (complex dtypes map to themselves)."""
    dtype = np.dtype(dtype)
    return dtype if dtype.kind == "c" else _COMPLEX_OF[dtype]


def real_dtype(dtype):
    dtype = np.dtype(dtype)
    return _REAL_OF[dtype] if dtype.kind == "c" else dtype


def _c2c(xp, x, axes, norm, forward):
    fn = xp.fft.fftn if forward else xp.fft.ifftn
    return fn(x, axes=axes, norm=norm).astype(x.dtype, copy=False)


def _r2c(xp, x, axes, norm, onesided):
    fn = xp.fft.rfftn if onesided else xp.fft.fftn
    return fn(x, axes=axes, norm=norm).astype(complex_dtype(x.dtype), copy=False)


def _c2r(xp, x, axes, norm, last):
    s = [x.shape[a] for a in axes[:-1]] + [last]
    return xp.fft.irfftn(x, s=s, axes=axes, norm=norm).astype(real_dtype(x.dtype),
                                                               copy=False)


def _resize(xp, x, axes, sizes):
    """Truncate or zero-pad x along `axes` to `sizes`."""
    index = [slice(None)] * x.ndim
    pad = [(0, 0)] * x.ndim
    for a, n in zip(axes, sizes):
        if n < x.shape[a]:
            index[a] = slice(0, n)
        else:
            pad[a] = (0, n - x.shape[a])
    out = x[tuple(index)]
    return xp.pad(out, pad) if any(p[1] for p in pad) else out.copy()


def _hermitian_weight(xp, ndim, axis, last, dtype):
    """2 for the bins a complex-to-real transform of length `last` reads twice, else 1."""
    size = last // 2 + 1
    weight = np.ones(size, dtype=dtype)
    weight[1:1 + last - size] = 2
    shape = [1] * ndim
    shape[axis] = size
    return xp.asarray(weight.reshape(shape))


class FFTC2C(Op):
    attrs = ("axes", "forward_dir", "norm")

    complex_grad = "same"

    def __init__(self, axes, norm, forward):
        self.axes, self.norm, self.forward_dir = tuple(axes), norm, forward

    @property
    def name(self):
        return "fft_c2c"

    def forward(self, xp, x):
        return _c2c(xp, x, self.axes, self.norm, self.forward_dir)

    def backward(self, m, g):
        return (m.fft_c2c(g, self.axes, _SWAP[self.norm], not self.forward_dir),)


class FFTR2C(Op):
    attrs = ("axes", "norm", "onesided")

    complex_grad = "same"

    def __init__(self, axes, norm, onesided):
        self.axes, self.norm, self.onesided = tuple(axes), norm, onesided

    @property
    def name(self):
        return "fft_r2c"

    def forward(self, xp, x):
        self.last = x.shape[self.axes[-1]]
        return _r2c(xp, x, self.axes, self.norm, self.onesided)

    def backward(self, m, g):
        if self.onesided:
            g = m.fft_resize(g, self.axes[-1:], (self.last,))
        return (m.real(m.fft_c2c(g, self.axes, _SWAP[self.norm], False)),)


class FFTC2R(Op):
    """Input: the half spectrum, last axis of length last // 2 + 1; output length `last`."""

    attrs = ("axes", "last", "norm")

    complex_grad = "same"

    def __init__(self, axes, norm, last):
        self.axes, self.norm, self.last = tuple(axes), norm, last

    @property
    def name(self):
        return "fft_c2r"

    def forward(self, xp, x):
        return _c2r(xp, x, self.axes, self.norm, self.last)

    def backward(self, m, g):
        spectrum = m.fft_r2c(g, self.axes, _SWAP[self.norm], True)
        data = m.data(g)
        weight = _hermitian_weight(np if type(data) is np.ndarray else _xp(data),
                                   data.ndim, self.axes[-1], self.last, data.dtype)
        return (spectrum * weight,)


class FFTResize(Op):
    attrs = ("axes", "sizes")

    complex_grad = "same"

    def __init__(self, axes, sizes):
        self.axes, self.sizes = tuple(axes), tuple(sizes)

    @property
    def name(self):
        return "fft_resize"

    def forward(self, xp, x):
        self.in_sizes = tuple(x.shape[a] for a in self.axes)
        return _resize(xp, x, self.axes, self.sizes)

    def backward(self, m, g):
        return (m.fft_resize(g, self.axes, self.in_sizes),)


def _xp(array):
    from dygraph.backend import get_array_module

    return get_array_module(array)


def c2c(x, axes, norm, forward):
    return apply(FFTC2C(axes, norm, forward), x)


def r2c(x, axes, norm, onesided):
    return apply(FFTR2C(axes, norm, onesided), x)


def c2r(x, axes, norm, last):
    return apply(FFTC2R(axes, norm, last), x)


def resize(x, axes, sizes):
    """x truncated or zero-padded along `axes` (unchanged when the sizes already match)."""
    if all(x._data.shape[a] == n for a, n in zip(axes, sizes)):
        return x
    return apply(FFTResize(axes, sizes), x)


# The names the gradient formulas above use, on arrays and on Tensors (see backward_math).
register("fft_c2c", array_fn=lambda xp: lambda g, axes, norm, fwd: _c2c(xp, g, axes, norm, fwd),
         tensor_fn=c2c)
register("fft_r2c", array_fn=lambda xp: lambda g, axes, norm, one: _r2c(xp, g, axes, norm, one),
         tensor_fn=r2c)
register("fft_resize", array_fn=lambda xp: lambda g, axes, sizes: _resize(xp, g, axes, sizes),
         tensor_fn=lambda g, axes, sizes: apply(FFTResize(axes, sizes), g))
