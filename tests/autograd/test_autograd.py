"""Autograd semantics: accumulation, graph freeing, grad modes, higher order, hooks,
PyLayer, in-place detection and deep graphs."""

import numpy as np
import pytest

import dygraph as paddle
from dygraph.autograd import PyLayer, gradcheck


def leaf(values, dtype="float32"):
    return paddle.to_tensor(values, dtype=dtype, stop_gradient=False)


def test_gradients_accumulate_until_cleared():
    x = leaf([1.0, 2.0])
    (x * x).sum().backward()
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [4, 8])
    x.clear_grad()
    np.testing.assert_allclose(x.grad.numpy(), [0, 0])
    x.clear_gradient(set_to_zero=False)
    assert x.grad is None and x.gradient() is None


def test_result_requires_grad_exactly_when_an_input_does():
    a, b = leaf([1.0]), paddle.to_tensor([2.0])
    assert not (a * b).stop_gradient
    assert (b * b).stop_gradient
    assert (a > 0).stop_gradient  # bool results never carry gradients


def test_second_backward_without_retain_graph_says_how_to_fix():
    x = leaf([1.0])
    y = paddle.tanh(x)
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * (1 - np.tanh(1.0) ** 2), rtol=1e-6)
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        y.backward()


def test_backward_on_a_non_scalar_uses_ones_and_accepts_a_seed():
    x = leaf([1.0, 2.0])
    (x * 3).backward()
    np.testing.assert_allclose(x.grad.numpy(), [3, 3])
    x.clear_grad()
    (x * 3).backward(paddle.to_tensor([1.0, 2.0]))
    np.testing.assert_allclose(x.grad.numpy(), [3, 6])


def test_no_grad_forms():
    x = leaf([1.0])
    with paddle.no_grad():
        assert (x * 2).stop_gradient and not paddle.is_grad_enabled()
        with paddle.enable_grad():
            assert not (x * 2).stop_gradient
    assert paddle.is_grad_enabled()

    @paddle.no_grad()
    def f(t):
        return t * 2

    @paddle.no_grad
    def g(t):
        return t * 2

    assert f(x).stop_gradient and g(x).stop_gradient
    with paddle.set_grad_enabled(False):
        assert (x * 2).stop_gradient
    assert paddle.is_grad_enabled()


def test_third_derivative_of_tanh():
    x = leaf([0.3, -0.8], "float64")
    (g1,) = paddle.grad(paddle.tanh(x), x, create_graph=True)
    (g2,) = paddle.grad(g1, x, create_graph=True)
    (g3,) = paddle.grad(g2, x)
    t = np.tanh(x.numpy())
    np.testing.assert_allclose(g1.numpy(), 1 - t ** 2)
    np.testing.assert_allclose(g2.numpy(), -2 * t * (1 - t ** 2))
    np.testing.assert_allclose(g3.numpy(), -2 * (1 - t ** 2) ** 2 + 4 * t ** 2 * (1 - t ** 2))


def test_hessian_vector_product():
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    x = leaf([0.5, -1.0], "float64")
    v = paddle.to_tensor([1.0, 2.0], dtype="float64")
    f = (paddle.matmul(x, paddle.to_tensor(a)) * x).sum() + (x ** 3).sum()
    (g,) = paddle.grad(f, x, create_graph=True)
    (hv,) = paddle.grad((g * v).sum(), x)
    hessian = 2 * a + np.diag(6 * x.numpy())
    np.testing.assert_allclose(hv.numpy(), hessian @ v.numpy())


def test_gradient_penalty_is_trained_through():
    """WGAN-GP style: the loss contains the norm of an input gradient; training on it must
    move the weights in the direction its own gradient gives."""
    paddle.seed(0)
    w = leaf(np.random.default_rng(0).standard_normal((3, 1)), "float64")
    x = leaf(np.random.default_rng(1).standard_normal((5, 3)), "float64")
    losses = []
    for _ in range(30):
        out = paddle.tanh(paddle.matmul(x, w)).sum()
        (gx,) = paddle.grad(out, x, create_graph=True)
        penalty = ((gx * gx).sum(axis=1).sqrt() - 1.0) ** 2
        loss = penalty.mean()
        losses.append(loss.item())
        (gw,) = paddle.grad(loss, w)
        with paddle.no_grad():
            w.set_value(w - 0.1 * gw)
    assert losses[-1] < 0.5 * losses[0]
    # and the gradient through the penalty is right
    assert gradcheck(lambda w_: ((paddle.grad(paddle.tanh(paddle.matmul(x, w_)).sum(), x,
                                              create_graph=True)[0] ** 2).sum()), [w])


