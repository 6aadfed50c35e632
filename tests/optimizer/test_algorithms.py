"""Each optimizer's first three updates against closed-form NumPy, in float64.

The references below are the published update rules written out step by step; the
optimizers compute the same thing in place with fused temporaries, so the two agree to
rounding.
"""

import numpy as np
import pytest

import dygraph
from dygraph.framework.parameter import Parameter
from dygraph.nn.clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue
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
)
from dygraph.regularizer import L1Decay, L2Decay

RNG = np.random.default_rng(7)
P0 = RNG.normal(size=(2, 3))
GRADS = [RNG.normal(size=(2, 3)) for _ in range(3)]
LR = 0.1


def ref_sgd(p, g, s, t, lr):
    return p - lr * g


def ref_momentum(mu=0.9, nesterov=False):
    def update(p, g, s, t, lr):
        s["v"] = mu * s.get("v", 0.0) + g
        return p - lr * (g + mu * s["v"]) if nesterov else p - lr * s["v"]
    return update


def ref_adam(b1=0.9, b2=0.999, eps=1e-8, amsgrad=False):
    def update(p, g, s, t, lr):
        s["m"] = b1 * s.get("m", 0.0) + (1 - b1) * g
        s["v"] = b2 * s.get("v", 0.0) + (1 - b2) * g * g
        v = s["v"]
        if amsgrad:
            s["vmax"] = v = np.maximum(s.get("vmax", 0.0), v)
        lr_t = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        return p - lr_t * s["m"] / (np.sqrt(v) + eps * np.sqrt(1 - b2 ** t))
    return update


def ref_adamw(coeff, **kw):
    adam = ref_adam(**kw)

    def update(p, g, s, t, lr):
        return adam(p * (1 - lr * coeff), g, s, t, lr)
    return update


def ref_adamax(b1=0.9, b2=0.999, eps=1e-8):
    def update(p, g, s, t, lr):
        s["m"] = b1 * s.get("m", 0.0) + (1 - b1) * g
        s["u"] = np.maximum(b2 * s.get("u", 0.0) + eps, np.abs(g))
        return p - lr / (1 - b1 ** t) * s["m"] / s["u"]
    return update


def ref_adagrad(eps=1e-6, init=0.0):
    def update(p, g, s, t, lr):
        s["G"] = s.get("G", init) + g * g
        return p - lr * g / (np.sqrt(s["G"]) + eps)
    return update


def ref_adadelta(rho=0.95, eps=1e-6):
    def update(p, g, s, t, lr):
        s["Eg"] = rho * s.get("Eg", 0.0) + (1 - rho) * g * g
        dx = -np.sqrt((s.get("Edx", 0.0) + eps) / (s["Eg"] + eps)) * g
        s["Edx"] = rho * s.get("Edx", 0.0) + (1 - rho) * dx * dx
        return p + lr * dx
    return update


def ref_rmsprop(rho=0.95, eps=1e-6, momentum=0.0, centered=False):
    def update(p, g, s, t, lr):
        s["ms"] = rho * s.get("ms", 0.0) + (1 - rho) * g * g
        denom = s["ms"] + eps
        if centered:
            s["mg"] = rho * s.get("mg", 0.0) + (1 - rho) * g
            denom = denom - s["mg"] ** 2
        s["mom"] = momentum * s.get("mom", 0.0) + lr * g / np.sqrt(denom)
        return p - s["mom"]
    return update


def ref_lamb(wd=0.01, b1=0.9, b2=0.999, eps=1e-6, adapt=True):
    def update(p, g, s, t, lr):
        s["m"] = b1 * s.get("m", 0.0) + (1 - b1) * g
        s["v"] = b2 * s.get("v", 0.0) + (1 - b2) * g * g
        r = (s["m"] / (1 - b1 ** t)) / (np.sqrt(s["v"] / (1 - b2 ** t)) + eps) + wd * p
        ratio = np.linalg.norm(p) / np.linalg.norm(r) if adapt else 1.0
        return p - lr * ratio * r
    return update


