"""fluid.optimizer: the 1.x wrappers update like the 2.x optimizers; minimize without a list
updates the live parameters (including those created after the optimizer); learning-rate
decays advance once per minimize; regularization, clipping and state."""

import numpy as np
import pytest

import dygraph as paddle
import dygraph.fluid as fluid
from dygraph.framework.parameter import Parameter


def param(values, name):
    return Parameter(np.asarray(values, np.float32), name=name)


@pytest.mark.parametrize("make_1x, make_2x", [
    (lambda ps: fluid.optimizer.SGDOptimizer(0.1, parameter_list=ps),
     lambda ps: paddle.optimizer.SGD(0.1, parameters=ps)),
    (lambda ps: fluid.optimizer.MomentumOptimizer(0.1, 0.9, parameter_list=ps,
                                                  use_nesterov=True),
     lambda ps: paddle.optimizer.Momentum(0.1, 0.9, parameters=ps, use_nesterov=True)),
    (lambda ps: fluid.optimizer.AdamOptimizer(0.01, 0.8, 0.9, 1e-6, parameter_list=ps),
     lambda ps: paddle.optimizer.Adam(0.01, 0.8, 0.9, 1e-6, parameters=ps)),
    (lambda ps: fluid.optimizer.AdamaxOptimizer(0.01, parameter_list=ps),
     lambda ps: paddle.optimizer.Adamax(0.01, parameters=ps)),
    (lambda ps: fluid.optimizer.AdagradOptimizer(0.1, parameter_list=ps),
     lambda ps: paddle.optimizer.Adagrad(0.1, parameters=ps)),
    (lambda ps: fluid.optimizer.AdadeltaOptimizer(1.0, parameter_list=ps),
     lambda ps: paddle.optimizer.Adadelta(1.0, parameters=ps)),
    (lambda ps: fluid.optimizer.RMSPropOptimizer(0.01, momentum=0.5, centered=True,
                                                 parameter_list=ps),
     lambda ps: paddle.optimizer.RMSProp(0.01, momentum=0.5, centered=True, parameters=ps)),
])
def test_wrappers_update_like_the_2x_optimizers(make_1x, make_2x):
    a, b = param([1.0, -2.0], "wrap_a"), param([1.0, -2.0], "wrap_b")
    opt_1x, opt_2x = make_1x([a]), make_2x([b])
    for _ in range(3):
        loss_a = (a * a * a).sum()
        loss_a.backward()
        opt_1x.minimize(loss_a)
        a.clear_gradient()
        loss_b = (b * b * b).sum()
        loss_b.backward()
        opt_2x.step()
        b.clear_gradient()
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)


def test_aliases():
    assert fluid.optimizer.SGD is fluid.optimizer.SGDOptimizer
    assert fluid.optimizer.Adam is fluid.optimizer.AdamOptimizer
    assert fluid.optimizer.Momentum is fluid.optimizer.MomentumOptimizer
    assert fluid.optimizer.Adagrad is fluid.optimizer.AdagradOptimizer


def test_minimize_without_a_list_updates_parameters_created_later():
    with fluid.dygraph.guard():
        sgd = fluid.optimizer.SGDOptimizer(learning_rate=0.5)
        fc = fluid.dygraph.FC("later", 1, param_attr=fluid.initializer.ConstantInitializer(1.0))
        frozen = param([3.0], "later_frozen")
        frozen.trainable = False
        x = fluid.dygraph.to_variable(np.ones([1, 2], np.float32))
        loss = fluid.layers.reduce_sum(fc(x) * frozen)
        loss.backward()
        _, pairs = sgd.minimize(loss)
    np.testing.assert_allclose(fc.weight.numpy().ravel(), [-0.5, -0.5])
    np.testing.assert_allclose(fc.bias.numpy(), [-1.5])
    np.testing.assert_array_equal(frozen.numpy(), [3.0])
    assert {p.name for p, _ in pairs} == {fc.weight.name, fc.bias.name}


def test_minimize_parameter_list_and_no_grad_set():
    a, b, c = param([1.0], "sel_a"), param([1.0], "sel_b"), param([1.0], "sel_c")
    sgd = fluid.optimizer.SGDOptimizer(0.5, parameter_list=[a, b])
    loss = (a + b + c).sum()
    loss.backward()
    sgd.minimize(loss, parameter_list=[b, c], no_grad_set={"sel_c"})
    assert a.numpy().tolist() == [1.0] and b.numpy().tolist() == [0.5]
    assert c.numpy().tolist() == [1.0]


def test_regularization_and_gradient_clips():
    w = param([2.0], "reg_w")
    sgd = fluid.optimizer.SGDOptimizer(
        0.1, parameter_list=[w], regularization=fluid.regularizer.L2Decay(0.5))
    loss = w.sum()
    loss.backward()
    sgd.minimize(loss)
    np.testing.assert_allclose(w.numpy(), [2.0 - 0.1 * (1.0 + 0.5 * 2.0)])

    a, b = param([0.0], "clip_a"), param([0.0], "clip_b")
    sgd = fluid.optimizer.SGDOptimizer(
        1.0, parameter_list=[a, b], grad_clip=fluid.clip.GradientClipByGlobalNorm(1.0))
    loss = (3 * a + 4 * b).sum()
    loss.backward()
    sgd.minimize(loss)
    np.testing.assert_allclose([a.numpy()[0], b.numpy()[0]], [-0.6, -0.8], rtol=1e-6)

    c = param([0.0], "clip_c")
    sgd = fluid.optimizer.SGDOptimizer(1.0, parameter_list=[c])
    loss = (5 * c).sum()
    loss.backward()
    sgd.minimize(loss, grad_clip=fluid.clip.GradientClipByValue(2.0))  # the 1.6 place
    np.testing.assert_allclose(c.numpy(), [-2.0])


