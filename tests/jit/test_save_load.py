"""jit.save / jit.load (TranslatedLayer: runs, trains, saves again; damaged files refused)
and the 1.x TracedLayer (Paddle 1.6's example)."""

import json

import numpy as np
import pytest

import dygraph
import dygraph.fluid as fluid
import dygraph.nn.functional as F
from dygraph import nn
from dygraph.static import InputSpec


def _net():
    dygraph.seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1D(8), nn.ReLU(), nn.Dropout(0.3),
                         nn.Linear(8, 3))


def _x(batch=5, seed=0):
    data = np.random.default_rng(seed).standard_normal((batch, 4)).astype(np.float32)
    return dygraph.to_tensor(data)


SPEC = [InputSpec([None, 4], "float32", "x")]


def test_loaded_layer_runs_trains_further_and_saves_again(tmp_path):
    net = _net()
    net.eval()
    dygraph.jit.save(net, str(tmp_path / "m"), input_spec=SPEC)
    loaded = dygraph.jit.load(str(tmp_path / "m"))
    assert isinstance(loaded, dygraph.jit.TranslatedLayer)
    loaded.eval()
    x = _x()
    np.testing.assert_allclose(loaded(x).numpy(), net(x).numpy(), rtol=1e-6, atol=1e-6)

    params = loaded.parameters()
    assert all(isinstance(p, dygraph.framework.parameter.Parameter) for p in params)
    trainable = [p for p in params if not p.stop_gradient]
    assert len(trainable) == 6  # two linears, batch norm's scale and shift
    opt = dygraph.optimizer.Adam(0.05, parameters=trainable)
    loaded.train()
    label = dygraph.to_tensor(np.arange(5) % 3)
    losses = []
    for _ in range(15):
        loss = F.cross_entropy(loaded(x), label)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < losses[0]
    loaded.eval()
    trained = loaded(x).numpy()
    assert not np.allclose(trained, net(x).numpy())

    dygraph.jit.save(loaded, str(tmp_path / "again"))
    again = dygraph.jit.load(str(tmp_path / "again"))
    again.eval()
    np.testing.assert_allclose(again(x).numpy(), trained, rtol=1e-6, atol=1e-6)
    # a feed of another shape warns (as Paddle does) and the op that cannot take it fails
    with pytest.warns(UserWarning, match=r"feed 'x' has shape \[5, 2\]"), \
            pytest.raises(ValueError, match="matmul"):
        again(dygraph.ones([5, 2]))


def test_save_a_to_static_function_and_a_decorated_layer(tmp_path):
    @dygraph.jit.to_static(input_spec=SPEC)
    def f(x):
        return F.relu(x) * 2.0

    dygraph.jit.save(f, str(tmp_path / "f"))
    x = _x()
    np.testing.assert_allclose(dygraph.jit.load(str(tmp_path / "f"))(x).numpy(),
                               f(x).numpy(), rtol=1e-6)
    net = dygraph.jit.to_static(nn.Linear(4, 2))
    net(x)  # the traced program is what gets saved (its batch size fixed)
    dygraph.jit.save(net, str(tmp_path / "net"))
    np.testing.assert_allclose(dygraph.jit.load(str(tmp_path / "net"))(x).numpy(),
                               net(x).numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="input_spec"):
        dygraph.jit.save(nn.Linear(4, 2), str(tmp_path / "none"))


def test_damaged_files_are_refused(tmp_path):
    net = _net()
    path = str(tmp_path / "m")
    dygraph.jit.save(net, path, input_spec=SPEC)
    with open(path + ".pdmodel", "rb") as f:
        model = json.loads(f.read())
    with open(path + ".pdmodel", "wb") as f:
        f.write(b"{not json")
    with pytest.raises(ValueError, match="damaged"):
        dygraph.jit.load(path)
    model["ops"][0]["class"] = "os:system"
    with open(path + ".pdmodel", "w") as f:
        json.dump(model, f)
    with pytest.raises(ValueError, match="not an op class of dygraph"):
        dygraph.jit.load(path)
    dygraph.jit.save(net, path, input_spec=SPEC)
    with open(path + ".pdiparams", "r+b") as f:
        f.seek(40)
        f.write(b"\xff" * 16)
    with pytest.raises(ValueError):
        dygraph.jit.load(path)
    with pytest.raises(ValueError, match="no .*missing.pdmodel"):
        dygraph.jit.load(str(tmp_path / "missing"))


