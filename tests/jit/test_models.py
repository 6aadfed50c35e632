"""to_static and jit.save/jit.load on the vision models, the seeds' MNIST model and an LSTM
classifier: the same outputs as eager (a saved model loaded in a fresh process too), and
training through to_static gives the same losses as eager."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph import nn
from dygraph.static import InputSpec
from dygraph.utils import unique_name
from dygraph.vision.models import LeNet, MNISTNet, mobilenet_v2, resnet18, vgg11

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class LSTMClassifier(nn.Layer):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, num_layers=2)
        self.fc = nn.Linear(16, 3)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.fc(y[:, -1])


MODELS = {
    "lenet": (LeNet, (1, 28, 28)),
    "mnistnet": (MNISTNet, (1, 28, 28)),
    "resnet18": (lambda: resnet18(num_classes=10), (3, 32, 32)),
    "vgg11": (lambda: vgg11(num_classes=10), (3, 32, 32)),
    "mobilenetv2": (lambda: mobilenet_v2(num_classes=10), (3, 32, 32)),
    "lstm": (LSTMClassifier, (5, 8)),
}


def _input(shape, batch=2, seed=0):
    data = np.random.default_rng(seed).standard_normal((batch,) + shape)
    return dygraph.to_tensor(data.astype(np.float32))


@pytest.mark.parametrize("name", sorted(MODELS))
def test_to_static_output_equals_eager_in_eval_mode(name):
    make, shape = MODELS[name]
    dygraph.seed(0)
    net = make()
    net.eval()
    x = _input(shape)
    expected = net(x).numpy()
    static_net = dygraph.jit.to_static(net)
    np.testing.assert_allclose(static_net(x).numpy(), expected, rtol=1e-5, atol=1e-5)
    assert len(static_net.forward.program_cache) == 1


@pytest.mark.parametrize("name", ["lenet", "mnistnet", "resnet18"])
def test_jit_save_then_load_in_a_fresh_process_equals_eager(name, tmp_path):
    make, shape = MODELS[name]
    dygraph.seed(0)
    net = make()
    net.eval()
    path = str(tmp_path / name)
    dygraph.jit.save(net, path, input_spec=[InputSpec([None, *shape], "float32", "x")])
    for batch in (1, 3):
        x = _input(shape, batch, seed=batch)
        np.save(str(tmp_path / f"x{batch}.npy"), x.numpy())
        np.save(str(tmp_path / f"y{batch}.npy"), net(x).numpy())
    script = textwrap.dedent(f"""
        import numpy as np, dygraph
        layer = dygraph.jit.load({path!r})
        layer.eval()
        for batch in (1, 3):
            x = np.load({str(tmp_path)!r} + f"/x{{batch}}.npy")
            got = layer(dygraph.to_tensor(x)).numpy()
            want = np.load({str(tmp_path)!r} + f"/y{{batch}}.npy")
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        print("same")
    """)
    env = dict(os.environ, PYTHONPATH=ROOT)
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "same"


def _mlp():
    return nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                         nn.Linear(64, 10))


def _losses(make, shape, static, steps=20):
    dygraph.seed(3)
    with unique_name.guard():
        net = make()
    if static:
        net = dygraph.jit.to_static(net)
    opt = dygraph.optimizer.Adam(1e-3, parameters=net.parameters())
    rng = np.random.default_rng(0)
    losses = []
    for _ in range(steps):
        x = dygraph.to_tensor(rng.standard_normal((16,) + shape).astype(np.float32))
        y = dygraph.to_tensor(rng.integers(0, 10, (16, 1)))
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    return losses, [p.numpy() for p in net.parameters()]


@pytest.mark.parametrize("name", ["mlp", "mnistnet"])
def test_training_through_to_static_gives_the_eager_losses(name):
    make, shape = (_mlp, (64,)) if name == "mlp" else (MNISTNet, (1, 28, 28))
    eager, eager_params = _losses(make, shape, False)
    static, static_params = _losses(make, shape, True)
    np.testing.assert_allclose(static, eager, rtol=1e-5, atol=1e-6)
    for a, b in zip(static_params, eager_params):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_batch_norm_training_updates_running_statistics_as_eager():
    x = _input((3, 16, 16), batch=4)
    results = []
    for static in (False, True):
        dygraph.seed(0)
        with unique_name.guard():
            net = resnet18(num_classes=10)
        if static:
            net = dygraph.jit.to_static(net)
        for _ in range(2):
            out = net(x)
            (out * out).mean().backward()
        net.eval()
        results.append((net(x).numpy(), [p.numpy() for p in net.parameters()],
                        [p.grad.numpy() for p in net.parameters() if p.grad is not None]))
    (out_a, params_a, grads_a), (out_b, params_b, grads_b) = results
    np.testing.assert_allclose(out_b, out_a, rtol=1e-5, atol=1e-5)
    for a, b in zip(params_a + grads_a, params_b + grads_b):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-5)


def test_lstm_gradients_through_to_static_equal_eager():
    x = _input((5, 8), batch=3)
    grads = []
    for static in (False, True):
        dygraph.seed(0)
        with unique_name.guard():
            net = LSTMClassifier()
        if static:
            net = dygraph.jit.to_static(net)
        (net(x) ** 2).sum().backward()
        grads.append([p.grad.numpy() for p in net.parameters()])
    for a, b in zip(*grads):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
