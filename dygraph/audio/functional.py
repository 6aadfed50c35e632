"""`paddle.audio.functional`: the mel scale, filter banks, decibels and the DCT of audio
features (librosa's definitions, as Paddle's), and `get_window`.

`hz_to_mel`, `mel_to_hz` and `power_to_db` take Tensors (differentiably: they are made of
DyGraph ops) or, for the first two, Python floats. The mel scale is Slaney's (linear below
1 kHz, logarithmic above) or, with `htk=True`, HTK's 2595 * log10(1 + f / 700).

Example:
    >>> round(hz_to_mel(1000.0), 6), round(mel_to_hz(15.0), 6)
    (15.0, 1000.0)
"""

import math

import numpy as np

from dygraph.audio.windows import get_window

__all__ = ["hz_to_mel", "mel_to_hz", "mel_frequencies", "fft_frequencies",
           "compute_fbank_matrix", "power_to_db", "create_dct", "get_window"]

# Slaney's scale: 200/3 Hz per mel up to 1 kHz (15 mels), then 27 mels per factor 6.4.
_F_SP = 200.0 / 3
_MIN_LOG_HZ = 1000.0
_MIN_LOG_MEL = _MIN_LOG_HZ / _F_SP
_LOGSTEP = math.log(6.4) / 27.0
# Paddle adds this inside the logarithm of the log region (a guard it keeps for floats too).
_LOG_GUARD = 1e-10


def _is_tensor(value):
    from dygraph.tensor.tensor import Tensor

    return isinstance(value, Tensor)


def hz_to_mel(freq, htk=False):
    """Frequencies in Hz (a Tensor or a float) to mels.

    Example:
        >>> import dygraph
        >>> hz_to_mel(dygraph.to_tensor([500.0, 2000.0])).numpy().round(4)
        array([ 7.5   , 25.0819], dtype=float32)
    """
    import dygraph

    if htk:
        if _is_tensor(freq):
            return 2595.0 * dygraph.log10(1.0 + freq / 700.0)
        return 2595.0 * math.log10(1.0 + freq / 700.0)
    linear = freq / _F_SP
    if _is_tensor(freq):
        # The log branch reads max(freq, 1 kHz) so that the unused side is finite for
        # any input (and passes no gradient to the frequencies below 1 kHz).
        above = dygraph.maximum(freq, dygraph.full_like(freq, _MIN_LOG_HZ))
        log = _MIN_LOG_MEL + dygraph.log(above / _MIN_LOG_HZ + _LOG_GUARD) / _LOGSTEP
        return dygraph.where(freq > _MIN_LOG_HZ, log, linear)
    if freq >= _MIN_LOG_HZ:
        return _MIN_LOG_MEL + math.log(freq / _MIN_LOG_HZ + _LOG_GUARD) / _LOGSTEP
    return linear


def mel_to_hz(mel, htk=False):
    """Mels (a Tensor or a float) to frequencies in Hz.

    Example:
        >>> round(mel_to_hz(7.5), 6), round(mel_to_hz(100.0, htk=True), 4)
        (500.0, 64.9511)
    """
    import dygraph

    if htk:
        return 700.0 * (10.0 ** (mel / 2595.0) - 1.0)
    linear = _F_SP * mel
    if _is_tensor(mel):
        log = _MIN_LOG_HZ * dygraph.exp(_LOGSTEP * (mel - _MIN_LOG_MEL))
        return dygraph.where(mel > _MIN_LOG_MEL, log, linear)
    if mel >= _MIN_LOG_MEL:
        return _MIN_LOG_HZ * math.exp(_LOGSTEP * (mel - _MIN_LOG_MEL))
    return linear


def mel_frequencies(n_mels=64, f_min=0.0, f_max=11025.0, htk=False, dtype="float32"):
    """`n_mels` frequencies in Hz, evenly spaced on the mel scale from f_min to f_max.

    Example:
        >>> mel_frequencies(3, 0.0, 2000.0, dtype='float64').numpy().round(3)
        array([   0.   ,  836.063, 2000.   ])
    """
    import dygraph

    mels = dygraph.linspace(hz_to_mel(f_min, htk=htk), hz_to_mel(f_max, htk=htk), n_mels,
                            dtype=dtype)
    return mel_to_hz(mels, htk=htk)


