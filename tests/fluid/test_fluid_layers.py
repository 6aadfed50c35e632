"""fluid.layers in dygraph mode: the 1.x elementwise axis rule, reductions shaped [1],
cross entropy on probabilities, accuracy, the two dropout implementations and the other
1.x functions, against NumPy."""

import numpy as np
import pytest

import dygraph.fluid as fluid

L = fluid.layers
RNG = np.random.default_rng(0)


def var(array):
    return fluid.dygraph.to_variable(np.asarray(array, np.float32))


# -- elementwise ops and the axis rule -------------------------------------------------------
@pytest.mark.parametrize("y_shape, axis, view", [
    ([3], 1, (1, 3, 1)),
    ([3, 4], 1, (1, 3, 4)),
    ([2], 0, (2, 1, 1)),
    ([4], -1, (1, 1, 4)),
    ([2, 3, 4], -1, (2, 3, 4)),
])
def test_elementwise_axis_rule(y_shape, axis, view):
    x, y = RNG.random((2, 3, 4)), RNG.random(y_shape) + 0.5
    for fn, ref in ((L.elementwise_add, np.add), (L.elementwise_sub, np.subtract),
                    (L.elementwise_mul, np.multiply), (L.elementwise_div, np.divide),
                    (L.elementwise_max, np.maximum), (L.elementwise_min, np.minimum),
                    (L.elementwise_pow, np.power)):
        out = fn(var(x), var(y), axis=axis)
        np.testing.assert_allclose(out.numpy(), ref(x, y.reshape(view)), rtol=1e-5)


def test_elementwise_axis_gradient_sums_over_broadcast_dims():
    with fluid.dygraph.guard():
        x, y = var(np.ones([2, 3, 4])), var([1.0, 2.0, 3.0])
        L.reduce_sum(L.elementwise_mul(x, y, axis=1)).backward()
        np.testing.assert_array_equal(y.gradient(), [8.0, 8.0, 8.0])
        np.testing.assert_array_equal(x.gradient()[1, :, 0], [1.0, 2.0, 3.0])


def test_elementwise_axis_that_does_not_fit_raises():
    with pytest.raises(ValueError, match="axis 2"):
        L.elementwise_add(var(np.ones([2, 3])), var(np.ones([3])), axis=2)


def test_elementwise_act_and_numpy_inputs():
    out = L.elementwise_add(np.array([-2.0, 1.0]), np.array([1.0, 1.0]), act="relu")
    np.testing.assert_array_equal(out.numpy(), [0.0, 2.0])


# -- reductions --------------------------------------------------------------------------------
@pytest.mark.parametrize("name, ref", [("reduce_sum", np.sum), ("reduce_mean", np.mean),
                                       ("reduce_max", np.max), ("reduce_min", np.min),
                                       ("reduce_prod", np.prod)])
def test_reductions(name, ref):
    x = RNG.random((2, 3, 4)) + 0.5
    fn = getattr(L, name)
    full = fn(var(x))
    assert full.shape == [1]
    np.testing.assert_allclose(full.numpy(), [ref(x)], rtol=1e-5)
    assert fn(var(x), dim=1).shape == [2, 4]
    assert fn(var(x), dim=[0, 2], keep_dim=True).shape == [1, 3, 1]
    np.testing.assert_allclose(fn(var(x), dim=-1).numpy(), ref(x, axis=-1), rtol=1e-5)


def test_mean_sums_and_gradient_of_loss():
    with fluid.dygraph.guard():
        ret = L.sums([var(np.ones([2, 2])) for _ in range(10)])
        loss = L.reduce_sum(ret)
        loss.backward()
        np.testing.assert_array_equal(ret.numpy(), np.full([2, 2], 10.0))
        np.testing.assert_array_equal(loss.gradient(), [1.0])
    assert L.mean(var(np.arange(4.0))).numpy().tolist() == [1.5]


# -- losses ----------------------------------------------------------------------------------
def _probs(n, c):
    z = RNG.standard_normal((n, c))
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


