"""A whole training step inside jit.to_static (dygraph.jit.train_step): the same losses,
parameters, gradients and optimizer state as the eager step, for the usual step forms
(2.x step/clear_grad, 1.x minimize/clear_gradients), optimizers with clipping, decay and
momentum, learning-rate schedulers stepped inside, gradients read or kept between calls;
what it refuses. Paddle's own test (test/dygraph_to_static/test_train_step.py) checks the
same: losses of a converted train step equal the eager ones, per optimizer and scheduler."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph import nn
from dygraph.jit import to_static
from dygraph.jit.train_step import FusedStep


def _mlp():
    dygraph.seed(3)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))


def _batch(seed=0):
    rng = np.random.default_rng(seed)
    return (dygraph.to_tensor(rng.standard_normal((6, 8)).astype(np.float32)),
            dygraph.to_tensor(rng.integers(0, 4, (6, 1))))


def _pair(make_optimizer, body, steps=8, convert=True):
    """Run `body(net, opt, x, y)` eagerly and under to_static on twin models for `steps`
    calls; returns the two (returned values, net, opt)."""
    runs = []
    for static in (False, True):
        net = _mlp()
        opt = make_optimizer(net)

        def step(x, y, net=net, opt=opt):
            return body(net, opt, x, y)

        if static and convert:
            step = to_static(step)
        out = [step(*_batch(i % 3)) for i in range(steps)]
        runs.append((out, net, opt))
    return runs


def _same(a, b):
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def _check_equal(runs):
    (out_e, net_e, opt_e), (out_s, net_s, opt_s) = runs
    for a, b in zip(out_e, out_s):
        _same(a.numpy(), b.numpy())
    for p, q in zip(net_e.parameters(), net_s.parameters()):
        _same(p.numpy(), q.numpy())
        assert (p.grad is None) == (q.grad is None)
        if p.grad is not None:
            _same(p.grad.numpy(), q.grad.numpy())
    state_e, state_s = _state(opt_e, net_e), _state(opt_s, net_s)
    assert state_e.keys() == state_s.keys()
    for k in state_e:
        if hasattr(state_e[k], "numpy"):
            _same(state_e[k].numpy(), state_s[k].numpy())


def _state(opt, net):
    """The optimizer's state dict with parameter names replaced by their positions (the
    twin models' names differ)."""
    names = sorted(((p.name, str(i)) for i, p in enumerate(net.parameters())),
                   key=lambda pair: -len(pair[0]))
    state = {}
    for key, value in opt.state_dict().items():
        for name, index in names:
            key = key.replace(name, f"param{index}")
        state[key] = value
    return state


def _step_2x(net, opt, x, y):
    loss = F.cross_entropy(net(x), y)
    loss.backward()
    opt.step()
    opt.clear_grad()
    return loss


def _adam(net):
    return dygraph.optimizer.Adam(1e-2, parameters=net.parameters())


def test_adam_step_equals_eager_bit_for_bit():
    runs = _pair(_adam, _step_2x)
    _check_equal(runs)
    out_s = runs[1][0]
    assert out_s[0].stop_gradient  # the step program is not differentiable itself
    assert float(out_s[-1]) != float(out_s[0])


@pytest.mark.parametrize("make", [
    lambda net: dygraph.optimizer.SGD(0.1, parameters=net.parameters()),
    lambda net: dygraph.optimizer.Momentum(0.05, 0.9, parameters=net.parameters(),
                                           use_nesterov=True),
    lambda net: dygraph.optimizer.AdamW(1e-2, parameters=net.parameters(),
                                        weight_decay=0.1),
    lambda net: dygraph.optimizer.Adam(
        1e-2, parameters=net.parameters(), weight_decay=dygraph.regularizer.L2Decay(0.01),
        grad_clip=nn.ClipGradByGlobalNorm(0.5)),
    lambda net: dygraph.optimizer.RMSProp(1e-2, parameters=net.parameters()),
], ids=["sgd", "momentum-nesterov", "adamw", "adam-l2-clip", "rmsprop"])
def test_other_optimizers_equal_eager(make):
    _check_equal(_pair(make, _step_2x))


