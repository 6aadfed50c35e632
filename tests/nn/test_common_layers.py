"""The common layers of dygraph.nn against NumPy references, with float64 gradient checks
for the layers that own parameters (Linear, Bilinear, Embedding); the padding layers by mode,
RReLU, Unflatten, FeatureAlphaDropout and Embedding's max_norm / scale_grad_by_freq."""

import numpy as np
import pytest

import dygraph
from dygraph import nn
from dygraph.autograd import gradcheck
from dygraph.nn.initializer import Assign, Constant

RNG = np.random.default_rng(0)


@pytest.fixture
def float64():
    """Layers made inside the test own float64 parameters (for gradient checks)."""
    old = dygraph.get_default_dtype()
    dygraph.set_default_dtype("float64")
    yield
    dygraph.set_default_dtype(old)


def _t(a, grad=False):
    return dygraph.to_tensor(a, stop_gradient=not grad)


# -- Linear / Bilinear / Embedding --------------------------------------------------------
def test_linear_matches_numpy_and_paddle_defaults():
    fc = nn.Linear(4, 3)
    assert fc.weight.shape == [4, 3] and fc.bias.shape == [3]
    assert fc.weight.name.startswith("linear_") and fc.weight.name.endswith(".w_0")
    bound = np.sqrt(6.0 / (4 + 3))  # XavierUniform
    assert np.abs(fc.weight.numpy()).max() <= bound and np.all(fc.bias.numpy() == 0)
    x = RNG.standard_normal((2, 5, 4)).astype(np.float32)
    want = x @ fc.weight.numpy() + fc.bias.numpy()
    np.testing.assert_allclose(fc(_t(x)).numpy(), want, rtol=1e-5, atol=1e-6)
    assert [n for n, _ in fc.named_parameters()] == ["weight", "bias"]
    assert repr(fc) == "Linear(in_features=4, out_features=3, dtype=float32)"


def test_linear_attrs_and_no_bias():
    fc = nn.Linear(2, 2, weight_attr=dygraph.ParamAttr(initializer=Constant(0.5)),
                   bias_attr=False, name="head")
    assert fc.bias is None and [n for n, _ in fc.named_parameters()] == ["weight"]
    np.testing.assert_allclose(fc(_t([[1.0, 3.0]])).numpy(), [[2.0, 2.0]])
    assert repr(fc).endswith("dtype=float32, name=head)")


def test_linear_gradcheck(float64):
    fc = nn.Linear(3, 2)
    x = _t(RNG.standard_normal((4, 3)), grad=True)
    assert gradcheck(lambda x, w, b: nn.functional.linear(x, w, b), [x, fc.weight, fc.bias])
    y = fc(x)
    y.sum().backward()
    np.testing.assert_allclose(fc.bias.grad.numpy(), [4.0, 4.0])
    np.testing.assert_allclose(fc.weight.grad.numpy(), x.numpy().sum(0)[:, None].repeat(2, 1))


def test_linear_rejects_mismatched_input():
    fc = nn.Linear(3, 2)
    with pytest.raises(ValueError, match="in_features"):
        fc(dygraph.ones([2, 4]))
    # Paddle refuses a dtype that differs from the weight's (ValueError); no silent cast,
    # not even of integer features.
    with pytest.raises(ValueError, match="x dtype float64 differs from weight dtype float32"):
        fc(dygraph.ones([2, 3], dtype="float64"))
    with pytest.raises(ValueError, match="x dtype int64 differs from weight dtype float32"):
        fc(dygraph.to_tensor([[1, 2, 3]]))


def test_matmul_refuses_mixed_float_dtypes():
    with pytest.raises(ValueError, match="matmul: x dtype float64 differs from y dtype float32"):
        dygraph.matmul(dygraph.ones([2, 2], dtype="float64"), dygraph.ones([2, 2]))


def test_bilinear_matches_einsum_and_gradcheck(float64):
    layer = nn.Bilinear(2, 3, 4)
    assert layer.weight.shape == [4, 2, 3] and layer.bias.shape == [1, 4]
    with dygraph.no_grad():
        layer.bias.set_value(RNG.standard_normal((1, 4)))
    a = _t(RNG.standard_normal((5, 2)), grad=True)
    b = _t(RNG.standard_normal((5, 3)), grad=True)
    want = np.einsum("ni,oij,nj->no", a.numpy(), layer.weight.numpy(), b.numpy())
    np.testing.assert_allclose(layer(a, b).numpy(), want + layer.bias.numpy(), rtol=1e-10)
    assert gradcheck(lambda a, b, w, c: nn.functional.bilinear(a, b, w, c),
                     [a, b, layer.weight, layer.bias])
    assert repr(layer) == "Bilinear(in1_features=2, in2_features=3, out_features=4, " \
                          "dtype=float64)"


