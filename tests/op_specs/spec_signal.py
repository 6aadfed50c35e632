"""Spec entries for dygraph.signal (stft, istft and the framing pair under them).

References are written with NumPy's fft and explicit framing; complex values go in and out
through `complex`/`as_real` as in spec_fft.py, squared for double backward.
"""

import numpy as np

import dygraph as D
from tests.op_specs import OpSpec

S = D.signal


def _frames(x, n_fft, hop):
    count = 1 + (x.shape[-1] - n_fft) // hop
    index = np.arange(n_fft)[:, None] + hop * np.arange(count)[None, :]
    return x[..., index]


def _overlap(frames, hop):
    n_fft, count = frames.shape[-2:]
    out = np.zeros(frames.shape[:-2] + ((count - 1) * hop + n_fft,), frames.dtype)
    for k in range(count):
        out[..., k * hop:k * hop + n_fft] += frames[..., :, k]
    return out


def _np_stft(x, window, n_fft=8, hop=2):
    x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(n_fft // 2, n_fft // 2)], mode="reflect")
    return np.fft.rfft(_frames(x, n_fft, hop) * window[:, None], axis=-2)


def _np_istft(z, window, n_fft=8, hop=2):
    frames = np.fft.irfft(z, n=n_fft, axis=-2) * window[:, None]
    out = _overlap(frames, hop)
    env = _overlap(np.repeat((window ** 2)[:, None], z.shape[-1], 1), hop)
    return (out / env)[..., n_fft // 2:-(n_fft // 2)]


def _ri(z):
    return np.stack([z.real, z.imag], axis=-1)


SPECS = [
    OpSpec("signal.stft",
           lambda x, w: D.as_real(S.stft(x, 8, hop_length=2, window=w)) ** 2,
           lambda x, w: _ri(_np_stft(x, w)) ** 2, [(2, 20), (8,)]),
    OpSpec("signal.stft",
           lambda a, b: D.as_real(S.stft(D.complex(a, b), 6, hop_length=3, win_length=4,
                                         center=False, normalized=True)) ** 2,
           lambda a, b: _ri(np.fft.fft(_frames(a + 1j * b, 6, 3)
                                       * np.array([0, 1, 1, 1, 1, 0.0])[:, None], axis=-2,
                                       norm="ortho")) ** 2,
           [(15,), (15,)], id="complex"),
    OpSpec("signal.istft",
           lambda a, b, w: S.istft(D.complex(a, b), 8, hop_length=2, window=w) ** 2,
           lambda a, b, w: _np_istft(a + 1j * b, w) ** 2, [(5, 7), (5, 7), (8,)],
           domain=(0.5, 1.0)),
    OpSpec("signal.frame", lambda x: S.frame(x, 4, 3) ** 2,
           lambda x: _frames(x, 4, 3) ** 2, [(2, 11)]),
    OpSpec("signal.frame", lambda x: S.frame(x, 3, 2, axis=0) ** 2,
           lambda x: np.moveaxis(_frames(np.moveaxis(x, 0, -1), 3, 2), [-2, -1], [1, 0]) ** 2,
           [(7, 2)], id="axis0"),
    OpSpec("signal.overlap_add", lambda x: S.overlap_add(x, 2) ** 2,
           lambda x: _overlap(x, 2) ** 2, [(2, 5, 3)]),
    OpSpec("signal.overlap_add", lambda x: S.overlap_add(x, 3, axis=0) ** 2,
           lambda x: np.moveaxis(_overlap(np.moveaxis(x, [0, 1], [-1, -2]), 3), -1, 0) ** 2,
           [(3, 4, 2)], id="axis0"),
]
