"""The 1.x layer library: Conv2D in its three forms, Conv2DTranspose, Pool2D, FC, Linear,
Embedding, Dropout, BatchNorm, LayerNorm and GRUUnit, against NumPy references."""

import numpy as np
import pytest

import dygraph.fluid as fluid
from dygraph.fluid.dygraph import (
    FC,
    BatchNorm,
    Conv2D,
    Conv2DTranspose,
    Dropout,
    Embedding,
    GRUUnit,
    LayerNorm,
    Linear,
    Pool2D,
)

RNG = np.random.default_rng(1)


def var(array, dtype=np.float32):
    return fluid.dygraph.to_variable(np.asarray(array, dtype))


def conv_ref(x, w, b, stride=1, pad=0, groups=1):
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    ho, wo = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    out = np.zeros((n, m, ho, wo))
    mg = m // groups
    for g in range(groups):
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg, i:i + stride * (ho - 1) + 1:stride,
                           j:j + stride * (wo - 1) + 1:stride]
                out[:, g * mg:(g + 1) * mg] += np.einsum(
                    "nchw,mc->nmhw", patch, w[g * mg:(g + 1) * mg, :, i, j])
    return out if b is None else out + b.reshape(1, -1, 1, 1)


def pool_ref(x, k, stride, pad, kind, exclusive=True, ceil_mode=False):
    n, c, h, w = x.shape
    rounding = np.ceil if ceil_mode else np.floor
    ho = int(rounding((h + 2 * pad - k) / stride)) + 1
    wo = int(rounding((w + 2 * pad - k) / stride)) + 1
    out = np.zeros((n, c, ho, wo))
    for i in range(ho):
        for j in range(wo):
            r0, c0 = i * stride - pad, j * stride - pad
            r1, c1 = min(r0 + k, h), min(c0 + k, w)
            window = x[:, :, max(r0, 0):r1, max(c0, 0):c1]
            if kind == "max":
                out[:, :, i, j] = window.max(axis=(2, 3))
            else:
                count = window.shape[2] * window.shape[3] if exclusive else k * k
                out[:, :, i, j] = window.sum(axis=(2, 3)) / count
    return out


# -- Conv2D ----------------------------------------------------------------------------------
def test_conv2d_15_creates_the_filter_at_the_first_call():
    conv = Conv2D("conv", num_filters=4, filter_size=3, stride=2, padding=1, act="relu")
    assert conv.parameters() == []
    x = RNG.standard_normal((2, 3, 7, 7)).astype(np.float32)
    out = conv(var(x))
    w, b = conv._filter_param, conv._bias_param
    assert w.shape == [4, 3, 3, 3] and b.shape == [4] and conv.weight is w and conv.bias is b
    ref = np.maximum(conv_ref(x, w.numpy(), b.numpy(), stride=2, pad=1), 0)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-4, atol=1e-5)


def test_conv2d_14_form_creates_the_filter_at_once():
    conv = Conv2D("conv14", num_channels=2, num_filters=3, filter_size=[2, 3])
    assert [p.shape for p in conv.parameters()] == [[3, 2, 2, 3], [3]]
    with pytest.raises(ValueError):
        conv(var(np.ones([1, 5, 4, 4])))


def test_conv2d_16_form_and_positional_15_form():
    conv16 = Conv2D(3, 8, 3)
    assert conv16._filter_param.shape == [8, 3, 3, 3]
    conv15 = Conv2D("positional", 4, 3, 2, 1)  # num_filters, filter_size, stride, padding
    assert conv15(var(np.ones([1, 2, 8, 8]))).shape == [1, 4, 4, 4]


def test_conv2d_default_initializer_is_1x_normal():
    conv = Conv2D("init", num_channels=8, num_filters=64, filter_size=3)
    std = float(conv._filter_param.numpy().std())
    assert std == pytest.approx((2.0 / (3 * 3 * 8)) ** 0.5, rel=0.06)
    assert not conv._bias_param.numpy().any()


def test_conv2d_groups_param_attr_and_no_bias():
    attr = fluid.ParamAttr(initializer=fluid.initializer.ConstantInitializer(0.5))
    conv = Conv2D("groups", num_filters=4, filter_size=1, groups=2, param_attr=attr,
                  bias_attr=False)
    x = RNG.standard_normal((1, 4, 3, 3)).astype(np.float32)
    out = conv(var(x))
    assert conv._bias_param is None and conv._filter_param.shape == [4, 2, 1, 1]
    np.testing.assert_allclose(out.numpy(), conv_ref(x, np.full([4, 2, 1, 1], 0.5), None,
                                                     groups=2), rtol=1e-5)
    with pytest.raises(ValueError, match="groups"):
        Conv2D("bad", num_channels=3, num_filters=4, filter_size=1, groups=2)