def test_the_1x_form_minimize_and_clear_gradients():
    def body(net, opt, x, y):
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.minimize(loss)
        net.clear_gradients()
        return loss

    _check_equal(_pair(_adam, body))


def test_a_scheduler_stepped_inside_advances_at_each_call():
    def make(net):
        return dygraph.optimizer.SGD(dygraph.optimizer.lr.StepDecay(0.5, step_size=2),
                                     parameters=net.parameters())

    def body(net, opt, x, y):
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        opt._learning_rate.step()
        return loss

    runs = _pair(make, body, steps=6)
    _check_equal(runs)
    assert runs[1][2].get_lr() == runs[0][2].get_lr() == 0.5 * 0.1 ** 3


def test_backward_only_accumulates_into_grad_across_calls():
    def body(net, opt, x, y):
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        return loss

    runs = _pair(_adam, body, steps=3)
    _check_equal(runs)  # gradients of three calls, summed in .grad
    # ... and an eager step afterwards sees them
    for _, _, opt in runs:
        opt.step()
    _check_equal(runs)


def test_gradients_from_before_the_call_are_added():
    runs = []
    for static in (False, True):
        net = _mlp()
        opt = _adam(net)
        x, y = _batch(1)
        F.cross_entropy(net(x), y).backward()  # eager gradients, not cleared

        def step(x, y, net=net, opt=opt):
            return _step_2x(net, opt, x, y)

        step = to_static(step) if static else step
        out = [step(*_batch(i)) for i in range(3)]
        runs.append((out, net, opt))
    _check_equal(runs)


def test_grad_read_inside_the_step_is_the_eager_value():
    def body(net, opt, x, y):
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        norm = (net[0].weight.grad ** 2).sum()
        opt.step()
        opt.clear_grad(set_to_zero=False)
        return norm

    runs = _pair(_adam, body)
    _check_equal(runs)
    assert all(p.grad is None for p in runs[1][1].parameters())


def test_clear_before_backward_and_two_losses():
    def body(net, opt, x, y):
        opt.clear_grad()
        out = net(x)
        F.cross_entropy(out, y).backward(retain_graph=True)
        (out ** 2).mean().backward()
        opt.step()
        return out.mean()

    _check_equal(_pair(_adam, body))


def _converted_2x_step():
    """(net, opt, the 2.x step converted and traced once)."""
    net = _mlp()
    opt = _adam(net)

    @to_static
    def step(x, y):
        return _step_2x(net, opt, x, y)

    step(*_batch())
    return net, opt, step


def test_the_update_is_one_fused_op_that_falls_back_exactly():
    net, _, step = _converted_2x_step()
    ops = step.concrete_program.main_program.global_block().ops
    assert [type(o.op) for o in ops if o.role == "effect"] == [FusedStep]
    # A gradient the op did not leave zeroed takes the three-call path: still exact.
    twin = _mlp()
    twin_opt = _adam(twin)
    _step_2x(twin, twin_opt, *_batch())
    for p, q in zip(net.parameters(), twin.parameters()):
        p.grad = dygraph.ones_like(p)
        q.grad = dygraph.ones_like(q)
    _same(step(*_batch(1)).numpy(), _step_2x(twin, twin_opt, *_batch(1)).numpy())
    for p, q in zip(net.parameters(), twin.parameters()):
        _same(p.numpy(), q.numpy())


def test_saving_a_training_step_is_refused(tmp_path):
    _, _, step = _converted_2x_step()
    with pytest.raises(ValueError, match="training step"):
        dygraph.jit.save(step, str(tmp_path / "step"))


def test_backward_in_a_plain_static_program_still_points_to_minimize():
    dygraph.enable_static()
    try:
        with dygraph.static.program_guard(dygraph.static.Program(), dygraph.static.Program()):
            x = dygraph.static.data("x", [None, 2])
            loss = nn.Linear(2, 1)(x).mean()
            with pytest.raises(RuntimeError, match="append_backward"):
                loss.backward()
    finally:
        dygraph.disable_static()


