"""static.nn.nce: Paddle 2.x's noise-contrastive estimation layer, in static programs and
eagerly. The values were checked against Paddle 3.3's old static mode (FLAGS_enable_pir_api=0,
whose nce kernel still runs; its default mode refuses the layer): with every negative forced
to one class by custom_dist, Paddle's cost for the inputs of _fixed() is _PADDLE_COST."""

import math

import numpy as np
import pytest

import dygraph
from dygraph import static
from dygraph.nn.initializer import Assign
from dygraph.ops.loss import nce as nce_module
from dygraph.utils import unique_name

B, D, C, K = 3, 4, 5, 2
# Paddle 3.3 (old IR) on _fixed(): nce(x, label, 5, sample_weight, num_neg_samples=2,
# sampler='custom_dist', custom_dist=class 3 only), in float64.
_PADDLE_COST = np.array([0.03690932, 0.08181559, 0.18118101])


@pytest.fixture(autouse=True)
def _dynamic_after():
    yield
    dygraph.disable_static()


def _fixed():
    rng = np.random.default_rng(0)
    x, w, b = (rng.uniform(-1, 1, s) for s in ((B, D), (C, D), (C, 1)))
    label = np.array([[0], [2], [4]], np.int64)
    weight = np.array([[1.0], [0.5], [2.0]])
    dist = [0.0, 0.0, 0.0, 1.0, 0.0]
    return x, w, b, label, weight, dist


def _attrs(w, b):
    return dygraph.ParamAttr(initializer=Assign(w)), dygraph.ParamAttr(initializer=Assign(b))


def test_eager_cost_equals_paddle_and_makes_paddles_parameters():
    x, w, b, label, weight, dist = _fixed()
    w_attr, b_attr = _attrs(w, b)
    with unique_name.guard():
        cost = static.nn.nce(dygraph.to_tensor(x), dygraph.to_tensor(label), C,
                             sample_weight=dygraph.to_tensor(weight), param_attr=w_attr,
                             bias_attr=b_attr, num_neg_samples=K, sampler="custom_dist",
                             custom_dist=dist)
    assert cost.shape == [B, 1] and cost.dtype == dygraph.float64
    np.testing.assert_allclose(cost.numpy().ravel(), _PADDLE_COST, rtol=1e-6)
    params = {p.name: p for p in _parameters_of(cost)}
    assert sorted(params) == ["nce_0.b_0", "nce_0.w_0"]
    assert params["nce_0.w_0"].shape == [C, D] and params["nce_0.b_0"].shape == [C, 1]


def _parameters_of(t):
    """The leaves of t's graph that are parameters."""
    found, seen, pending = [], set(), [t._node]
    while pending:
        node = pending.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        for i in getattr(node, "inputs", ()):
            if getattr(i, "persistable", False) or type(i).__name__ == "EagerParamBase":
                found.append(i)
            pending.append(i._node)
    return found


def test_static_program_gives_paddles_cost_and_trains_weight_and_bias():
    x, w, b, label, weight, dist = _fixed()
    dygraph.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), unique_name.guard():
        xs = static.data("x", [None, D], "float64")
        ls = static.data("label", [None, 1], "int64")
        ss = static.data("weight", [None, 1], "float64")
        w_attr, b_attr = _attrs(w, b)
        cost = static.nn.nce(xs, ls, C, sample_weight=ss, param_attr=w_attr,
                             bias_attr=b_attr, num_neg_samples=K, sampler="custom_dist",
                             custom_dist=dist)
        loss = dygraph.mean(cost)
        dygraph.optimizer.SGD(0.5).minimize(loss)
    assert {"nce_0.w_0", "nce_0.b_0"} <= set(main.parameters)
    dygraph.disable_static()
    exe, scope = static.Executor(), static.Scope()
    exe.run(startup, scope=scope)
    feed = {"x": x, "label": label, "weight": weight}
    first = exe.run(main, feed=feed, fetch_list=[cost], scope=scope)[0]
    np.testing.assert_allclose(first.ravel(), _PADDLE_COST, rtol=1e-6)
    w_after = np.asarray(scope.find_var("nce_0.w_0").get_tensor())
    b_after = np.asarray(scope.find_var("nce_0.b_0").get_tensor())
    assert not np.allclose(w_after, w) and not np.allclose(b_after, b)
    losses = [float(exe.run(main, feed=feed, fetch_list=[loss], scope=scope)[0])
              for _ in range(20)]
    assert losses[-1] < losses[0] < float(first.mean())  # SGD steps lower the cost


