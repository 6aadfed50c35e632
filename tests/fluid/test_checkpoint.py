"""1.x checkpoints: save/load_persistables in the 1.4 and 1.5 forms (with optimizers) and
save/load_dygraph, all exact round trips through dygraph.save/dygraph.load."""

import os

import numpy as np
import pytest

import dygraph.fluid as fluid


def trained_model_and_optimizer():
    model = fluid.dygraph.Sequential(fluid.dygraph.Linear(3, 4), fluid.dygraph.Linear(4, 2))
    adam = fluid.optimizer.AdamOptimizer(0.01, parameter_list=model.parameters())
    x = fluid.dygraph.to_variable(np.ones([2, 3], np.float32))
    loss = fluid.layers.reduce_sum(model(x))
    loss.backward()
    adam.minimize(loss)
    return model, adam


def arrays(state):
    return {k: (v.numpy() if hasattr(v, "numpy") else v) for k, v in state.items()}


def test_persistables_15_round_trip_with_optimizer(tmp_path, capsys):
    model, adam = trained_model_and_optimizer()
    folder = str(tmp_path / "save_dir")
    fluid.dygraph.save_persistables(model.state_dict(), folder, optimizers=adam)
    params, optimizers = fluid.dygraph.load_persistables(folder)
    assert capsys.readouterr().out == ""
    for key, value in model.state_dict().items():
        np.testing.assert_array_equal(params[key].numpy(), value.numpy())
        assert params[key].name == value.name
    assert list(optimizers) == [adam._name]
    saved = arrays(adam.state_dict())
    for key, value in optimizers[adam._name].items():
        np.testing.assert_array_equal(value.numpy(), saved[key])


def test_persistables_without_optimizer_says_so_and_drops_a_stale_one(tmp_path, capsys):
    model, adam = trained_model_and_optimizer()
    folder = str(tmp_path / "ckpt")
    fluid.dygraph.save_persistables(model.state_dict(), folder, [adam])
    fluid.dygraph.save_persistables(model.state_dict(), folder)
    params, optimizers = fluid.dygraph.load_persistables(folder)
    assert optimizers == {}
    assert capsys.readouterr().out == (
        "No optimizer loaded. If you didn't save optimizer, please ignore this. The program "
        "can still work with new optimizer. \n")
    assert sorted(os.listdir(folder)) == ["persistables.pdparams"]


def test_persistables_14_form(tmp_path):
    model, _ = trained_model_and_optimizer()
    folder = str(tmp_path / "v14")
    fluid.dygraph.save_persistables(model.state_dict(), folder)
    loaded = fluid.dygraph.load_persistables(model.state_dict(), folder)
    assert list(loaded) == list(model.state_dict())
    fresh = fluid.dygraph.Sequential(fluid.dygraph.Linear(3, 4), fluid.dygraph.Linear(4, 2))
    fresh.load_dict(loaded)
    for key, value in fresh.state_dict().items():
        np.testing.assert_array_equal(value.numpy(), model.state_dict()[key].numpy())
    with pytest.raises(ValueError, match="extra"):
        fluid.dygraph.load_persistables({"extra": None}, folder)
    with pytest.raises(ValueError, match="no checkpoint"):
        fluid.dygraph.load_persistables(str(tmp_path / "nothing"))
    with pytest.raises(TypeError, match="state_dict"):
        fluid.dygraph.save_persistables(model, folder)


def test_save_and_load_dygraph(tmp_path):
    model, adam = trained_model_and_optimizer()
    path = str(tmp_path / "nested" / "model")
    fluid.dygraph.save_dygraph(model.state_dict(), path)
    fluid.dygraph.save_dygraph(adam.state_dict(), path)
    assert sorted(os.listdir(tmp_path / "nested")) == ["model.pdopt", "model.pdparams"]
    params, opt_state = fluid.dygraph.load_dygraph(path)
    for key, value in model.state_dict().items():
        assert isinstance(params[key], np.ndarray)
        np.testing.assert_array_equal(params[key], value.numpy())
    fresh_model = fluid.dygraph.Sequential(fluid.dygraph.Linear(3, 4),
                                           fluid.dygraph.Linear(4, 2))
    fresh_model.set_dict(params)
    for key, value in fresh_model.state_dict().items():
        np.testing.assert_array_equal(value.numpy(), params[key])
    fresh_adam = fluid.optimizer.AdamOptimizer(0.01, parameter_list=model.parameters())
    fresh_adam.set_dict(opt_state)
    for key, value in arrays(adam.state_dict()).items():
        np.testing.assert_array_equal(fresh_adam.state_dict()[key].numpy(), value)
    assert fluid.dygraph.load_dygraph(path + ".pdparams")[0].keys() == params.keys()
    only_params = str(tmp_path / "only")
    fluid.dygraph.save_dygraph(model.state_dict(), only_params)
    assert fluid.dygraph.load_dygraph(only_params)[1] is None
    with pytest.raises(ValueError, match="neither"):
        fluid.dygraph.load_dygraph(str(tmp_path / "absent"))
    with pytest.raises(ValueError, match="non-empty"):
        fluid.dygraph.save_dygraph({}, path)
    with pytest.raises(ValueError, match="dirname/filename"):
        fluid.dygraph.save_dygraph(model.state_dict(), str(tmp_path) + os.sep)
