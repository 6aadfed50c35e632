"""AMP O2 in float16 with the default GradScaler (scale 65536, which float16 cannot hold):
the unscaled gradients must reach the float32 master weights, directly and through
hapi's Model(amp_configs)."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph import amp

RNG = np.random.default_rng(0)
X = RNG.uniform(-1.0, 1.0, (16, 4)).astype(np.float32)
Y = X @ np.array([[0.5], [-0.3], [0.2], [0.1]], np.float32)
# float16-representable start, so the O2 model and the float32 reference start equal.
W0 = RNG.uniform(-0.5, 0.5, (4, 1)).astype(np.float16).astype(np.float32)


def _train(o2, steps=5):
    net = dygraph.nn.Linear(4, 1)
    net.weight.set_value(W0)
    net.bias.set_value(np.zeros(1, np.float32))
    opt = dygraph.optimizer.SGD(0.5, parameters=net.parameters())
    if o2:
        net, opt = amp.decorate(net, opt, level="O2", dtype="float16")
        assert net.weight.dtype == dygraph.float16
    scaler = amp.GradScaler(enable=o2)
    x, y = dygraph.to_tensor(X), dygraph.to_tensor(Y)
    losses = []
    for _ in range(steps):
        with amp.auto_cast(enable=o2, level="O2", dtype="float16"):
            loss = F.mse_loss(net(x).astype("float32"), y)
        losses.append(float(loss))
        scaler.scale(loss).backward()
        scaler.minimize(opt)
        opt.clear_grad()
    return net.weight.numpy().astype(np.float32), losses, scaler


def test_o2_float16_with_the_default_scaler_updates_and_matches_float32():
    weight, losses, scaler = _train(o2=True)
    assert scaler.get_loss_scaling() == 65536.0  # no step overflowed: none was skipped
    assert not np.array_equal(weight, W0)
    assert all(b < a for a, b in zip(losses, losses[1:]))
    ref_weight, ref_losses, _ = _train(o2=False)
    # float16 forward and gradients differ from float32 by about 1e-3 relative.
    np.testing.assert_allclose(weight, ref_weight, atol=2e-3)
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-2)


def test_unscale_of_float16_gradients_keeps_them_float16_and_finds_overflow():
    w = dygraph.framework.parameter.Parameter(np.ones(2, np.float16))
    opt = dygraph.optimizer.SGD(1.0, parameters=[w])
    scaler = amp.GradScaler()  # 65536
    scaler.scale((w.astype("float32") * 2.0 ** -10).sum()).backward()  # scaled gradient 64
    scaler.unscale_(opt)
    assert w.grad.dtype == dygraph.float16
    np.testing.assert_array_equal(w.grad.numpy(), [2.0 ** -10] * 2)
    scaler.step(opt)
    scaler.update()
    opt.clear_grad()
    np.testing.assert_array_equal(w.numpy(), [1.0 - 2.0 ** -10] * 2)
    with pytest.warns(RuntimeWarning, match="overflow"):  # scaled gradient 131072: inf
        scaler.scale((w.astype("float32") * 2.0).sum()).backward()
    scaler.minimize(opt)
    assert scaler.get_loss_scaling() == 32768.0  # the overflow was found and skipped
    np.testing.assert_array_equal(w.numpy(), [1.0 - 2.0 ** -10] * 2)


def test_o2_optimizer_updates_float32_master_weights():
    net = dygraph.nn.Linear(2, 1)
    net.weight.set_value(np.ones((2, 1), np.float32))
    opt = dygraph.optimizer.SGD(1.0, parameters=net.parameters())
    net, opt = amp.decorate(net, opt, level="O2", dtype="float16")
    # Each step subtracts 1e-4, under half float16's spacing below 1.0 (2**-11): a float16
    # weight updated in place would stay 1.0 for ever; a float32 master accumulates.
    for step in range(1, 11):
        (net.weight.astype("float32").sum() * 1e-4).backward()
        opt.step()
        opt.clear_grad()
        master = opt.state_dict()["master_weights"][net.weight.name].numpy()
        assert master.dtype == np.float32
        np.testing.assert_allclose(master, 1.0 - step * 1e-4, rtol=1e-6)
        np.testing.assert_array_equal(net.weight.numpy(), master.astype(np.float16))
    assert net.weight.dtype == dygraph.float16
    assert (net.weight.numpy() < 1.0).all()


def test_model_fit_under_o2_amp_configs_updates_the_weights():
    from dygraph.hapi import Model
    from dygraph.io import TensorDataset

    net = dygraph.nn.Linear(4, 1)
    net.weight.set_value(W0)
    model = Model(net)
    model.prepare(dygraph.optimizer.SGD(0.5, parameters=net.parameters()),
                  dygraph.nn.MSELoss(), amp_configs={"level": "O2"})
    assert net.weight.dtype == dygraph.float16  # float16 is hapi's default, as Paddle's
    before = net.weight.numpy().copy()
    data = TensorDataset([dygraph.to_tensor(X), dygraph.to_tensor(Y)])
    first = model.evaluate(data, batch_size=8, verbose=0)["loss"][0]
    model.fit(data, epochs=1, batch_size=8, verbose=0)  # two steps
    assert model._scaler.get_loss_scaling() == 65536.0
    assert not np.array_equal(net.weight.numpy(), before)
    assert model.evaluate(data, batch_size=8, verbose=0)["loss"][0] < first