def test_embedding_lookup_padding_and_gradient(float64):
    emb = nn.Embedding(5, 3, padding_idx=-1)
    table = emb.weight.numpy()
    assert np.all(table[4] == 0) and np.any(table[:4] != 0)
    ids = np.array([[0, 4, 2], [2, 2, 1]])
    out = emb(_t(ids))
    np.testing.assert_array_equal(out.numpy(), table[ids])
    out.sum().backward()
    counts = np.bincount(ids.ravel(), minlength=5).astype(float)
    counts[4] = 0  # the padding row gets no gradient
    np.testing.assert_allclose(emb.weight.grad.numpy(), counts[:, None].repeat(3, 1))
    assert gradcheck(lambda w: nn.functional.embedding(ids, w, padding_idx=4) ** 2,
                     [emb.weight])
    assert repr(emb) == "Embedding(5, 3, padding_idx=-1, sparse=False)"


def test_embedding_padding_rows_look_up_as_zero_and_sparse_is_accepted():
    weight = dygraph.ParamAttr(initializer=Assign(np.arange(6.0).reshape(3, 2)))
    emb = nn.Embedding(3, 2, padding_idx=1, sparse=True, weight_attr=weight)
    with dygraph.no_grad():
        emb.weight.set_value(np.ones((3, 2)))  # padding ids still read zeros
    np.testing.assert_array_equal(emb(_t([1, 0])).numpy(), [[0, 0], [1, 1]])


def test_embedding_errors():
    with pytest.raises(ValueError, match="padding_idx"):
        nn.Embedding(3, 2, padding_idx=3)
    emb = nn.Embedding(3, 2)
    with pytest.raises(ValueError, match="out of range"):
        emb(_t([3]))
    with pytest.raises(TypeError, match="int32 or int64"):
        emb(_t([1.0]))


# -- dropout layers ---------------------------------------------------------------------------
def test_dropout_layer_follows_training_flag():
    dygraph.seed(3)
    drop = nn.Dropout(0.25)
    x = dygraph.ones([200, 100])
    y = drop(x).numpy()
    assert set(np.unique(y)) <= {0.0, np.float32(1.0 / 0.75)}
    assert abs((y == 0).mean() - 0.25) < 0.02 and abs(y.mean() - 1.0) < 0.03
    drop.eval()
    assert drop(x) is x
    assert repr(drop) == "Dropout(p=0.25, axis=None, mode=upscale_in_train)"
    down = nn.Dropout(0.25, mode="downscale_in_infer")
    assert set(np.unique(down(x).numpy())) <= {0.0, 1.0}
    np.testing.assert_allclose(down.eval()(x).numpy(), np.full((200, 100), 0.75))


def test_channel_dropouts_drop_whole_channels():
    dygraph.seed(4)
    y = nn.Dropout2D(0.5)(dygraph.ones([8, 6, 3, 3])).numpy()
    per_channel = y.reshape(8, 6, -1)
    assert np.all(per_channel.min(-1) == per_channel.max(-1))
    assert 0 < (per_channel[..., 0] == 0).mean() < 1
    y = nn.Dropout3D(0.5, data_format="NDHWC")(dygraph.ones([4, 2, 2, 2, 5])).numpy()
    assert np.all(y.min(axis=(1, 2, 3)) == y.max(axis=(1, 2, 3)))
    layer = nn.Dropout2D().eval()
    np.testing.assert_array_equal(layer(dygraph.ones([1, 2, 2, 2])).numpy(), 1.0)
    assert repr(nn.Dropout3D()) == "Dropout3D(p=0.5, data_format=NCDHW)"
    with pytest.raises(ValueError, match="4-D"):
        nn.Dropout2D()(dygraph.ones([2, 3]))


def test_alpha_dropout_keeps_selu_statistics():
    dygraph.seed(5)
    x = _t(RNG.standard_normal((400, 250)))
    y = nn.AlphaDropout(0.2)(x).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1.0) < 0.02
    assert nn.AlphaDropout(0.2).eval()(x) is x
    assert repr(nn.AlphaDropout(0.2)) == "AlphaDropout(p=0.2)"


# -- shape layers -----------------------------------------------------------------------------
def test_flatten_and_identity():
    x = _t(RNG.standard_normal((2, 3, 4, 5)))
    assert nn.Flatten()(x).shape == [2, 60]
    np.testing.assert_array_equal(nn.Flatten(1, 2)(x).numpy(), x.numpy().reshape(2, 12, 5))
    assert nn.Identity(3, foo=1)(x) is x
    assert repr(nn.Flatten()) == "Flatten()" and repr(nn.Identity()) == "Identity()"


