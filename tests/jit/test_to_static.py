"""paddle.jit.to_static: functions, layers and forwards; input signatures and the program
cache; train/eval programs; gradients, hooks and paddle.grad around the program op; eager
fallback for code that reads a tensor's value; the switches."""

import logging
import warnings

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph import nn
from dygraph.jit import StaticFunction, to_static
from dygraph.static import InputSpec
from dygraph.static.program import ValueDependentError


# Traced functions are defs (the AST converter reads their source; it refuses lambdas).
def _plus_one(x):
    return x + 1.0


def _double(x):
    return x * 2.0


def _times_three(x):
    return x * 3.0


def _cube(x):
    return x * x * x


def _x(*shape, seed=0, stop_gradient=True):
    data = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return dygraph.to_tensor(data, stop_gradient=stop_gradient)


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(4, 8), nn.Linear(8, 3)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        return self.fc2(self.drop(F.relu(self.fc1(x))))


class DecoratedNet(Net):
    @to_static
    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def test_function_layer_forward_and_decorated_forward_give_eager_values():
    @to_static
    def f(x, y):
        return F.relu(x) * y + 1.0

    x, y = _x(3, 4), _x(3, 4, seed=1)
    np.testing.assert_allclose(f(x, y).numpy(), (F.relu(x) * y + 1.0).numpy(), rtol=1e-6)
    assert isinstance(f, StaticFunction) and len(f.program_cache) == 1

    dygraph.seed(0)
    net = Net()
    net.eval()
    want = net(x).numpy()
    forward = to_static(net.forward)
    np.testing.assert_allclose(forward(x).numpy(), want, rtol=1e-6)
    assert to_static(net) is net and isinstance(net.forward, StaticFunction)
    np.testing.assert_allclose(net(x).numpy(), want, rtol=1e-6)
    net.forward.rollback()
    assert not isinstance(net.forward, StaticFunction)

    decorated = DecoratedNet()
    eager = decorated.fc2(F.relu(decorated.fc1(x))).numpy()
    np.testing.assert_allclose(decorated(x).numpy(), eager, rtol=1e-6)
    assert len(decorated.forward.program_cache) == 1
    assert len(DecoratedNet().forward.program_cache) == 0  # per instance


def test_input_spec_free_dims_share_a_program_and_new_shapes_trace_again():
    assert dygraph.static.InputSpec is dygraph.jit.static_function.InputSpec

    @to_static(input_spec=[InputSpec([None, 4], "float32", "x")])
    def f(x):
        return x * 2.0

    for batch in (1, 5, 7):
        assert f(_x(batch, 4)).shape == [batch, 4]
    assert len(f.program_cache) == 1
    assert f.concrete_program.inputs[0].shape == [-1, 4]
    with pytest.raises(ValueError, match=r"shape \[2, 5\].*\[-1, 4\]"):
        f(_x(2, 5))

    g = to_static(_plus_one)
    g(_x(2, 4))
    g(_x(2, 4))
    g(_x(3, 4))
    g(_x(3, 4).astype("float64"))
    assert len(g.program_cache) == 3


def test_train_and_eval_select_their_programs():
    dygraph.seed(0)
    net = to_static(Net())
    x = _x(64, 4)
    net.eval()
    first = net(x).numpy()
    np.testing.assert_array_equal(net(x).numpy(), first)
    net.train()
    dygraph.seed(5)
    dropped = net(x).numpy()
    assert not np.allclose(dropped, first)
    assert len(net.forward.program_cache) == 2
    # Dropout draws the same masks as eager from the same seed.
    net.forward.rollback()
    dygraph.seed(5)
    np.testing.assert_allclose(net(x).numpy(), dropped, rtol=1e-6)


