"""Behaviour that matches Paddle 3.3 where DyGraph used to differ (issue 11, section 5):
autograd entry points, hooks, PyLayer, metric shapes. Expected values were read off the
installed Paddle once; the tests need only DyGraph."""

import numpy as np
import pytest

import dygraph as paddle
from dygraph.autograd import PyLayer


def leaf(values):
    return paddle.to_tensor(values, stop_gradient=False)


def test_backward_of_a_tensor_that_stops_gradients_is_a_no_op():
    x = paddle.to_tensor([1.0, 2.0])
    assert (x * 2).sum().backward() is None
    assert x.grad is None
    paddle.autograd.backward([x.sum()])
    assert x.grad is None


def test_grad_with_create_graph_returns_differentiable_results():
    x = leaf([1.0, 2.0])
    (g,) = paddle.grad((x * x).sum(), x, create_graph=True)
    assert g.stop_gradient is False
    (plain,) = paddle.grad((x * x).sum(), x)
    assert plain.stop_gradient is True
    # constant gradients too (Paddle: stop_gradient=False whenever create_graph=True)
    seed = paddle.to_tensor([1.0, 1.0])
    for out, seeds in [((x * 2).sum(), None), (x.sum(), None), (x, seed)]:
        (g,) = paddle.grad(out, x, grad_outputs=seeds, create_graph=True)
        assert g.stop_gradient is False
    assert seed.stop_gradient is True


def test_none_versus_zero_gradients():
    x, unused = leaf([1.0, 2.0]), leaf([1.0, 2.0])
    gx, gu = paddle.grad((x * x).sum(), [x, unused], allow_unused=True)
    assert gx.tolist() == [2.0, 4.0] and gu is None
    # reached through a zero path: zeros; cut off by detach: None
    w, b = leaf([1.0, 2.0]), leaf([1.0])
    ((x * 2).sum() + (w * 0).sum() + (b.detach() * 3).sum()).backward()
    assert w.grad.tolist() == [0.0, 0.0] and b.grad is None
    lin, untouched = paddle.nn.Linear(2, 1), paddle.nn.Linear(2, 1)
    opt = paddle.optimizer.SGD(parameters=lin.parameters())
    for clear, want in [(lin.clear_gradients, 0.0), (lambda: lin.clear_gradients(False), None),
                        (lin.weight.clear_grad, 0.0),
                        (lambda: lin.weight.clear_gradient(False), None),
                        (opt.clear_grad, 0.0), (lambda: opt.clear_grad(set_to_zero=False), None)]:
        lin(paddle.ones([1, 2])).sum().backward()
        clear()
        grad = lin.weight.grad
        assert (grad is None) if want is None else grad.tolist() == [[want], [want]]
    assert untouched.weight.grad is None


def test_a_one_element_grad_tensor_seeds_a_0d_output():
    x = leaf(3.0)
    (x * x).backward(paddle.to_tensor([2.0]))
    assert x.grad.shape == [] and float(x.grad) == 12.0
    (g,) = paddle.grad(x * x, x, grad_outputs=paddle.to_tensor([2.0]))
    assert g.shape == [] and float(g) == 12.0
    (g,) = paddle.grad(x * x, x, grad_outputs=paddle.to_tensor([2.0]), create_graph=True)
    assert float(g) == 12.0 and not g.stop_gradient
    with pytest.raises(ValueError, match="shape"):
        (leaf([1.0, 2.0]) * 2).backward(paddle.to_tensor([[1.0, 1.0]]))


def test_unused_input_of_grad_raises_value_error():
    x, y, z = leaf([1.0]), leaf([2.0]), leaf([3.0])
    with pytest.raises(ValueError, match="The 1-th input .* does not appear in the backward"):
        paddle.grad((x * z).sum(), [x, y, z])


def test_accuracy_is_0d():
    scores = paddle.to_tensor([[0.1, 0.9], [0.8, 0.2]])
    acc = paddle.metric.accuracy(scores, paddle.to_tensor([[1], [1]]))
    assert acc.shape == [] and float(acc) == 0.5


