"""Optimizer state (state_dict / set_state_dict) and the base-class behaviour."""

import numpy as np
import pytest

import dygraph
from dygraph.framework.parameter import Parameter
from dygraph.optimizer import (
    SGD,
    Adadelta,
    Adagrad,
    Adam,
    Adamax,
    AdamW,
    Lamb,
    Momentum,
    RMSProp,
    lr,
)

RNG = np.random.default_rng(3)
GRADS = [RNG.normal(size=(3, 2)) for _ in range(3)]
MAKERS = {
    "SGD": lambda ps: SGD(0.1, parameters=ps),
    "Momentum": lambda ps: Momentum(0.1, parameters=ps, use_nesterov=True),
    "Adam": lambda ps: Adam(0.1, parameters=ps, amsgrad=True),
    "AdamW": lambda ps: AdamW(lr.StepDecay(0.1, step_size=1), parameters=ps),
    "Adamax": lambda ps: Adamax(0.1, parameters=ps),
    "Adagrad": lambda ps: Adagrad(0.1, parameters=ps),
    "Adadelta": lambda ps: Adadelta(0.1, parameters=ps),
    "RMSProp": lambda ps: RMSProp(0.1, parameters=ps, centered=True, momentum=0.3),
    "Lamb": lambda ps: Lamb(0.1, parameters=ps),
}


def step(opt, params, grad):
    for p in params:
        p.grad = dygraph.to_tensor(grad)
    opt.step()
    if isinstance(opt._learning_rate, lr.LRScheduler):
        opt._learning_rate.step()


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_state_dict_into_a_fresh_optimizer_continues_bit_identically(name):
    start = RNG.normal(size=(3, 2))
    p = Parameter(start.copy(), name="fc.w_0")
    opt = MAKERS[name]([p])
    for g in GRADS[:2]:
        step(opt, [p], g)
    state = {k: (v if isinstance(v, dict) else v.numpy().copy())
             for k, v in opt.state_dict().items()}
    q = Parameter(p.numpy().copy(), name="fc.w_0")
    fresh = MAKERS[name]([q])
    fresh.set_state_dict(state)
    step(opt, [p], GRADS[2])
    step(fresh, [q], GRADS[2])
    np.testing.assert_array_equal(q.numpy(), p.numpy())
    assert fresh.get_lr() == opt.get_lr()


def test_state_dict_keys_follow_paddle():
    p = Parameter(np.ones((3, 2)), name="linear_0.w_0")
    opt = Adam(lr.ExponentialDecay(0.1, 0.5), parameters=[p])
    assert list(opt.state_dict()) == ["LR_Scheduler"]
    step(opt, [p], GRADS[0])
    state = opt.state_dict()
    assert sorted(state) == ["LR_Scheduler", "linear_0.w_0_beta1_pow_acc_0",
                             "linear_0.w_0_beta2_pow_acc_0", "linear_0.w_0_moment1_0",
                             "linear_0.w_0_moment2_0"]
    assert state["linear_0.w_0_beta1_pow_acc_0"].shape == [1]
    assert state["linear_0.w_0_beta1_pow_acc_0"].numpy()[0] == pytest.approx(0.81)
    assert state["linear_0.w_0_moment1_0"].name == "linear_0.w_0_moment1_0"
    assert state["LR_Scheduler"] == {"last_epoch": 1, "last_lr": 0.05}


def test_loading_state_saved_for_other_parameters_is_refused():
    a = Parameter(np.ones(2), name="a")
    opt = Adam(0.1, parameters=[a])
    step(opt, [a], np.ones(2))
    b = Parameter(np.ones(2), name="b")
    with pytest.raises(ValueError, match="other parameters"):
        Adam(0.1, parameters=[b]).set_state_dict(opt.state_dict())


def test_loading_a_wrong_shape_is_refused():
    a = Parameter(np.ones(2), name="a")
    opt = Momentum(0.1, parameters=[a])
    with pytest.raises(ValueError, match=r"shape \[3\]"):
        opt.set_state_dict({"a_velocity_0": np.zeros(3)})


def test_parameter_without_saved_state_starts_fresh():
    a, b = Parameter(np.ones(2), name="a"), Parameter(np.ones(2), name="b")
    opt = Momentum(0.1, parameters=[a, b])
    a.grad = dygraph.to_tensor(np.ones(2))
    opt.step()  # b has no gradient: no state for it yet
    # state_dict shares the live accumulators (as Paddle's does): copy to keep a snapshot
    state = {k: v.numpy().copy() for k, v in opt.state_dict().items()}
    b.grad = dygraph.to_tensor(np.ones(2))
    opt.step()
    opt.set_state_dict(state)
    assert sorted(opt.state_dict()) == ["a_velocity_0"]
    np.testing.assert_array_equal(opt.state_dict()["a_velocity_0"].numpy(), [1.0, 1.0])
    opt.step()
    np.testing.assert_array_equal(opt.state_dict()["b_velocity_0"].numpy(), [1.0, 1.0])


