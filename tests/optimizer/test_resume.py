"""Resume: N steps in one go equal k steps, save, load into fresh objects, N - k steps,
bit for bit (parameters, optimizer accumulators and LR scheduler)."""

import numpy as np

import dygraph
from dygraph.framework.parameter import Parameter
from dygraph.nn.clip import ClipGradByGlobalNorm
from dygraph.optimizer import Adam, lr

N_STEPS, K_STEPS = 7, 3
INIT = np.random.default_rng(11)
SHAPES = {"fc1.w": (4, 8), "fc1.b": (8,), "fc2.w": (8, 1), "fc2.b": (1,)}
INITIAL = {k: INIT.normal(scale=0.5, size=s).astype(np.float32) for k, s in SHAPES.items()}


def make_model(values=None):
    values = values or {k: np.zeros(s, np.float32) for k, s in SHAPES.items()}
    return {k: Parameter(v.copy(), name=k) for k, v in values.items()}


def make_optimizer(params):
    sched = lr.LinearWarmup(lr.CosineAnnealingDecay(0.05, T_max=5), warmup_steps=2,
                            start_lr=0.0, end_lr=0.05)
    opt = Adam(sched, parameters=list(params.values()), weight_decay=1e-3,
               grad_clip=ClipGradByGlobalNorm(1.0))
    return opt, sched


def batch(step):
    rng = np.random.default_rng(100 + step)  # the data depends only on the step
    x = rng.normal(size=(16, 4)).astype(np.float32)
    return x, np.sin(x.sum(axis=1, keepdims=True)).astype(np.float32)


def train(params, opt, sched, steps):
    for step in steps:
        x, y = (dygraph.to_tensor(a) for a in batch(step))
        h = dygraph.tanh(dygraph.matmul(x, params["fc1.w"]) + params["fc1.b"])
        out = dygraph.matmul(h, params["fc2.w"]) + params["fc2.b"]
        loss = ((out - y) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        sched.step()


def test_resume_is_bit_identical(tmp_path):
    straight = make_model(INITIAL)
    straight_opt, straight_sched = make_optimizer(straight)
    train(straight, straight_opt, straight_sched, range(N_STEPS))

    first = make_model(INITIAL)
    opt, sched = make_optimizer(first)
    train(first, opt, sched, range(K_STEPS))
    dygraph.save(first, str(tmp_path / "model.pdparams"))
    dygraph.save(opt.state_dict(), str(tmp_path / "model.pdopt"))
    del first, opt, sched

    resumed = make_model()  # fresh objects, zero weights until the load
    opt, sched = make_optimizer(resumed)
    for name, value in dygraph.load(str(tmp_path / "model.pdparams")).items():
        resumed[name].set_value(value)
    opt.set_state_dict(dygraph.load(str(tmp_path / "model.pdopt")))
    assert sched.last_epoch == K_STEPS
    train(resumed, opt, sched, range(K_STEPS, N_STEPS))

    for name in SHAPES:
        np.testing.assert_array_equal(resumed[name].numpy(), straight[name].numpy())
    assert sched.state_dict() == straight_sched.state_dict()
    final, reference = opt.state_dict(), straight_opt.state_dict()
    assert sorted(final) == sorted(reference)
    for key, value in final.items():
        if key != "LR_Scheduler":
            np.testing.assert_array_equal(value.numpy(), reference[key].numpy())


def test_resume_differs_without_the_optimizer_state(tmp_path):
    """The check above can fail: dropping the Adam state changes the result."""
    straight = make_model(INITIAL)
    opt, sched = make_optimizer(straight)
    train(straight, opt, sched, range(N_STEPS))
    partial = make_model(INITIAL)
    opt, sched = make_optimizer(partial)
    train(partial, opt, sched, range(K_STEPS))
    opt, _ = make_optimizer(partial)
    opt.set_state_dict({"LR_Scheduler": sched.state_dict()})
    train(partial, opt, opt._learning_rate, range(K_STEPS, N_STEPS))
    assert not np.array_equal(partial["fc1.w"].numpy(), straight["fc1.w"].numpy())
