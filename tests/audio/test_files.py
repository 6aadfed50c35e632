"""paddle.audio.load, save and info through libsndfile (soundfile): a WAV file Paddle 3.3
wrote reads as Paddle read it, ours holds the samples Paddle's would, and other encodings,
formats and file objects round-trip."""

import io
import sys
import wave

import numpy as np
import pytest

import dygraph
from dygraph import audio

from .refs import DATA, REFS

R = REFS["files"]
PADDLE_WAV = DATA / "audio_paddle.wav"


def test_without_soundfile_the_error_names_the_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "soundfile", None)  # as if it were not installed
    with pytest.raises(ImportError, match="pip install soundfile"):
        audio.info(PADDLE_WAV)


def test_a_paddle_wav_reads_as_paddle_read_it():
    pytest.importorskip("soundfile")
    found = audio.info(str(PADDLE_WAV))
    assert [found.sample_rate, found.num_samples, found.num_channels, found.bits_per_sample,
            found.encoding] == R["info"]
    loaded, sr = audio.load(str(PADDLE_WAV))
    assert sr == R["sample_rate"] and loaded.dtype == dygraph.float32
    np.testing.assert_array_equal(loaded.numpy(), R["loaded"])
    raw, _ = audio.load(PADDLE_WAV, normalize=False, channels_first=False)
    np.testing.assert_array_equal(raw.numpy(), R["raw_frames_first"])
    part, _ = audio.load(PADDLE_WAV, frame_offset=10, num_frames=5)
    np.testing.assert_array_equal(part.numpy(), R["part"])
    # Paddle's reader ignores frame_offset when reading to the end; DyGraph's does not
    tail, _ = audio.load(PADDLE_WAV, frame_offset=190)
    np.testing.assert_array_equal(tail.numpy(), np.asarray(R["loaded"])[:, 190:])


def _pcm(path):
    with wave.open(str(path)) as f:
        return f.getparams()[:3], np.frombuffer(f.readframes(f.getnframes()), "<i2")


def test_saved_samples_are_the_ones_paddle_writes(tmp_path):
    pytest.importorskip("soundfile")
    path = tmp_path / "ours.wav"
    audio.save(str(path), dygraph.to_tensor(R["written"]), 8000)
    (params, ours), (paddle_params, theirs) = _pcm(path), _pcm(PADDLE_WAV)
    assert params == paddle_params  # channels, sample width, rate
    # +1.0 is 32768, one past the 16-bit range: Paddle's wraps it to -32768, ours clips
    one = np.asarray(R["written"]).T.reshape(-1) == 1.0
    np.testing.assert_array_equal(ours[~one], theirs[~one])
    assert set(ours[one]) == {32767} and set(theirs[one]) == {-32768}


@pytest.mark.parametrize("name, encoding, bits", [
    ("a.wav", "PCM_S", 24), ("a.wav", "PCM_S", 32), ("a.wav", "PCM_F", 32),
    ("a.wav", "PCM_U", 8), ("a.flac", None, 16), ("a.wav", "ULAW", 8)])
def test_encodings_round_trip(tmp_path, name, encoding, bits):
    pytest.importorskip("soundfile")
    t = np.arange(400) / 16000.0
    x = np.stack([0.7 * np.sin(2 * np.pi * 300 * t), 0.2 * np.cos(2 * np.pi * 900 * t)])
    path = tmp_path / name
    audio.save(path, dygraph.to_tensor(x.T.astype("float32")), 16000, channels_first=False,
               encoding=encoding, bits_per_sample=bits)
    found = audio.info(path)
    assert (found.num_samples, found.num_channels, found.sample_rate) == (400, 2, 16000)
    assert found.encoding == (encoding or "FLAC")
    back, _ = audio.load(path)
    step = {8: 2.0 ** -7, 16: 2.0 ** -15, 24: 2.0 ** -23, 32: 2.0 ** -31}[bits]
    # truncation toward zero loses at most one step; mu-law is logarithmic (coarser)
    np.testing.assert_allclose(back.numpy(), x, atol=0.03 if encoding == "ULAW" else step)


def test_ogg_vorbis_and_file_objects(tmp_path):
    pytest.importorskip("soundfile")
    t = np.arange(8000) / 8000.0
    x = (0.5 * np.sin(2 * np.pi * 440 * t)).astype("float32")[None]
    buffer = io.BytesIO()
    audio.save(str(tmp_path / "a.ogg"), dygraph.to_tensor(x), 8000)
    assert audio.info(str(tmp_path / "a.ogg")).encoding == "VORBIS"
    buffer.write((tmp_path / "a.ogg").read_bytes())
    buffer.seek(0)
    back, sr = audio.load(buffer)
    assert sr == 8000 and back.shape[0] == 1
    spectrum = np.abs(np.fft.rfft(back.numpy()[0]))
    assert abs(np.argmax(spectrum) * 8000 / back.shape[1] - 440) < 5  # still 440 Hz


def test_refusals_are_paddles(tmp_path):
    pytest.importorskip("soundfile")
    calls = {"missing_file_raises": lambda: audio.load(str(DATA / "no_such.wav")),
             "not_audio_raises": lambda: audio.info(__file__)}
    for key, call in calls.items():
        with pytest.raises(Exception) as info:  # noqa: B017 - the exact type is checked
            call()
        assert type(info.value).__name__ == R[key]
    with pytest.raises(AssertionError):  # Paddle asserts a 2-D waveform
        audio.save(str(tmp_path / "x.wav"), dygraph.ones([8]), 8000)
    with pytest.raises(ValueError, match="cannot hold"):
        audio.save(str(tmp_path / "x.wav"), dygraph.ones([1, 8]), 8000, bits_per_sample=12)