def test_learning_rate_decay_advances_once_per_minimize():
    w = param([0.0], "decay_w")
    decay = fluid.dygraph.PiecewiseDecay([2], [1.0, 0.1], begin=0)
    sgd = fluid.optimizer.SGDOptimizer(decay, parameter_list=[w])
    rates = []
    for _ in range(4):
        rates.append(sgd.current_step_lr())
        assert sgd.current_step_lr() == rates[-1]  # reading does not advance
        loss = w.sum()
        loss.backward()
        sgd.minimize(loss)
        w.clear_gradient()
    assert rates == [1.0, 1.0, 0.1, 0.1]
    np.testing.assert_allclose(w.numpy(), [-2.2], rtol=1e-6)
    assert sgd.state_dict()["LR_Scheduler"] == {"step_num": 4}


def test_state_dict_set_dict_and_load_named_states():
    w = param([1.0, 2.0], "state_w")
    adam = fluid.optimizer.AdamOptimizer(0.1, parameter_list=[w])
    loss = (w * w).sum()
    loss.backward()
    adam.minimize(loss)
    state = {k: v.numpy().copy() for k, v in adam.state_dict().items()}
    assert sorted(state) == ["state_w_beta1_pow_acc_0", "state_w_beta2_pow_acc_0",
                             "state_w_moment1_0", "state_w_moment2_0"]
    adam.minimize(loss)  # the state moves on
    adam.set_dict(state)
    for k, v in adam.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), state[k])
    other = fluid.optimizer.AdamOptimizer(0.1, parameter_list=[w], name="other")
    other.load({"whatever_name": state})  # one entry: used whatever its name
    np.testing.assert_array_equal(other.state_dict()["state_w_moment1_0"].numpy(),
                                  state["state_w_moment1_0"])
    with pytest.raises(KeyError, match="other"):
        other.load({"a": state, "b": state})


def _fc_loss(fc):
    x = fluid.dygraph.to_variable(np.ones([1, 2], np.float32))
    return fluid.layers.reduce_sum(fc(x))


def test_minimize_without_a_list_leaves_other_live_models_alone():
    with fluid.dygraph.guard():
        other = fluid.dygraph.FC("other", 1)
        _fc_loss(other).backward()  # a gradient nobody clears
        before = [p.numpy().copy() for p in other.parameters()]
        adam = fluid.optimizer.AdamOptimizer(0.1)
        model = fluid.dygraph.FC("mine", 1)
        for _ in range(2):
            loss = _fc_loss(model)
            loss.backward()
            adam.minimize(loss)
            model.clear_gradients()
        for param, value in zip(other.parameters(), before):
            np.testing.assert_array_equal(param.numpy(), value)
        names = [p.name + "_" for p in model.parameters()]
        keys = list(adam.state_dict())
        assert len(keys) == 4 * 2 and all(k.startswith(tuple(names)) for k in keys)


def test_minimize_updates_only_what_the_loss_reached():
    with fluid.dygraph.guard():
        used, unused = param([1.0], "reach_used"), param([1.0], "reach_unused")
        sgd = fluid.optimizer.SGDOptimizer(0.5)
        loss = (used + unused).sum()
        loss.backward()
        sgd.minimize(loss)
        loss = (used * 2.0).sum()  # `unused` keeps its old gradient
        loss.backward()
        sgd.minimize(loss)
    np.testing.assert_allclose(used.numpy(), [1.0 - 0.5 - 0.5 * 3.0])
    np.testing.assert_allclose(unused.numpy(), [0.5])


def test_minimize_after_a_backward_that_ran_before_the_optimizer():
    with fluid.dygraph.guard():
        w = param([1.0], "early_w")
        loss = (3.0 * w).sum()
        loss.backward()
        sgd = fluid.optimizer.SGDOptimizer(0.1)
        sgd.minimize(loss)
    np.testing.assert_allclose(w.numpy(), [0.7], rtol=1e-6)


def test_list_less_optimizer_loads_state_before_its_first_step():
    w = param([1.0, 2.0], "early_load_w")
    trained = fluid.optimizer.MomentumOptimizer(0.1, 0.9, parameter_list=[w])
    loss = w.sum()
    loss.backward()
    trained.minimize(loss)
    state = {k: v.numpy().copy() for k, v in trained.state_dict().items()}
    fresh = fluid.optimizer.MomentumOptimizer(0.1, 0.9)
    fresh.set_dict(state)  # nothing adopted yet: kept until w's first update
    fresh.minimize(loss)  # w's gradient is unchanged since fresh was made: nonzero fallback
    np.testing.assert_allclose(fresh.state_dict()["early_load_w_velocity_0"].numpy(),
                               0.9 * state["early_load_w_velocity_0"] + 1.0, rtol=1e-6)
    with pytest.raises(ValueError, match="do not exist"):
        fluid.optimizer.MomentumOptimizer(0.1, 0.9).set_dict({"ghost_velocity_0": [1.0]})
