"""The module paths and plumbing that Paddle code imports: paddle.base, paddle.device,
set_flags/get_flags, fluid.dygraph.grad, paddle.tensor.*, paddle.autograd.py_layer,
paddle.nn.layer.*, paddle.framework and paddle.utils."""

import importlib
import sys

import numpy as np
import pytest

import dygraph
import dygraph.fluid as fluid


def test_base_is_fluid_under_its_new_name():
    from dygraph.base.dygraph import guard
    from dygraph.base.framework import in_dygraph_mode

    import dygraph.base as base
    from dygraph.base import core

    assert core is fluid.core and guard is fluid.dygraph.guard
    assert in_dygraph_mode is fluid.framework.in_dygraph_mode
    assert base.CPUPlace is fluid.CPUPlace and base.layers is fluid.layers
    # A submodule imported through the new name is the very same module object.
    nested = importlib.import_module("dygraph.base.dygraph.base")
    assert nested is sys.modules["dygraph.fluid.dygraph.base"]
    with pytest.raises(ImportError):
        importlib.import_module("dygraph.base.no_such_module")
    with pytest.raises(AttributeError, match="dygraph.base"):
        base.no_such_name  # noqa: B018


def test_device_module_on_a_cpu_machine():
    device = dygraph.device
    assert device.get_device() == "cpu" and device.set_device("cpu") == "cpu"
    assert device.get_available_device()[0] == "cpu"
    assert device.get_all_device_type()[0] == "cpu"
    assert device.device_count() == device.cuda.device_count() >= 0
    assert not any(f() for f in (device.is_compiled_with_rocm, device.is_compiled_with_xpu,
                                 device.is_compiled_with_ipu, device.is_compiled_with_cinn))
    assert device.is_compiled_with_custom_device("npu") is False
    assert device.get_all_custom_device_type() == device.get_available_custom_device() == []
    device.synchronize("cpu")
    if device.cuda.device_count() == 0:
        assert device.get_cudnn_version() is None and not device.is_available()
        with pytest.raises(RuntimeError, match="CuPy"):
            device.cuda.memory_allocated()
    with pytest.raises(ValueError, match="unknown device"):
        device.set_device("tpu")
    device.manual_seed(3)
    first = dygraph.rand([2]).numpy()
    device.manual_seed(3)
    np.testing.assert_array_equal(dygraph.rand([2]).numpy(), first)


def test_flags_round_trip_and_checks():
    before = dygraph.get_flags(["FLAGS_cudnn_deterministic", "FLAGS_eager_delete_tensor_gb"])
    assert before == {"FLAGS_cudnn_deterministic": False, "FLAGS_eager_delete_tensor_gb": 0.0}
    try:
        dygraph.set_flags({"FLAGS_cudnn_deterministic": 1, "FLAGS_eager_delete_tensor_gb": "2"})
        assert fluid.get_flags("FLAGS_cudnn_deterministic") == {"FLAGS_cudnn_deterministic": True}
        assert dygraph.get_flags(["FLAGS_eager_delete_tensor_gb"]) == \
            {"FLAGS_eager_delete_tensor_gb": 2.0}
        fluid.set_flags({"FLAGS_check_nan_inf": "true"})
        assert dygraph.framework.get_flags("FLAGS_check_nan_inf")["FLAGS_check_nan_inf"]
    finally:
        dygraph.set_flags(dict(before, FLAGS_check_nan_inf=False))
    with pytest.raises(ValueError, match="FLAGS_nope cannot set its value"):
        dygraph.set_flags({"FLAGS_nope": 1})
    with pytest.raises(ValueError, match="FLAGS_nope cannot get its value"):
        dygraph.get_flags(["FLAGS_nope"])
    with pytest.raises(TypeError, match="takes a int value"):
        dygraph.set_flags({"FLAGS_call_stack_level": "high"})
    with pytest.raises(TypeError, match="should be a dict"):
        dygraph.set_flags([("FLAGS_benchmark", True)])


def test_fluid_dygraph_grad_is_paddle_grad():
    with fluid.dygraph.guard():
        x = fluid.dygraph.to_variable(np.array([3.0], np.float32))
        x.stop_gradient = False
        (dx,) = fluid.dygraph.grad(x * x, [x])
    assert dx.numpy().tolist() == [6.0]
    assert fluid.dygraph.grad is dygraph.grad


def test_tensor_namespace_holds_the_functions():
    out = dygraph.tensor.fill_constant([2, 2], "float32", 1.5)
    assert out.numpy().tolist() == [[1.5, 1.5], [1.5, 1.5]]
    assert dygraph.tensor.matmul is dygraph.matmul and dygraph.tensor.Tensor is dygraph.Tensor
    with pytest.raises(AttributeError, match="no attribute 'not_an_op'"):
        dygraph.tensor.not_an_op  # noqa: B018


def test_paddle_module_paths_import():
    from dygraph.autograd.py_layer import PyLayer, PyLayerContext
    from dygraph.nn.layer.activation import ReLU
    from dygraph.nn.layer.common import Linear
    from dygraph.nn.layer.container import Sequential
    from dygraph.nn.layer.conv import Conv2D
    from dygraph.nn.layer.layers import Layer
    from dygraph.nn.layer.loss import MSELoss
    from dygraph.nn.layer.norm import BatchNorm2D
    from dygraph.nn.layer.pooling import MaxPool2D
    from dygraph.nn.layer.rnn import LSTM
    from dygraph.nn.layer.transformer import Transformer

    nn = dygraph.nn
    assert (PyLayer, PyLayerContext) == (dygraph.autograd.PyLayer,
                                         dygraph.autograd.PyLayerContext)
    assert [ReLU, Linear, Sequential, Conv2D, Layer, MSELoss, BatchNorm2D, MaxPool2D, LSTM,
            Transformer] == [nn.ReLU, nn.Linear, nn.Sequential, nn.Conv2D, nn.Layer,
                             nn.MSELoss, nn.BatchNorm2D, nn.MaxPool2D, nn.LSTM,
                             nn.Transformer]


def test_framework_and_utils_namespaces():
    framework = dygraph.framework
    assert framework.CPUPlace is dygraph.CPUPlace and framework.seed is dygraph.seed
    assert framework.ParamAttr is dygraph.ParamAttr and framework.save is dygraph.save
    with pytest.raises(AttributeError):
        framework.not_a_name  # noqa: B018
    utils = dygraph.utils
    assert utils.try_import("json").dumps([1]) == "[1]"
    with pytest.raises(ImportError, match="pip install no_such_pkg_xyz"):
        utils.try_import("no_such_pkg_xyz.sub")
    with pytest.raises(ImportError, match="^custom message$"):
        utils.try_import("no_such_pkg_xyz", "custom message")
    assert utils.unique_name.generate("fc") != utils.unique_name.generate("fc")


def test_utils_deprecated_and_run_check(capsys):
    @dygraph.utils.deprecated(update_to="dygraph.add", since="0.1", reason="old", level=1)
    def plus(a, b):
        """Add."""
        return a + b

    with pytest.warns(UserWarning, match='Please use "dygraph.add" instead'):
        assert plus(1, 2) == 3
    assert "is deprecated since 0.1" in plus.__doc__

    @dygraph.utils.deprecated(level=2)
    def gone():
        return 1

    with pytest.raises(RuntimeError, match="has been deprecated"):
        gone()
    with pytest.raises(ValueError, match="level should be 0, 1 or 2"):
        dygraph.utils.deprecated(level=3)
    dygraph.utils.run_check()
    assert "DyGraph works well on 1 CPU." in capsys.readouterr().out