def test_upsample_layers():
    x = _t([[[[1.0, 2.0], [3.0, 4.0]]]])
    np.testing.assert_array_equal(nn.Upsample(scale_factor=2)(x).numpy()[0, 0],
                                  np.repeat(np.repeat([[1, 2], [3, 4]], 2, 0), 2, 1))
    np.testing.assert_allclose(nn.UpsamplingBilinear2D(size=3)(x).numpy()[0, 0],
                               [[1, 1.5, 2], [2, 2.5, 3], [3, 3.5, 4]])
    np.testing.assert_array_equal(nn.UpsamplingNearest2D(size=[1, 3])(x).numpy()[0, 0],
                                  [[1, 1, 2]])
    assert repr(nn.Upsample(size=[4, 4], mode="BILINEAR")) == (
        "Upsample(size=[4, 4], mode=bilinear, align_corners=False, align_mode=0, "
        "data_format=None)")
    assert repr(nn.UpsamplingNearest2D(scale_factor=2)) == (
        "UpsamplingNearest2D(scale_factor=2, data_format=NCHW)")


def test_pixel_shuffle_layers_round_trip():
    x = _t(RNG.standard_normal((2, 8, 3, 5)))
    up = nn.PixelShuffle(2)(x)
    assert up.shape == [2, 2, 6, 10]
    # Channel c * 4 + i * 2 + j goes to output pixel (2 h + i, 2 w + j) of channel c.
    np.testing.assert_array_equal(up.numpy()[:, 1, 1::2, 0::2], x.numpy()[:, 6])
    np.testing.assert_array_equal(nn.PixelUnshuffle(2)(up).numpy(), x.numpy())
    assert repr(nn.PixelShuffle(3, "NHWC")) == "PixelShuffle(upscale_factor=3, data_format=NHWC)"
    with pytest.raises(ValueError, match="divisible"):
        nn.PixelShuffle(3)(x)


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_layers_match_numpy(mode):
    np_mode = {"replicate": "edge", "circular": "wrap"}.get(mode, mode)
    kwargs = {"constant_values": 2.5} if mode == "constant" else {}
    x1 = RNG.standard_normal((2, 3, 5))
    got = nn.Pad1D([2, 1], mode=mode, value=2.5)(_t(x1)).numpy()
    np.testing.assert_allclose(got, np.pad(x1, ((0, 0), (0, 0), (2, 1)), np_mode, **kwargs))
    x2 = RNG.standard_normal((1, 2, 4, 5))
    got = nn.Pad2D([1, 2, 0, 3], mode=mode, value=2.5)(_t(x2)).numpy()
    want = np.pad(x2, ((0, 0), (0, 0), (0, 3), (1, 2)), np_mode, **kwargs)
    np.testing.assert_allclose(got, want)
    x3 = RNG.standard_normal((1, 3, 3, 3, 2))
    got = nn.Pad3D(1, mode=mode, value=2.5, data_format="NDHWC")(_t(x3)).numpy()
    want = np.pad(x3, ((0, 0), (1, 1), (1, 1), (1, 1), (0, 0)), np_mode, **kwargs)
    np.testing.assert_allclose(got, want)


def test_zero_pad_and_pad_repr():
    got = nn.ZeroPad2D([1, 0, 0, 1])(dygraph.ones([1, 1, 1, 1])).numpy()
    np.testing.assert_array_equal(got[0, 0], [[0, 1], [0, 0]])
    assert repr(nn.Pad2D(1)) == (
        "Pad2D(padding=[1, 1, 1, 1], mode=constant, value=0.0, data_format=NCHW)")


def test_unfold_fold_layers():
    x = _t(RNG.standard_normal((2, 3, 5, 6)))
    cols = nn.Unfold([2, 3], dilations=1, paddings=1, strides=2)(x)
    assert cols.shape == [2, 3 * 6, 3 * 3]
    # Column (bi, bj), row (c, i, j) reads the padded input at (2 bi + i, 2 bj + j).
    padded = np.pad(x.numpy(), ((0, 0), (0, 0), (1, 1), (1, 1)))
    np.testing.assert_allclose(cols.numpy()[:, 1 * 6 + 1 * 3 + 2, 2 * 3 + 1],
                               padded[:, 1, 4 + 1, 2 + 2])
    # fold(unfold(x)) counts how many blocks cover each pixel.
    ones = dygraph.ones([1, 1, 4, 4])
    cover = nn.Fold([4, 4], 2)(nn.Unfold(2)(ones)).numpy()[0, 0]
    np.testing.assert_array_equal(cover, [[1, 2, 2, 1], [2, 4, 4, 2], [2, 4, 4, 2], [1, 2, 2, 1]])
    assert repr(nn.Unfold([2, 2])) == "Unfold(kernel_size=[2, 2], dilation=1, padding=0, stride=1)"


