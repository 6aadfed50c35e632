"""paddle.audio.functional against Paddle 3.3's values: the mel scale (floats and
Tensors, with its gradient), filter banks, decibels (with gradients) and the DCT."""

import numpy as np
import pytest

import dygraph
from dygraph.audio import functional as F

from .refs import REFS, waveform

R = REFS["functional"]
FREQS = [0.0, 20.0, 440.0, 999.0, 1000.0, 1001.0, 4000.0, 11025.0]
MELS = [0.0, 3.0, 14.9, 15.0, 15.1, 30.0, 45.0]


@pytest.mark.parametrize("case", R["hz_to_mel"], ids=lambda c: f"htk={c['htk']}")
def test_hz_to_mel(case):
    assert [F.hz_to_mel(f, case["htk"]) for f in FREQS] == pytest.approx(case["floats"],
                                                                          rel=1e-12)
    out = F.hz_to_mel(dygraph.to_tensor(FREQS, "float64"), case["htk"])
    np.testing.assert_allclose(out.numpy(), case["tensor64"], rtol=1e-12)


@pytest.mark.parametrize("case", R["mel_to_hz"], ids=lambda c: f"htk={c['htk']}")
def test_mel_to_hz(case):
    assert [F.mel_to_hz(m, case["htk"]) for m in MELS] == pytest.approx(case["floats"],
                                                                         rel=1e-12)
    out = F.mel_to_hz(dygraph.to_tensor(MELS, "float64"), case["htk"])
    np.testing.assert_allclose(out.numpy(), case["tensor64"], rtol=1e-12)


def test_hz_to_mel_gradient():
    x = dygraph.to_tensor(FREQS[1:], "float64", stop_gradient=False)
    F.hz_to_mel(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), R["hz_to_mel_grad"], rtol=1e-9)


def test_mel_and_fft_frequencies():
    for case in R["mel_frequencies"]:
        out = F.mel_frequencies(*case["args"])
        assert out.dtype == getattr(dygraph, case["args"][-1])
        np.testing.assert_allclose(out.numpy(), case["value"], rtol=2e-6)
    case = R["fft_frequencies"][0]
    np.testing.assert_allclose(F.fft_frequencies(*case["args"]).numpy(), case["value"])


@pytest.mark.parametrize("case", R["fbank"], ids=lambda c: repr(c["kwargs"]))
def test_compute_fbank_matrix(case):
    out = F.compute_fbank_matrix(**case["kwargs"])
    assert out.dtype == getattr(dygraph, case["kwargs"].get("dtype", "float32"))
    np.testing.assert_allclose(out.numpy(), case["value"], rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("case", R["power_to_db"], ids=lambda c: repr(c["kwargs"]))
def test_power_to_db_and_its_gradient(case):
    spect = np.abs(waveform(2, 24).reshape(2, 3, 8)) ** 2 + 1e-12
    x = dygraph.to_tensor(spect, "float64", stop_gradient=False)
    y = F.power_to_db(x, **case["kwargs"])
    (y * dygraph.to_tensor(np.linspace(0.5, 1.5, 48).reshape(2, 3, 8))).sum().backward()
    np.testing.assert_allclose(y.numpy(), case["value"], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(x.grad.numpy(), case["grad"], rtol=1e-9, atol=1e-12)


def test_power_to_db_refusals_are_paddles():
    calls = {"amin 0": lambda: F.power_to_db(dygraph.ones([2]), amin=0.0),
             "ref_value -1": lambda: F.power_to_db(dygraph.ones([2]), ref_value=-1.0),
             "top_db -1": lambda: F.power_to_db(dygraph.ones([2]), top_db=-1.0)}
    for name, expected in R["power_to_db_raises"].items():
        with pytest.raises(Exception) as info:  # noqa: B017 - the exact type is checked
            calls[name]()
        assert type(info.value).__name__ == expected


def test_create_dct():
    for case in R["create_dct"]:
        out = F.create_dct(*case["args"])
        np.testing.assert_allclose(out.numpy(), case["value"], rtol=1e-5, atol=1e-7)
    with pytest.raises(AssertionError) as info:
        F.create_dct(4, 8, "slaney")
    assert type(info.value).__name__ == R["create_dct_bad_norm_raises"]
