"""Record Paddle 3.3's paddle.audio answers into tests/data/audio_refs.json, and a 16-bit
WAV file written by Paddle's audio.save into tests/data/audio_paddle.wav.

tests/audio/ replays them on DyGraph without Paddle: the functional values, the windows,
the feature layers' outputs and their gradients with respect to the waveform, the error
types, and what Paddle's load and info read from its own file. Inputs are fixed formulas
(no random draws). Run it with a Python that has paddlepaddle:

    /tmp/paddle-venv/bin/python tools/record_audio_refs.py
"""

import json
import pathlib
import warnings

import numpy as np
import paddle
from paddle import audio
from paddle.audio import features
from paddle.audio import functional as F

warnings.filterwarnings("ignore")
DATA = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data"


def waveform(batch, length):
    """The test waveform, the same formula the tests use: two tones and a ramp."""
    t = np.arange(length) / 8000.0
    rows = [0.6 * np.sin(2 * np.pi * (440 + 220 * b) * t) + 0.3 * np.sin(2 * np.pi * 1800 * t)
            + 0.05 * (t * 50 % 1) for b in range(batch)]
    return np.stack(rows).astype("float32")


def listed(t):
    return np.asarray(t.numpy() if hasattr(t, "numpy") else t).tolist()


def raised(call):
    try:
        call()
    except BaseException as exc:  # the exception's type is what is recorded
        return type(exc).__name__
    return None


FREQS = [0.0, 20.0, 440.0, 999.0, 1000.0, 1001.0, 4000.0, 11025.0]
MELS = [0.0, 3.0, 14.9, 15.0, 15.1, 30.0, 45.0]
WINDOWS = ["hann", "hamming", "blackman", "nuttall", "bartlett", "triang", "bohman",
           "cosine", ("kaiser", 8.0), ("gaussian", 1.5), ("general_gaussian", 1.5, 2.0),
           ("exponential",), ("exponential", None, 2.0), ("tukey", 0.3), ("tukey", 1.0),
           ("taylor",), ("taylor", 5, 35, False), "tukey", "taylor"]
LAYERS = [
    ("Spectrogram", {"n_fft": 64, "hop_length": 16}),
    ("Spectrogram", {"n_fft": 64, "hop_length": 32, "win_length": 48, "window": "hamming",
                     "power": 2.0}),
    ("MelSpectrogram", {"sr": 8000, "n_fft": 128, "hop_length": 32, "n_mels": 16}),
    ("MelSpectrogram", {"sr": 8000, "n_fft": 128, "hop_length": 64, "n_mels": 12,
                        "htk": True, "norm": 2.0, "f_max": 3000.0}),
    ("LogMelSpectrogram", {"sr": 8000, "n_fft": 128, "n_mels": 16}),
    ("LogMelSpectrogram", {"sr": 8000, "n_fft": 128, "n_mels": 16, "top_db": 40.0,
                           "ref_value": 0.5}),
    ("MFCC", {"sr": 8000, "n_mfcc": 10, "n_fft": 128, "n_mels": 16}),
]


def functional_refs():
    refs = {"hz_to_mel": [], "mel_to_hz": []}
    for htk in (False, True):
        refs["hz_to_mel"].append({"htk": htk, "floats": [F.hz_to_mel(f, htk) for f in FREQS],
                                  "tensor64": listed(F.hz_to_mel(
                                      paddle.to_tensor(FREQS, "float64"), htk))})
        refs["mel_to_hz"].append({"htk": htk, "floats": [F.mel_to_hz(m, htk) for m in MELS],
                                  "tensor64": listed(F.mel_to_hz(
                                      paddle.to_tensor(MELS, "float64"), htk))})
    x = paddle.to_tensor(FREQS[1:], "float64", stop_gradient=False)
    F.hz_to_mel(x).sum().backward()
    refs["hz_to_mel_grad"] = listed(x.grad)
    refs["mel_frequencies"] = [
        {"args": args, "value": listed(F.mel_frequencies(*args))}
        for args in ([10, 0.0, 8000.0, False, "float64"], [6, 50.0, 4000.0, True, "float32"],
                     [64, 0.0, 11025.0, False, "float32"])]
    refs["fft_frequencies"] = [{"args": [16000, 32], "value": listed(F.fft_frequencies(16000,
                                                                                    32))}]
    refs["fbank"] = []
    for kwargs in ({"sr": 16000, "n_fft": 64, "n_mels": 10},
                   {"sr": 16000, "n_fft": 64, "n_mels": 10, "f_min": 50.0, "f_max": 4000.0,
                    "htk": True, "dtype": "float64"},
                   {"sr": 8000, "n_fft": 32, "n_mels": 6, "norm": 2.0},
                   {"sr": 8000, "n_fft": 32, "n_mels": 6, "norm": 1.0, "dtype": "float64"},
                   {"sr": 8000, "n_fft": 32, "n_mels": 6, "norm": None}):
        refs["fbank"].append({"kwargs": kwargs,
                              "value": listed(F.compute_fbank_matrix(**kwargs))})
    spect = np.abs(waveform(2, 24).reshape(2, 3, 8)) ** 2 + 1e-12
    refs["power_to_db"] = []
    for kwargs in ({}, {"top_db": None}, {"top_db": 10.0, "ref_value": 0.3},
                   {"amin": 1e-3}):
        x = paddle.to_tensor(spect, "float64", stop_gradient=False)
        y = F.power_to_db(x, **kwargs)
        (y * paddle.to_tensor(np.linspace(0.5, 1.5, 48).reshape(2, 3, 8))).sum().backward()
        refs["power_to_db"].append({"kwargs": kwargs, "value": listed(y),
                                    "grad": listed(x.grad)})
    refs["power_to_db_raises"] = {
        "amin 0": raised(lambda: F.power_to_db(paddle.ones([2]), amin=0.0)),
        "ref_value -1": raised(lambda: F.power_to_db(paddle.ones([2]), ref_value=-1.0)),
        "top_db -1": raised(lambda: F.power_to_db(paddle.ones([2]), top_db=-1.0))}
    refs["create_dct"] = [{"args": args, "value": listed(F.create_dct(*args))}
                          for args in ([13, 40, "ortho", "float64"], [5, 8, None, "float32"],
                                       [8, 8, "ortho", "float32"])]
    refs["create_dct_bad_norm_raises"] = raised(lambda: F.create_dct(4, 8, "slaney"))
    return refs


