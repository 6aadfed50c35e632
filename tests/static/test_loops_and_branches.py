"""while_loop, case and switch_case: static results and gradients equal the eager ones."""

import numpy as np
import pytest

import dygraph
import dygraph.fluid as fluid
import dygraph.nn.functional as F
from dygraph import static
from dygraph.autograd.function import Op, apply
from dygraph.utils import unique_name


@pytest.fixture(autouse=True)
def _dynamic_after():
    yield
    dygraph.disable_static()


def _program(build):
    dygraph.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        fetches = build()
    dygraph.disable_static()
    return main, startup, fetches


def test_papers_counter_example_in_a_program_and_eagerly():
    def cond(i, ten):
        return i < ten

    def body(i, ten):
        return [i + 1, ten]

    def build():
        i = dygraph.full([1], 0, "int64")
        ten = dygraph.full([1], 10, "int64")
        return static.nn.while_loop(cond, body, [i, ten])

    main, _, (i, ten) = _program(build)
    assert i.shape == [1] and main.num_blocks == 2
    assert static.Executor().run(main, fetch_list=[i])[0].tolist() == [10]
    eager_i, _ = fluid.layers.while_loop(cond, body, [dygraph.full([1], 0, "int64"),
                                                      dygraph.full([1], 10, "int64")])
    assert eager_i.tolist() == [10]


def _damped(x, w, n):
    """Loop n times: y = tanh(y * w) + x; also counts."""
    def body(k, y):
        return [k + 1, F.tanh(y * w) + x]

    return dygraph.static.nn.while_loop(lambda k, y: k < n, body,
                                        [dygraph.full([1], 0, "int64"), x])


def test_while_loop_values_and_gradients_match_eager():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    w = rng.standard_normal(3).astype(np.float32)
    tx = dygraph.to_tensor(x, stop_gradient=False)
    tw = dygraph.to_tensor(w, stop_gradient=False)
    k, y = _damped(tx, tw, 4)
    (y * y).sum().backward()

    def build():
        vx, vw = static.data("x", [None, 3]), static.data("w", [3])
        vx.stop_gradient = vw.stop_gradient = False
        vk, vy = _damped(vx, vw, static.data("n", [1], "int64"))
        return [vk, vy] + static.gradients([(vy * vy).sum()], [vx, vw])

    main, _, fetches = _program(build)
    got = static.Executor().run(main, feed={"x": x, "w": w, "n": np.array([4])},
                                fetch_list=fetches)
    assert got[0].tolist() == [4] == k.tolist()
    np.testing.assert_allclose(got[1], y.numpy(), rtol=1e-6)
    np.testing.assert_allclose(got[2], tx.grad.numpy(), rtol=1e-5)
    np.testing.assert_allclose(got[3], tw.grad.numpy(), rtol=1e-5)
    # No iteration: the result is the start value and its gradient passes straight through.
    got = static.Executor().run(main, feed={"x": x, "w": w, "n": np.array([0])},
                                fetch_list=fetches)
    np.testing.assert_allclose(got[1], x)
    np.testing.assert_allclose(got[2], 2 * x, rtol=1e-6)
    assert not got[3].any()


def test_nested_loops_and_cond_in_a_body_match_eager():
    def outer(x):
        def inner_body(j, v):
            v = dygraph.static.nn.cond(v.sum() > 0, lambda: v * 0.5, lambda: v + 1.0)
            return [j + 1, v]

        def body(i, v):
            _, v = dygraph.static.nn.while_loop(lambda j, u: j < 2, inner_body,
                                                [dygraph.full([1], 0, "int64"), v])
            return [i + 1, v * x]

        return dygraph.static.nn.while_loop(lambda i, v: i < 3, body,
                                            [dygraph.full([1], 0, "int64"), x])[1]

    x = np.array([[0.5, -1.5, 2.0]], np.float32)
    tx = dygraph.to_tensor(x, stop_gradient=False)
    expected = outer(tx)
    expected.sum().backward()

    def build():
        vx = static.data("x", [1, 3])
        vx.stop_gradient = False
        out = outer(vx)
        return [out] + static.gradients([out.sum()], [vx])

    main, _, fetches = _program(build)
    got, gx = static.Executor().run(main, feed={"x": x}, fetch_list=fetches)
    np.testing.assert_allclose(got, expected.numpy(), rtol=1e-6)
    np.testing.assert_allclose(gx, tx.grad.numpy(), rtol=1e-5)