def test_cross_entropy_hard_labels_value_and_gradient():
    p, label = _probs(5, 4), np.array([[0], [3], [1], [1], [2]], np.int64)
    with fluid.dygraph.guard():
        probs = var(p)
        loss = L.cross_entropy(probs, fluid.dygraph.to_variable(label))
        assert loss.shape == [5, 1]
        expected = -np.log(p[np.arange(5), label[:, 0]])
        np.testing.assert_allclose(loss.numpy()[:, 0], expected, rtol=1e-5)
        L.mean(loss).backward()
    grad = np.zeros_like(p)
    grad[np.arange(5), label[:, 0]] = -1.0 / (5 * p[np.arange(5), label[:, 0]])
    np.testing.assert_allclose(probs.gradient(), grad, rtol=1e-5)


def test_cross_entropy_soft_labels_and_ignore_index():
    p = _probs(3, 4)
    soft = _probs(3, 4)
    loss = L.cross_entropy(var(p), var(soft), soft_label=True)
    np.testing.assert_allclose(loss.numpy()[:, 0], -(soft * np.log(p)).sum(axis=1), rtol=1e-5)
    label = np.array([[1], [-100], [2]], np.int64)
    ignored = L.cross_entropy(var(p), label).numpy()[:, 0]
    assert ignored[1] == 0.0
    np.testing.assert_allclose(ignored[[0, 2]], -np.log(p[[0, 2], [1, 2]]), rtol=1e-5)


