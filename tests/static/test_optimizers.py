"""Static minimize: accumulators are program variables of the scope; schedules,
regularization and clipping behave as in DyGraph."""

import numpy as np
import pytest

import dygraph
import dygraph.fluid as fluid
from dygraph import static
from dygraph.utils import unique_name


@pytest.fixture(autouse=True)
def _dynamic_after():
    yield
    dygraph.disable_static()


def _net():
    with unique_name.guard():
        return dygraph.nn.Sequential(dygraph.nn.Linear(4, 5), dygraph.nn.Tanh(),
                                     dygraph.nn.Linear(5, 2))


def _loss(out):
    return (out * out).mean()


def _data(steps=4):
    rng = np.random.default_rng(7)
    return [rng.standard_normal((6, 4)).astype(np.float32) for _ in range(steps)]


def _eager(make_opt, data, start, after_step=None):
    net = _net()
    net.set_state_dict(start)
    opt = make_opt(net.parameters())
    losses = []
    for x in data:
        loss = _loss(net(dygraph.to_tensor(x)))
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
        if after_step:
            after_step(opt)
    return losses, net, opt


def _static(make_opt, data, start, after_step=None, scope=None):
    dygraph.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        net = _net()
        net.set_state_dict(start)
        loss = _loss(net(static.data("x", [None, 4])))
        opt = make_opt(net.parameters())
        opt.minimize(loss)
    dygraph.disable_static()
    exe, scope = static.Executor(), scope or static.Scope()
    exe.run(startup, scope=scope)
    losses = []
    for x in data:
        losses.append(float(exe.run(main, feed={"x": x}, fetch_list=[loss], scope=scope)[0]))
        if after_step:
            after_step(opt)
    return losses, net, scope, (exe, main, loss)


def _start():
    dygraph.seed(11)
    return {k: v.numpy().copy() for k, v in _net().state_dict().items()}


def _lr_step(opt):
    opt._learning_rate.step()


CASES = {
    "adam+step decay": (lambda ps: dygraph.optimizer.Adam(
        dygraph.optimizer.lr.StepDecay(0.05, step_size=1, gamma=0.5), parameters=ps),
        _lr_step),
    "momentum+L2": (lambda ps: dygraph.optimizer.Momentum(
        0.1, momentum=0.9, parameters=ps,
        weight_decay=dygraph.regularizer.L2Decay(0.01)), None),
    "sgd+global norm clip": (lambda ps: dygraph.optimizer.SGD(
        0.5, parameters=ps, grad_clip=dygraph.nn.ClipGradByGlobalNorm(0.05)), None),
    "adamw+norm clip": (lambda ps: dygraph.optimizer.AdamW(
        0.05, parameters=ps, weight_decay=0.1,
        grad_clip=dygraph.nn.ClipGradByNorm(0.1)), None),
    "1.x rmsprop+L1": (lambda ps: fluid.optimizer.RMSPropOptimizer(
        0.01, parameter_list=ps, regularization=fluid.regularizer.L1Decay(0.01)), None),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_static_minimize_matches_eager(case):
    make_opt, after = CASES[case]
    data, start = _data(), _start()
    eager_losses, eager_net, _ = _eager(make_opt, data, start, after)
    losses, net, scope, _ = _static(make_opt, data, start, after)
    np.testing.assert_allclose(losses, eager_losses, rtol=1e-5)
    for p, q in zip(net.parameters(), eager_net.parameters()):
        np.testing.assert_allclose(scope.vars[p.name], q.numpy(), rtol=1e-5, atol=1e-7)


def test_adam_accumulators_live_in_the_scope_and_survive_save_and_load(tmp_path):
    def make_opt(ps):
        return dygraph.optimizer.Adam(0.01, parameters=ps)

    data, start = _data(6), _start()
    _, eager_net, eager_opt = _eager(make_opt, data[:3], start)
    dygraph.enable_static()
    _, net, scope, (exe, main, loss) = _static(make_opt, data[:3], start)
    state = eager_opt.state_dict()
    weight = net.parameters()[0].name
    for acc in ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc"):
        key = f"{weight}_{acc}_0"
        eager_key = f"{eager_net.parameters()[0].name}_{acc}_0"
        np.testing.assert_allclose(scope.vars[key], state[eager_key].numpy(), rtol=1e-5)
    path = str(tmp_path / "ckpt")
    static.save(main, path, scope=scope)
    resumed = [float(exe.run(main, feed={"x": x}, fetch_list=[loss], scope=scope)[0])
               for x in data[3:]]
    with static.scope_guard(scope):  # back to the saved state, then the same steps again
        static.load(main, path, exe)
    again = [float(exe.run(main, feed={"x": x}, fetch_list=[loss], scope=scope)[0])
             for x in data[3:]]
    np.testing.assert_allclose(again, resumed, rtol=1e-6)
    eager_losses = _eager(make_opt, data, start)[0]
    np.testing.assert_allclose(resumed, eager_losses[3:], rtol=1e-5)


def test_the_startup_program_initialises_the_accumulators():
    dygraph.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        net = _net()
        loss = _loss(net(static.data("x", [None, 4])))
        dygraph.optimizer.Momentum(0.1, parameters=net.parameters()).minimize(loss)
    dygraph.disable_static()
    scope = static.Scope()
    static.Executor().run(startup, scope=scope)
    name = f"{net.parameters()[0].name}_velocity_0"
    assert main.global_block().var(name).persistable
    assert scope.find_var(name) is not None and not scope.vars[name].any()


def _fit_line(form):
    dygraph.seed(0)
    dygraph.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 4])
        y = static.data("y", [None, 1])
        net = dygraph.nn.Linear(4, 1)
        loss = ((net(x) - y) ** 2).mean()
        parameters = {"none": None, "layer": net.parameters(),
                      "program": main.all_parameters()}[form]
        opt = dygraph.optimizer.Adam(learning_rate=0.1, parameters=parameters)
        opt.minimize(loss)
    dygraph.disable_static()
    exe = static.Executor()
    exe.run(startup)
    rng = np.random.default_rng(0)
    feed = {"x": rng.standard_normal((8, 4)).astype(np.float32),
            "y": rng.standard_normal((8, 1)).astype(np.float32)}
    losses = [float(exe.run(main, feed=feed, fetch_list=[loss])[0]) for _ in range(5)]
    return losses, opt


def test_minimize_without_parameters_in_static_mode_takes_the_programs():
    """As Paddle's static examples write it: Adam(learning_rate=...).minimize(loss) inside
    program_guard trains the program's parameters, in one group (the fused update), as
    fast and to the same numbers as the forms that pass them."""
    reference, _ = _fit_line("layer")
    for form in ("none", "program"):
        losses, opt = _fit_line(form)
        assert losses == reference, form
        assert len(opt._param_groups) == 1 and len(opt._parameter_list) == 2
    assert reference[-1] < reference[0]