CASES = {
    "sgd": (lambda ps: SGD(LR, parameters=ps), ref_sgd),
    "momentum": (lambda ps: Momentum(LR, parameters=ps), ref_momentum()),
    "nesterov": (lambda ps: Momentum(LR, 0.8, parameters=ps, use_nesterov=True),
                 ref_momentum(0.8, True)),
    "adam": (lambda ps: Adam(LR, parameters=ps), ref_adam()),
    "adam-betas": (lambda ps: Adam(LR, beta1=0.5, beta2=0.7, epsilon=0.1, parameters=ps),
                   ref_adam(0.5, 0.7, 0.1)),
    "amsgrad": (lambda ps: Adam(LR, beta2=0.5, parameters=ps, amsgrad=True),
                ref_adam(b2=0.5, amsgrad=True)),
    "adamw": (lambda ps: AdamW(LR, parameters=ps), ref_adamw(0.01)),
    "adamw-0.3": (lambda ps: AdamW(LR, parameters=ps, weight_decay=0.3), ref_adamw(0.3)),
    "adamax": (lambda ps: Adamax(LR, parameters=ps), ref_adamax()),
    "adagrad": (lambda ps: Adagrad(LR, parameters=ps, initial_accumulator_value=0.5),
                ref_adagrad(init=0.5)),
    "adadelta": (lambda ps: Adadelta(LR, parameters=ps), ref_adadelta()),
    "rmsprop": (lambda ps: RMSProp(LR, parameters=ps), ref_rmsprop()),
    "rmsprop-centered": (lambda ps: RMSProp(LR, rho=0.9, momentum=0.5, centered=True,
                                            parameters=ps),
                         ref_rmsprop(0.9, momentum=0.5, centered=True)),
    "lamb": (lambda ps: Lamb(LR, parameters=ps), ref_lamb()),
    "lamb-excluded": (lambda ps: Lamb(LR, lamb_weight_decay=0.1, parameters=ps,
                                      exclude_from_weight_decay_fn=lambda p: True),
                      ref_lamb(wd=0.0, adapt=False)),
}


def run_optimizer(make, grads=GRADS, p0=P0, **param_kw):
    p = Parameter(p0.copy(), name="w", **param_kw)
    opt = make([p])
    out = []
    for g in grads:
        p.grad = dygraph.to_tensor(g)
        opt.step()
        out.append(p.numpy().copy())
    return out


def run_reference(update, grads=GRADS, p0=P0, lr=LR, prepare=lambda p, g: g):
    p, state, out = p0.copy(), {}, []
    for t, g in enumerate(grads, 1):
        p = update(p, prepare(p, g), state, t, lr)
        out.append(p)
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_first_three_updates(name):
    make, update = CASES[name]
    np.testing.assert_allclose(run_optimizer(make), run_reference(update), rtol=1e-10,
                               atol=1e-12)


@pytest.mark.parametrize("decay, term", [
    (0.05, lambda p: 0.05 * p),
    (L2Decay(0.2), lambda p: 0.2 * p),
    (L1Decay(0.3), lambda p: 0.3 * np.sign(p)),
])
@pytest.mark.parametrize("name", ["sgd", "momentum", "adam", "rmsprop"])
def test_weight_decay_is_added_to_the_gradient(name, decay, term):
    cls = {"sgd": SGD, "momentum": Momentum, "adam": Adam, "rmsprop": RMSProp}[name]
    got = run_optimizer(lambda ps: cls(LR, parameters=ps, weight_decay=decay))
    want = run_reference(CASES[name][1], prepare=lambda p, g: g + term(p))
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_parameter_regularizer_overrides_the_optimizer_one():
    got = run_optimizer(lambda ps: SGD(LR, parameters=ps, weight_decay=L2Decay(5.0)),
                        regularizer=L1Decay(0.3))
    want = run_reference(ref_sgd, prepare=lambda p, g: g + 0.3 * np.sign(p))
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_per_parameter_learning_rate_multiplier():
    got = run_optimizer(lambda ps: Adam(LR, parameters=ps), learning_rate=0.25)
    np.testing.assert_allclose(got, run_reference(ref_adam(), lr=LR * 0.25), rtol=1e-10)


def _clip_value(p, g):
    return np.clip(g, -0.5, 0.5)


def _clip_norm(p, g):
    return g * min(1.0, 0.7 / np.linalg.norm(g))


@pytest.mark.parametrize("clip, prepare", [
    (ClipGradByValue(0.5), _clip_value),
    (ClipGradByNorm(0.7), _clip_norm),
    (ClipGradByGlobalNorm(0.7), _clip_norm),  # one parameter: global norm = its norm
])
def test_grad_clip_then_weight_decay(clip, prepare):
    got = run_optimizer(lambda ps: Momentum(LR, parameters=ps, grad_clip=clip,
                                            weight_decay=0.1))
    want = run_reference(ref_momentum(), prepare=lambda p, g: prepare(p, g) + 0.1 * p)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_need_clip_false_is_not_clipped():
    got = run_optimizer(lambda ps: SGD(LR, parameters=ps, grad_clip=ClipGradByValue(0.01)),
                        need_clip=False)
    np.testing.assert_allclose(got, run_reference(ref_sgd), rtol=1e-12)