def test_hook_handle_remove_says_whether_it_removed():
    x = leaf([1.0])
    handle = x.register_hook(lambda g: g * 2)
    assert handle.remove() is True
    assert handle.remove() is False
    (x * 1).sum().backward()
    assert x.grad.tolist() == [1.0]


@pytest.mark.parametrize("hook_first, want", [(False, 1.0), (True, 2.0)])
def test_retained_grad_sees_hooks_registered_before_retain_grads(hook_first, want):
    x = leaf([1.0])
    y = x * 3
    if hook_first:
        y.register_hook(lambda g: g * 2)
        y.retain_grads()
    else:
        y.retain_grads()
        y.register_hook(lambda g: g * 2)
    (y * 1).sum().backward()
    assert y.grad.tolist() == [want] and x.grad.tolist() == [6.0]


class _Scale(PyLayer):
    @staticmethod
    def forward(ctx, x, scale=None):
        ctx.save_for_backward(x, scale)
        return x * scale, 5, "tag"

    @staticmethod
    def backward(ctx, g):
        x, scale = ctx.saved_tensor()
        return g * scale, g * x


class _Product(PyLayer):
    @staticmethod
    def forward(ctx, pair, z):
        ctx.save_for_backward(*pair)
        return pair[0] * pair[1] * z

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensor()
        return [g * b, g * a], None


def test_pylayer_tensors_in_keywords_and_lists_and_mixed_outputs():
    x, s = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    out, five, tag = _Scale.apply(x, scale=s)
    assert (five, tag) == (5, "tag") and not out.stop_gradient
    out.sum().backward()
    assert x.grad.tolist() == [3.0, 4.0] and s.grad.tolist() == [1.0, 2.0]
    a, b, z = leaf([2.0]), leaf([5.0]), leaf([1.0])
    _Product.apply([a, b], z).sum().backward()
    assert a.grad.tolist() == [5.0] and b.grad.tolist() == [2.0] and z.grad is None


def test_pylayer_mark_non_differentiable():
    class Split(PyLayer):
        @staticmethod
        def forward(ctx, x):
            a, b = x * 2, x * 3
            ctx.mark_non_differentiable(b)
            return a, b

        @staticmethod
        def backward(ctx, ga, gb):
            assert np.all(gb.numpy() == 0)  # materialized zeros, as Paddle
            return ga * 2

    x = leaf([1.0, 2.0])
    a, b = Split.apply(x)
    assert b.stop_gradient and not a.stop_gradient
    (a.sum() + b.sum()).backward()
    assert x.grad.tolist() == [2.0, 2.0]