def test_step_skips_frozen_parameters_and_missing_gradients_and_bumps_versions():
    a = Parameter(np.ones(2), name="a")
    b = Parameter(np.ones(2), name="b", trainable=False)
    c = Parameter(np.ones(2), name="c")
    opt = SGD(0.5, parameters=[a, b, c])
    a.grad = dygraph.to_tensor(np.ones(2))
    b._grad = dygraph.to_tensor(np.ones(2))
    version = a._version[0]
    opt.step()
    np.testing.assert_array_equal(a.numpy(), [0.5, 0.5])
    np.testing.assert_array_equal(b.numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(c.numpy(), [1.0, 1.0])
    assert a._version[0] == version + 1 and c._version[0] == 0


def test_update_is_in_place():
    a = Parameter(np.ones(2), name="a")
    data = a._data
    opt = Adam(0.5, parameters=[a])
    a.grad = dygraph.to_tensor(np.ones(2))
    opt.step()
    assert a._data is data and not np.array_equal(data, [1.0, 1.0])


def test_stale_saved_value_after_step_is_detected():
    w = Parameter(np.ones(2, np.float32), name="w")
    opt = SGD(0.1, parameters=[w])
    y = (w * w).sum()
    (w * 3.0).sum().backward()
    opt.step()
    with pytest.raises(RuntimeError):
        y.backward()


def test_clear_grad_minimize_and_no_grad_set():
    a, b = Parameter(np.ones(2), name="a"), Parameter(np.ones(2), name="b")
    opt = SGD(1.0, parameters=[a, b])
    loss = (a * 2.0).sum() + (b * 3.0).sum()
    loss.backward()
    ops, pairs = opt.minimize(loss, no_grad_set={"b"})
    assert ops == [] and [p.name for p, _ in pairs] == ["a"]
    np.testing.assert_array_equal(a.numpy(), [-1.0, -1.0])
    np.testing.assert_array_equal(b.numpy(), [1.0, 1.0])
    opt.clear_grad()
    np.testing.assert_array_equal(a.grad.numpy(), [0.0, 0.0])
    opt.clear_grad(set_to_zero=False)
    assert a.grad is None and b.grad is None


def test_parameter_list_is_the_1x_spelling():
    a = Parameter(np.ones(2), name="a")
    opt = SGD(1.0, parameter_list=[a])
    a.grad = dygraph.to_tensor(np.ones(2))
    opt.step()
    np.testing.assert_array_equal(a.numpy(), [0.0, 0.0])


def test_set_lr_and_get_lr():
    opt = SGD(0.5, parameters=[Parameter(np.ones(1))])
    opt.set_lr(0.125)
    assert opt.get_lr() == 0.125
    with pytest.raises(TypeError):
        opt.set_lr("fast")


@pytest.mark.parametrize("kwargs, exc", [
    ({"parameters": None}, AttributeError),
    ({"parameters": Parameter(np.ones(1))}, TypeError),
    ({"parameters": [Parameter(np.ones(1))], "learning_rate": "0.1"}, TypeError),
    ({"parameters": [np.ones(1)]}, TypeError),
    ({"parameters": [Parameter(np.ones(1))], "weight_decay": "big"}, TypeError),
    ({"parameters": [Parameter(np.ones(1))], "grad_clip": 1.0}, TypeError),
])
def test_bad_arguments(kwargs, exc):
    kwargs.setdefault("learning_rate", 0.1)
    with pytest.raises(exc):
        SGD(**kwargs)


def test_a_parameter_in_two_groups_is_refused():
    a = Parameter(np.ones(1), name="a")
    with pytest.raises(ValueError, match="more than once"):
        SGD(0.1, parameters=[{"params": [a]}, {"params": [a]}])


@pytest.mark.parametrize("kwargs", [{"beta1": 1.0}, {"beta2": -0.1}, {"epsilon": -1.0}])
def test_adam_checks_its_hyper_parameters(kwargs):
    with pytest.raises(ValueError):
        Adam(0.1, parameters=[Parameter(np.ones(1))], **kwargs)


def test_a_subclass_can_supply_parameters_created_after_it():
    """The hook the 1.x API uses: no parameter list, parameters adopted at each step."""
    live = []

    class AllLive(SGD):
        def _default_parameters(self):
            return list(live)

    opt = AllLive(0.5)
    live.append(Parameter(np.ones(2), name="late"))
    live[0].grad = dygraph.to_tensor(np.ones(2))
    opt.minimize(None)
    np.testing.assert_array_equal(live[0].numpy(), [0.5, 0.5])
    live.append(Parameter(np.ones(1), name="later"))
    live[1].grad = dygraph.to_tensor(np.ones(1))
    opt.step()
    np.testing.assert_array_equal(live[1].numpy(), [0.5])
