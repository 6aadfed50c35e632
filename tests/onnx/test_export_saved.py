"""Export completeness: a jit.save'd model with batch norm runs through the onnxruntime
predictor, and paddle.onnx.export takes a layer that jit.load returned; both give eager's
numbers."""

import os

import numpy as np
import pytest

import dygraph
from dygraph.static import InputSpec
from tests.onnx.helpers import session


def _net():
    dygraph.seed(3)
    net = dygraph.nn.Sequential(dygraph.nn.Conv2D(1, 4, 3), dygraph.nn.BatchNorm2D(4),
                                dygraph.nn.ReLU(), dygraph.nn.Flatten(),
                                dygraph.nn.Linear(4 * 6 * 6, 3))
    opt = dygraph.optimizer.SGD(0.1, parameters=net.parameters())
    for _ in range(2):  # moves the running statistics off their start values
        net(dygraph.randn([5, 1, 8, 8])).sum().backward()
        opt.step()
        opt.clear_grad()
    net.eval()
    return net


def test_a_to_static_model_with_batch_norm_runs_through_onnxruntime(tmp_path):
    net = _net()
    x = np.random.default_rng(0).standard_normal((3, 1, 8, 8)).astype(np.float32)
    prefix = str(tmp_path / "bn")
    dygraph.jit.save(dygraph.jit.to_static(net), prefix,
                     input_spec=[InputSpec([None, 1, 8, 8], "float32", "x")])
    config = dygraph.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    config.enable_onnxruntime()
    predictor = dygraph.inference.create_predictor(config)
    handle = predictor.get_input_handle(predictor.get_input_names()[0])
    handle.copy_from_cpu(x)
    predictor.run()
    got = predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()
    np.testing.assert_allclose(got, net(dygraph.to_tensor(x)).numpy(), rtol=1e-4, atol=1e-5)


def test_onnx_export_takes_a_loaded_layer(tmp_path):
    net = _net()
    prefix = str(tmp_path / "saved")
    dygraph.jit.save(net, prefix, input_spec=[InputSpec([None, 1, 8, 8], "float32", "x")])
    loaded = dygraph.jit.load(prefix)
    onnx_path = str(tmp_path / "exported")
    dygraph.onnx.export(loaded, onnx_path)
    sess = session(onnx_path + ".onnx")
    for batch in (1, 4):
        x = np.random.default_rng(batch).standard_normal((batch, 1, 8, 8)).astype(np.float32)
        got = sess.run(None, {sess.get_inputs()[0].name: x})[0]
        np.testing.assert_allclose(got, net(dygraph.to_tensor(x)).numpy(), rtol=1e-4,
                                   atol=1e-5)
    assert os.path.exists(onnx_path + ".onnx")


def test_batch_norm_in_training_mode_is_refused_with_the_reason(tmp_path):
    pytest.importorskip("onnx")

    def train_norm(x, mean, var):
        return dygraph.nn.functional.batch_norm(x, mean, var, training=True)

    class Norm(dygraph.nn.Layer):
        def __init__(self):
            super().__init__()
            self.mean = dygraph.zeros([4])
            self.var = dygraph.ones([4])

        def forward(self, x):
            return train_norm(x, self.mean, self.var)

    with pytest.raises(NotImplementedError, match="batch norm in training mode"):
        dygraph.onnx.export(Norm(), str(tmp_path / "m"), [InputSpec([None, 4], "float32")])
