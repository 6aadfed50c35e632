"""Reading and writing audio files (`paddle.audio.load`, `save`, `info`) through
libsndfile, by the `soundfile` package: pip install 'dygraph-framework[audio]'. WAV, FLAC,
OGG/Vorbis and the other formats libsndfile knows.

Integer PCM samples are scaled as Paddle's reader scales 16-bit WAV: a sample s of b bits
loads as s / 2**(b - 1) (normalize=True) or as s itself in float32 (normalize=False), and
a float32 waveform saves as trunc(x * 2**(b - 1)), clipped to the b-bit range.

Example:
    >>> import os, tempfile
    >>> import dygraph
    >>> path = os.path.join(tempfile.mkdtemp(), 'a.wav')
    >>> save(path, dygraph.to_tensor([[0.0, 0.5, -0.25]]), 8000)
    >>> info(path).num_samples, load(path)[0].numpy()
    (3, array([[ 0.  ,  0.5 , -0.25]], dtype=float32))
"""

import os

import numpy as np

__all__ = ["AudioInfo", "load", "save", "info"]

# libsndfile's integer PCM subtypes and their bits; 8-bit unsigned reads as signed.
_PCM_BITS = {"PCM_S8": 8, "PCM_U8": 8, "PCM_16": 16, "PCM_24": 24, "PCM_32": 32}
_FLOAT_BITS = {"FLOAT": 32, "DOUBLE": 64}
# torchaudio's and Paddle's encoding names for libsndfile's subtypes.
_ENCODINGS = {"PCM_S8": "PCM_S", "PCM_16": "PCM_S", "PCM_24": "PCM_S", "PCM_32": "PCM_S",
              "PCM_U8": "PCM_U", "FLOAT": "PCM_F", "DOUBLE": "PCM_F", "ULAW": "ULAW",
              "ALAW": "ALAW", "VORBIS": "VORBIS", "OPUS": "OPUS", "MPEG_LAYER_III": "MP3"}


def _soundfile():
    try:
        import soundfile
    except ImportError:
        raise ImportError("paddle.audio's load, save and info need the soundfile package "
                          "(libsndfile): pip install soundfile (or pip install "
                          "'dygraph-framework[audio]')") from None
    return soundfile


class AudioInfo:
    """What `info` tells of a file: sample_rate, num_samples (frames), num_channels,
    bits_per_sample (0 for lossy formats) and encoding ('PCM_S', 'PCM_U', 'PCM_F', 'FLAC',
    'ULAW', 'ALAW', 'VORBIS', ...).

    Example:
        >>> AudioInfo(16000, 480, 1, 16, 'PCM_S').sample_rate
        16000
    """

    def __init__(self, sample_rate, num_samples, num_channels, bits_per_sample, encoding):
        self.sample_rate, self.num_samples = sample_rate, num_samples
        self.num_channels, self.bits_per_sample = num_channels, bits_per_sample
        self.encoding = encoding

    def __repr__(self):
        return (f"AudioInfo(sample_rate={self.sample_rate}, num_samples={self.num_samples}, "
                f"num_channels={self.num_channels}, bits_per_sample={self.bits_per_sample}, "
                f"encoding={self.encoding!r})")


def _open_error(filepath, exc):
    if isinstance(filepath, (str, os.PathLike)) and not os.path.exists(filepath):
        return FileNotFoundError(f"paddle.audio: no such file: {os.fspath(filepath)!r}")
    # Paddle answers a file its reader cannot decode with NotImplementedError
    return NotImplementedError(f"paddle.audio: libsndfile cannot read {filepath!r}: {exc}")


def info(filepath):
    """The AudioInfo of an audio file (a path or a binary file object).

    Example:
        >>> info('speech.wav').sample_rate  # doctest: +SKIP
        16000
    """
    sf = _soundfile()
    try:
        found = sf.info(filepath)
    except sf.LibsndfileError as exc:
        raise _open_error(filepath, exc) from None
    bits = _PCM_BITS.get(found.subtype, _FLOAT_BITS.get(found.subtype, 0))
    encoding = "FLAC" if found.format == "FLAC" else _ENCODINGS.get(found.subtype,
                                                                   found.subtype)
    return AudioInfo(int(found.samplerate), int(found.frames), int(found.channels), bits,
                     encoding)


