"""Every LR scheduler's first values against its formula, plus state and argument checks."""

import math

import numpy as np
import pytest

import dygraph
from dygraph.optimizer import lr
from dygraph.optimizer.lr import CosineAnnealingWarmRestarts, LinearLR

EPOCHS = 12


def noam(e):
    return 1.0 * 8 ** -0.5 * min(1.0 if e == 0 else e ** -0.5, 4 ** -1.5 * e)


def polynomial(base, end, steps, power, cycle):
    def f(e):
        if cycle:
            steps_now = steps * max(1, math.ceil(e / steps))
        else:
            steps_now, e = steps, min(e, steps)
        return (base - end) * (1 - e / steps_now) ** power + end
    return f


def cosine(base, t_max, eta_min):
    return lambda e: eta_min + (base - eta_min) * (1 + math.cos(math.pi * e / t_max)) / 2


def one_cycle(e, total=10, max_lr=1.0, initial=0.04, end=1e-4, pct=0.3):
    up = pct * total - 1
    if e <= up:
        start, stop, frac = initial, max_lr, e / up
    else:
        start, stop, frac = max_lr, end, (e - up) / (total - 1 - up)
    return stop + (start - stop) / 2 * (math.cos(math.pi * frac) + 1)


def cyclic(e, base=0.1, top=0.5, up=2, down=3, scale=lambda c, i: 1.0):
    cycle = 1 + e // (up + down)
    pos = e - (cycle - 1) * (up + down)
    height = pos / up if pos <= up else (up + down - pos) / down
    return base + (top - base) * height * scale(cycle, e)


