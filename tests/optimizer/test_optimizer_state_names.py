"""NAdam, RAdam, Rprop and ASGD keep Paddle 3.3's accumulators (names, shapes, dtypes and
meaning), so an optimizer checkpoint written by Paddle loads by key and the next step
continues as Paddle's does; Lamb takes a beta1 outside [0, 1) as Paddle does.

The numbers were produced by Paddle 3.3: a float32 parameter [1, 2, -1] named 'w', the
gradients of GRADS in turn, the state_dict before the last step and the parameter after it.
"""

import numpy as np
import pytest

import dygraph
from dygraph.framework.parameter import Parameter
from dygraph.optimizer import ASGD, Lamb, NAdam, RAdam, Rprop

START = [1.0, 2.0, -1.0]
GRADS = [np.array([0.5, -1.0, 2.0]), np.array([0.25, 1.5, 1.0]), np.array([-0.75, 0.5, 3.0])]

# name: (make, Paddle's state before the last step, the parameter then, and after it)
PADDLE = {
    "NAdam": (lambda ps: NAdam(0.1, parameters=ps), {
        "w_momentum_decay_pow_0": [0.9215999841690063] * 3,
        "w_beta2_pow_0": [0.9980010390281677] * 3,
        "w_mu_product_0": [0.2025991827249527] * 3,
        "w_moment1_0": [0.07000001519918442, 0.060000017285346985, 0.28000006079673767],
        "w_moment2_0": [0.0003122459747828543, 0.0032489581499248743, 0.004995935596525669],
    }, [0.8419626951217651, 2.022181749343872, -1.1580373048782349],
        [0.927003026008606, 1.9896528720855713, -1.2540313005447388]),
    # seven steps: rho_7 = 6.97 > 5, the rectified update
    "RAdam": (lambda ps: RAdam(0.1, parameters=ps), {
        "w_beta1_pow_0": [0.5314409136772156] * 3,
        "w_beta2_pow_0": [0.994015097618103] * 3,
        "w_rho_0": [996.5158081054688] * 3,
        "w_moment1_0": [-0.020748011767864227, 0.17981603741645813, 0.9544081687927246],
        "w_moment2_0": [0.0017462323885411024, 0.006980935111641884, 0.02793971821665764],
    }, [0.8916788697242737, 1.9957655668258667, -1.9336683750152588],
        [0.8913111686706543, 1.9954025745391846, -1.936776041984558]),
    "Rprop": (lambda ps: Rprop(0.1, parameters=ps), {
        "w_prevs_0": [0.25, 0.0, 1.0],
        "w_learning_rates_0": [0.12000000476837158, 0.05000000074505806, 0.12000000476837158],
    }, [0.7799999713897705, 2.0999999046325684, -1.2200000286102295],
        [0.7799999713897705, 2.049999952316284, -1.3640000820159912]),
    "ASGD": (lambda ps: ASGD(0.1, batch_num=2, parameters=ps), {
        "w_d_0": [0.75, 0.5, 3.0],
        "w_y_0": [[0.5, -1.0, 2.0], [0.25, 1.5, 1.0]],
        "w_m_0": np.array([2], np.int64),
    }, [0.9124999642372131, 2.0749998092651367, -1.350000023841858],
        [0.9374999403953552, 1.9749997854232788, -1.5500000715255737]),
}
STEPS = {"RAdam": 7}


def _param(value=START, dtype="float32"):
    return Parameter(np.array(value, dtype), name="w")


def _step(opt, param, grad):
    (param * dygraph.to_tensor(grad.astype(param.numpy().dtype))).sum().backward()
    opt.step()
    opt.clear_grad()


def _run(name, dtype="float32"):
    make = PADDLE[name][0]
    param = _param(dtype=dtype)
    opt = make([param])
    steps = STEPS.get(name, 3)
    for i in range(steps - 1):
        _step(opt, param, GRADS[i % 3])
    return opt, param, GRADS[(steps - 1) % 3]


@pytest.mark.parametrize("name", sorted(PADDLE))
def test_the_state_before_the_last_step_is_paddles(name):
    opt, param, _ = _run(name)
    state = opt.state_dict()
    want = PADDLE[name][1]
    assert list(state) == list(want)  # Paddle's keys, in Paddle's order
    for key, value in want.items():
        value = np.asarray(value, np.asarray(value).dtype if key == "w_m_0" else np.float32)
        got = state[key].numpy()
        assert got.dtype == value.dtype and got.shape == value.shape, key
        np.testing.assert_allclose(got, value, rtol=2e-6, err_msg=key)
    np.testing.assert_allclose(param.numpy(), PADDLE[name][2], rtol=2e-6)


@pytest.mark.parametrize("name", sorted(PADDLE))
def test_a_paddle_checkpoint_loads_by_key_and_continues_as_paddle(name):
    make, state, before, after = PADDLE[name]
    param = _param(before)
    opt = make([param])
    loaded = {k: np.asarray(v, np.int64 if k == "w_m_0" else np.float32)
              for k, v in state.items()}
    opt.set_state_dict(loaded)
    _step(opt, param, GRADS[(STEPS.get(name, 3) - 1) % 3])
    np.testing.assert_allclose(param.numpy(), after, rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(PADDLE))
def test_float64_state_keeps_the_parameter_dtype(name):
    opt, _, _ = _run(name, "float64")
    for key, value in opt.state_dict().items():
        want = np.int64 if key == "w_m_0" else np.float64
        assert value.numpy().dtype == want, key


def test_radam_rho_is_t_beta2_pow_over_one_minus_beta2_pow():
    param = _param(dtype="float64")
    opt = RAdam(0.1, beta2=0.9, parameters=[param])
    for t in range(1, 5):
        _step(opt, param, GRADS[t % 3])
        b2 = 0.9 ** t
        np.testing.assert_allclose(opt.state_dict()["w_rho_0"].numpy(),
                                   np.full(3, t * b2 / (1 - b2)), rtol=1e-12)


def test_rprop_starts_from_the_parameters_learning_rate():
    w, b = _param(), Parameter(np.ones(3, np.float32), name="b")
    opt = Rprop(0.1, parameters=[{"params": [w]}, {"params": [b], "learning_rate": 0.5}])
    (w.sum() + b.sum()).backward()
    opt.step()
    state = opt.state_dict()
    np.testing.assert_allclose(state["w_learning_rates_0"].numpy(), [0.1] * 3)
    np.testing.assert_allclose(state["b_learning_rates_0"].numpy(), [0.05] * 3)


def test_lamb_takes_beta1_outside_the_unit_interval_as_paddle():
    # Paddle 3.3: Lamb(0.1, beta1=2.0) on the same parameter and gradients
    param = _param()
    opt = Lamb(0.1, beta1=2.0, parameters=[param])
    for grad in GRADS:
        _step(opt, param, grad)
    np.testing.assert_allclose(param.numpy(),
                               [0.5462732315063477, 2.1703834533691406, -1.5492581129074097],
                               rtol=2e-6)
