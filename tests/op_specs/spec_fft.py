"""Spec entries for dygraph.fft.

Complex inputs are built from two real inputs with `complex` and complex outputs read back
with `as_real` (see spec_complex.py), so the finite differences probe real and imaginary
parts. Outputs are squared: the transforms are linear, and the square makes their backward
run again under double backward. irfft-type entries perturb the imaginary part of the zero
(and Nyquist) bin too, which the transform ignores; the gradient must say so.
"""

import numpy as np

import dygraph as D
from tests.op_specs import OpSpec

F = D.fft


def _ri(z):
    return np.stack([z.real, z.imag], axis=-1)


def _c2c(name, np_fn, shape, **kw):
    def fn(a, b):
        out = D.as_real(getattr(F, name)(D.complex(a, b), **kw))
        return out * out

    return OpSpec("fft." + name, fn, lambda a, b: _ri(np_fn(a + 1j * b, **kw)) ** 2,
                  [shape, shape], id=str(kw))


def _r2c(name, np_fn, shape, **kw):
    def fn(a):
        out = D.as_real(getattr(F, name)(a, **kw))
        return out * out

    return OpSpec("fft." + name, fn, lambda a: _ri(np_fn(a, **kw)) ** 2, [shape], id=str(kw))


def _c2r(name, np_fn, shape, **kw):
    def fn(a, b):
        out = getattr(F, name)(D.complex(a, b), **kw)
        return out * out

    return OpSpec("fft." + name, fn, lambda a, b: np_fn(a + 1j * b, **kw) ** 2, [shape, shape],
                  id=str(kw))


def _ihfftn(x, s=None, axes=None, norm="backward"):
    swap = {"backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]
    return np.conj(np.fft.rfftn(x, s=s, axes=axes, norm=swap))


def _hfftn(x, s=None, axes=None, norm="backward"):
    swap = {"backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]
    if s is None:
        axes = list(range(x.ndim)) if axes is None else axes
        s = [x.shape[a] for a in axes[:-1]] + [2 * (x.shape[axes[-1]] - 1)]
    return np.fft.irfftn(np.conj(x), s=s, axes=axes, norm=swap)


nf = np.fft
SPECS = [
    _c2c("fft", nf.fft, (2, 5)),
    _c2c("fft", nf.fft, (2, 5), n=7, axis=0, norm="ortho"),
    _c2c("ifft", nf.ifft, (4,), n=3, norm="forward"),
    _c2c("fft2", nf.fft2, (3, 4)),
    _c2c("ifft2", nf.ifft2, (3, 4), s=(2, 6), norm="ortho"),
    _c2c("fftn", nf.fftn, (2, 3, 4), axes=(0, 2)),
    _c2c("ifftn", nf.ifftn, (2, 3, 4), s=(4, 2), axes=(1, 2)),
    _r2c("rfft", nf.rfft, (3, 6)),
    _r2c("rfft", nf.rfft, (3, 6), n=5, axis=0, norm="forward"),
    _r2c("rfft2", nf.rfft2, (4, 5), norm="ortho"),
    _r2c("rfftn", nf.rfftn, (2, 3, 4), s=(3, 7), axes=(1, 2)),
    _r2c("ihfft", nf.ihfft, (6,)),
    _r2c("ihfft", nf.ihfft, (5,), n=8, norm="ortho"),
    _r2c("ihfft2", lambda x, **kw: _ihfftn(x, axes=(-2, -1), **kw), (3, 4)),
    _r2c("ihfftn", _ihfftn, (2, 3, 5), norm="forward"),
    _c2r("irfft", nf.irfft, (2, 4)),
    _c2r("irfft", nf.irfft, (2, 4), n=5, norm="ortho"),
    _c2r("irfft", nf.irfft, (4, 3), n=3, axis=0, norm="forward"),
    _c2r("irfft2", nf.irfft2, (3, 4)),
    _c2r("irfftn", nf.irfftn, (2, 3, 4), s=(3, 3, 6), axes=(0, 1, 2)),
    _c2r("hfft", nf.hfft, (5,)),
    _c2r("hfft", nf.hfft, (5,), n=7, norm="ortho"),
    _c2r("hfft2", lambda x, **kw: _hfftn(x, axes=(-2, -1), **kw), (3, 4)),
    _c2r("hfftn", _hfftn, (2, 3, 3), norm="forward"),
    OpSpec("fft.fftshift", lambda x: F.fftshift(x) ** 2, lambda x: nf.fftshift(x) ** 2,
           [(3, 4)]),
    OpSpec("fft.ifftshift", lambda x: F.ifftshift(x, axes=[1]) ** 2,
           lambda x: nf.ifftshift(x, axes=[1]) ** 2, [(3, 5)]),
]
