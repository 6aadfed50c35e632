"""paddle.audio.features against Paddle 3.3: the layers' outputs on a two-tone waveform,
their gradients with respect to the waveform, their state_dict keys and refusals; and a
small keyword-spotting style model that trains through MFCC."""

import numpy as np
import pytest

import dygraph
from dygraph.audio import features

from .refs import REFS, waveform

CASES = REFS["layers"]["cases"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['layer']}-{sorted(c['kwargs'])}")
def test_layer_values_and_state(case):
    layer = getattr(features, case["layer"])(**case["kwargs"])
    assert {k: list(v.shape) for k, v in layer.state_dict().items()} == case["state_dict"]
    y = layer(dygraph.to_tensor(waveform(2, 512)))
    expected = np.asarray(case["value"])
    assert y.shape == list(expected.shape) and y.dtype == dygraph.float32
    np.testing.assert_allclose(y.numpy(), expected, rtol=2e-4,
                               atol=2e-5 * np.abs(expected).max())


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['layer']}-{sorted(c['kwargs'])}")
def test_layer_gradients_in_float64(case):
    """The gradient with respect to the waveform (float64: in float32, bins near silence
    make the gradients of |z| and of the logarithm depend on rounding)."""
    layer = getattr(features, case["layer"])(**case["kwargs"], dtype="float64")
    x = dygraph.to_tensor(waveform(2, 512).astype("float64"), stop_gradient=False)
    y = layer(x)
    np.testing.assert_allclose(y.numpy(), case["value64"], rtol=1e-9, atol=1e-12)
    weights = np.cos(np.arange(y.numpy().size) * 0.37).reshape(y.shape)
    (y * dygraph.to_tensor(weights)).sum().backward()
    grad = np.asarray(case["grad64"])
    np.testing.assert_allclose(x.grad.numpy(), grad, rtol=1e-7, atol=1e-9 * np.abs(grad).max())


def test_refusals_are_paddles():
    calls = {"Spectrogram power 0": lambda: features.Spectrogram(power=0.0),
             "MFCC n_mfcc > n_mels": lambda: features.MFCC(n_mfcc=20, n_mels=10)}
    for name, expected in REFS["layers"]["raises"].items():
        with pytest.raises(Exception) as info:  # noqa: B017 - the exact type is checked
            calls[name]()
        assert type(info.value).__name__ == expected


def test_a_classifier_trains_through_mfcc():
    """Tell a low tone from a high one from their MFCCs: the loss falls."""
    dygraph.seed(0)
    t = np.arange(1024) / 8000.0
    rng = np.random.default_rng(0)
    tones = [220.0 + 40 * rng.random(8), 1500.0 + 200 * rng.random(8)]
    x = np.concatenate([np.sin(2 * np.pi * f[:, None] * t) for f in tones]).astype("float32")
    labels = np.repeat(np.array([0, 1]), 8)[:, None]
    mfcc = features.MFCC(sr=8000, n_mfcc=8, n_fft=256, n_mels=20, top_db=80.0)
    head = dygraph.nn.Linear(8, 2)
    opt = dygraph.optimizer.Adam(0.05, parameters=head.parameters())
    losses = []
    for _ in range(30):
        coefficients = mfcc(dygraph.to_tensor(x)).mean(axis=2) / 100.0
        loss = dygraph.nn.functional.cross_entropy(head(coefficients),
                                                   dygraph.to_tensor(labels))
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(loss.item())
    assert losses[-1] < 0.3 * losses[0]