def test_a_hand_written_update_runs_eagerly_with_a_warning():
    def body(net, opt, x, y):
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        with dygraph.no_grad():
            for p in net.parameters():
                p.subtract_(0.1 * p.grad)
                p.clear_grad()
        return loss

    with pytest.warns(UserWarning, match="subtract_: changes a parameter or buffer"):
        runs = _pair(_adam, body, steps=4)
    _check_equal(runs)  # the eager values: the update happens at every call


def test_a_gradient_changed_in_place_runs_eagerly_with_a_warning():
    def body(net, opt, x, y):
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        with dygraph.no_grad():
            for p in net.parameters():
                p.grad.scale_(0.1)
        opt.step()
        opt.clear_grad()
        return loss

    with pytest.warns(UserWarning, match="scale_: changes a parameter's gradient in place"):
        runs = _pair(_adam, body, steps=4)
    _check_equal(runs)


def test_a_step_with_a_grad_scaler_runs_eagerly_with_a_warning():
    scalers = {}

    def body(net, opt, x, y):
        scaler = scalers.setdefault(id(opt), dygraph.amp.GradScaler(init_loss_scaling=1024))
        loss = F.cross_entropy(net(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        opt.clear_grad()
        return loss

    with pytest.warns(UserWarning, match="GradScaler.scale: is not converted"):
        runs = _pair(_adam, body, steps=4)
    _check_equal(runs)


def _in_place_forward(x):
    h = x * 2.0
    h.scale_(3.0)
    return h


def test_saving_a_function_with_in_place_ops_is_not_taken_for_a_step(tmp_path):
    f = to_static(_in_place_forward)
    f(dygraph.ones([2, 3]))
    dygraph.jit.save(f, str(tmp_path / "f"), [dygraph.static.InputSpec([None, 3])])
    loaded = dygraph.jit.load(str(tmp_path / "f"))
    np.testing.assert_allclose(loaded(dygraph.ones([2, 3])).numpy(), np.full((2, 3), 6.0))


def test_gradient_hooks_and_backward_callbacks_run_as_in_eager_mode():
    from dygraph.autograd.engine import queue_callback

    def body(net, opt, x, y):
        seen = net.__dict__.setdefault("seen", [])
        if not net.__dict__.get("hooked"):
            net[0].weight.register_hook(lambda g: g * 0.5)
            net[2].bias.register_hook(lambda g: queue_callback(lambda: seen.append(1)))
            net.__dict__["hooked"] = True
        return _step_2x(net, opt, x, y)

    runs = _pair(_adam, body, steps=5)
    _check_equal(runs)  # the hook halved the gradient at every call in both
    assert runs[0][1].seen == runs[1][1].seen == [1] * 5


class _ConvNet(nn.Layer):
    """Conv, batch norm (running statistics updated at each call), dropout (drawn at each
    call) and a linear head: the parts of a vision model whose state a step changes."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(1, 4, 3, padding=1)
        self.norm = nn.BatchNorm2D(4)
        self.drop = nn.Dropout(0.3)
        self.head = nn.Linear(4 * 6 * 6, 3)

    def forward(self, x):
        h = self.drop(F.relu(self.norm(self.conv(x))))
        return self.head(h.reshape([h.shape[0], -1]))


def test_a_vision_step_with_batch_norm_and_dropout_equals_eager():
    runs = []
    for static in (False, True):
        dygraph.seed(7)
        net = _ConvNet()
        opt = dygraph.optimizer.Momentum(0.05, 0.9, parameters=net.parameters())

        def step(x, y, net=net, opt=opt):
            return _step_2x(net, opt, x, y)

        step = to_static(step) if static else step
        rng = np.random.default_rng(0)
        dygraph.seed(11)  # the dropout masks: the same draws in both runs
        out = [step(dygraph.to_tensor(rng.standard_normal((5, 1, 6, 6)).astype(np.float32)),
                    dygraph.to_tensor(rng.integers(0, 3, (5, 1)))) for _ in range(4)]
        runs.append((out, net, opt))
    _check_equal(runs)
    for buf_e, buf_s in zip(runs[0][1].buffers(), runs[1][1].buffers()):
        _same(buf_e.numpy(), buf_s.numpy())  # running mean and variance