def test_parameter_groups_have_their_own_options():
    a = Parameter(P0.copy(), name="a")
    b = Parameter(P0.copy(), name="b")
    opt = Adam(LR, parameters=[
        {"params": [a]},
        {"params": [b], "learning_rate": 0.5, "weight_decay": 0.2, "beta1": 0.6},
    ])
    got_a, got_b = [], []
    for g in GRADS:
        a.grad = dygraph.to_tensor(g)
        b.grad = dygraph.to_tensor(g)
        opt.step()
        got_a.append(a.numpy().copy())
        got_b.append(b.numpy().copy())
    np.testing.assert_allclose(got_a, run_reference(ref_adam()), rtol=1e-10)
    want_b = run_reference(ref_adam(b1=0.6), lr=LR * 0.5, prepare=lambda p, g: g + 0.2 * p)
    np.testing.assert_allclose(got_b, want_b, rtol=1e-10)


def test_global_norm_spans_the_parameters_of_a_group():
    a = Parameter(np.zeros(2), name="a")
    b = Parameter(np.zeros(2), name="b")
    opt = SGD(1.0, parameters=[a, b], grad_clip=ClipGradByGlobalNorm(1.0))
    a.grad = dygraph.to_tensor(np.array([3.0, 0.0]))
    b.grad = dygraph.to_tensor(np.array([0.0, 4.0]))
    opt.step()
    np.testing.assert_allclose(a.numpy(), [-0.6, 0.0])
    np.testing.assert_allclose(b.numpy(), [0.0, -0.8])


def test_adamw_apply_decay_param_fun_and_lr_ratio():
    got = run_optimizer(lambda ps: AdamW(LR, parameters=ps, weight_decay=0.3,
                                         apply_decay_param_fun=lambda n: n != "w"))
    np.testing.assert_allclose(got, run_reference(ref_adam()), rtol=1e-10)
    got = run_optimizer(lambda ps: AdamW(LR, parameters=ps, weight_decay=0.3,
                                         lr_ratio=lambda p: 0.5))
    np.testing.assert_allclose(got, run_reference(ref_adamw(0.3), lr=LR * 0.5), rtol=1e-10)


def test_float32_update_keeps_dtype_and_matches():
    got = run_optimizer(lambda ps: Adam(LR, parameters=ps), p0=P0.astype(np.float32),
                        grads=[g.astype(np.float32) for g in GRADS])
    assert got[-1].dtype == np.float32
    # beta**t is kept in the parameter's dtype, as Paddle does: float32 1 - 0.999 is off by
    # 1.3e-5 relative, which moves each step by up to ~1e-6.
    np.testing.assert_allclose(got, run_reference(ref_adam()), rtol=1e-5, atol=5e-6)


def test_multi_precision_updates_float16_through_a_float32_copy():
    p = Parameter(P0.astype(np.float16), name="h")
    opt = Adam(LR, parameters=[p], multi_precision=True)
    for g in GRADS:
        p.grad = dygraph.to_tensor(g.astype(np.float16))
        opt.step()
    master = opt.state_dict()["master_weights"]["h"].numpy()
    assert master.dtype == np.float32 and p.numpy().dtype == np.float16
    np.testing.assert_array_equal(p.numpy(), master.astype(np.float16))
    want = run_reference(ref_adam(), p0=P0.astype(np.float16).astype(np.float64),
                         grads=[g.astype(np.float16).astype(np.float64) for g in GRADS])
    np.testing.assert_allclose(master, want[-1], rtol=1e-5, atol=5e-6)  # float32 beta**t


def test_float16_parameters_use_float32_accumulators():
    p = Parameter(P0.astype(np.float16), name="h")
    opt = Adam(LR, parameters=[p], weight_decay=0.1)
    for g in GRADS:
        p.grad = dygraph.to_tensor(g.astype(np.float16))
        opt.step()
    state = opt.state_dict()
    assert p.numpy().dtype == np.float16 and "master_weights" not in state
    assert state["h_moment1_0"].numpy().dtype == np.float32
    want = run_reference(ref_adam(), p0=P0.astype(np.float16).astype(np.float64),
                         grads=[g.astype(np.float16).astype(np.float64) for g in GRADS],
                         prepare=lambda p, g: g + 0.1 * p)
    np.testing.assert_allclose(p.numpy(), want[-1], rtol=2e-3, atol=2e-3)  # float16 weights
