"""Static programs: the same model code as eager, run by the Executor, with the same
numbers; shapes known at build time; clear errors."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph import static
from dygraph.autograd.function import Op, apply
from dygraph.utils import unique_name
from dygraph.vision.models import MNISTNet


@pytest.fixture(autouse=True)
def _dynamic_after():
    yield
    dygraph.disable_static()


def _batches(steps, batch=16, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((batch, 1, 28, 28)).astype(np.float32),
             rng.integers(0, 10, (batch, 1)).astype(np.int64)) for _ in range(steps)]


def _optimizer(kind, params):
    if kind == "sgd":
        return dygraph.optimizer.SGD(0.05, parameters=params)
    return dygraph.optimizer.Adam(1e-3, parameters=params)


@pytest.mark.parametrize("kind", ["sgd", "adam"])
def test_mnist_static_matches_eager_for_ten_steps(kind):
    data = _batches(10)
    dygraph.seed(1)
    with unique_name.guard():
        eager_net = MNISTNet()
    start = {k: v.numpy().copy() for k, v in eager_net.state_dict().items()}
    opt = _optimizer(kind, eager_net.parameters())
    eager_losses = []
    for x, y in data:
        loss = F.cross_entropy(eager_net(dygraph.to_tensor(x)), dygraph.to_tensor(y))
        loss.backward()
        opt.step()
        opt.clear_grad()
        eager_losses.append(float(loss))

    dygraph.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        with unique_name.guard():
            net = MNISTNet()
        net.set_state_dict(start)  # the same initial values
        img = static.data("img", [None, 1, 28, 28])
        label = static.data("label", [None, 1], "int64")
        loss = F.cross_entropy(net(img), label)
        _optimizer(kind, net.parameters()).minimize(loss)
    exe = static.Executor()
    scope = static.Scope()
    exe.run(startup, scope=scope)
    static_losses = [float(exe.run(main, feed={"img": x, "label": y}, fetch_list=[loss],
                                   scope=scope)[0]) for x, y in data]
    np.testing.assert_allclose(static_losses, eager_losses, rtol=1e-5, atol=1e-6)
    for p_eager, p in zip(eager_net.parameters(), net.parameters()):
        np.testing.assert_allclose(scope.find_var(p.name).get_tensor(), p_eager.numpy(),
                                   rtol=1e-5, atol=1e-6)


def test_shapes_are_known_at_build_time_and_any_batch_runs():
    dygraph.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 1, 28, 28])
        net = MNISTNet()
        out = net(x)
    assert x.shape == [-1, 1, 28, 28] and out.shape == [-1, 10]
    exe = static.Executor()
    exe.run(startup)
    for batch in (1, 7):
        feed = np.random.default_rng(batch).standard_normal((batch, 1, 28, 28))
        got = exe.run(main, feed={"x": feed.astype(np.float32)}, fetch_list=[out])[0]
        dygraph.disable_static()
        net.eval()
        expected = net(dygraph.to_tensor(feed.astype(np.float32))).numpy()
        dygraph.enable_static()
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    text = str(main)
    assert "conv" in text and "[-1, 10]" in text


def test_bad_programs_fail_while_built_at_the_users_line():
    dygraph.enable_static()
    with static.program_guard(static.Program(), static.Program()):
        x = static.data("x", [None, 800])
        w = dygraph.ones([500, 10])
        with pytest.raises(ValueError, match=r"matmul: .*-1, 800.*\[500, 10\].*test_static"):
            dygraph.matmul(x, w)


def test_feed_errors_name_the_variable():
    dygraph.enable_static()
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [None, 3])
        y = x * 2.0
    exe = static.Executor()
    with pytest.raises(ValueError, match="needs feed 'x'"):
        exe.run(main, feed={}, fetch_list=[y])
    with pytest.raises(ValueError, match="feed 'x' has dtype int64"):
        exe.run(main, feed={"x": np.ones((2, 3), np.int64)}, fetch_list=[y])
    # Another float precision converts, as in Paddle 1.x.
    assert exe.run(main, feed={"x": np.ones((2, 3))}, fetch_list=[y])[0].dtype == np.float32
    # Another shape warns and runs, as in Paddle (the ops decide what they can take).
    with pytest.warns(UserWarning, match=r"feed 'x' has shape \[2, 4\]"):
        exe.run(main, feed={"x": np.ones((2, 4), np.float32)}, fetch_list=[y])
    with pytest.raises(RuntimeError, match="no value until an Executor runs"):
        y.numpy()


def test_clone_for_test_matches_eval_mode():
    dygraph.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 6])
        net = dygraph.nn.Sequential(dygraph.nn.Linear(6, 6), dygraph.nn.Dropout(0.5),
                                    dygraph.nn.Linear(6, 2))
        out = net(x)
        loss = out.mean()
        dygraph.optimizer.SGD(0.1, parameters=net.parameters()).minimize(loss)
    test_program = main.clone(for_test=True)
    assert all(o.role not in ("backward", "optimize") for o in test_program.global_block().ops)
    exe = static.Executor()
    exe.run(startup)
    feed = np.random.default_rng(0).standard_normal((4, 6)).astype(np.float32)
    got = exe.run(test_program, feed={"x": feed}, fetch_list=[out])[0]
    dygraph.disable_static()
    net.eval()
    np.testing.assert_allclose(got, net(dygraph.to_tensor(feed)).numpy(), rtol=1e-6)


def test_gradients_match_eager():
    dygraph.enable_static()
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [None, 3])
        x.stop_gradient = False
        y = (dygraph.tanh(x) * x).sum()
        (gx,) = static.gradients([y], [x])
    feed = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    got = static.Executor().run(main, feed={"x": feed}, fetch_list=[gx])[0]
    dygraph.disable_static()
    t = dygraph.to_tensor(feed, stop_gradient=False)
    (dygraph.tanh(t) * t).sum().backward()
    np.testing.assert_allclose(got, t.grad.numpy(), rtol=1e-6)


class _BakedRows(Op):
    """Reshapes to a row count fixed when the op was made (a build-time stand-in size)."""

    def __init__(self, rows):
        self.rows = rows

    def forward(self, xp, x):
        return x.reshape(self.rows, -1)

    def backward(self, m, g):
        return (g,)


def test_an_op_that_fixes_a_free_size_is_refused_and_a_fixed_batch_builds():
    dygraph.enable_static()
    with static.program_guard(static.Program(), static.Program()):
        x = static.data("x", [None, 2, 2])
        with pytest.raises(ValueError, match="fixed that size.*Give the dimension a size"):
            apply(_BakedRows(x._data.shape[0]), x)
        y = static.data("y", [4, 2, 2])
        out = apply(_BakedRows(y._data.shape[0]), y)
    assert out.shape == [4, 4]


def _bn_net():
    nn = dygraph.nn
    return nn.Sequential(nn.Conv2D(1, 3, 3), nn.BatchNorm2D(3), nn.ReLU(), nn.Flatten(),
                         nn.Linear(3 * 4 * 4, 2), nn.BatchNorm1D(2))


def test_batch_norm_with_a_free_batch_trains_as_eager_and_tests_with_running_stats():
    rng = np.random.default_rng(4)
    data = [rng.standard_normal((n, 1, 6, 6)).astype(np.float32) for n in (5, 3, 7)]
    dygraph.seed(5)
    with unique_name.guard():
        eager = _bn_net()
    start = {k: v.numpy().copy() for k, v in eager.state_dict().items()}
    opt = dygraph.optimizer.SGD(0.1, parameters=eager.parameters())
    eager_losses = []
    for x in data:
        loss = (eager(dygraph.to_tensor(x)) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        eager_losses.append(float(loss))

    dygraph.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        with unique_name.guard():
            net = _bn_net()
        net.set_state_dict(start)
        x = static.data("x", [None, 1, 6, 6])
        out = net(x)
        loss = (out ** 2).mean()
        dygraph.optimizer.SGD(0.1, parameters=net.parameters()).minimize(loss)
    test_program = main.clone(for_test=True)
    dygraph.disable_static()
    assert out.shape == [-1, 2]
    exe, scope = static.Executor(), static.Scope()
    exe.run(startup, scope=scope)
    losses = [float(exe.run(main, feed={"x": x}, fetch_list=[loss], scope=scope)[0])
              for x in data]
    np.testing.assert_allclose(losses, eager_losses, rtol=1e-5)
    for key, value in eager.state_dict().items():  # parameters and running statistics
        name = dict(net.state_dict())[key].name
        np.testing.assert_allclose(scope.vars[name], value.numpy(), rtol=1e-5, atol=1e-6)
    eager.eval()
    probe = rng.standard_normal((4, 1, 6, 6)).astype(np.float32)
    got = exe.run(test_program, feed={"x": probe}, fetch_list=[out], scope=scope)[0]
    np.testing.assert_allclose(got, eager(dygraph.to_tensor(probe)).numpy(), rtol=1e-5,
                               atol=1e-6)


def test_batch_and_layer_norm_build_with_a_free_batch_and_match_eager():
    bn, ln = dygraph.nn.BatchNorm2D(2), dygraph.nn.LayerNorm([3, 3])
    bn.eval()
    main, startup = static.Program(), static.Program()
    dygraph.enable_static()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 2, 3, 3])
        y = ln(bn(x))
    dygraph.disable_static()
    exe = static.Executor()
    exe.run(startup)
    for batch in (1, 5):
        data = np.random.default_rng(batch).standard_normal((batch, 2, 3, 3), np.float32)
        got = exe.run(main, feed={"x": data}, fetch_list=[y])[0]
        np.testing.assert_allclose(got, ln(bn(dygraph.to_tensor(data))).numpy(), atol=1e-6)


def test_embedding_and_lstm_run_with_each_runs_ids_and_batch():
    dygraph.seed(3)
    emb, lstm = dygraph.nn.Embedding(20, 4, padding_idx=0), dygraph.nn.LSTM(4, 3)
    main, startup = static.Program(), static.Program()
    dygraph.enable_static()
    with static.program_guard(main, startup):
        ids = static.data("ids", [None, None], "int64")
        out, (h, c) = lstm(emb(ids))
    dygraph.disable_static()
    exe = static.Executor()
    exe.run(startup)
    for shape in ((1, 2), (4, 6)):
        data = np.random.default_rng(shape[1]).integers(0, 20, shape)
        got = exe.run(main, feed={"ids": data}, fetch_list=[out, c])
        want_out, (_, want_c) = lstm(emb(dygraph.to_tensor(data)))
        np.testing.assert_allclose(got[0], want_out.numpy(), atol=1e-6)
        np.testing.assert_allclose(got[1], want_c.numpy(), atol=1e-6)


def test_gradients_of_gradients_equal_eager_double_backward():
    """A gradient penalty: d/dx of |d loss/dx|^2 and d/dw of it, through a layer, as
    eager's create_graph double backward gives them (float64)."""
    rng = np.random.default_rng(4)
    x0 = rng.standard_normal((3, 4))
    dygraph.seed(2)
    layer = dygraph.nn.Linear(4, 2)
    layer.weight.set_value(rng.standard_normal((4, 2)))
    layer.to(dtype="float64")
    dygraph.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 4], "float64")
        x.stop_gradient = False
        loss = (dygraph.tanh(layer(x)) ** 3).sum()
        (gx,) = static.gradients([loss], [x])
        penalty = (gx * gx).sum()
        gxx, gw = static.gradients([penalty], [x, layer.weight])
    dygraph.disable_static()
    exe = static.Executor()
    exe.run(startup)
    got = exe.run(main, feed={"x": x0}, fetch_list=[gx, gxx, gw])
    t = dygraph.to_tensor(x0, stop_gradient=False)
    (g,) = dygraph.grad([(dygraph.tanh(layer(t)) ** 3).sum()], [t], create_graph=True)
    want = dygraph.grad([(g * g).sum()], [t, layer.weight])
    np.testing.assert_allclose(got[0], g.numpy(), rtol=1e-12)
    np.testing.assert_allclose(got[1], want[0].numpy(), rtol=1e-10)
    np.testing.assert_allclose(got[2], want[1].numpy(), rtol=1e-10)
    # First-order programs are unchanged by it: the first gradient alone runs again.
    np.testing.assert_allclose(exe.run(main, feed={"x": x0}, fetch_list=[gx])[0], got[0])
