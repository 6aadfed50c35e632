"""`paddle.audio.features`: spectrogram layers over `dygraph.signal.stft`, differentiable
with respect to the waveform.

Spectrogram: |STFT|^power, [N, n_fft // 2 + 1, frames]. MelSpectrogram: the mel filter
bank times that. LogMelSpectrogram: it in decibels. MFCC: the DCT of that over the mel
axis. The window, filter bank and DCT matrix are buffers (in state_dict, as Paddle's, so
Paddle checkpoints of these layers load).

Example:
    >>> import dygraph
    >>> x = dygraph.sin(dygraph.arange(2048, dtype='float32') * 0.3).unsqueeze(0)
    >>> MFCC(sr=16000, n_mfcc=13, n_fft=256, n_mels=32)(x).shape
    [1, 13, 33]
"""

import dygraph
from dygraph.audio.functional import (
    compute_fbank_matrix,
    create_dct,
    get_window,
    power_to_db,
)
from dygraph.nn.layer.layers import Layer

__all__ = ["Spectrogram", "MelSpectrogram", "LogMelSpectrogram", "MFCC"]


class Spectrogram(Layer):
    """|STFT(x)|^power of waveforms x [N, T]: [N, n_fft // 2 + 1, frames]. The window
    (`window` of `win_length`, default n_fft, periodic) is the buffer `fft_window`.

    Example:
        >>> import dygraph
        >>> Spectrogram(n_fft=64, hop_length=16)(dygraph.ones([2, 256])).shape
        [2, 33, 17]
    """

    def __init__(self, n_fft=512, hop_length=512, win_length=None, window="hann", power=1.0,
                 center=True, pad_mode="reflect", dtype="float32"):
        super().__init__()
        if not power > 0:
            raise AssertionError(f"Power of spectrogram must be > 0, got {power}")
        self.power = power
        win_length = n_fft if win_length is None else win_length
        self.n_fft, self.hop_length, self.win_length = n_fft, hop_length, win_length
        self.center, self.pad_mode = center, pad_mode
        self.register_buffer("fft_window", get_window(window, win_length, fftbins=True,
                                                      dtype=dtype))

    def forward(self, x):
        spectrum = dygraph.signal.stft(x, n_fft=self.n_fft, hop_length=self.hop_length,
                                       win_length=self.win_length, window=self.fft_window,
                                       center=self.center, pad_mode=self.pad_mode)
        return dygraph.pow(dygraph.abs(spectrum), self.power)


class MelSpectrogram(Layer):
    """The mel filter bank (buffer `fbank_matrix`, [n_mels, n_fft // 2 + 1]) times the
    power spectrogram: [N, n_mels, frames].

    Example:
        >>> import dygraph
        >>> MelSpectrogram(sr=8000, n_fft=128, hop_length=32, n_mels=16)(
        ...     dygraph.ones([1, 512])).shape
        [1, 16, 17]
    """

    def __init__(self, sr=22050, n_fft=2048, hop_length=512, win_length=None, window="hann",
                 power=2.0, center=True, pad_mode="reflect", n_mels=64, f_min=50.0,
                 f_max=None, htk=False, norm="slaney", dtype="float32"):
        super().__init__()
        self._spectrogram = Spectrogram(n_fft=n_fft, hop_length=hop_length,
                                        win_length=win_length, window=window, power=power,
                                        center=center, pad_mode=pad_mode, dtype=dtype)
        self.n_mels, self.f_min, self.f_max = n_mels, f_min, f_max
        self.htk, self.norm = htk, norm
        self.register_buffer("fbank_matrix", compute_fbank_matrix(
            sr=sr, n_fft=n_fft, n_mels=n_mels, f_min=f_min,
            f_max=sr // 2 if f_max is None else f_max, htk=htk, norm=norm, dtype=dtype))

    def forward(self, x):
        return dygraph.matmul(self.fbank_matrix, self._spectrogram(x))


class LogMelSpectrogram(Layer):
    """The mel spectrogram in decibels (power_to_db with ref_value, amin, top_db).

    Example:
        >>> import dygraph
        >>> LogMelSpectrogram(sr=8000, n_fft=128, n_mels=16)(dygraph.ones([1, 512])).shape
        [1, 16, 17]
    """

    def __init__(self, sr=22050, n_fft=512, hop_length=None, win_length=None, window="hann",
                 power=2.0, center=True, pad_mode="reflect", n_mels=64, f_min=50.0,
                 f_max=None, htk=False, norm="slaney", ref_value=1.0, amin=1e-10,
                 top_db=None, dtype="float32"):
        super().__init__()
        self._melspectrogram = MelSpectrogram(
            sr=sr, n_fft=n_fft, hop_length=hop_length, win_length=win_length, window=window,
            power=power, center=center, pad_mode=pad_mode, n_mels=n_mels, f_min=f_min,
            f_max=f_max, htk=htk, norm=norm, dtype=dtype)
        self.ref_value, self.amin, self.top_db = ref_value, amin, top_db

    def forward(self, x):
        return power_to_db(self._melspectrogram(x), ref_value=self.ref_value, amin=self.amin,
                           top_db=self.top_db)


class MFCC(Layer):
    """Mel-frequency cepstral coefficients: the DCT (buffer `dct_matrix`, [n_mels,
    n_mfcc], orthonormal) of the log mel spectrogram over its mel axis: [N, n_mfcc,
    frames].

    Example:
        >>> import dygraph
        >>> MFCC(sr=8000, n_mfcc=8, n_fft=128, n_mels=16)(dygraph.ones([1, 512])).shape
        [1, 8, 17]
    """

    def __init__(self, sr=22050, n_mfcc=40, n_fft=512, hop_length=None, win_length=None,
                 window="hann", power=2.0, center=True, pad_mode="reflect", n_mels=64,
                 f_min=50.0, f_max=None, htk=False, norm="slaney", ref_value=1.0, amin=1e-10,
                 top_db=None, dtype="float32"):
        super().__init__()
        if n_mfcc > n_mels:
            raise AssertionError(f"n_mfcc cannot be larger than n_mels: {n_mfcc} vs {n_mels}")
        self._log_melspectrogram = LogMelSpectrogram(
            sr=sr, n_fft=n_fft, hop_length=hop_length, win_length=win_length, window=window,
            power=power, center=center, pad_mode=pad_mode, n_mels=n_mels, f_min=f_min,
            f_max=f_max, htk=htk, norm=norm, ref_value=ref_value, amin=amin, top_db=top_db,
            dtype=dtype)
        self.register_buffer("dct_matrix", create_dct(n_mfcc=n_mfcc, n_mels=n_mels,
                                                      dtype=dtype))

    def forward(self, x):
        log_mel = self._log_melspectrogram(x)
        return dygraph.matmul(log_mel.transpose([0, 2, 1]),
                              self.dct_matrix).transpose([0, 2, 1])