def test_gradients_hooks_and_paddle_grad_flow_through_the_program_op():
    dygraph.seed(0)
    eager = Net()
    eager.eval()
    static = to_static(Net())
    static.set_state_dict(eager.state_dict())
    static.eval()
    seen = []
    static.fc1.weight.register_hook(lambda g: seen.append(g.shape))
    results = []
    for net in (eager, static):
        x = _x(5, 4, stop_gradient=False)
        out = net(x)
        (gx,) = dygraph.grad(out.sum(), [x], retain_graph=True)
        (out * out).sum().backward()
        results.append((gx.numpy(), x.grad.numpy(), net.fc1.weight.grad.numpy(),
                        net.fc2.bias.grad.numpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
    assert seen == [[4, 8]]


def test_two_calls_before_backward_keep_their_own_saved_values():
    dygraph.seed(0)
    eager = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 1))
    static = to_static(nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 1)))
    static.set_state_dict(eager.state_dict())
    grads = []
    for net in (eager, static):
        a, b = net(_x(2, 3, seed=1)), net(_x(2, 3, seed=2))
        (a * b).sum().backward()
        grads.append([p.grad.numpy() for p in net.parameters()])
    for a, b in zip(*grads):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def test_closure_tensors_are_read_at_each_call_and_get_gradients():
    scale = dygraph.to_tensor([2.0], stop_gradient=False)
    def scaled(x):
        return x * scale

    f = to_static(scaled)
    x = _x(3)
    f(x).sum().backward()
    np.testing.assert_allclose(scale.grad.numpy(), [x.numpy().sum()], rtol=1e-6)
    with dygraph.no_grad():
        scale.set_value(np.array([3.0], np.float32))
    np.testing.assert_allclose(f(x).numpy(), x.numpy() * 3.0, rtol=1e-6)


def test_no_grad_calls_and_frozen_parameters():
    net = to_static(nn.Linear(2, 2))
    with dygraph.no_grad():
        assert net(_x(1, 2)).stop_gradient
    net.weight.stop_gradient = True  # a new gradient program is traced
    net(_x(1, 2)).sum().backward()
    assert net.weight.grad is None and net.bias.grad is not None


def test_outputs_keep_their_structure():
    @to_static
    def f(x, n=2):
        return {"double": x * n, "pair": (x, x + 1.0), "n": n}

    out = f(_x(2), n=3)
    assert sorted(out) == ["double", "n", "pair"] and out["n"] == 3
    np.testing.assert_allclose(out["double"].numpy(), _x(2).numpy() * 3, rtol=1e-6)
    f(_x(2), n=4)
    assert len(f.program_cache) == 2  # a Python argument is part of the signature


