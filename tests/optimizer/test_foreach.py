"""The multi-tensor (foreach) optimizer step against the per-parameter path: bit-identical
parameters and state, resume through state_dict, groups, skipped parameters, fallbacks."""

import copy

import numpy as np
import pytest

import dygraph
from dygraph.framework.parameter import Parameter
from dygraph.nn.clip import ClipGradByGlobalNorm
from dygraph.optimizer import SGD, Adam, AdamW, Momentum
from dygraph.regularizer import L1Decay, L2Decay, WeightDecayRegularizer

SHAPES = {"w1": (6, 8), "b1": (8,), "w2": (8, 8), "b2": (8,), "w3": (8, 3), "b3": (3,)}


def make_params(dtype=np.float32, values=None):
    rng = np.random.default_rng(3)
    if values is None:
        values = {k: rng.normal(scale=0.5, size=s) for k, s in SHAPES.items()}
    return {k: Parameter(np.asarray(v, dtype).copy(), name=k) for k, v in values.items()}


def loss_of(params, step, skip=()):
    """An MLP loss; layers in `skip` (only 2: it maps 8 to 8) are left out, so their
    parameters get no gradient that step."""
    rng = np.random.default_rng(100 + step)
    dtype = params["w1"]._data.dtype
    h = dygraph.to_tensor(rng.normal(size=(5, 6)).astype(dtype))
    for i in (1, 2, 3):
        if i in skip:
            continue
        h = dygraph.matmul(h, params[f"w{i}"]) + params[f"b{i}"]
        if i < 3:
            h = dygraph.tanh(h)
    return (h * h).mean()


def train(params, opt, steps, skips=None):
    for step in steps:
        loss_of(params, step, (skips or {}).get(step, ())).backward()
        opt.step()
        opt.clear_grad(set_to_zero=False)


def per_parameter(opt):
    opt._foreach_step = lambda group, pairs, *rest: pairs  # force the per-parameter loop
    return opt


def fused_in_use(opt):
    return bool(getattr(opt, "_foreach_flat", None))


def assert_same(pa, pb, oa, ob):
    for k in pa:
        np.testing.assert_array_equal(pa[k].numpy(), pb[k].numpy(), err_msg=k)
    sa, sb = oa.state_dict(), ob.state_dict()
    assert sorted(sa) == sorted(sb)
    for k in sa:
        np.testing.assert_array_equal(sa[k].numpy(), sb[k].numpy(), err_msg=k)