def test_training_through_a_loop_matches_eager_for_three_adam_steps():
    rng = np.random.default_rng(2)
    data = [rng.standard_normal((5, 4)).astype(np.float32) for _ in range(3)]

    def forward(net, x):
        def body(i, h):
            return [i + 1, F.relu(net(h)) + x]

        return dygraph.static.nn.while_loop(lambda i, h: i < 2, body,
                                            [dygraph.full([1], 0, "int64"), x])[1].mean()

    dygraph.seed(3)
    with unique_name.guard():
        eager_net = dygraph.nn.Linear(4, 4)
    start = {k: v.numpy().copy() for k, v in eager_net.state_dict().items()}
    opt = dygraph.optimizer.Adam(0.01, parameters=eager_net.parameters())
    eager_losses = []
    for x in data:
        loss = forward(eager_net, dygraph.to_tensor(x))
        loss.backward()
        opt.step()
        opt.clear_grad()
        eager_losses.append(float(loss))

    def build():
        with unique_name.guard():
            net = dygraph.nn.Linear(4, 4)
        net.set_state_dict(start)
        loss = forward(net, static.data("x", [None, 4]))
        dygraph.optimizer.Adam(0.01, parameters=net.parameters()).minimize(loss)
        return loss, net

    main, startup, (loss, net) = _program(build)
    exe, scope = static.Executor(), static.Scope()
    exe.run(startup, scope=scope)
    losses = [float(exe.run(main, feed={"x": x}, fetch_list=[loss], scope=scope)[0])
              for x in data]
    np.testing.assert_allclose(losses, eager_losses, rtol=1e-5)
    np.testing.assert_allclose(scope.vars[net.weight.name], eager_net.weight.numpy(),
                               rtol=1e-5, atol=1e-6)


def test_while_loop_checks_its_arguments():
    one = dygraph.to_tensor([1.0])
    with pytest.raises(TypeError, match="cond in while_loop should be callable"):
        static.nn.while_loop(None, lambda v: v, [one])
    with pytest.raises(ValueError, match="should not be empty"):
        static.nn.while_loop(lambda v: v > 0, lambda v: v, [])
    with pytest.raises(TypeError, match="cond must return a bool Tensor"):
        static.nn.while_loop(lambda v: v, lambda v: [v], [one])
    with pytest.raises(ValueError, match="same arity"):
        static.nn.while_loop(lambda v: v < 2, lambda v: [v + 1, v], [one])

    def build():
        static.nn.while_loop(lambda v: v.sum() < 2, lambda v: [v.astype("int64")],
                             [static.data("v", [1])])

    with pytest.raises(TypeError, match="keeps its dtype"):
        _program(build)


def _branchy(x, index):
    a = static.nn.case([(x.sum() < 0, lambda: x * -1.0), (x.sum() < 2, lambda: x * x)],
                       default=lambda: x + 1.0)
    b = static.nn.switch_case(index, {1: lambda: x * 3.0, 3: lambda: F.relu(x)},
                              default=lambda: x * 0.5)
    c = fluid.layers.switch_case(index, [lambda: x - 1.0, lambda: x * 2.0])
    return a + b * 10.0 + c * 100.0


@pytest.mark.parametrize("shift, index", [(-3.0, 1), (0.0, 3), (5.0, 0), (0.2, 9)])
def test_case_and_switch_case_match_eager(shift, index):
    x = np.array([[0.3, -0.2]], np.float32) + shift
    tx = dygraph.to_tensor(x, stop_gradient=False)
    expected = _branchy(tx, dygraph.to_tensor([index]))
    expected.sum().backward()

    def build():
        vx = static.data("x", [1, 2])
        vx.stop_gradient = False
        out = _branchy(vx, static.data("i", [1], "int64"))
        return [out] + static.gradients([out.sum()], [vx])

    main, _, fetches = _program(build)
    got, gx = static.Executor().run(main, feed={"x": x, "i": np.array([index])},
                                    fetch_list=fetches)
    np.testing.assert_allclose(got, expected.numpy(), rtol=1e-6)
    np.testing.assert_allclose(gx, tx.grad.numpy(), rtol=1e-6)


def test_case_without_default_uses_the_last_pair_and_checks_input():
    x = dygraph.to_tensor([1.0])
    assert float(fluid.layers.case([(x > 5, lambda: x), (x > 6, lambda: x * 4)])) == 4.0
    with pytest.raises(TypeError, match="must be a non-empty list"):
        static.nn.case([])
    with pytest.raises(TypeError, match="pred must be one bool"):
        static.nn.case([(x, lambda: x)])
    with pytest.raises(ValueError, match="branch index 1 appears twice"):
        static.nn.switch_case(dygraph.to_tensor(1), [(1, lambda: x), (1, lambda: x)])
    with pytest.raises(TypeError, match="branch_index must be one integer"):
        static.nn.switch_case(x, [lambda: x])


class _Counted(Op):
    """x * 2, counting its runs."""

    runs = 0

    def forward(self, xp, x):
        _Counted.runs += 1
        return x * 2

    def backward(self, m, g):
        return (g * 2,)