def test_conv2d_transpose_shapes():
    up = Conv2DTranspose("up", num_filters=2, filter_size=3, stride=2, padding=1)
    out = up(var(np.ones([1, 3, 4, 4])))
    assert up.weight.shape == [3, 2, 3, 3] and out.shape == [1, 2, 7, 7]
    sized = Conv2DTranspose("sized", num_filters=2, output_size=[8, 8], stride=2)
    assert sized(var(np.ones([1, 3, 4, 4]))).shape == [1, 2, 8, 8]
    assert Conv2DTranspose(3, 2, 2, stride=2).weight.shape == [3, 2, 2, 2]
    with pytest.raises(ValueError, match="filter_size or output_size"):
        Conv2DTranspose("neither", num_filters=2)


# -- Pool2D ----------------------------------------------------------------------------------
@pytest.mark.parametrize("kind, k, stride, pad, exclusive, ceil_mode", [
    ("max", 2, 2, 0, True, False),
    ("avg", 3, 2, 1, True, False),
    ("avg", 3, 2, 1, False, False),
    ("max", 2, 2, 0, True, True),
])
def test_pool2d(kind, k, stride, pad, exclusive, ceil_mode):
    x = RNG.standard_normal((2, 3, 5, 5)).astype(np.float32)
    pool = Pool2D("pool", pool_size=k, pool_type=kind, pool_stride=stride, pool_padding=pad,
                  exclusive=exclusive, ceil_mode=ceil_mode)
    np.testing.assert_allclose(pool(var(x)).numpy(),
                               pool_ref(x, k, stride, pad, kind, exclusive, ceil_mode),
                               rtol=1e-5, atol=1e-6)


def test_pool2d_global_and_16_form():
    x = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
    glob = Pool2D("global", pool_type="avg", global_pooling=True)
    np.testing.assert_allclose(glob(var(x)).numpy(), x.mean(axis=(2, 3), keepdims=True),
                               rtol=1e-5)
    pool16 = Pool2D(2, "max", 2)
    assert pool16(var(x)).shape == [2, 3, 2, 2]
    with pytest.raises(ValueError, match="pool_size"):
        Pool2D("no_size")
    with pytest.raises(ValueError, match="pool_type"):
        Pool2D("bad", pool_size=2, pool_type="min")


# -- FC and Linear ---------------------------------------------------------------------------
def test_fc_flattens_from_num_flatten_dims_at_the_first_call():
    fc = FC("fc", 5, num_flatten_dims=2, act="softmax")
    x = RNG.standard_normal((2, 3, 4, 2)).astype(np.float32)
    out = fc(var(x))
    w, b = fc.weight.numpy(), fc.bias.numpy()
    assert w.shape == (8, 5) and out.shape == [2, 3, 5]
    z = x.reshape(2, 3, 8) @ w + b
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    np.testing.assert_allclose(out.numpy(), e / e.sum(axis=-1, keepdims=True), rtol=1e-5)
    assert list(fc.state_dict()) == ["_w0", "_b"]


def test_fc_list_input_sums_one_product_per_input_and_no_bias():
    fc = FC("multi", 3, bias_attr=False)
    a = RNG.standard_normal((2, 4)).astype(np.float32)
    b = RNG.standard_normal((2, 2, 3)).astype(np.float32)
    out = fc([var(a), var(b)])
    np.testing.assert_allclose(out.numpy(), a @ fc._w0.numpy() + b.reshape(2, 6) @
                               fc._w1.numpy(), rtol=1e-5)
    assert fc.bias is None
    with pytest.raises(ValueError, match="num_flatten_dims"):
        FC("bad", 3, num_flatten_dims=2)(var(np.ones([2, 3])))


def test_linear():
    linear = Linear(4, 3, act="relu")
    x = RNG.standard_normal((5, 4)).astype(np.float32)
    ref = np.maximum(x @ linear.weight.numpy() + linear.bias.numpy(), 0)
    np.testing.assert_allclose(linear(var(x)).numpy(), ref, rtol=1e-5)


# -- Embedding ---------------------------------------------------------------------------------
def test_embedding_15_replaces_the_trailing_one_and_16_appends():
    emb15 = Embedding("emb", size=[10, 4])
    ids = np.array([[[1], [2]], [[3], [9]]], np.int64)
    out = emb15(fluid.dygraph.to_variable(ids))
    assert out.shape == [2, 2, 4]
    np.testing.assert_array_equal(out.numpy(), emb15.weight.numpy()[ids[..., 0]])
    emb16 = Embedding(size=[10, 4])
    assert emb16(fluid.dygraph.to_variable(ids)).shape == [2, 2, 1, 4]
    assert emb15._w is emb15.weight


