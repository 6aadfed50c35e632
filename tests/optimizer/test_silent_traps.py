"""Learning rates and parameter lists that would make training silently wrong are refused
with ValueError (a deliberate difference from Paddle, which accepts them; PyTorch refuses
them too).
"""

import inspect
import math

import numpy as np
import pytest

import dygraph
from dygraph import optimizer
from dygraph.framework.parameter import Parameter
from dygraph.optimizer import lr

OPTIMIZERS = [cls for _, cls in inspect.getmembers(optimizer, inspect.isclass)
              if issubclass(cls, optimizer.Optimizer) and cls is not optimizer.Optimizer]
BAD_RATES = [math.nan, math.inf, -math.inf, -0.1]


def _param():
    return Parameter(np.ones([2], np.float32))


def test_every_optimizer_is_covered():
    assert len(OPTIMIZERS) >= 9


@pytest.mark.parametrize("cls", OPTIMIZERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("rate", BAD_RATES)
def test_non_finite_or_negative_learning_rate_is_refused(cls, rate):
    with pytest.raises(ValueError, match="learning_rate must be a finite number >= 0"):
        cls(learning_rate=rate, parameters=[_param()])


@pytest.mark.parametrize("cls", OPTIMIZERS, ids=lambda c: c.__name__)
def test_empty_or_used_up_parameters_are_refused(cls):
    with pytest.raises(ValueError, match="parameters is empty"):
        cls(learning_rate=0.1, parameters=[])
    model = dygraph.nn.Linear(2, 2)
    params = model.parameters()
    gen = iter(params)
    list(gen)  # used up, as by a first optimizer given the same generator
    with pytest.raises(ValueError, match="used up"):
        cls(learning_rate=0.1, parameters=gen)


def test_zero_learning_rate_is_allowed():
    w = _param()
    opt = optimizer.SGD(0.0, parameters=[w])
    (w * 2).sum().backward()
    opt.step()
    np.testing.assert_array_equal(w.numpy(), [1.0, 1.0])


@pytest.mark.parametrize("rate", BAD_RATES)
def test_set_lr_and_parameter_groups_check_the_rate(rate):
    opt = optimizer.Adam(0.1, parameters=[_param()])
    with pytest.raises(ValueError, match="finite number >= 0"):
        opt.set_lr(rate)
    with pytest.raises(ValueError, match="finite number >= 0"):
        optimizer.SGD(0.1, parameters=[{"params": [_param()], "learning_rate": rate}])


@pytest.mark.parametrize("rate", BAD_RATES)
def test_schedulers_refuse_bad_base_rates(rate):
    for make in (lambda: lr.StepDecay(rate, step_size=2),
                 lambda: lr.ExponentialDecay(rate, gamma=0.5),
                 lambda: lr.CosineAnnealingDecay(rate, T_max=4)):
        with pytest.raises(ValueError, match="finite number >= 0"):
            make()


def test_a_schedule_that_turns_nan_stops_the_step_before_the_weights_change():
    w = _param()
    schedule = lr.LambdaDecay(0.1, lambda epoch: math.nan if epoch >= 1 else 1.0)
    opt = optimizer.SGD(schedule, parameters=[w])
    (w * 2).sum().backward()
    opt.step()
    schedule.step()
    before = w.numpy()
    with pytest.raises(ValueError, match="LambdaDecay: learning_rate must be a finite"):
        opt.step()
    np.testing.assert_array_equal(w.numpy(), before)


def test_fluid_optimizers_refuse_bad_rates_too():
    import dygraph.fluid as fluid

    with fluid.dygraph.guard():
        with pytest.raises(ValueError, match="finite number >= 0"):
            fluid.optimizer.AdamOptimizer(learning_rate=math.nan)