def test_grad_does_not_touch_dot_grad_and_handles_unused():
    x, y = leaf([1.0]), leaf([2.0])
    (gx,) = paddle.grad(x * 3, x)
    assert x.grad is None and gx.tolist() == [3]
    with pytest.raises(ValueError, match="allow_unused"):
        paddle.grad(x * 3, [x, y])
    gx, gy = paddle.grad(x * 3, [x, y], allow_unused=True)
    assert gy is None


def test_grad_wrt_intermediate_and_no_grad_vars():
    x = leaf([2.0])
    h = x * x
    y = h * 3
    (gh,) = paddle.grad(y, h, retain_graph=True)
    assert gh.tolist() == [3]
    z = h * x  # dz/dx = h + x * dh/dx; with h held constant only h
    (gx,) = paddle.grad(z, x, no_grad_vars=[h])
    assert gx.tolist() == [4]


def test_hooks_on_leaves_and_intermediates():
    x = leaf([1.0, 2.0])
    seen = []
    handle = x.register_hook(lambda g: g * 10)
    h = x * 2
    h.register_hook(lambda g: seen.append(g.numpy().copy()))
    h.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [20, 20])
    np.testing.assert_allclose(seen[0], [1, 1])
    handle.remove()
    x.clear_grad()
    (x * 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2, 2])


def test_retain_grads_keeps_intermediate_gradient():
    x = leaf([1.0, -2.0])
    h = x * 3
    h.retain_grads()
    (h * h).sum().backward()
    np.testing.assert_allclose(h.grad.numpy(), [6, -12])


class NumpyTanh(PyLayer):
    @staticmethod
    def forward(ctx, x):
        y = paddle.to_tensor(np.tanh(x.numpy()))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dy):
        (y,) = ctx.saved_tensor()
        return paddle.to_tensor(dy.numpy() * (1 - np.square(y.numpy())))


def test_pylayer_with_numpy_inside():
    x = leaf([0.2, -0.4], "float64")
    y = NumpyTanh.apply(x)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 1 - np.tanh(x.numpy()) ** 2)
    assert gradcheck(NumpyTanh.apply, [leaf([0.3, 0.1], "float64")])


def test_in_place_change_of_a_saved_tensor_is_reported_at_backward():
    x = leaf([1.0, 2.0])
    h = x * 1.0
    y = h * h  # saves h
    h.add_(paddle.ones([2]))
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y.sum().backward()
    h2 = x * 1.0
    y2 = paddle.exp(h2)  # saves its output
    y2.scale_(2.0)
    with pytest.raises(RuntimeError, match="in-place"):
        y2.sum().backward()
    h3 = x * 1.0
    y3 = h3 * h3
    h3[0] = 5.0
    with pytest.raises(RuntimeError, match="in-place"):
        y3.sum().backward()


def test_in_place_on_a_leaf_that_requires_grad_is_refused():
    x = leaf([1.0])
    with pytest.raises(RuntimeError, match="leaf tensor"):
        x.add_(paddle.ones([1]))
    with paddle.no_grad():
        x.add_(paddle.ones([1]))  # allowed, as optimizers do
    assert x.tolist() == [2.0]


def test_in_place_that_is_not_saved_gives_the_right_gradient():
    x = leaf([1.0, 2.0])
    h = x * 2.0  # multiply by a constant: h itself is not saved
    h.add_(paddle.ones([2]))
    (h * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [6, 6])


def test_setitem_gradients():
    x = leaf([1.0, 2.0, 3.0])
    v = leaf([10.0])
    h = x * 1.0
    h[1:2] = v * 2
    (h * paddle.to_tensor([1.0, 2.0, 3.0])).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1, 0, 3])
    np.testing.assert_allclose(v.grad.numpy(), [4])


def test_ten_thousand_op_chain_backpropagates_without_recursion():
    x = leaf([1.0])
    h = x
    for _ in range(10000):
        h = h * 1.0001
    h.backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0001 ** 10000], rtol=1e-3)


def test_shared_weights_sum_their_gradients():
    w = leaf([[1.0, 2.0], [3.0, 4.0]])
    x = paddle.to_tensor([[1.0, 1.0]])
    out = paddle.matmul(paddle.matmul(x, w), w, transpose_y=True)
    out.sum().backward()
    wn, xn = w.numpy(), x.numpy()
    h = xn @ wn
    expected = xn.T @ (np.ones((1, 2)) @ wn) + np.ones((1, 2)).T @ h
    np.testing.assert_allclose(w.grad.numpy(), expected)


def test_broadcast_gradients_are_summed_back():
    a = leaf(np.ones((3, 1)))
    b = leaf(np.ones((4,)))
    (a * b).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.full((3, 1), 4))
    np.testing.assert_allclose(b.grad.numpy(), np.full(4, 3))