def test_embedding_padding_idx_gives_zeros_and_no_gradient():
    with fluid.dygraph.guard():
        emb = Embedding("pad", size=[5, 3], padding_idx=-1)
        out = emb(fluid.dygraph.to_variable(np.array([[4], [1], [4]], np.int64)))
        assert not out.numpy()[[0, 2]].any()
        fluid.layers.reduce_sum(out).backward()
        grad = emb.weight.gradient()
        assert not grad[4].any() and (grad[1] == 1).all()
    with pytest.raises(ValueError, match="padding_idx"):
        Embedding("bad", size=[5, 3], padding_idx=5)


def test_dropout_layer_follows_train_and_eval():
    drop = Dropout(p=0.5, dropout_implementation="upscale_in_train")
    x = var(np.ones([50, 50]))
    assert set(np.unique(drop(x).numpy())) == {0.0, 2.0}
    drop.eval()
    np.testing.assert_array_equal(drop(x).numpy(), x.numpy())


# -- BatchNorm and LayerNorm ---------------------------------------------------------------
def test_batch_norm_train_and_eval():
    bn = BatchNorm("bn", num_channels=3, momentum=0.9, epsilon=1e-5)
    x = (RNG.standard_normal((8, 3, 2, 2)) * 2 + 1).astype(np.float32)
    out = bn(var(x)).numpy()
    mean, varc = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    ref = (x - mean.reshape(1, 3, 1, 1)) / np.sqrt(varc.reshape(1, 3, 1, 1) + 1e-5)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn._mean.numpy(), 0.1 * mean, rtol=1e-5)
    names = list(bn.state_dict())
    assert names == ["weight", "bias", "_mean", "_variance"]
    assert [p.trainable for p in bn.parameters()] == [True, True, False, False]
    bn.eval()
    running_mean, running_var = bn._mean.numpy(), bn._variance.numpy()
    expected = (x - running_mean.reshape(1, 3, 1, 1)) / np.sqrt(
        running_var.reshape(1, 3, 1, 1) + 1e-5)
    np.testing.assert_allclose(bn(var(x)).numpy(), expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(bn._mean.numpy(), running_mean)


def test_batch_norm_16_form_is_test_and_act():
    bn = BatchNorm(2, act="relu", is_test=True)
    out = bn(var(-np.ones([1, 2, 3])))
    assert not out.numpy().any()  # is_test: running stats (0, 1), then relu
    assert not bn._mean.numpy().any()


def test_layer_norm_both_forms():
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    ln15 = LayerNorm("ln", begin_norm_axis=1)
    out = ln15(var(x)).numpy()
    flat = x.reshape(2, -1)
    ref = (flat - flat.mean(1, keepdims=True)) / np.sqrt(flat.var(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(out.reshape(2, -1), ref, rtol=1e-4, atol=1e-5)
    assert ln15.weight.shape == [12] and ln15.bias.shape == [12]
    ln = LayerNorm([4], scale=False)
    assert ln.weight is None and ln.bias.shape == [4]
    last = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(ln(var(x)).numpy(), last, rtol=1e-4, atol=1e-5)


# -- GRUUnit ---------------------------------------------------------------------------------
def gru_ref(x, h, weight, bias, origin_mode):
    d = h.shape[1]
    flat = weight.reshape(-1)
    w_gates, w_cand = flat[:2 * d * d].reshape(d, 2 * d), flat[2 * d * d:].reshape(d, d)
    x = x + bias
    gates = 1 / (1 + np.exp(-(x[:, :2 * d] + h @ w_gates)))
    u, r = gates[:, :d], gates[:, d:]
    c = np.tanh(x[:, 2 * d:] + (r * h) @ w_cand)
    new_h = u * h + (1 - u) * c if origin_mode else (1 - u) * h + u * c
    return new_h, r * h, np.concatenate([u, r, c], axis=1)


@pytest.mark.parametrize("origin_mode", [False, True])
def test_gru_unit(origin_mode):
    gru = GRUUnit("gru", size=9, origin_mode=origin_mode,
                  bias_attr=fluid.initializer.UniformInitializer(-0.5, 0.5))
    x = RNG.standard_normal((2, 9)).astype(np.float32)
    h = RNG.standard_normal((2, 3)).astype(np.float32)
    outs = gru(var(x), var(h))
    refs = gru_ref(x, h, gru.weight.numpy(), gru.bias.numpy(), origin_mode)
    for out, ref in zip(outs, refs):
        np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="3 \\* hidden"):
        GRUUnit(size=10)