def test_softmax_with_cross_entropy():
    z = RNG.standard_normal((4, 5)).astype(np.float32)
    label = np.array([[0], [4], [2], [2]], np.int64)
    loss, softmax = L.softmax_with_cross_entropy(var(z), label, return_softmax=True)
    logp = z - z.max(axis=1, keepdims=True)
    logp -= np.log(np.exp(logp).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(loss.numpy()[:, 0], -logp[np.arange(4), label[:, 0]], rtol=1e-5)
    np.testing.assert_allclose(softmax.numpy(), np.exp(logp), rtol=1e-5)


def test_square_error_cost():
    np.testing.assert_allclose(L.square_error_cost(var([1.0, 4.0]), var([3.0, 1.0])).numpy(),
                               [4.0, 9.0])


def test_accuracy_top_k_and_counts():
    scores = np.array([[0.1, 0.7, 0.2], [0.5, 0.2, 0.3], [0.3, 0.3, 0.4], [0.2, 0.5, 0.3]],
                      np.float32)
    label = np.array([[1], [2], [0], [0]], np.int64)
    top1 = L.accuracy(var(scores), label)
    assert top1.shape == [1] and top1.numpy().tolist() == [0.25]
    correct = var([0.0])
    total = var([0.0])
    top2 = L.accuracy(input=var(scores), label=label, k=2, correct=correct, total=total)
    assert top2.numpy().tolist() == [0.75]
    assert correct.numpy().tolist() == [3.0] and total.numpy().tolist() == [4.0]


# -- dropout ---------------------------------------------------------------------------------
def test_dropout_downgrade_in_infer():
    x = var(np.ones([100, 100]))
    train = L.dropout(x, 0.3, seed=5).numpy()
    assert set(np.unique(train)) <= {0.0, 1.0}  # kept values are not scaled in training
    assert abs((train == 0).mean() - 0.3) < 0.03
    np.testing.assert_allclose(L.dropout(x, 0.3, is_test=True).numpy(), 0.7)
    np.testing.assert_array_equal(L.dropout(x, 0.3, seed=5).numpy(), train)


def test_dropout_upscale_in_train():
    x = var(np.ones([100, 100]))
    train = L.dropout(x, 0.25, dropout_implementation="upscale_in_train").numpy()
    np.testing.assert_allclose(np.unique(train), [0.0, 1.0 / 0.75], rtol=1e-6)
    test = L.dropout(x, 0.25, is_test=True, dropout_implementation="upscale_in_train")
    np.testing.assert_array_equal(test.numpy(), x.numpy())


# -- activations and the rest --------------------------------------------------------------
def test_activations():
    x = np.array([-2.0, 0.0, 3.0], np.float32)
    np.testing.assert_allclose(L.relu(var(x)).numpy(), [0.0, 0.0, 3.0])
    np.testing.assert_allclose(L.sigmoid(var(x)).numpy(), 1 / (1 + np.exp(-x)), rtol=1e-6)
    np.testing.assert_allclose(L.tanh(var(x)).numpy(), np.tanh(x), rtol=1e-6)
    np.testing.assert_allclose(L.leaky_relu(var(x)).numpy(), [-0.04, 0.0, 3.0], rtol=1e-6)
    np.testing.assert_allclose(L.softmax(var(x)).numpy(), np.exp(x) / np.exp(x).sum(),
                               rtol=1e-6)


def test_shape_and_creation_functions():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    assert L.reshape(var(x), [0, -1]).shape == [2, 12]
    assert L.transpose(var(x), [2, 0, 1]).shape == [4, 2, 3]
    assert L.concat([var(x), var(x)], axis=1).shape == [2, 6, 4]
    assert [t.shape for t in L.split(var(x), [1, 3], dim=2)] == [[2, 3, 1], [2, 3, 3]]
    assert L.unsqueeze(var(x), [0]).shape == [1, 2, 3, 4]
    assert L.squeeze(var(np.ones([1, 3, 1])), [0, 2]).shape == [3]
    assert L.stack([var(x), var(x)], axis=1).shape == [2, 2, 3, 4]
    assert L.expand(var(np.ones([1, 3])), [2, 1]).shape == [2, 3]
    np.testing.assert_array_equal(L.slice(var(x), [1, 2], [1, 0], [3, 2]).numpy(),
                                  x[:, 1:3, 0:2])
    np.testing.assert_array_equal(L.gather(var(x[0]), np.array([2, 0])).numpy(), x[0][[2, 0]])
    np.testing.assert_array_equal(L.where(np.array([[True, False], [False, True]])).numpy(),
                                  [[0, 0], [1, 1]])
    assert L.fill_constant([2, 3], "int64", 7).numpy().tolist() == [[7] * 3] * 2
    assert L.cast(var([1.7]), "int32").numpy().dtype == np.int32
    np.testing.assert_array_equal(L.argmax(var([[1.0, 5.0], [7.0, 2.0]]), axis=1).numpy(),
                                  [1, 0])
    values, indices = L.topk(var([[1.0, 3.0, 2.0]]), 2)
    assert values.numpy().tolist() == [[3.0, 2.0]] and indices.numpy().tolist() == [[1, 2]]
    assert L.uniform_random([3, 2], min=2.0, max=3.0).numpy().min() >= 2.0
    assert L.gaussian_random([4, 5]).shape == [4, 5]


def test_math_functions():
    x = RNG.random((2, 3)).astype(np.float32)
    y = RNG.random((3, 4)).astype(np.float32)
    np.testing.assert_allclose(L.matmul(var(x), var(y), alpha=2.0).numpy(), 2 * x @ y,
                               rtol=1e-5)
    np.testing.assert_allclose(L.matmul(var(x), var(x), transpose_y=True).numpy(), x @ x.T,
                               rtol=1e-5)
    np.testing.assert_allclose(L.mul(var(x.reshape(2, 3, 1)), var(y)).numpy(), x @ y,
                               rtol=1e-5)
    np.testing.assert_allclose(L.scale(var(x), 2.0, 1.0).numpy(), 2 * x + 1, rtol=1e-6)
    np.testing.assert_allclose(L.scale(var(x), 2.0, 1.0, bias_after_scale=False).numpy(),
                               2 * (x + 1), rtol=1e-6)
    np.testing.assert_allclose(L.clip(var(x), 0.3, 0.6).numpy(), np.clip(x, 0.3, 0.6))
    np.testing.assert_allclose(L.l2_normalize(var(x), axis=1).numpy(),
                               x / np.linalg.norm(x, axis=1, keepdims=True), rtol=1e-5)
    np.testing.assert_array_equal(L.one_hot(np.array([[2], [0]]), 3).numpy(),
                                  [[0, 0, 1], [1, 0, 0]])
    with pytest.raises(ValueError, match="one_hot"):
        L.one_hot(np.array([[3]]), 3)