def test_reading_a_value_falls_back_to_eager_with_a_warning_naming_the_line():
    def f(x):
        if x.numpy().sum() > 0:  # reads the value: no program can record this
            return x * 2.0
        return x - 1.0

    g = to_static(f)
    x = _x(4)
    with pytest.warns(UserWarning, match=r"runs eagerly: .*numpy\(\).*test_to_static.py:\d+ "
                                         r"`if x.numpy\(\).sum\(\) > 0:"):
        out = g(x)
    np.testing.assert_allclose(out.numpy(), f(x).numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # warned once; later calls run eagerly quietly
        np.testing.assert_allclose(g(-x).numpy(), f(-x).numpy())
    assert len(g.program_cache) == 0


def test_variables_refuse_value_reads_while_a_program_is_built():
    dygraph.enable_static()
    try:
        with dygraph.static.program_guard(dygraph.static.Program()):
            v = dygraph.static.data("v", [None, 3])
            for read in (bool, float, int, len, lambda t: t.item(), lambda t: t.tolist(),
                         np.asarray):
                with pytest.raises(ValueDependentError, match="static Variable"):
                    read(v.sum() if read in (bool, float, int) else v)
            with pytest.raises(RuntimeError, match="append_backward"):
                v.sum().backward()
    finally:
        dygraph.disable_static()


class _HalvesItsWeight(nn.Linear):
    def forward(self, x):
        self.weight.set_value(self.weight.numpy() * 0.5)
        return super().forward(x)


def test_a_parameter_changed_in_place_runs_eagerly_with_a_warning():
    net = to_static(_HalvesItsWeight(2, 1))
    start = net.weight.numpy().copy()
    with pytest.warns(UserWarning, match="set_value: changes a parameter or buffer in place"):
        net(_x(3, 2))
    net(_x(3, 2))  # eagerly from now on: halved at each call, as written
    np.testing.assert_allclose(net.weight.numpy(), start / 4, rtol=1e-6)
    assert len(net.forward.program_cache) == 0


def test_double_backward_through_the_program_is_refused():
    f = to_static(_cube)
    x = _x(3, stop_gradient=False)
    with pytest.raises(NotImplementedError, match="double backward"):
        dygraph.grad(f(x).sum(), [x], create_graph=True)


def test_nested_to_static_functions_record_into_the_outer_program():
    inner = to_static(_plus_one)

    def outer(x):
        return inner(x) * 2.0

    outer = to_static(outer)
    np.testing.assert_allclose(outer(_x(3)).numpy(), (_x(3).numpy() + 1) * 2, rtol=1e-6)
    assert len(inner.program_cache) == 0 and len(outer.program_cache) == 1


def test_switches(caplog):
    f = to_static(_times_three)
    dygraph.jit.enable_to_static(False)
    try:
        np.testing.assert_allclose(f(_x(2)).numpy(), _x(2).numpy() * 3, rtol=1e-6)
        assert len(f.program_cache) == 0
    finally:
        dygraph.jit.enable_to_static(True)
    with pytest.raises(TypeError, match="bool"):
        dygraph.jit.enable_to_static(1)

    dygraph.jit.set_verbosity(1)
    try:
        with caplog.at_level(logging.INFO, logger="dygraph.jit"):
            f(_x(2))
    finally:
        dygraph.jit.set_verbosity(0)
    assert "traced" in caplog.text

    @dygraph.jit.not_to_static
    def helper(x):
        return x

    assert dygraph.jit.config.convert(helper) is helper
    assert dygraph.fluid.dygraph.declarative is to_static
    assert dygraph.fluid.dygraph.ProgramTranslator().enable_to_static


def test_concrete_program_api():
    @to_static(input_spec=[InputSpec([None, 2], "float32", "x")])
    def f(x):
        return x.sum(axis=1)

    program = f.concrete_program
    assert [v.name for v in program.inputs] == ["x"]
    assert program.outputs[0].shape == [-1]
    assert "def f" in f.code
    concrete, _ = f.get_concrete_program(InputSpec([3, 2], "float32"))
    assert concrete.inputs[0].shape == [3, 2]


def test_numpy_arguments_are_inputs_and_auto_cast_runs_eagerly():
    f = to_static(_double)
    for seed in range(3):
        data = np.random.default_rng(seed).standard_normal((2, 3)).astype(np.float32)
        np.testing.assert_allclose(f(data).numpy(), data * 2.0, rtol=1e-6)
    assert len(f.program_cache) == 1
    g = to_static(dygraph.matmul)
    with dygraph.amp.auto_cast(level="O1", dtype="float16"):
        want = dygraph.matmul(_x(2, 2), _x(2, 2, seed=1))
        got = g(_x(2, 2), _x(2, 2, seed=1))
    assert got.dtype == want.dtype and len(g.program_cache) == 0


def test_an_output_returned_twice_or_an_input_returned_gets_all_its_gradient():
    @to_static
    def f(x, y):
        z = x * 2.0
        return z, z, y

    x, y = _x(3, stop_gradient=False), _x(3, seed=1, stop_gradient=False)
    a, b, c = f(x, y)
    (a * 3.0 + b + c * 5.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 8.0), rtol=1e-6)
    np.testing.assert_allclose(y.grad.numpy(), np.full(3, 5.0), rtol=1e-6)


def _scaled_in_place(x):
    h = x * 2.0
    h.scale_(3.0)
    h[0] = h[0] * 10.0
    c = x.detach() * 1.0
    with dygraph.no_grad():
        c.add_(dygraph.ones_like(c))
    return h.sum() + h[1] * c[2]


def test_in_place_ops_on_program_values_are_recorded():
    f = to_static(_scaled_in_place)
    for values in ([1.0, 2.0, 3.0], [0.5, -1.0, 4.0]):
        xe = dygraph.to_tensor(values, stop_gradient=False)
        xs = dygraph.to_tensor(values, stop_gradient=False)
        eager, static = _scaled_in_place(xe), f(xs)
        np.testing.assert_allclose(static.numpy(), eager.numpy(), rtol=1e-6)
        eager.backward()
        static.backward()
        np.testing.assert_allclose(xs.grad.numpy(), xe.grad.numpy(), rtol=1e-6)
    assert len(f.program_cache) == 1


def _changed_under_no_grad(x):
    h = x * 2.0
    with dygraph.no_grad():
        h.add_(dygraph.ones_like(h))
    return h.sum()


def test_an_in_place_change_under_no_grad_of_a_value_needing_a_gradient_runs_eagerly():
    f = to_static(_changed_under_no_grad)
    x = dygraph.to_tensor([1.0, 2.0], stop_gradient=False)
    with pytest.warns(UserWarning, match="add_: changes a value that needs a gradient"):
        y = f(x)
    y.backward()
    np.testing.assert_allclose(y.numpy(), 8.0)
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])  # the eager gradient