@pytest.mark.parametrize("flag", [True, False])
def test_cond_runs_only_the_chosen_branch(flag):
    def build():
        x = static.data("x", [None, 2])
        x.stop_gradient = False
        p = static.data("p", [1], "bool")
        out = static.nn.cond(p, lambda: apply(_Counted(), x), lambda: x * -1.0)
        return [out] + static.gradients([out.sum()], [x])

    main, _, fetches = _program(build)
    assert main.num_blocks == 3
    _Counted.runs = 0
    x = np.ones((3, 2), np.float32)
    got, gx = static.Executor().run(main, feed={"x": x, "p": np.array([flag])},
                                    fetch_list=fetches)
    assert _Counted.runs == (1 if flag else 0)
    np.testing.assert_allclose(got, x * (2.0 if flag else -1.0))
    np.testing.assert_allclose(gx, np.full_like(x, 2.0 if flag else -1.0))


def test_programs_with_loops_and_branches_save_for_inference(tmp_path):
    def build():
        x = static.data("x", [None, 3])
        net = dygraph.nn.Linear(3, 3)

        def body(i, h):
            h = static.nn.cond(h.sum() > 0, lambda: F.tanh(net(h)), lambda: h * 0.5)
            return [i + 1, h]

        _, y = static.nn.while_loop(lambda i, h: i < 3, body,
                                    [dygraph.full([1], 0, "int64"), x])
        return x, y

    main, startup, (x, y) = _program(build)
    exe = static.Executor()
    assert exe.run(static.Program()) == []  # an empty program runs
    exe.run(startup)
    probe = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    expected = exe.run(main, feed={"x": probe}, fetch_list=[y])[0]
    prefix = str(tmp_path / "m")
    static.save_inference_model(prefix, [x], [y], exe, program=main)
    with static.scope_guard(static.Scope()):
        fresh = static.Executor()
        program, feeds, fetches = static.load_inference_model(prefix, fresh)
        got = fresh.run(program, feed={feeds[0]: probe}, fetch_list=fetches)[0]
    assert program.num_blocks == 4
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_a_test_clone_switches_dropout_off_inside_branches_and_loops():
    def build():
        x = static.data("x", [None, 4])
        y = static.nn.cond(x.sum() > -1e9, lambda: F.dropout(x, 0.5), lambda: x * 0.0)
        _, z = static.nn.while_loop(lambda i, h: i < 2,
                                    lambda i, h: [i + 1, F.dropout(h, 0.5) + 1.0],
                                    [dygraph.full([1], 0, "int64"), y])
        return z

    main, _, z = _program(build)
    test = main.clone(for_test=True)
    assert test.num_blocks == main.num_blocks == 4
    x = np.ones((64, 4), np.float32)
    got = static.Executor().run(test, feed={"x": x}, fetch_list=[z])[0]
    np.testing.assert_allclose(got, x + 2.0)
    trained = static.Executor().run(main, feed={"x": x}, fetch_list=[z])[0]
    assert not np.allclose(trained, x + 2.0)  # the original still drops


def _normalizing_loop(x, bn, n):
    def body(i, h):
        h = static.nn.cond(h.sum() > -1e9, lambda: bn(h) * 0.5 + 1.0, lambda: h)
        return [i + 1, h]

    return static.nn.while_loop(lambda i, h: i < n, body,
                                [dygraph.full([1], 0, "int64"), x])[1]


def test_batch_norm_in_loops_and_branches_updates_its_running_statistics_as_eager():
    x = np.random.default_rng(5).standard_normal((6, 3)).astype(np.float32)
    with unique_name.guard():
        eager_bn = dygraph.nn.BatchNorm1D(3)
    tx = dygraph.to_tensor(x, stop_gradient=False)
    expected = _normalizing_loop(tx, eager_bn, 3)
    (expected * expected).sum().backward()

    def build():
        with unique_name.guard():
            bn = dygraph.nn.BatchNorm1D(3)
        vx = static.data("x", [None, 3])
        vx.stop_gradient = False
        y = _normalizing_loop(vx, bn, 3)
        return [bn, y] + static.gradients([(y * y).sum()], [vx])

    main, startup, (bn, y, gx) = _program(build)
    exe, scope = static.Executor(), static.Scope()
    exe.run(startup, scope=scope)
    got, got_gx = exe.run(main, feed={"x": x}, fetch_list=[y, gx], scope=scope)
    np.testing.assert_allclose(got, expected.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_gx, tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(scope.vars[bn._mean.name], eager_bn._mean.numpy(), rtol=1e-6)
    np.testing.assert_allclose(scope.vars[bn._variance.name], eager_bn._variance.numpy(),
                               rtol=1e-6)
