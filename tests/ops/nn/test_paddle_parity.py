"""nn.functional behaviours found by issue 28's replay against Paddle 3.3: one_hot's
inferred class count, the exception types of embedding, one_hot and prelu, linear with a
vector weight."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.framework.errors import AssertedValueError, UnsupportedDTypeError


def _t(a):
    return dygraph.to_tensor(np.asarray(a))


def test_one_hot_infers_the_class_count_by_default():
    out = F.one_hot(_t([1, 3, 0]))
    assert out.shape == [3, 4] and out.dtype == dygraph.float32
    np.testing.assert_array_equal(out.numpy().argmax(-1), [1, 3, 0])
    assert F.one_hot(_t(np.int32(2))).shape == [3]
    with pytest.raises(ValueError, match="one_hot: num_classes=-1 .* empty"):
        F.one_hot(_t(np.zeros((0, 2), np.int64)))
    with pytest.raises(ValueError, match=r"one_hot: id -1 is out of range.*\(num_classes\)"):
        F.one_hot(_t([1, -1]))


@pytest.mark.parametrize("ids", [np.ones(2, np.float32), np.ones(2, bool)])
def test_one_hot_of_non_integer_ids_has_no_kernel(ids):
    with pytest.raises(UnsupportedDTypeError, match="one_hot: x must be an int32 or int64"):
        F.one_hot(_t(ids), 3)


def test_embedding_error_types():
    w = _t(np.ones((3, 2), np.float32))
    with pytest.raises(NotImplementedError, match="embedding: x must be an int32") as caught:
        F.embedding(_t([0.0, 1.0]), w)
    assert isinstance(caught.value, TypeError)
    with pytest.raises(UnsupportedDTypeError, match="dtype bool"):
        F.embedding(_t([True]), w)
    with pytest.raises(ValueError, match="expected a Tensor"):
        F.embedding("abc", w)


def test_prelu_asserts_a_weight_of_rank_0_or_1():
    x = _t(np.ones((3, 4), np.float32))
    with pytest.raises(AssertedValueError, match=r"prelu: weight must be 0-D or 1-D.*\[3, 4\]"):
        F.prelu(x, _t(np.ones((3, 4), np.float32)))
    with pytest.raises(AssertedValueError):  # checked before x, as Paddle does
        F.prelu("abc", _t(np.ones((1, 4), np.float32)))
    assert F.prelu(x, _t(np.float32(0.5))).shape == [3, 4]


def test_linear_with_a_vector_weight_is_a_matrix_vector_product():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    w = np.array([1.0, 0.0, -1.0, 2.0], np.float32)
    out = F.linear(_t(x), _t(w), _t(np.float32([0.5])))
    assert out.shape == [3]
    np.testing.assert_allclose(out.numpy(), x @ w + 0.5)
    xt = dygraph.to_tensor(x, stop_gradient=False)
    F.linear(xt, _t(w)).sum().backward()
    np.testing.assert_allclose(xt.grad.numpy(), np.tile(w, (3, 1)))


def _attention(q, k, v, scale):
    """NumPy reference: key/value heads repeated for their group of query heads."""
    qh, kh, vh = (a.transpose(0, 2, 1, 3) for a in (q, k, v))
    kh, vh = (np.repeat(a, qh.shape[1] // a.shape[1], axis=1) for a in (kh, vh))
    s = qh @ kh.transpose(0, 1, 3, 2) * scale
    s = np.exp(s - s.max(-1, keepdims=True))
    return ((s / s.sum(-1, keepdims=True)) @ vh).transpose(0, 2, 1, 3)


@pytest.mark.parametrize("scale", [None, 0.3])
def test_attention_with_grouped_query_heads_and_a_scale(scale):
    rng = np.random.default_rng(1)
    q, k, v = (rng.normal(size=s) for s in ([1, 3, 4, 2], [1, 5, 2, 2], [1, 5, 2, 3]))
    tq = dygraph.to_tensor(q, stop_gradient=False)
    tk = dygraph.to_tensor(k, stop_gradient=False)
    out = F.scaled_dot_product_attention(tq, tk, _t(v), scale=scale, backend="math")
    want = _attention(q, k, v, 1 / np.sqrt(2) if scale is None else scale)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-10)
    out.sum().backward()
    eps, dk = 1e-6, np.zeros_like(k)
    for i in np.ndindex(k.shape):  # central differences of the sum
        step = np.zeros_like(k)
        step[i] = eps
        dk[i] = (_attention(q, k + step, v, 1 / np.sqrt(2) if scale is None else scale).sum()
                 - _attention(q, k - step, v, 1 / np.sqrt(2) if scale is None else scale)
                 .sum()) / (2 * eps)
    np.testing.assert_allclose(tk.grad.numpy(), dk, rtol=1e-5, atol=1e-8)


def test_attention_refuses_unequal_heads_without_gqa_and_non_tensors():
    q, kv = _t(np.ones((1, 3, 4, 2))), _t(np.ones((1, 5, 2, 2)))
    with pytest.raises(AssertedValueError, match="enable_gqa=False"):
        F.scaled_dot_product_attention(q, kv, kv, enable_gqa=False)
    with pytest.raises(ValueError, match="do not fit"):
        F.scaled_dot_product_attention(q, _t(np.ones((1, 5, 3, 2))), _t(np.ones((1, 5, 3, 2))))
    with pytest.raises(AttributeError, match="value must be a Tensor, got float") as caught:
        F.scaled_dot_product_attention(q, kv, 2.0)
    assert isinstance(caught.value, TypeError)


def test_inplace_silu_writes_into_x():
    want = np.float32([[0.5, -1.0, 2.0]])
    x = _t(want)
    assert F.silu(x, inplace=True) is x
    np.testing.assert_allclose(x.numpy(), want / (1 + np.exp(-want)), rtol=1e-6)


def test_inplace_dropout_writes_into_x():
    x = _t(np.ones((4, 8), np.float32))
    assert F.dropout(x, 0.5, inplace=True) is x
    assert set(x.numpy().ravel().tolist()) <= {0.0, 2.0}


def test_swiglu_of_a_0d_tensor_without_y_is_a_value_error():
    with pytest.raises(ValueError, match=r"swiglu: without y, x must have an even last dim.*\[\]"):
        F.swiglu(_t(np.float32(1.0)))
