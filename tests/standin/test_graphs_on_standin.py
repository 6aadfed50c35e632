"""to_static training steps of the benchmark models as CUDA graphs, on the CuPy stand-in
(tools/cupy_standin/): every step is captured whole (no op falls back to launch by
launch), the replays give the eager GPU path's losses, and a replayed step makes only
the optimizer's calls. A GPU run checks the same on CuPy (tests/gpu); this one runs
everywhere, so a change that breaks a capture (a product through `@`, a copy from the
host, a value read on the host) fails here first."""

import warnings

import numpy as np
import pytest

import dygraph
from dygraph import nn
from dygraph.jit import cuda_graph
from dygraph.tensor.deferred_grads import FLAT_COPIES
from dygraph.vision import models
from tools import cupy_standin


class _Sequence(nn.Layer):
    def __init__(self, kind):
        super().__init__()
        if kind == "lstm":
            self.body, width = nn.LSTM(8, 16, num_layers=2), 16
        elif kind == "gru":
            self.body, width = nn.GRU(8, 24), 24
        else:
            layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0)
            self.body, width = nn.TransformerEncoder(layer, 2), 16
        self.kind = kind
        self.head = nn.Linear(width, 10)

    def forward(self, x):
        if self.kind == "transformer":
            return self.head(self.body(x).mean(axis=1))
        out, _ = self.body(x)
        return self.head(out[:, -1])


_MODELS = {
    "resnet18": (lambda: models.resnet18(num_classes=10), (2, 3, 32, 32)),
    "mobilenetv2": (lambda: models.MobileNetV2(num_classes=10), (2, 3, 32, 32)),
    "lstm": (lambda: _Sequence("lstm"), (3, 5, 8)),
    "gru": (lambda: _Sequence("gru"), (3, 5, 8)),
    "transformer": (lambda: _Sequence("transformer"), (3, 5, 16)),
}


def _losses(name, static, steps=4):
    """The losses of `steps` training steps on the stand-in GPU, and the calls into it
    that the last step made."""
    build, shape = _MODELS[name]
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.integers(0, 10, shape[0]).astype(np.int64)
    dygraph.seed(0)
    model = build()
    opt = dygraph.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    xt, yt = dygraph.to_tensor(x), dygraph.to_tensor(y)

    def step(xt, yt):
        loss = nn.functional.cross_entropy(model(xt), yt)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    if static:
        step = dygraph.jit.to_static(step)
    losses, calls = [], 0
    for _ in range(steps):
        before = cupy_standin.stats["calls"]
        losses.append(float(step(xt, yt)))
        calls = cupy_standin.stats["calls"] - before
    return losses, calls, len(model.parameters())


@pytest.mark.parametrize("name", list(_MODELS))
def test_a_training_step_is_captured_whole_and_replays_the_eager_losses(name, standin_gpu):
    eager, eager_calls, n_params = _losses(name, static=False)
    replays = cuda_graph.stats["replays"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # a fallback warns: fail on it
        graphed, calls, _ = _losses(name, static=True)
    assert cuda_graph.stats["replays"] - replays == 2  # warm-up, capture, two replays
    np.testing.assert_allclose(graphed, eager, rtol=1e-6)
    # A replay: the graph launches, and between them the optimizer's step: one kernel
    # over the flat parameters (optimizer/device_flat.py) after one gather of the
    # gradients (up to deferred_grads.FLAT_COPIES of them a kernel of ours for each eight;
    # more, CuPy's concatenate, which copies three tables to the device first, and a flat
    # copy of each gradient that is not C-ordered: MobileNetV2's depthwise filters); eager
    # makes many times more.
    gather = -(-n_params // 8) if n_params <= FLAT_COPIES else 1 + 3
    assert calls <= 7 + gather + (17 if name == "mobilenetv2" else 0)
    assert calls * 5 < eager_calls