def test_cosine_similarity_layer():
    a, b = RNG.standard_normal((2, 4, 3)), RNG.standard_normal((2, 4, 3))
    want = (a * b).sum(1) / np.sqrt((a * a).sum(1) * (b * b).sum(1))
    np.testing.assert_allclose(nn.CosineSimilarity()(_t(a), _t(b)).numpy(), want, rtol=1e-10)
    zero = nn.CosineSimilarity(axis=0)(dygraph.zeros([3]), dygraph.ones([3]))
    assert float(zero) == 0.0
    assert repr(nn.CosineSimilarity()) == "CosineSimilarity(axis=1, eps=1e-08)"


def test_layers_train_with_an_optimizer():
    dygraph.seed(0)
    model = nn.Sequential(nn.Embedding(6, 4), nn.Flatten(), nn.Linear(8, 1))
    opt = dygraph.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    ids = _t([[0, 1], [2, 3], [4, 5]])
    target = _t([[1.0], [-1.0], [0.5]])
    losses = []
    for _ in range(20):
        loss = ((model(ids) - target) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < 0.1 * losses[0]


@pytest.mark.parametrize("layer, want", [
    (nn.ConstantPad1D([1, 2], 5.0), [5, 1, 2, 5, 5]),
    (nn.ZeroPad1D(1), [0, 1, 2, 0]),
    (nn.ReflectionPad1d([1, 1]), [2, 1, 2, 1]),
    (nn.ReplicationPad1D([2, 0]), [1, 1, 1, 2]),
    (nn.CircularPad1D([1, 1]), [2, 1, 2, 1]),
])
def test_padding_layers_by_mode(layer, want):
    out = layer(dygraph.to_tensor([[[1.0, 2.0]]]))
    np.testing.assert_array_equal(out.numpy().ravel(), want)


def test_padding_layer_families_are_complete():
    for prefix in ("Constant", "Reflection", "Replication", "Circular"):
        for d in (1, 2, 3):
            assert getattr(nn, f"{prefix}Pad{d}d") is getattr(nn, f"{prefix}Pad{d}D")
    assert nn.ZeroPad3D(1)(dygraph.ones([1, 1, 1, 1, 1])).shape == [1, 1, 3, 3, 3]


def test_activation_and_common_layers():
    x = dygraph.to_tensor([[-2.0, 1.0, 3.0, -1.0]])
    rrelu = nn.RReLU(0.1, 0.3)
    low = rrelu(x).numpy()
    assert np.all((low[0, [0, 3]] <= -0.1 * np.array([2.0, 1.0]) + 1e-7)
                  & (low[0, [0, 3]] >= -0.3 * np.array([2.0, 1.0]) - 1e-7))
    np.testing.assert_allclose(rrelu.eval()(x).numpy(), [[-0.4, 1.0, 3.0, -0.2]], rtol=1e-6)
    t = dygraph.to_tensor([0.0, 1.0])
    assert nn.SiLU(inplace=True)(t) is t
    np.testing.assert_allclose(t.numpy(), [0.0, 1 / (1 + np.exp(-1.0))], rtol=1e-6)
    assert nn.Unflatten(-1, [2, 2])(x).shape == [1, 2, 2]
    assert nn.PairwiseDistance(keepdim=True)(x, x).shape == [1, 1]
    drop = nn.FeatureAlphaDropout(0.5)
    out = drop(dygraph.ones([8, 4, 3])).numpy()
    assert np.all(out == out[:, :, :1])  # one decision per (sample, channel)
    np.testing.assert_array_equal(drop.eval()(x).numpy(), x.numpy())


def test_embedding_max_norm_and_gradient_scaling_by_frequency():
    table = np.array([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
    emb = nn.Embedding(3, 2, max_norm=1.0, scale_grad_by_freq=True, _weight=table)
    ids = dygraph.to_tensor([[0, 0, 1]])
    out = emb(ids)
    np.testing.assert_allclose(emb.weight.numpy()[0], [0.6, 0.8], rtol=1e-6)
    np.testing.assert_allclose(emb.weight.numpy()[1:], table[1:])  # row 2 was not looked up
    out.sum().backward()
    np.testing.assert_allclose(emb.weight.grad.numpy(), [[1, 1], [1, 1], [0, 0]])
    assert nn.Embedding(3, 2, None, True)._sparse  # Paddle 2's positional `sparse`