def window_refs():
    cases = []
    for window in WINDOWS:
        for length in (1, 7, 8):
            for fftbins in (True, False):
                try:
                    value = listed(F.get_window(window, length, fftbins=fftbins))
                except BaseException as exc:  # recorded as the type raised
                    value = {"raises": type(exc).__name__}
                cases.append({"window": window, "length": length, "fftbins": fftbins,
                              "value": value})
    cases.append({"window": "hann", "length": 16, "fftbins": True, "dtype": "float32",
                  "value": listed(F.get_window("hann", 16, dtype="float32"))})
    raises = {name: raised(lambda w=w: F.get_window(w, 8)) for name, w in
              (("kaiser without beta", "kaiser"), ("unknown", "boxcarx"), ("a number", 3))}
    return {"cases": cases, "raises": raises}


def layer_refs():
    """Each layer's float32 output, and its float64 output and gradient: near-silent bins
    make the gradients of |z| and of the logarithm ill-conditioned in float32, so the
    gradients are compared where rounding does not decide them."""
    cases = []
    for name, kwargs in LAYERS:
        layer = getattr(features, name)(**kwargs)
        y32 = layer(paddle.to_tensor(waveform(2, 512)))
        layer64 = getattr(features, name)(**kwargs, dtype="float64")
        x = paddle.to_tensor(waveform(2, 512).astype("float64"), stop_gradient=False)
        y = layer64(x)
        weights = np.cos(np.arange(np.prod(y.shape)) * 0.37).reshape(y.shape)
        (y * paddle.to_tensor(weights)).sum().backward()
        cases.append({"layer": name, "kwargs": kwargs, "value": listed(y32),
                      "value64": listed(y), "grad64": listed(x.grad),
                      "state_dict": {k: list(v.shape) for k, v in layer.state_dict().items()}})
    raises = {"Spectrogram power 0": raised(lambda: features.Spectrogram(power=0.0)),
              "MFCC n_mfcc > n_mels": raised(lambda: features.MFCC(n_mfcc=20, n_mels=10))}
    return {"cases": cases, "raises": raises}


def file_refs():
    path = DATA / "audio_paddle.wav"
    stereo = waveform(2, 200) * np.array([[1.0], [0.5]], "float32")
    stereo[0, :4] = [1.0, -1.0, 0.99999, -0.5]  # the ends of the 16-bit range
    audio.save(str(path), paddle.to_tensor(stereo), 8000)
    found = audio.info(str(path))
    loaded, sr = audio.load(str(path))
    raw, _ = audio.load(str(path), normalize=False, channels_first=False)
    part, _ = audio.load(str(path), frame_offset=10, num_frames=5)
    return {"written": listed(stereo), "sample_rate": sr,
            "info": [found.sample_rate, found.num_samples, found.num_channels,
                     found.bits_per_sample, found.encoding],
            "loaded": listed(loaded), "raw_frames_first": listed(raw), "part": listed(part),
            "missing_file_raises": raised(lambda: audio.load(str(DATA / "no_such.wav"))),
            "not_audio_raises": raised(lambda: audio.info(str(pathlib.Path(__file__))))}


def main():
    refs = {"paddle": paddle.__version__, "functional": functional_refs(),
            "windows": window_refs(), "layers": layer_refs(), "files": file_refs()}
    (DATA / "audio_refs.json").write_text(json.dumps(refs) + "\n")
    print(f"wrote {DATA / 'audio_refs.json'} and {DATA / 'audio_paddle.wav'}")


if __name__ == "__main__":
    main()