def test_leaves_that_receive_one_gradient_array_keep_separate_gradients():
    """add's backward hands the same array to both inputs; accumulating into one leaf's
    gradient (or clearing it) must not change the other's."""
    x, y = leaf([1.0]), leaf([1.0])
    (x + y).backward()
    (x * 3).backward()
    assert x.grad.tolist() == [4.0] and y.grad.tolist() == [1.0]
    x.clear_grad()
    assert x.grad.tolist() == [0.0] and y.grad.tolist() == [1.0]


def test_grad_results_are_writable_and_not_shared():
    x, y = leaf([1.0]), leaf([1.0])
    gx, gy = paddle.grad(x + y, [x, y])
    with paddle.no_grad():
        gx.add_(paddle.ones([1]))
    assert gx.tolist() == [2.0] and gy.tolist() == [1.0]


def test_in_place_through_a_detached_alias_is_detected():
    x = leaf([1.0, 2.0, 3.0])
    y = x * 1.0
    z = y * y
    y.detach()[0] = 100.0
    with pytest.raises(RuntimeError, match="in-place"):
        z.sum().backward()


def test_moving_to_a_device_stays_in_the_graph():
    x = leaf([1.0, 2.0])
    (x * x).sum().cpu().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2, 4])
    y = x.to("cpu")
    assert not y.stop_gradient and not np.shares_memory(y._data, x._data)


def test_pylayer_saved_tensor_changed_in_place_is_reported():
    class Square(PyLayer):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t * t

        @staticmethod
        def backward(ctx, dy):
            (t,) = ctx.saved_tensor()
            return dy * 2 * t

    x = leaf([1.0, 2.0])
    h = x * 1.0
    y = Square.apply(h)
    with paddle.no_grad():
        h.add_(paddle.ones([2]))
    with pytest.raises(RuntimeError, match="save_for_backward"):
        y.sum().backward()


def test_numpy_views_of_a_tensor_are_copies():
    x = paddle.to_tensor([1.0, 2.0])
    a = np.asarray(x)
    a[0] = 9.0
    assert x.tolist() == [1.0, 2.0]


def test_piecewise_constant_ops_pass_zero_gradients():
    x = leaf([1.4, -2.6])
    for fn in (paddle.round, paddle.floor, paddle.ceil, paddle.trunc, paddle.sign):
        out = fn(x)
        assert not out.stop_gradient
    (paddle.round(x) * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, -3.0])


def test_pow_with_exponent_zero_has_a_zero_gradient_at_zero():
    x = leaf([0.0, 2.0])
    (x ** 0.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.0])


def test_leaf_hook_runs_once_on_the_total_gradient():
    w = leaf([1.0, 2.0])
    seen = []
    w.register_hook(lambda g: (seen.append(g.tolist()), paddle.clip(g, max=4.0))[1])
    ((w * 2).sum() + (w * 3).sum()).backward()
    assert seen == [[5.0, 5.0]] and w.grad.tolist() == [4.0, 4.0]


def test_leaf_hook_runs_as_soon_as_its_gradient_is_complete():
    """DataParallel starts an all-reduce from a parameter's hook while the rest of backward
    runs: the upper layer's hook fires before the lower layer's backward has run, and
    queue_callback runs once everything is accumulated."""
    from dygraph.autograd.engine import queue_callback

    events = []
    lower, upper = leaf([1.0, 2.0]), leaf([3.0, 4.0])

    class Probe(PyLayer):  # records when backward reaches the lower layer
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            events.append("lower backward")
            return g

    lower.register_hook(lambda g: events.append(("lower", g.tolist())))
    upper.register_hook(lambda g: events.append(("upper", g.tolist())))
    queue_callback(lambda: events.append(("end", lower.grad.tolist(), upper.grad.tolist())))
    h = Probe.apply(lower * 2)
    ((h * upper).sum() + upper.sum()).backward()
    assert events == [("upper", [3.0, 5.0]), "lower backward", ("lower", [6.0, 8.0]),
                      ("end", [6.0, 8.0], [3.0, 5.0])]


def test_grad_of_an_intermediate_leaves_the_graph_below_it_usable():
    x = leaf([0.5, -1.0])
    h = paddle.tanh(x)
    (gh,) = paddle.grad((h * h).sum(), h)
    np.testing.assert_allclose(gh.numpy(), 2 * np.tanh(x.numpy()), rtol=1e-6)
    (h * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * (1 - np.tanh(x.numpy()) ** 2), rtol=1e-6)


def test_grad_with_a_grad_output_per_output_or_an_assertion_as_paddle():
    """Paddle asserts len(grad_outputs) == len(outputs): the error is an AssertionError
    (and a ValueError, as DyGraph's argument errors are)."""
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    with pytest.raises(AssertionError, match="2 grad_outputs"):
        paddle.grad([(x * x).sum()], [x], grad_outputs=[paddle.ones([1]), paddle.ones([1])])
    with pytest.raises(ValueError):
        paddle.grad([(x * x).sum()], [x], grad_outputs=[])