def fft_frequencies(sr, n_fft, dtype="float32"):
    """The centre frequencies of the 1 + n_fft // 2 bins of a real FFT at rate `sr`.

    Example:
        >>> fft_frequencies(8000, 8).numpy()
        array([   0., 1000., 2000., 3000., 4000.], dtype=float32)
    """
    import dygraph

    return dygraph.linspace(0, float(sr) / 2, int(1 + n_fft // 2), dtype=dtype)


def compute_fbank_matrix(sr, n_fft, n_mels=64, f_min=0.0, f_max=None, htk=False,
                         norm="slaney", dtype="float32"):
    """The [n_mels, 1 + n_fft // 2] matrix of triangular mel filters: filter i rises from
    mel frequency i to i + 1 and falls to i + 2. `norm` 'slaney' scales each filter to
    unit area in Hz; a number p scales each to unit p-norm; anything else leaves them.

    Example:
        >>> compute_fbank_matrix(16000, 16, n_mels=4).shape
        [4, 9]
    """
    import dygraph
    import dygraph.nn.functional as F

    if f_max is None:
        f_max = float(sr) / 2
    fftfreqs = fft_frequencies(sr=sr, n_fft=n_fft, dtype=dtype)
    mel_f = mel_frequencies(n_mels + 2, f_min=f_min, f_max=f_max, htk=htk, dtype=dtype)
    fdiff = (mel_f[1:] - mel_f[:-1]).unsqueeze(1)
    ramps = mel_f.unsqueeze(1) - fftfreqs.unsqueeze(0)
    lower = -ramps[:n_mels] / fdiff[:n_mels]
    upper = ramps[2:n_mels + 2] / fdiff[1:n_mels + 1]
    weights = dygraph.maximum(dygraph.zeros_like(lower), dygraph.minimum(lower, upper))
    if norm == "slaney":
        enorm = 2.0 / (mel_f[2:n_mels + 2] - mel_f[:n_mels])
        weights = weights * enorm.unsqueeze(1)
    elif isinstance(norm, (int, float)) and not isinstance(norm, bool):
        weights = F.normalize(weights, p=norm, axis=-1)
    return weights


def power_to_db(spect, ref_value=1.0, amin=1e-10, top_db=80.0):
    """A power spectrogram in decibels: 10 * log10(max(spect, amin) / max(ref_value,
    amin)), floored at top_db below its largest value (None: no floor).

    Example:
        >>> import dygraph
        >>> power_to_db(dygraph.to_tensor([1.0, 100.0, 1e-12]), top_db=None).numpy().round(3)
        array([   0.,   20., -100.], dtype=float32)
    """
    import dygraph

    # Paddle raises plain Exceptions for these; callers catch that type
    if amin <= 0:
        raise Exception("amin must be strictly positive")
    if ref_value <= 0:
        raise Exception("ref_value must be strictly positive")
    floor = dygraph.full_like(spect, amin)
    log_spec = 10.0 * dygraph.log10(dygraph.maximum(floor, spect))
    log_spec = log_spec - 10.0 * math.log10(max(ref_value, amin))
    if top_db is not None:
        if top_db < 0:
            raise Exception("top_db must be non-negative")
        peak = log_spec.max() - top_db
        log_spec = dygraph.maximum(log_spec, dygraph.zeros_like(log_spec) + peak)
    return log_spec


def create_dct(n_mfcc, n_mels, norm="ortho", dtype="float32"):
    """The [n_mels, n_mfcc] DCT-II matrix that turns log mel energies into cepstral
    coefficients; `norm` 'ortho' makes it orthonormal, None leaves the factor 2.

    Example:
        >>> m = create_dct(4, 4, dtype='float64').numpy()
        >>> bool(np.allclose(m.T @ m, np.eye(4)))
        True
    """
    import dygraph

    if norm not in (None, "ortho"):
        # Paddle asserts this; the type stays AssertionError (not stripped by -O here)
        raise AssertionError(f"create_dct: norm must be 'ortho' or None, got {norm!r}")
    n = dygraph.arange(n_mels, dtype=dtype)
    k = dygraph.arange(n_mfcc, dtype=dtype).unsqueeze(1)
    dct = dygraph.cos(math.pi / float(n_mels) * (n + 0.5) * k)
    if norm is None:
        dct = dct * 2.0
    else:
        row = np.full((n_mfcc, 1), 1.0)
        row[0] = 1.0 / math.sqrt(2.0)
        dct = dct * dygraph.to_tensor(row, dtype=dtype) * math.sqrt(2.0 / float(n_mels))
    return dct.t()
