"""1.x `minimize(loss)` without a parameter list updates exactly the parameters `loss`
depends on: not other models' parameters, and not skipping one whose gradient is zero."""

import numpy as np

import dygraph.fluid as fluid


def test_two_models_two_optimizers_each_step_only_their_own_parameters():
    with fluid.dygraph.guard():
        actor, critic = fluid.dygraph.Linear(2, 1), fluid.dygraph.Linear(2, 1)
        opt_actor = fluid.optimizer.SGD(learning_rate=0.1)
        opt_critic = fluid.optimizer.SGD(learning_rate=0.1)
        x = fluid.dygraph.to_variable(np.ones((1, 2), np.float32))
        a0, c0 = actor.weight.numpy(), critic.weight.numpy()
        loss_actor = fluid.layers.reduce_sum(actor(x))
        loss_actor.backward()
        loss_critic = fluid.layers.reduce_sum(critic(x))
        loss_critic.backward()
        opt_actor.minimize(loss_actor)
        opt_critic.minimize(loss_critic)
        np.testing.assert_allclose(actor.weight.numpy() - a0, -0.1, rtol=1e-5)
        np.testing.assert_allclose(critic.weight.numpy() - c0, -0.1, rtol=1e-5)


def test_a_parameter_with_a_zero_gradient_is_still_updated():
    with fluid.dygraph.guard():
        fc = fluid.dygraph.Linear(2, 1, param_attr=fluid.ParamAttr(
            initializer=fluid.initializer.ConstantInitializer(1.0)))
        x = fluid.dygraph.to_variable(np.zeros((1, 2), np.float32))  # d loss / d w = 0
        loss = fluid.layers.reduce_sum(fc(x))
        loss.backward()
        opt = fluid.optimizer.SGD(0.1, regularization=fluid.regularizer.L2Decay(1.0))
        opt.minimize(loss)
        np.testing.assert_allclose(fc.weight.numpy().ravel(), [0.9, 0.9], rtol=1e-6)