@pytest.mark.parametrize("bad", [3.0, np.ones(2, np.float32)])
def test_pylayer_backward_must_return_tensors(bad):
    class Bad(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return bad

    with pytest.raises(ValueError, match="only support Tensor or None"):
        Bad.apply(leaf([1.0, 2.0])).sum().backward()


def test_pylayer_errors_for_wrong_counts_and_no_tensor_output():
    class TooMany(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g, g

    class NoTensor(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return 3

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(ValueError, match="should be 1"):
        TooMany.apply(leaf([1.0])).sum().backward()
    with pytest.raises(ValueError, match="At least one output"):
        NoTensor.apply(leaf([1.0]))


# -- samplers and learning-rate schedulers ----------------------------------------------------
lr = paddle.optimizer.lr


@pytest.mark.parametrize("make, error", [
    (lambda: paddle.io.RandomSampler(range(3), num_samples=5), ValueError),
    (lambda: paddle.io.RandomSampler(range(3), replacement=1), TypeError),
    (lambda: paddle.io.WeightedRandomSampler([1.0, 2.0], 2, replacement=1), ValueError),
    (lambda: paddle.io.BatchSampler(range(3), batch_size=0), AssertionError),
    (lambda: paddle.io.BatchSampler(range(3), shuffle=1), AssertionError),
    (lambda: paddle.io.DistributedBatchSampler(range(3), 0, num_replicas=1, rank=0),
     AssertionError),
    (lambda: lr.OneCycleLR(-0.1, 10), ValueError),
    (lambda: lr.OneCycleLR(0.1, 10, end_learning_rate=-1.0), ValueError),
    (lambda: lr.OneCycleLR(0.1, 10, phase_pct=1), TypeError),
    (lambda: lr.CyclicLR(-0.1, 1.0, 10), ValueError),
    (lambda: lr.CyclicLR(0.1, -1.0, 10), ValueError),
    (lambda: lr.CyclicLR(0.1, 1.0, 2, exp_gamma=1), TypeError),
    (lambda: lr.CyclicLR(0.1, 1.0, 2, scale_mode="x"), ValueError),
    (lambda: lr.PiecewiseDecay([], [0.1]), ValueError),
    (lambda: lr.NaturalExpDecay(0.1, 0.0), AssertionError),
    (lambda: lr.ExponentialDecay(0.1, 1.0), AssertionError),
    (lambda: lr.PolynomialDecay(0.1, 10, power=0.0), AssertionError),
    (lambda: lr.LinearWarmup(0.1, 5, 0.1, 0.1), AssertionError),
    (lambda: lr.StepDecay(0.1, 0), AssertionError),
    (lambda: lr.CosineAnnealingDecay(0.1, 0), AssertionError),
])
def test_argument_checks_raise_paddles_exception_types(make, error):
    with pytest.raises(error):
        make()


def test_asserted_argument_errors_are_also_value_errors():
    # Paddle asserts these; DyGraph's error is both, so either `except` catches it
    with pytest.raises(ValueError, match="step_size"):
        lr.StepDecay(0.1, 0)
    with pytest.raises(TypeError, match="shuffle"):
        paddle.io.BatchSampler(range(3), shuffle=1)


def test_random_sampler_without_replacement_draws_distinct_indices():
    paddle.seed(3)
    drawn = list(paddle.io.RandomSampler(range(5), num_samples=5))
    assert sorted(drawn) == list(range(5))


# -- save / load ------------------------------------------------------------------------------
def test_load_of_a_missing_path_raises_value_error(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        paddle.load(str(tmp_path / "missing.pdparams"))


@pytest.mark.parametrize("protocol, ok", [(2, True), (4, True), (1, False), (5, False),
                                          ("4", False), (4.0, False)])
def test_save_accepts_and_checks_pickle_protocol(tmp_path, protocol, ok):
    path = str(tmp_path / "a.pdparams")
    state = {"w": paddle.to_tensor([1.0, 2.0])}
    with pytest.warns(DeprecationWarning, match="pickle_protocol"):
        if not ok:
            with pytest.raises(ValueError, match="protocol"):
                paddle.save(state, path, pickle_protocol=protocol)
            return
        paddle.save(state, path, pickle_protocol=protocol)
    assert paddle.load(path)["w"].tolist() == [1.0, 2.0]
    paddle.save(state, path, pickle_protocol=None)  # None: not given, as Paddle


def test_name_ndarray_tuples_load_as_named_tensors(tmp_path):
    path = str(tmp_path / "t.pdparams")
    array = np.array([1.0, 2.0], np.float32)
    paddle.save({"a": ("w", array), "b": [("x", np.arange(3))], "keep": ("s", 1)}, path)
    loaded = paddle.load(path)
    assert isinstance(loaded["a"], paddle.Tensor) and loaded["a"].name == "w"
    assert loaded["a"].tolist() == [1.0, 2.0] and loaded["b"][0].tolist() == [0, 1, 2]
    assert loaded["keep"] == ("s", 1)
    as_numpy = paddle.load(path, return_numpy=True)
    assert isinstance(as_numpy["a"], np.ndarray) and as_numpy["a"].tolist() == [1.0, 2.0]
    paddle.save(("w", paddle.to_tensor([3.0])), path)  # a Tensor, not an ndarray: a tuple
    assert isinstance(paddle.load(path, return_numpy=True), tuple)
