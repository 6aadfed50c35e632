"""Paddle 3.3's recorded paddle.audio answers (tests/data/audio_refs.json, written by
tools/record_audio_refs.py) and the waveform formula they were computed on."""

import json
import pathlib

import numpy as np

DATA = pathlib.Path(__file__).resolve().parent.parent / "data"
REFS = json.loads((DATA / "audio_refs.json").read_text())


def waveform(batch, length):
    """Two tones and a ramp, the same formula as the recording tool's."""
    t = np.arange(length) / 8000.0
    rows = [0.6 * np.sin(2 * np.pi * (440 + 220 * b) * t) + 0.3 * np.sin(2 * np.pi * 1800 * t)
            + 0.05 * (t * 50 % 1) for b in range(batch)]
    return np.stack(rows).astype("float32")
