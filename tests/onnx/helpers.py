"""Shared by the ONNX tests: export a layer with a dynamic batch and compare onnxruntime
with eager DyGraph at two batch sizes."""

import os

import numpy as np
import pytest

import dygraph
from dygraph.static import InputSpec

ort = pytest.importorskip("onnxruntime")


def session(path):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1  # the test machine's cores are shared
    return ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])


def check_export(tmp_path, layer, shape, make_input, batches=(1, 3), name="x",
                 atol=1e-4, rtol=1e-4):
    """Export `layer` (eval mode) with `shape` (None for the free batch) and check that
    onnxruntime gives eager's outputs at each batch size; returns the model path."""
    layer.eval()
    dtype = make_input(1).dtype
    path = os.path.join(str(tmp_path), "model")
    dygraph.onnx.export(layer, path, [InputSpec(shape, dtype.name, name)])
    sess = session(path + ".onnx")
    batch_dim = sess.get_inputs()[0].shape[0]
    assert batch_dim == "batch", batch_dim  # the free batch is a dynamic ONNX dim
    for batch in batches:
        x = make_input(batch)
        want = layer(dygraph.to_tensor(x))
        want = [w.numpy() for w in (want if isinstance(want, (list, tuple)) else [want])]
        got = sess.run(None, {name: x})
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
    return path + ".onnx"


def images(shape, seed=0):
    """make_input for float images of `shape` without the batch."""

    def make(batch):
        rng = np.random.default_rng(seed + batch)
        return rng.standard_normal((batch, *shape)).astype(np.float32)

    return make


def calibrate_batch_norm(model, x):
    """Set every batch norm's running statistics to those of one batch, so that eval
    mode keeps activations at scale (fresh statistics make deep nets' outputs vanish)."""
    norms = [m for m in model.sublayers() if hasattr(m, "_momentum")]
    saved = [m._momentum for m in norms]
    for m in norms:
        m._momentum = 0.0
    model.train()
    with dygraph.no_grad():
        model(dygraph.to_tensor(x))
    for m, momentum in zip(norms, saved):
        m._momentum = momentum
    model.eval()
