"""Paddle 3.3's recorded results for paddle.nn.utils (tools/record_nn_utils_refs.py) and the
fixed layers the recording used."""

import json
import pathlib

import numpy as np

import dygraph

REFS = json.loads((pathlib.Path(__file__).resolve().parents[2] / "data" /
                   "nn_utils_refs.json").read_text())


def arr(shape, seed):
    """The recording's deterministic test values."""
    n = int(np.prod(shape))
    return (np.sin(np.arange(n) * 0.7 + seed) * 1.5).reshape(shape).astype("float32")


def layer_for(kind):
    """The recording's layer of `kind` with its fixed weights, and its input."""
    if kind == "linear":
        layer, x = dygraph.nn.Linear(3, 4), arr([2, 3], 5)
    elif kind == "conv2d":
        layer, x = dygraph.nn.Conv2D(2, 3, 2), arr([1, 2, 3, 3], 5)
    else:
        layer, x = dygraph.nn.Conv2DTranspose(2, 3, 2), arr([1, 2, 3, 3], 5)
    layer.weight.set_value(arr(layer.weight.shape, 1))
    layer.bias.set_value(arr(layer.bias.shape, 2))
    return layer, dygraph.to_tensor(x)
