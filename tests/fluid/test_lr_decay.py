"""The 1.x learning-rate decays against their formulas, step by step."""

import math

import pytest

import dygraph.fluid as fluid
from dygraph.fluid.dygraph.learning_rate_scheduler import LearningRateDecay

D = fluid.dygraph


def rates(decay, n):
    return [decay() for _ in range(n)]


def test_piecewise():
    assert rates(D.PiecewiseDecay([3, 5], [1.0, 0.5, 0.1], begin=0), 7) == \
        [1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1]
    assert rates(D.PiecewiseDecay([3], [1.0, 0.5], begin=0, step=2), 3) == [1.0, 1.0, 0.5]
    with pytest.raises(ValueError, match="values"):
        D.PiecewiseDecay([3], [1.0], begin=0)


@pytest.mark.parametrize("cls, formula", [
    (D.ExponentialDecay, lambda t: 0.5 ** t),
    (D.NaturalExpDecay, lambda t: math.exp(-t)),
    (D.InverseTimeDecay, lambda t: 1.0 / (1.0 + t)),
])
@pytest.mark.parametrize("staircase", [False, True])
def test_step_based_decays(cls, formula, staircase):
    decay_rate = 0.5 if cls is D.ExponentialDecay else 1.0
    decay = cls(learning_rate=2.0, decay_steps=4, decay_rate=decay_rate,
                staircase=staircase, begin=1)
    for step, rate in zip(range(1, 10), rates(decay, 9)):
        t = step // 4 if staircase else step / 4
        assert rate == pytest.approx(2.0 * formula(t))


def test_polynomial():
    plain = D.PolynomialDecay(1.0, decay_steps=4, end_learning_rate=0.2, power=2.0, begin=0)
    expected = [(0.8 * (1 - min(t, 4) / 4) ** 2 + 0.2) for t in range(6)]
    assert rates(plain, 6) == pytest.approx(expected)
    cycle = D.PolynomialDecay(1.0, decay_steps=4, end_learning_rate=0.0, cycle=True, begin=0)
    assert rates(cycle, 7) == pytest.approx([1.0, 0.75, 0.5, 0.25, 0.0, 0.375, 0.25])


def test_cosine():
    decay = D.CosineDecay(1.0, step_each_epoch=2, epochs=4, begin=0)
    expected = [0.5 * (math.cos(math.floor(t / 2) * math.pi / 4) + 1) for t in range(8)]
    assert rates(decay, 8) == pytest.approx(expected)


def test_noam():
    decay = D.NoamDecay(d_model=16, warmup_steps=3)
    expected = [16 ** -0.5 * min(t ** -0.5, 3 ** -1.5 * t) for t in range(1, 7)]
    assert rates(decay, 6) == pytest.approx(expected)
    assert D.NoamDecay(16, 3, learning_rate=2.0).current_lr() == pytest.approx(2 * expected[0])


def test_custom_decay_state_and_variables():
    class Halving(LearningRateDecay):
        def step(self):
            return self.create_lr_var(0.5 ** self.step_num)

    decay = Halving()
    assert rates(decay, 3) == [1.0, 0.5, 0.25]
    assert decay.state_dict() == {"step_num": 3}
    decay.set_state_dict({"step_num": 1})
    assert decay.current_lr() == 0.5
    with pytest.raises(NotImplementedError):
        LearningRateDecay().current_lr()
