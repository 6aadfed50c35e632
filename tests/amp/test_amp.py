"""dygraph.amp: auto_cast lists and levels, bfloat16 rounding, GradScaler, decorate,
Model(amp_configs)."""

import threading

import ml_dtypes
import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph import amp


def _bf16(a):
    return np.asarray(a, np.float32).astype(ml_dtypes.bfloat16).astype(np.float32)


def test_o1_white_ops_go_low_black_ops_stay_float32_gray_ops_widen():
    x, w = dygraph.randn([4, 3]), dygraph.randn([3, 2])
    with amp.auto_cast():
        y = dygraph.matmul(x, w)
        assert y.dtype == dygraph.float16
        assert dygraph.exp(y).dtype == dygraph.float32  # black list
        assert (y + x[:, :2]).dtype == dygraph.float32  # gray, mixed inputs
        assert F.relu(y).dtype == dygraph.float16  # gray, one dtype
        assert amp.is_autocast_enabled()
    assert not amp.is_autocast_enabled()
    np.testing.assert_allclose(y.numpy(), x.numpy() @ w.numpy(), rtol=2e-3, atol=2e-3)


def test_o2_runs_everything_but_the_black_list_low_and_custom_lists_apply():
    x = dygraph.randn([2, 5])
    with amp.auto_cast(level="O2"):
        assert F.relu(x).dtype == dygraph.float16
        assert F.softmax(x).dtype == dygraph.float32
    with amp.auto_cast(custom_white_list={"exp"}, custom_black_list={"matmul"}):
        assert dygraph.exp(x).dtype == dygraph.float16
        assert dygraph.matmul(x, x.T).dtype == dygraph.float32
    with amp.auto_cast(enable=False):
        assert dygraph.matmul(x, x.T).dtype == dygraph.float32


def test_bfloat16_rounds_inputs_and_outputs_of_low_precision_ops():
    x, w = dygraph.randn([8, 16]), dygraph.randn([16, 4])
    with amp.auto_cast(dtype="bfloat16"):
        y = dygraph.matmul(x, w)
        assert amp.get_autocast_dtype() == "bfloat16"
    expected = _bf16(_bf16(x.numpy()) @ _bf16(w.numpy()))
    np.testing.assert_array_equal(y.numpy(), expected)
    assert y.dtype == dygraph.float32  # dygraph.bfloat16 is stored as float32


def test_gradients_reach_float32_parameters():
    dygraph.seed(0)
    net = dygraph.nn.Linear(3, 2)
    x = dygraph.randn([4, 3])
    with amp.auto_cast():
        loss = net(x).astype("float32").mean()
    loss.backward()
    assert net.weight.grad.dtype == dygraph.float32
    np.testing.assert_allclose(net.weight.grad.numpy(),
                               np.repeat(x.numpy().mean(0)[:, None] / 2, 2, 1), rtol=1e-2,
                               atol=1e-3)


def test_auto_cast_is_per_thread():
    seen = []
    inside, done = threading.Event(), threading.Event()

    def other():
        inside.wait(10)
        seen.append(dygraph.matmul(dygraph.ones([2, 2]), dygraph.ones([2, 2])).dtype)
        done.set()

    t = threading.Thread(target=other)
    t.start()
    with amp.auto_cast():
        inside.set()
        done.wait(10)
    t.join()
    assert seen == [dygraph.float32]


def test_grad_scaler_skips_inf_steps_and_adapts_the_scale():
    w = dygraph.framework.parameter.Parameter(np.ones(2, np.float32))
    opt = dygraph.optimizer.SGD(0.1, parameters=[w])
    scaler = amp.GradScaler(init_loss_scaling=8.0, incr_every_n_steps=2,
                            decr_every_n_nan_or_inf=1)
    scaler.scale((w * 3.0).sum()).backward()
    assert w.grad.numpy().tolist() == [24.0, 24.0]
    scaler.minimize(opt)
    opt.clear_grad()
    np.testing.assert_allclose(w.numpy(), [0.7, 0.7], rtol=1e-6)  # unscaled gradient 3
    scaler.scale((w * np.inf).sum()).backward()
    before = w.numpy()
    scaler.minimize(opt)
    opt.clear_grad()
    np.testing.assert_array_equal(w.numpy(), before)  # skipped
    assert scaler.get_loss_scaling() == 4.0
    for _ in range(2):
        scaler.scale((w * 1.0).sum()).backward()
        scaler.minimize(opt)
        opt.clear_grad()
    assert scaler.get_loss_scaling() == 8.0
    state = scaler.state_dict()
    fresh = amp.GradScaler()
    fresh.load_state_dict(state)
    assert fresh.get_loss_scaling() == 8.0
    with pytest.raises(ValueError, match="decr_ratio"):
        amp.GradScaler(decr_ratio=1.5)


def test_decorate_o2_casts_parameters_and_keeps_float32_master_weights():
    net = dygraph.nn.Sequential(dygraph.nn.Linear(2, 2), dygraph.nn.LayerNorm(2))
    opt = dygraph.optimizer.Adam(0.1, parameters=net.parameters())
    net, opt = amp.decorate(net, opt, level="O2")
    assert net[0].weight.dtype == dygraph.float16
    assert net[1].weight.dtype == dygraph.float32  # normalisation stays float32
    before = net[0].weight.numpy().copy()
    with amp.auto_cast(level="O2"):
        out = net(dygraph.randn([3, 2])).astype("float32")
        loss = (out * out).mean()
    loss.backward()
    opt.step()
    assert not np.array_equal(net[0].weight.numpy(), before)
    with pytest.raises(ValueError, match="level"):
        amp.decorate(net, level="O3")


def test_model_trains_under_amp_configs():
    from dygraph.hapi import InputSpec, Model
    from dygraph.io import TensorDataset

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 64)
    x = (rng.standard_normal((64, 4)) + 2.0 * y[:, None]).astype(np.float32)
    data = TensorDataset([dygraph.to_tensor(x), dygraph.to_tensor(y.reshape(-1, 1))])
    results = {}
    for dtype in (None, "bfloat16", "float16"):
        dygraph.seed(0)
        net = dygraph.nn.Linear(4, 2)
        model = Model(net, [InputSpec([None, 4])], [InputSpec([None, 1], "int64")])
        configs = {"level": "O1", "dtype": dtype} if dtype else None
        if dtype == "float16":
            configs["init_loss_scaling"] = 1024.0
        model.prepare(dygraph.optimizer.Adam(0.05, parameters=net.parameters()),
                      dygraph.nn.CrossEntropyLoss(), dygraph.metric.Accuracy(),
                      amp_configs=configs)
        model.fit(data, epochs=8, batch_size=16, verbose=0)
        results[dtype] = model.evaluate(data, batch_size=16, verbose=0)
        assert (model._scaler is not None) == (dtype == "float16")
    for dtype in ("bfloat16", "float16"):  # trains as well as float32
        assert abs(results[dtype]["acc"] - results[None]["acc"]) <= 0.05
        assert results[dtype]["loss"][0] == pytest.approx(results[None]["loss"][0], rel=0.05)


def test_paddle_norm_names_select_the_normalize_op():
    """custom_white_list={'layer_norm'} (Paddle's name) runs layer norm low; the norms are
    in the black list otherwise."""
    ln = dygraph.nn.LayerNorm(4)
    x = dygraph.randn([2, 4])
    with amp.auto_cast(level="O1", dtype="float16", custom_white_list={"layer_norm"}):
        assert ln(x).dtype == dygraph.float16
    with amp.auto_cast(level="O1", dtype="float16"):
        assert ln(x).dtype == dygraph.float32