def test_traced_layer_follows_the_paddle_1_6_example(tmp_path):
    class ExampleLayer(fluid.dygraph.Layer):
        def __init__(self):
            super().__init__()
            self._fc = fluid.dygraph.Linear(3, 10)

        def forward(self, input):
            return self._fc(input)

    with fluid.dygraph.guard():
        layer = ExampleLayer()
        in_np = np.random.random([2, 3]).astype("float32")
        in_var = fluid.dygraph.to_variable(in_np)
        out_dygraph, static_layer = fluid.dygraph.TracedLayer.trace(layer, inputs=[in_var])
        out_static_graph = static_layer([in_var])
        assert len(out_static_graph) == 1 and out_static_graph[0].shape == (2, 10)
        np.testing.assert_allclose(out_static_graph[0], out_dygraph.numpy(), rtol=1e-6)
        static_layer.save_inference_model(str(tmp_path / "saved_infer_model"))
    exe = fluid.Executor(fluid.CPUPlace())
    program, feed_vars, fetch_vars = fluid.io.load_inference_model(
        str(tmp_path / "saved_infer_model"), exe)
    fetch, = exe.run(program, feed={feed_vars[0]: in_np}, fetch_list=fetch_vars)
    np.testing.assert_allclose(fetch, out_dygraph.numpy(), rtol=1e-6)


def test_a_saved_lstm_runs_and_trains(tmp_path):
    # Its cell steps have outputs nothing reads, which the saved program leaves out.
    class Classifier(nn.Layer):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(8, 16, num_layers=2)
            self.fc = nn.Linear(16, 3)

        def forward(self, x):
            _, (h, _) = self.lstm(x)
            return self.fc(h.sum(axis=0))

    dygraph.seed(0)
    net = Classifier()
    net.eval()
    x = dygraph.to_tensor(np.random.default_rng(0).standard_normal((3, 5, 8)), "float32")
    dygraph.jit.save(net, str(tmp_path / "lstm"), input_spec=[InputSpec([3, 5, 8])])
    loaded = dygraph.jit.load(str(tmp_path / "lstm"))
    np.testing.assert_allclose(loaded(x).numpy(), net(x).numpy(), rtol=1e-5, atol=1e-6)
    (loaded(x) ** 2).sum().backward()
    assert all(p.grad is not None for p in loaded.parameters())


def test_a_model_traced_by_a_call_is_saved_with_a_free_batch(tmp_path):
    """jit.save without input_spec after a call at batch 4: the saved model runs batch 1
    (as Paddle's saved program does), with the layer's numbers."""
    net = dygraph.jit.to_static(dygraph.nn.Sequential(dygraph.nn.Linear(6, 3),
                                                      dygraph.nn.ReLU()))
    net(dygraph.ones([4, 6]))
    path = str(tmp_path / "m")
    dygraph.jit.save(net, path)
    loaded = dygraph.jit.load(path)
    for batch in (1, 7):
        x = dygraph.randn([batch, 6])
        np.testing.assert_allclose(loaded(x).numpy(), net(x).numpy(), rtol=1e-6)


def _resized(x):
    return dygraph.nn.functional.interpolate(x, scale_factor=2, mode="bilinear")


def test_a_resize_saves_after_its_gradient_ran(tmp_path):
    """interpolate's axis maps are shared between calls and cache their transposes (which
    point back at them): a program file stores the cache as None, so a map whose gradient
    ran still saves and loads."""
    x = dygraph.rand([1, 2, 3, 3])
    x.stop_gradient = False
    _resized(x).sum().backward()  # the maps' transposes are made
    static = dygraph.jit.to_static(
        _resized, input_spec=[dygraph.static.InputSpec([None, 2, 3, 3], "float32")])
    static(x).sum().backward()
    path = str(tmp_path / "resize")
    dygraph.jit.save(static, path)
    loaded = dygraph.jit.load(path)
    np.testing.assert_allclose(loaded(x).numpy(), _resized(x).numpy(), rtol=1e-6)
