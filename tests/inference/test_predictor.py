"""paddle.inference-style predictor on a saved model: the Executor backend and the
onnxruntime backend give eager's outputs through the input/output handles."""

import os

import numpy as np
import pytest

import dygraph
from dygraph import static
from dygraph.inference import (
    Config,
    DataType,
    PlaceType,
    PrecisionType,
    create_predictor,
    get_version,
)
from dygraph.static import InputSpec
from dygraph.vision import models
from tests.onnx.helpers import calibrate_batch_norm, images
from tests.onnx.test_export_models import SequenceClassifier


def save(layer, prefix, shape, dtype="float32"):
    """save_inference_model of `layer` in eval mode with a free batch."""
    layer.eval()
    main, startup = static.Program(), static.Program()
    dygraph.enable_static()
    try:
        with static.program_guard(main, startup):
            x = static.data("x", shape, dtype)
            y = layer(x)
    finally:
        dygraph.disable_static()
    exe = static.Executor()
    exe.run(startup)
    static.save_inference_model(prefix, [x], [y], exe, program=main)
    return prefix


def predict(config, x):
    predictor = create_predictor(config)
    (name,) = predictor.get_input_names()
    handle = predictor.get_input_handle(name)
    handle.reshape(x.shape)
    handle.copy_from_cpu(x)
    assert predictor.run() is True
    (out,) = predictor.get_output_names()
    return predictor.get_output_handle(out).copy_to_cpu()


@pytest.mark.parametrize("backend", ["executor", "onnxruntime"])
def test_lenet_resnet_and_lstm_through_both_backends(tmp_path, backend):
    pytest.importorskip("onnxruntime")
    dygraph.seed(0)
    resnet = models.resnet18(num_classes=10)
    calibrate_batch_norm(resnet, images((3, 32, 32), seed=5)(4))
    cases = [(models.LeNet(), [None, 1, 28, 28], images((1, 28, 28))),
             (resnet, [None, 3, 32, 32], images((3, 32, 32))),
             (SequenceClassifier("LSTM"), [None, 7],
              lambda b: np.random.default_rng(b).integers(0, 50, (b, 7)))]
    for i, (layer, shape, make) in enumerate(cases):
        x = make(1)
        prefix = save(layer, str(tmp_path / f"m{i}"), shape, x.dtype.name)
        config = Config(prefix)
        config.disable_gpu()
        config.switch_ir_optim(True)
        config.enable_memory_optim()
        config.set_cpu_math_library_num_threads(1)
        if backend == "onnxruntime":
            config.enable_onnxruntime()
        for batch in (1, 2):
            x = make(batch)
            want = layer(dygraph.to_tensor(x)).numpy()
            tol = 0.0 if backend == "executor" else 1e-4
            np.testing.assert_allclose(predict(config, x), want, rtol=tol, atol=tol)


def test_handles_names_types_and_run_with_a_list(tmp_path):
    dygraph.seed(1)
    net = models.LeNet()
    prefix = save(net, str(tmp_path / "lenet"), [None, 1, 28, 28])
    predictor = create_predictor(Config(prefix + ".pdmodel", prefix + ".pdiparams"))
    assert predictor.get_input_names() == ["x"]
    handle = predictor.get_input_handle("x")
    assert handle.shape() == [-1, 1, 28, 28]
    assert handle.type() == DataType.FLOAT32 and handle.place() == PlaceType.CPU
    x = images((1, 28, 28))(3)
    handle.copy_from_cpu(x.astype(np.float64))  # another float precision converts
    predictor.run()
    out = predictor.get_output_handle(predictor.get_output_names()[0])
    assert out.shape() == [3, 10]
    want = net(dygraph.to_tensor(x)).numpy()
    np.testing.assert_allclose(out.copy_to_cpu(), want, atol=1e-6)
    (result,) = predictor.clone().run([x])
    assert isinstance(result, dygraph.Tensor)
    np.testing.assert_allclose(result.numpy(), want, atol=1e-6)
    with pytest.raises(ValueError, match="no input named 'y'"):
        predictor.get_input_handle("y")
    with pytest.raises(RuntimeError, match="is an output"):
        out.copy_from_cpu(x)
    with pytest.raises(RuntimeError, match="input 'x' has no value; set it"):
        predictor.clone().run()
    with pytest.raises(RuntimeError, match="has no value yet"):
        predictor.clone().get_output_handle(out.name).copy_to_cpu()
    assert PrecisionType.Float32 == 0 and get_version().startswith("version: ")


def test_a_directory_and_an_onnx_file_load(tmp_path):
    pytest.importorskip("onnxruntime")
    dygraph.seed(2)
    net = models.MNISTNet()
    net.eval()
    save(net, str(tmp_path / "dir" / "inference"), [None, 1, 28, 28])
    dygraph.onnx.export(net, str(tmp_path / "onnx" / "net"),
                        [InputSpec([None, 1, 28, 28], "float32", "x")])
    x = images((1, 28, 28))(2)
    want = net(dygraph.to_tensor(x)).numpy()
    np.testing.assert_allclose(predict(Config(str(tmp_path / "dir")), x), want, atol=1e-6)
    config = Config(str(tmp_path / "onnx" / "net.onnx"))
    assert config.onnxruntime_enabled()
    np.testing.assert_allclose(predict(config, x), want, atol=1e-4)


def test_bad_configs_are_refused(tmp_path):
    os.makedirs(tmp_path / "empty")
    with pytest.raises(ValueError, match="must hold one .pdmodel"):
        Config(str(tmp_path / "empty"))
    with pytest.raises(ValueError, match="no .*missing.pdmodel"):
        create_predictor(Config(str(tmp_path / "missing")))
    with pytest.raises(TypeError, match="inference.Config"):
        create_predictor("model")
    with pytest.raises(ValueError, match="threads"):
        Config("m").set_cpu_math_library_num_threads(0)
    with pytest.warns(UserWarning, match="runs on the CPU"):
        Config("m").enable_use_gpu(100, 0)
