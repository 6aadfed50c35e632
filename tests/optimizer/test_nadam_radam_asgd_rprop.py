"""NAdam, RAdam, ASGD and Rprop against their closed forms for the first updates (the
references were also checked against Paddle 3.3's optimizers while writing them), their
weight decay, and ASGD's state through state_dict."""

import math

import numpy as np
import pytest

import dygraph
from dygraph.framework.parameter import Parameter
from dygraph.optimizer import ASGD, NAdam, RAdam, Rprop
from dygraph.regularizer import L2Decay
from tests.optimizer.test_algorithms import GRADS, LR, run_optimizer, run_reference

# Rprop needs sign changes: the third gradient flips some signs of the second.
FLIPS = [GRADS[0], GRADS[1], -GRADS[1] * np.array([[1, -1, 1], [1, 1, -1]]), GRADS[2]]


def ref_nadam(b1=0.9, b2=0.999, eps=1e-8, psi=0.004):
    def update(p, g, s, t, lr):
        mu_t = b1 * (1 - 0.5 * 0.96 ** (t * psi))
        mu_next = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * psi))
        s["prod"] = s.get("prod", 1.0) * mu_t
        s["m"] = b1 * s.get("m", 0.0) + (1 - b1) * g
        s["v"] = b2 * s.get("v", 0.0) + (1 - b2) * g * g
        m_hat = mu_next * s["m"] / (1 - s["prod"] * mu_next) + (1 - mu_t) * g / (1 - s["prod"])
        return p - lr * m_hat / (np.sqrt(s["v"] / (1 - b2 ** t)) + eps)
    return update


def ref_radam(b1=0.9, b2=0.999, eps=1e-8):
    def update(p, g, s, t, lr):
        s["m"] = b1 * s.get("m", 0.0) + (1 - b1) * g
        s["v"] = b2 * s.get("v", 0.0) + (1 - b2) * g * g
        m_hat = s["m"] / (1 - b1 ** t)
        rho_inf = 2 / (1 - b2) - 1
        rho = rho_inf - 2 * t * b2 ** t / (1 - b2 ** t)
        if rho <= 5:
            return p - lr * m_hat
        r = math.sqrt((rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho))
        return p - lr * m_hat * r * np.sqrt(1 - b2 ** t) / (np.sqrt(s["v"]) + eps)
    return update


def ref_asgd(n):
    def update(p, g, s, t, lr):
        ys = s.setdefault("y", [0.0] * n)
        s["d"] = s.get("d", 0.0) - ys[(t - 1) % n] + g
        ys[(t - 1) % n] = g
        return p - lr * s["d"] / min(t, n)
    return update


def ref_rprop(low=1e-5, high=50.0, down=0.5, up=1.2):
    def update(p, g, s, t, lr):
        prod = s.get("prev", np.zeros_like(p)) * g
        rate = s.get("rate", np.full_like(p, lr))
        rate = np.where(prod > 0, np.minimum(rate * up, high),
                        np.where(prod < 0, np.maximum(rate * down, low), rate))
        g = np.where(prod < 0, 0.0, g)
        s["prev"], s["rate"] = g, rate
        return p - np.sign(g) * rate
    return update


CASES = {
    "nadam": (lambda ps: NAdam(LR, parameters=ps), ref_nadam()),
    "nadam-options": (lambda ps: NAdam(LR, 0.8, 0.9, 0.01, 0.3, parameters=ps),
                      ref_nadam(0.8, 0.9, 0.01, 0.3)),
    "radam": (lambda ps: RAdam(LR, parameters=ps), ref_radam()),
    # beta2 = 0.5 makes rho_t > 5 from the first steps: the rectified branch.
    "radam-rectified": (lambda ps: RAdam(LR, 0.5, 0.3, 0.1, parameters=ps),
                        ref_radam(0.5, 0.3, 0.1)),
    "asgd": (lambda ps: ASGD(LR, parameters=ps), ref_asgd(1)),
    "asgd-window": (lambda ps: ASGD(LR, batch_num=3, parameters=ps), ref_asgd(3)),
    "rprop": (lambda ps: Rprop(LR, parameters=ps), ref_rprop()),
    "rprop-range": (lambda ps: Rprop(LR, (0.05, 0.15), parameters=ps, etas=(0.3, 1.5)),
                    ref_rprop(0.05, 0.15, 0.3, 1.5)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_first_updates_match_the_closed_form(name):
    make, update = CASES[name]
    np.testing.assert_allclose(run_optimizer(make, FLIPS), run_reference(update, FLIPS),
                               rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("cls, ref", [(NAdam, ref_nadam()), (RAdam, ref_radam()),
                                      (ASGD, ref_asgd(1))])
def test_weight_decay_is_l2_on_the_gradient(cls, ref):
    got = run_optimizer(lambda ps: cls(LR, parameters=ps, weight_decay=L2Decay(0.1)))
    want = run_reference(ref, prepare=lambda p, g: g + 0.1 * p)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_asgd_state_round_trips_through_state_dict():
    p = Parameter(np.ones((2, 3)), name="w")
    opt = ASGD(LR, batch_num=2, parameters=[p])
    p.grad = dygraph.to_tensor(GRADS[0])
    opt.step()
    state = opt.state_dict()
    assert state["w_y_0"].shape == [2, 2, 3]
    p2 = Parameter(p.numpy().copy(), name="w")
    opt2 = ASGD(LR, batch_num=2, parameters=[p2])
    opt2.set_state_dict(state)
    for q, o in ((p, opt), (p2, opt2)):
        q.grad = dygraph.to_tensor(GRADS[1])
        o.step()
    np.testing.assert_allclose(p2.numpy(), p.numpy())