def load(filepath, frame_offset=0, num_frames=-1, normalize=True, channels_first=True):
    """(waveform float32 Tensor, sample rate) of an audio file: `num_frames` frames (-1:
    to the end) from `frame_offset`, scaled to [-1, 1) (`normalize`) or as stored, shaped
    [channels, frames] (`channels_first`) or [frames, channels].

    Example:
        >>> waveform, sr = load('speech.wav')  # doctest: +SKIP
    """
    import dygraph

    sf = _soundfile()
    try:
        with sf.SoundFile(filepath) as f:
            sample_rate = int(f.samplerate)
            f.seek(min(max(int(frame_offset), 0), f.frames))
            bits = _PCM_BITS.get(f.subtype)
            if bits is None:  # float and compressed data: libsndfile's floats
                data = f.read(int(num_frames), dtype="float32", always_2d=True)
            else:
                raw = f.read(int(num_frames), dtype="int32", always_2d=True)
                # libsndfile left-aligns every integer width in int32: shift back exactly
                data = (raw >> (32 - bits)).astype(np.float32)
                if normalize:
                    data /= np.float32(2 ** (bits - 1))
    except sf.LibsndfileError as exc:
        raise _open_error(filepath, exc) from None
    if channels_first:
        data = data.T
    return dygraph.to_tensor(np.ascontiguousarray(data)), sample_rate


def _subtype(sf, path, encoding, bits):
    """libsndfile's subtype for Paddle's encoding and bits_per_sample."""
    extension = str(path).rsplit(".", 1)[-1].upper() if "." in str(path) else "WAV"
    file_format = {"OGG": "OGG", "OGA": "OGG", "FLAC": "FLAC", "AIFF": "AIFF",
                   "AIF": "AIFF", "AU": "AU"}.get(extension, "WAV")
    bits = 16 if bits is None else int(bits)
    if encoding is None:
        default = sf.default_subtype(file_format)
        if not default.startswith("PCM_"):  # a compressed format: its own encoding
            return file_format, default, None
        encoding = "PCM_U" if bits == 8 and file_format == "WAV" else "PCM_S"
    choices = {("PCM_S", 8): "PCM_S8", ("PCM_S", 16): "PCM_16", ("PCM_S", 24): "PCM_24",
               ("PCM_S", 32): "PCM_32", ("PCM_U", 8): "PCM_U8", ("PCM_F", 32): "FLOAT",
               ("PCM_F", 64): "DOUBLE", ("ULAW", 8): "ULAW", ("ALAW", 8): "ALAW"}
    subtype = choices.get((str(encoding).upper(), bits))
    if subtype is None or not sf.check_format(file_format, subtype):
        raise ValueError(f"paddle.audio.save: {file_format} files cannot hold encoding "
                         f"{encoding!r} with bits_per_sample={bits}")
    return file_format, subtype, _PCM_BITS.get(subtype)


def save(filepath, src, sample_rate, channels_first=True, encoding=None, bits_per_sample=16):
    """Write waveform `src` (a 2-D Tensor, [channels, frames] when `channels_first`) at
    `sample_rate` to `filepath`, in the format its extension names (WAV by default) with
    `encoding` ('PCM_S', 'PCM_U', 'PCM_F', 'ULAW', 'ALAW'; None: the format's default)
    and `bits_per_sample`. Float samples are in [-1, 1]; integer ones are stored as given.

    Example:
        >>> save('tone.wav', waveform, 16000)  # doctest: +SKIP
    """
    sf = _soundfile()
    data = np.asarray(src.numpy() if hasattr(src, "numpy") else src)
    if data.ndim != 2:
        raise AssertionError(f"Expected 2D tensor, got {data.ndim}-D")  # Paddle asserts
    if channels_first:
        data = data.T
    file_format, subtype, bits = _subtype(sf, filepath, encoding, bits_per_sample)
    if bits is not None and data.dtype.kind == "f":
        top = 2 ** (bits - 1)
        data = np.clip(np.trunc(data.astype(np.float64) * top), -top, top - 1)
    if bits is not None:  # integers left-aligned in int32, as libsndfile reads them
        data = data.astype(np.int64).astype(np.int32) << (32 - bits)
    sf.write(filepath, np.ascontiguousarray(data), int(sample_rate), subtype=subtype,
             format=file_format)