def _program(**kwargs):
    dygraph.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), unique_name.guard():
        cost = static.nn.nce(static.data("x", [None, D], "float64"),
                             static.data("label", [None, 1], "int64"), 50,
                             param_attr=dygraph.ParamAttr(
                                 initializer=dygraph.nn.initializer.Normal(0, 1)),
                             **kwargs)
    dygraph.disable_static()
    exe = static.Executor()
    exe.run(startup)
    feed = {"x": np.ones((6, D)), "label": np.arange(6).reshape(6, 1)}
    return [exe.run(main, feed=feed, fetch_list=[cost])[0] for _ in range(3)]


def test_a_program_draws_new_negatives_at_each_run_unless_seeded():
    dygraph.seed(3)
    drawn = _program()
    assert not np.allclose(drawn[0], drawn[1])
    fixed = _program(seed=7)
    np.testing.assert_array_equal(fixed[0], fixed[1])
    np.testing.assert_array_equal(fixed[0], fixed[2])


def test_the_global_seed_repeats_the_negatives():
    x, label = dygraph.rand([4, D]), dygraph.to_tensor([[1], [2], [3], [0]])
    with unique_name.guard():
        w = dygraph.ParamAttr(initializer=dygraph.nn.initializer.Normal(0, 1), name="shared")
        dygraph.seed(11)
        one = static.nn.nce(x, label, 9, param_attr=w)
        dygraph.seed(11)
        two = static.nn.nce(x, label, 9, param_attr=w)
    np.testing.assert_array_equal(one.numpy(), two.numpy())


def test_samplers_draw_their_documented_distributions():
    gen = np.random.default_rng(0)
    n = 200_000
    uniform = np.bincount(nce_module._draw(gen, "uniform", 5, (n,), None), minlength=5) / n
    np.testing.assert_allclose(uniform, 0.2, atol=0.005)
    # log-uniform: P(k) = log((k + 2) / (k + 1)) / log(C) on 0..C-2, as Paddle's sampler
    log_uniform = np.bincount(nce_module._draw(gen, "log_uniform", 5, (n,), None),
                              minlength=5) / n
    want = [math.log((k + 2) / (k + 1)) / math.log(5) for k in range(4)] + [0.0]
    np.testing.assert_allclose(log_uniform, want, atol=0.005)
    dist = np.array([0.5, 0.0, 0.25, 0.25, 0.0])
    custom = np.bincount(nce_module._draw(gen, "custom_dist", 5, (n,), dist), minlength=5) / n
    np.testing.assert_allclose(custom, dist, atol=0.005)


def test_no_bias_and_the_default_of_ten_negatives():
    x, label = dygraph.rand([2, 3]), dygraph.to_tensor([[1], [2]])
    with unique_name.guard():
        cost = static.nn.nce(x, label, 7, bias_attr=False)
    params = sorted(p.name for p in _parameters_of(cost))
    assert params == ["nce_0.w_0"]
    assert cost._node.samples.shape == (2, 11)  # one true class and ten negatives


def test_several_true_classes_and_float32():
    x = dygraph.rand([3, 5])
    label = dygraph.to_tensor([[0, 1], [2, 3], [4, 4]])
    cost = static.nn.nce(x, label, 6, num_neg_samples=4, sampler="log_uniform")
    assert cost.shape == [3, 1] and cost.dtype == dygraph.float32
    assert np.isfinite(cost.numpy()).all() and (cost.numpy() > 0).all()


@pytest.mark.parametrize("call, kind, text", [
    (lambda x, lab: static.nn.nce(x, lab, 6, sampler="zipf"), ValueError, "sampler"),
    (lambda x, lab: static.nn.nce(x, lab, 6, sampler="custom_dist"), ValueError,
     "custom_dist"),
    (lambda x, lab: static.nn.nce(x, lab, 6, sampler="custom_dist", custom_dist=[0.5, 0.5]),
     ValueError, "one probability per class"),
    (lambda x, lab: static.nn.nce(x, lab, 6, sampler="custom_dist",
                                  custom_dist=[0.5] * 6), ValueError, "sum to 1"),
    (lambda x, lab: static.nn.nce(x, lab * 3, 6), IndexError, "outside"),
    (lambda x, lab: static.nn.nce(x, lab, 6, num_neg_samples=0), ValueError,
     "num_neg_samples"),
    (lambda x, lab: static.nn.nce(x.reshape([1, 2, 4]), lab, 6), ValueError, "input"),
    (lambda x, lab: static.nn.nce(x, lab.astype("float32"), 6), TypeError, "label"),
], ids=["sampler", "no-dist", "dist-size", "dist-sum", "label-range", "no-negatives",
        "rank", "label-dtype"])
def test_bad_arguments_are_refused_with_the_reason(call, kind, text):
    x, label = dygraph.rand([2, 4]), dygraph.to_tensor([[1], [2]])
    with pytest.raises(kind, match=text) as caught:
        call(x, label)
    assert str(caught.value).startswith("nce: ")