TABLE = {
    "NoamDecay": (lambda: lr.NoamDecay(d_model=8, warmup_steps=4), noam),
    "PiecewiseDecay": (lambda: lr.PiecewiseDecay([3, 6], [1.0, 0.5, 0.1]),
                       lambda e: 1.0 if e < 3 else 0.5 if e < 6 else 0.1),
    "NaturalExpDecay": (lambda: lr.NaturalExpDecay(0.5, gamma=0.3),
                        lambda e: 0.5 * math.exp(-0.3 * e)),
    "InverseTimeDecay": (lambda: lr.InverseTimeDecay(0.5, gamma=0.3),
                         lambda e: 0.5 / (1 + 0.3 * e)),
    "PolynomialDecay": (lambda: lr.PolynomialDecay(0.5, decay_steps=5, end_lr=0.01, power=2.0),
                        polynomial(0.5, 0.01, 5, 2.0, False)),
    "PolynomialDecay-cycle": (lambda: lr.PolynomialDecay(0.5, 5, 0.01, 1.0, cycle=True),
                              polynomial(0.5, 0.01, 5, 1.0, True)),
    "LinearWarmup": (lambda: lr.LinearWarmup(0.5, warmup_steps=4, start_lr=0.1, end_lr=0.3),
                     lambda e: 0.1 + 0.2 * e / 4 if e < 4 else 0.5),
    "LinearWarmup-nested": (
        lambda: lr.LinearWarmup(lr.ExponentialDecay(0.5, 0.9), 3, 0.0, 0.5),
        lambda e: 0.5 * e / 3 if e < 3 else 0.5 * 0.9 ** (e - 3)),
    "ExponentialDecay": (lambda: lr.ExponentialDecay(0.5, gamma=0.8),
                         lambda e: 0.5 * 0.8 ** e),
    "MultiStepDecay": (lambda: lr.MultiStepDecay(0.5, milestones=[2, 5, 9], gamma=0.5),
                       lambda e: 0.5 * 0.5 ** sum(e >= m for m in (2, 5, 9))),
    "StepDecay": (lambda: lr.StepDecay(0.5, step_size=3, gamma=0.2),
                  lambda e: 0.5 * 0.2 ** (e // 3)),
    "LambdaDecay": (lambda: lr.LambdaDecay(0.5, lambda e: 1.0 / (e + 1)),
                    lambda e: 0.5 / (e + 1)),
    "MultiplicativeDecay": (lambda: lr.MultiplicativeDecay(0.5, lambda e: 0.9),
                            lambda e: 0.5 * 0.9 ** e),
    "CosineAnnealingDecay": (lambda: lr.CosineAnnealingDecay(0.5, T_max=10, eta_min=0.01),
                             cosine(0.5, 10, 0.01)),
    "OneCycleLR": (lambda: lr.OneCycleLR(1.0, total_steps=10), one_cycle),
    "OneCycleLR-linear-3phase": (
        lambda: lr.OneCycleLR(1.0, total_steps=10, divide_factor=10.0, end_learning_rate=0.0,
                              phase_pct=0.3, anneal_strategy="linear", three_phase=True),
        lambda e: np.interp(e, [0, 2, 4, 9], [0.1, 1.0, 0.1, 0.0])),
    "CyclicLR": (lambda: lr.CyclicLR(0.1, 0.5, step_size_up=2, step_size_down=3), cyclic),
    "CyclicLR-triangular2": (
        lambda: lr.CyclicLR(0.1, 0.5, 2, 3, mode="triangular2"),
        lambda e: cyclic(e, scale=lambda c, i: 0.5 ** (c - 1))),
    "CyclicLR-exp_range": (
        lambda: lr.CyclicLR(0.1, 0.5, 2, 3, mode="exp_range", exp_gamma=0.9),
        lambda e: cyclic(e, scale=lambda c, i: 0.9 ** i)),
}


def values(scheduler, n=EPOCHS):
    out = []
    for _ in range(n):
        out.append(scheduler())
        scheduler.step()
    return out


@pytest.mark.parametrize("name", sorted(TABLE))
def test_scheduler_follows_its_formula(name):
    make, formula = TABLE[name]
    steps = 10 if name.startswith("OneCycle") else EPOCHS  # OneCycle stops at total_steps
    np.testing.assert_allclose(values(make(), steps), [formula(e) for e in range(steps)],
                               rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", sorted(TABLE))
def test_state_dict_round_trip_continues_identically(name):
    make, _ = TABLE[name]
    steps = 9 if name.startswith("OneCycle") else EPOCHS
    first = make()
    values(first, 4)
    state = first.state_dict()
    resumed = make()
    resumed.set_state_dict(state)
    assert values(resumed, steps - 4) == values(first, steps - 4)


def test_step_with_epoch_uses_the_closed_form():
    s = lr.CosineAnnealingDecay(0.5, T_max=10)
    s.step(7)
    assert s.last_epoch == 7
    assert s() == pytest.approx(cosine(0.5, 10, 0.0)(7), rel=1e-12)


def test_reduce_on_plateau_sequence():
    s = lr.ReduceOnPlateau(1.0, mode="min", factor=0.5, patience=1, cooldown=1,
                           min_lr=0.2)
    got = []
    for loss in [5.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 3.0]:
        s.step(loss)
        got.append(s())
    # bad epochs 1, 2 (> patience) -> 0.5, cooldown 1, then 2 more bad -> 0.25, then min_lr
    assert got == [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25]
    # the floor: 0.25 * 0.5 < min_lr, so the rate stops at 0.2
    for _ in range(4):
        s.step(3.0)
    assert s() == 0.2


def test_reduce_on_plateau_max_mode_abs_threshold_and_tensor_metric():
    s = lr.ReduceOnPlateau(1.0, mode="max", factor=0.1, patience=0, threshold=0.5,
                           threshold_mode="abs")
    s.step(dygraph.to_tensor([1.0]))
    s.step(np.array(1.4))  # not better by 0.5: a bad epoch, beyond patience 0
    assert s() == pytest.approx(0.1)
    assert s.state_dict() == {"cooldown_counter": 0, "best": 1.0, "num_bad_epochs": 0,
                              "last_epoch": 2, "last_lr": s()}
    with pytest.raises(ValueError, match="one element"):
        s.step(np.ones(2))
    with pytest.raises(TypeError):
        s.step("low")


def test_optimizer_reads_the_scheduler_each_step():
    from dygraph.framework.parameter import Parameter
    from dygraph.optimizer import SGD

    w = Parameter(np.zeros(1), name="w")
    sched = lr.StepDecay(1.0, step_size=1, gamma=0.5)
    opt = SGD(sched, parameters=[w])
    for _ in range(3):
        w.grad = dygraph.to_tensor(np.ones(1))
        opt.step()
        sched.step()
    np.testing.assert_allclose(w.numpy(), [-(1.0 + 0.5 + 0.25)])
    assert opt.get_lr() == 0.125
    with pytest.raises(RuntimeError, match="LRScheduler"):
        opt.set_lr(0.1)


def test_verbose_prints_each_step(capsys):
    lr.StepDecay(0.5, step_size=1, gamma=0.5, verbose=True).step()
    assert "Epoch 1: StepDecay set learning rate to 0.25." in capsys.readouterr().out


@pytest.mark.parametrize("make, exc", [
    (lambda: lr.StepDecay(0.1, step_size=1.5), TypeError),
    (lambda: lr.StepDecay(0.1, step_size=2, gamma=1.5), ValueError),
    (lambda: lr.MultiStepDecay(0.1, milestones=[3, 2]), ValueError),
    (lambda: lr.MultiStepDecay(0.1, milestones=3), TypeError),
    (lambda: lr.LambdaDecay(0.1, lr_lambda=0.5), TypeError),
    (lambda: lr.PiecewiseDecay([1, 2], [0.1, 0.2]), ValueError),
    (lambda: lr.CosineAnnealingDecay(0.1, T_max=2.5), TypeError),
    (lambda: lr.ReduceOnPlateau(0.1, mode="lowest"), ValueError),
    (lambda: lr.ReduceOnPlateau(0.1, factor=2.0), ValueError),
    (lambda: lr.OneCycleLR(1.0, total_steps=10, anneal_strategy="step"), ValueError),
    (lambda: lr.OneCycleLR(1.0, total_steps=10, phase_pct=0.6, three_phase=True),
     ValueError),
    (lambda: lr.CyclicLR(0.1, 0.5, step_size_up=2, mode="sawtooth"), ValueError),
    (lambda: lr.ExponentialDecay("0.1", gamma=0.5), TypeError),
])
def test_bad_arguments_raise(make, exc):
    with pytest.raises(exc):
        make()


def test_one_cycle_refuses_steps_past_total():
    s = lr.OneCycleLR(1.0, total_steps=3)
    for _ in range(3):
        s.step()
    with pytest.raises(ValueError, match="total_steps"):
        s.step()


def test_set_state_dict_names_a_missing_key():
    with pytest.raises(KeyError, match="last_lr"):
        lr.StepDecay(0.1, step_size=2).set_state_dict({"last_epoch": 3})


def _rates(sched, n):
    out = []
    for _ in range(n):
        out.append(sched())
        sched.step()
    return out


def test_cosine_annealing_warm_restarts_schedule():
    sched = CosineAnnealingWarmRestarts(1.0, T_0=3, T_mult=2, eta_min=0.1)
    cycle = [(0, 3), (1, 3), (2, 3), (0, 6), (1, 6), (2, 6), (3, 6), (4, 6), (5, 6), (0, 12)]
    want = [0.1 + 0.9 * (1 + math.cos(math.pi * c / t)) / 2 for c, t in cycle]
    np.testing.assert_allclose(_rates(sched, 10), want, rtol=1e-12)
    sched.step(20)  # 20 = 3 + 6 + 11: the 11th epoch of the 12-epoch cycle
    assert (sched.T_cur, sched.T_i) == (11, 12)


def test_cosine_annealing_warm_restarts_resumes_from_state():
    a = CosineAnnealingWarmRestarts(0.5, T_0=2, T_mult=2)
    _rates(a, 5)
    b = CosineAnnealingWarmRestarts(0.5, T_0=2, T_mult=2)
    b.set_state_dict(a.state_dict())
    assert _rates(b, 6) == _rates(a, 6)


def test_linear_lr_schedule():
    np.testing.assert_allclose(_rates(LinearLR(1.0, 4, 0.25, 0.75), 7),
                               [0.25, 0.375, 0.5, 0.625, 0.75, 0.75, 0.75], rtol=1e-12)
    with pytest.raises(ValueError, match="start_factor"):
        LinearLR(1.0, 4, start_factor=0.0)