OPTIMIZERS = {
    "adam": lambda ps: Adam(0.01, parameters=ps),
    "adam_clip": lambda ps: Adam(0.01, parameters=ps, grad_clip=ClipGradByGlobalNorm(0.1)),
    "adamw": lambda ps: AdamW(0.01, parameters=ps, weight_decay=0.1),
    "adamw_some": lambda ps: AdamW(0.01, parameters=ps, weight_decay=0.1,
                                   apply_decay_param_fun=lambda n: n.startswith("w")),
    "adam_l2": lambda ps: Adam(0.01, parameters=ps, weight_decay=0.05),
    "momentum_l1": lambda ps: Momentum(0.1, parameters=ps, weight_decay=L1Decay(0.01)),
    "momentum": lambda ps: Momentum(0.1, momentum=0.9, parameters=ps),
    "nesterov": lambda ps: Momentum(0.1, momentum=0.9, parameters=ps, use_nesterov=True,
                                    rescale_grad=0.5),
    "momentum_l2": lambda ps: Momentum(0.1, momentum=0.9, parameters=ps, rescale_grad=0.5,
                                       weight_decay=L2Decay(0.01)),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_foreach_matches_per_parameter_bit_for_bit(name, dtype):
    pa, pb = make_params(dtype), make_params(dtype)
    oa = OPTIMIZERS[name](list(pa.values()))
    ob = per_parameter(OPTIMIZERS[name](list(pb.values())))
    train(pa, oa, range(6))
    train(pb, ob, range(6))
    assert fused_in_use(oa) and not fused_in_use(ob)
    assert_same(pa, pb, oa, ob)


def test_foreach_accumulators_are_views_of_flat_buffers():
    params = make_params()
    opt = Adam(0.01, parameters=list(params.values()))
    train(params, opt, range(2))
    (flat,) = opt._foreach_flat.values()
    for name in ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc"):
        assert all(opt._acc[id(p)][name].base is flat.acc[name] for p in params.values())
    state = opt.state_dict()
    assert state["w1_moment1_0"].shape == [6, 8]
    assert state["b3_beta1_pow_acc_0"].shape == [1]
    np.testing.assert_allclose(state["b3_beta1_pow_acc_0"].numpy(), [0.9 ** 3], rtol=1e-6)


@pytest.mark.parametrize("name", ["adam", "adamw_some", "momentum"])
def test_foreach_resume_through_save_and_load_is_bit_identical(name, tmp_path):
    whole = make_params()
    opt = OPTIMIZERS[name](list(whole.values()))
    train(whole, opt, range(7))

    first = make_params()
    opt1 = OPTIMIZERS[name](list(first.values()))
    train(first, opt1, range(3))
    dygraph.save(opt1.state_dict(), str(tmp_path / "opt.pdopt"))
    values = {k: p.numpy().copy() for k, p in first.items()}
    train(first, opt1, range(3, 7))  # the saved file must not follow later steps

    resumed = make_params(values=values)
    opt2 = OPTIMIZERS[name](list(resumed.values()))
    opt2.set_state_dict(dygraph.load(str(tmp_path / "opt.pdopt")))
    train(resumed, opt2, range(3, 7))
    assert fused_in_use(opt2)
    assert_same(whole, resumed, opt, opt2)
    assert_same(whole, first, opt, opt1)


def test_foreach_set_state_dict_on_the_live_optimizer():
    pa, pb = make_params(), make_params()
    oa = Adam(0.01, parameters=list(pa.values()))
    ob = per_parameter(Adam(0.01, parameters=list(pb.values())))
    for params, opt in ((pa, oa), (pb, ob)):
        train(params, opt, range(3))
        saved = {k: v.numpy().copy() for k, v in opt.state_dict().items()}
        train(params, opt, range(3, 5))
        opt.set_state_dict(saved)  # back to step 3's moments, the parameters are not
        train(params, opt, range(5, 8))
    assert fused_in_use(oa)
    assert_same(pa, pb, oa, ob)


def test_foreach_copied_optimizer_matches_per_parameter():
    params = make_params()
    opt = Adam(0.01, parameters=list(params.values()))
    train(params, opt, range(2))
    shared = {id(p): p for p in params.values()}  # copy the optimizer, not the parameters
    copied = copy.deepcopy(opt, dict(shared))
    reference = per_parameter(copy.deepcopy(opt, dict(shared)))
    start = {k: p.numpy().copy() for k, p in params.items()}
    results = []
    for run in (copied, reference):
        for k, p in params.items():
            p._data[...] = start[k]
        train(params, run, range(2, 5))
        results.append(({k: p.numpy().copy() for k, p in params.items()},
                        {k: v.numpy().copy() for k, v in run.state_dict().items()}))
    assert fused_in_use(copied)
    for got, want in zip(*results):
        assert sorted(got) == sorted(want)
        for k in got:
            np.testing.assert_array_equal(got[k], want[k], err_msg=k)


def test_foreach_parameter_groups():
    def make(params):
        ps = list(params.values())
        return Adam(0.01, parameters=[
            {"params": ps[:2], "learning_rate": 0.5, "beta1": 0.8},
            {"params": ps[2:4]},
            {"params": ps[4:], "weight_decay": 0.01},
        ])

    pa, pb = make_params(), make_params()
    oa, ob = make(pa), per_parameter(make(pb))
    train(pa, oa, range(5))
    train(pb, ob, range(5))
    assert len(oa._foreach_flat) == 3
    assert_same(pa, pb, oa, ob)


@pytest.mark.parametrize("name", ["adam", "adamw", "momentum"])
def test_foreach_parameter_without_gradient_is_skipped(name):
    # Step 2 leaves layer 2 out: w2/b2 get no gradient, so they are not updated and
    # their beta powers stay behind; the group then needs the per-parameter path.
    skips = {2: (2,), 4: (2,)}
    pa, pb = make_params(), make_params()
    oa = OPTIMIZERS[name](list(pa.values()))
    ob = per_parameter(OPTIMIZERS[name](list(pb.values())))
    train(pa, oa, range(2), skips)
    before = pa["b2"].numpy().copy()
    train(pa, oa, [2], skips)
    np.testing.assert_array_equal(pa["b2"].numpy(), before)
    train(pa, oa, range(3, 7), skips)
    train(pb, ob, range(7), skips)
    assert_same(pa, pb, oa, ob)


def test_foreach_falls_back_for_per_parameter_twists():
    def make(params):
        params["w2"].regularizer = L2Decay(0.1)
        params["b3"].optimize_attr["learning_rate"] = 2.0
        return Adam(0.01, parameters=list(params.values()))

    pa, pb = make_params(), make_params()
    oa, ob = make(pa), per_parameter(make(pb))
    train(pa, oa, range(4))
    train(pb, ob, range(4))
    assert not fused_in_use(oa)
    assert_same(pa, pb, oa, ob)


@pytest.mark.parametrize("make, dtype", [
    (lambda ps: Adam(0.01, parameters=ps, amsgrad=True), np.float32),
    (lambda ps: AdamW(0.01, parameters=ps, lr_ratio=lambda p: 0.5), np.float32),
    (lambda ps: Momentum(0.01, parameters=ps, multi_precision=True), np.float16),
    (lambda ps: Adam(0.01, parameters=ps), np.float16),
])
def test_foreach_not_used_for_unsupported_options(make, dtype):
    params = make_params(dtype)
    opt = make(list(params.values()))
    before = params["w1"].numpy().copy()
    train(params, opt, range(2))
    assert not fused_in_use(opt)
    assert not np.array_equal(params["w1"].numpy(), before)


def test_foreach_leaves_large_parameters_to_the_per_parameter_loop():
    def run(foreach):
        rng = np.random.default_rng(5)
        big = Parameter(rng.normal(size=(200, 200)).astype(np.float32), name="big")
        small = [Parameter(rng.normal(size=(200,)).astype(np.float32), name=f"s{i}")
                 for i in range(3)]
        opt = Adam(0.01, parameters=[small[0], big, *small[1:]], weight_decay=0.01)
        if not foreach:
            per_parameter(opt)
        for _ in range(3):
            loss = (dygraph.matmul(big, small[0]) * small[1] + small[2]).sum()
            loss.backward()
            opt.step()
            opt.clear_grad()
        return [big, *small], opt

    pa, oa = run(True)
    pb, ob = run(False)
    (flat,) = oa._foreach_flat.values()
    assert [p.name for p in flat.params] == ["s0", "s1", "s2"]
    assert oa._acc[id(pa[0])]["moment1"].base is None
    assert_same(dict(enumerate(pa)), dict(enumerate(pb)), oa, ob)


def test_foreach_not_used_for_a_user_defined_regularizer():
    class Shrink(WeightDecayRegularizer):
        def decay_term(self, param_data, xp):
            return param_data * 0.0 + 1.0

    params = make_params()
    opt = Momentum(0.1, momentum=0.0, parameters=list(params.values()), weight_decay=Shrink())
    w1 = params["w1"].numpy().copy()
    loss_of(params, 0).backward()
    grad = params["w1"].grad.numpy().copy()
    opt.step()
    assert not fused_in_use(opt)
    np.testing.assert_allclose(params["w1"].numpy(), w1 - 0.1 * (grad + 1.0), rtol=1e-6)


def test_foreach_not_used_when_a_subclass_changes_the_update():
    class HalfSGD(Adam):
        def _update(self, param, data, grad, lr, group, acc):
            data -= grad * (lr / 2)

    a = Parameter(np.ones(3, np.float32), name="a")
    b = Parameter(np.ones(2, np.float32), name="b")
    opt = HalfSGD(0.5, parameters=[a, b])
    (a.sum() + b.sum()).backward()
    opt.step()
    assert not fused_in_use(opt)
    np.testing.assert_array_equal(a.numpy(), [0.75] * 3)


def test_foreach_not_used_by_sgd():
    # Its per-parameter update is two NumPy calls: gathering would not pay (measured).
    params = make_params()
    opt = SGD(0.1, parameters=list(params.values()))
    train(params, opt, range(2))
    assert not fused_in_use(opt)


def test_foreach_mixed_dtypes_use_the_per_parameter_path():
    a = Parameter(np.ones(3, np.float32), name="a")
    b = Parameter(np.ones(2, np.float64), name="b")
    opt = Momentum(0.5, momentum=0.0, parameters=[a, b])
    (a.sum() + 2 * b.sum()).backward()
    opt.step()
    assert not fused_in_use(opt)
    np.testing.assert_array_equal(a.numpy(), [0.5] * 3)
    np.testing.assert_array_equal(b.numpy(), [0.0] * 2)


def test_foreach_bumps_parameter_versions():
    params = make_params()
    opt = Momentum(0.1, parameters=list(params.values()))
    versions = [p._version[0] for p in params.values()]
    train(params, opt, range(2))
    assert fused_in_use(opt)
    assert [p._version[0] for p in params.values()] == [v + 2 for v in versions]


def test_adam_updates_a_big_parameter_by_blocks_as_a_whole(monkeypatch):
    # Parameters from 1M elements are updated 64k elements at a time (adam._BLOCK), which
    # must give exactly the update of the whole array at once.
    from dygraph.optimizer import adam

    size = 16 * adam._BLOCK + 123  # a partial last block
    rng = np.random.default_rng(0)
    start = rng.standard_normal(size).astype(np.float32)
    grads = [rng.standard_normal(size).astype(np.float32) for _ in range(3)]

    def run():
        p = Parameter(start.copy(), name="big")
        opt = Adam(learning_rate=0.01, parameters=[p])
        for g in grads:
            p.grad = dygraph.to_tensor(g)
            opt.step()
        moments = opt.state_dict()
        return p.numpy(), [np.asarray(v) for k, v in sorted(moments.items())
                           if "moment" in k]

    blocked = run()
    monkeypatch.setattr(adam, "_BLOCK", 2 * size)  # one block: the whole array
    whole = run()
    np.testing.assert_array_equal(blocked[0], whole[0])
    assert len(blocked[1]) == 2
    for a, b in zip(blocked[1], whole[1]):
        np.testing.assert_array_equal(a, b)
