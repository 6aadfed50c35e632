"""The classic 1.x "fit a line" program, as Paddle's book writes it (fluid.layers.fc, a
Scope of its own with scope_guard, Executor), and paddle.static.nn.fc in 2.x static code."""

import numpy as np

import dygraph
import dygraph.fluid as fluid
from dygraph import static


def test_fit_a_line_with_fluid_layers_fc_in_a_scope_of_its_own():
    rng = np.random.default_rng(0)
    true_w = rng.standard_normal((13, 1)).astype(np.float32)
    xs = rng.standard_normal((64, 13)).astype(np.float32)
    ys = xs @ true_w + 0.5
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data(name="x", shape=[13], dtype="float32")
        y = fluid.layers.data(name="y", shape=[1], dtype="float32")
        y_predict = fluid.layers.fc(input=x, size=1, act=None)
        cost = fluid.layers.square_error_cost(input=y_predict, label=y)
        avg_cost = fluid.layers.mean(cost)
        fluid.optimizer.SGD(learning_rate=0.05).minimize(avg_cost)
    dygraph.disable_static()
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(scope):
        exe.run(startup)
        losses = [exe.run(main, feed={"x": xs, "y": ys}, fetch_list=[avg_cost])[0].item()
                  for _ in range(150)]
    assert losses[-1] < 1e-3 * losses[0]
    weights = [v for k, v in scope.vars.items() if k.endswith(".w_0")]
    np.testing.assert_allclose(weights[0], true_w, atol=2e-2)
    assert not [k for k in static.global_scope().vars if k in scope.vars]  # its own scope


def test_static_nn_fc_flattens_activates_and_sums_inputs():
    dygraph.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        a = static.data("a", [None, 2, 3])
        b = static.data("b", [None, 4])
        y = static.nn.fc([a, b], size=5, activation="relu")
        z = static.nn.fc(a, size=2, num_flatten_dims=2)
    dygraph.disable_static()
    exe = static.Executor()
    exe.run(startup)
    feed = {"a": np.ones((3, 2, 3), np.float32), "b": np.ones((3, 4), np.float32)}
    out_y, out_z = exe.run(main, feed=feed, fetch_list=[y, z])
    assert out_y.shape == (3, 5) and (out_y >= 0).all()
    assert out_z.shape == (3, 2, 2)
    params = main.all_parameters()
    assert sorted(tuple(p.shape) for p in params) == sorted(
        [(6, 5), (5,), (4, 5), (3, 2), (2,)])
