"""Conv, pooling and normalization layers (SyncBatchNorm on one process and SpectralNorm
too): forward against NumPy references, float64 gradient checks of every layer with
parameters, Paddle's defaults, running statistics, errors, and the kernels' buffer reuse."""

import numpy as np
import pytest

import dygraph
import dygraph.nn as nn
import dygraph.nn.functional as F
from dygraph.autograd import gradcheck
from tests.op_specs.spec_conv import conv_ref, conv_transpose_ref
from tests.op_specs.spec_norm import lrn_ref
from tests.op_specs.spec_pooling import adaptive_ref, pool_ref

RNG = np.random.default_rng(7)


@pytest.fixture
def float64():
    previous = dygraph.get_default_dtype()
    dygraph.set_default_dtype("float64")
    yield
    dygraph.set_default_dtype(previous)


def _t(shape, stop_gradient=True, dtype="float32"):
    return dygraph.to_tensor(RNG.standard_normal(shape).astype(dtype),
                             stop_gradient=stop_gradient)


def _layer_gradcheck(layer, x, names):
    """gradcheck of x, *params -> layer(x): the probe's values are put into the layer's
    parameters for the call, so the layer's own forward is what gets differentiated."""
    params = [getattr(layer, n) for n in names]

    def run(x_, *values):
        saved = [p._data for p in params]
        for p, v in zip(params, values):
            p._data = v._data
        try:
            return layer(x_)
        finally:
            for p, data in zip(params, saved):
                p._data = data

    return gradcheck(run, [x] + params)


def _std(x, axes, eps=1e-5):
    return (x - x.mean(axis=axes, keepdims=True)) / np.sqrt(x.var(axis=axes, keepdims=True) + eps)


# -- convolution ---------------------------------------------------------------------------

@pytest.mark.parametrize("cls, x_shape, kwargs, ref_kwargs", [
    (nn.Conv1D, (2, 3, 9), dict(stride=2, padding=1), dict(stride=2, padding=1)),
    (nn.Conv2D, (2, 4, 7, 6), dict(padding=[1, 2], dilation=2, groups=2),
     dict(padding=[1, 2], dilation=2, groups=2)),
    (nn.Conv3D, (1, 2, 4, 5, 4), dict(stride=[1, 2, 1], padding=1),
     dict(stride=[1, 2, 1], padding=1)),
])
def test_conv_layers_match_reference(cls, x_shape, kwargs, ref_kwargs):
    layer = cls(x_shape[1], 4, 3, **kwargs)
    x = _t(x_shape)
    want = conv_ref(x.numpy().astype(np.float64), layer.weight.numpy().astype(np.float64),
                    layer.bias.numpy(), **ref_kwargs)
    np.testing.assert_allclose(layer(x).numpy(), want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("cls, x_shape, kwargs", [
    (nn.Conv1DTranspose, (2, 4, 5), dict(stride=2, padding=1, output_padding=1, groups=2)),
    (nn.Conv2DTranspose, (2, 3, 4, 3), dict(stride=[2, 1], padding=[1, 0], dilation=[1, 2])),
    (nn.Conv3DTranspose, (1, 2, 2, 3, 2), dict(stride=2)),
])
def test_conv_transpose_layers_match_reference(cls, x_shape, kwargs):
    layer = cls(x_shape[1], 2, 3, **kwargs)
    x = _t(x_shape)
    want = conv_transpose_ref(x.numpy().astype(np.float64),
                              layer.weight.numpy().astype(np.float64), layer.bias.numpy(),
                              **kwargs)
    np.testing.assert_allclose(layer(x).numpy(), want, rtol=1e-4, atol=1e-4)


def test_conv_transpose_output_size_picks_among_valid_sizes():
    layer = nn.Conv2DTranspose(2, 3, 3, stride=2, padding=1)
    x = _t((1, 2, 4, 4))
    assert layer(x).shape == [1, 3, 7, 7]
    assert layer(x, output_size=[8, 8]).shape == [1, 3, 8, 8]
    with pytest.raises(ValueError, match="output_size"):
        layer(x, output_size=[9, 9])


@pytest.mark.parametrize("mode, np_mode", [("reflect", "reflect"), ("replicate", "edge"),
                                           ("circular", "wrap")])
def test_conv_padding_modes_pad_the_input(mode, np_mode):
    layer = nn.Conv2D(2, 3, 3, padding=[1, 2], padding_mode=mode)
    x = _t((2, 2, 5, 6))
    padded = np.pad(x.numpy().astype(np.float64), [(0, 0), (0, 0), (1, 1), (2, 2)], np_mode)
    want = conv_ref(padded, layer.weight.numpy().astype(np.float64), layer.bias.numpy())
    np.testing.assert_allclose(layer(x).numpy(), want, rtol=1e-4, atol=1e-4)


def test_conv_channels_last_equals_channels_first():
    first = nn.Conv2D(3, 4, 3, padding="same")
    last = nn.Conv2D(3, 4, 3, padding="same", data_format="NHWC")
    last.weight.set_value(first.weight)
    last.bias.set_value(_t([4]))
    first.bias.set_value(last.bias)
    x = _t((2, 3, 5, 4))
    y_last = last(dygraph.transpose(x, [0, 2, 3, 1]))
    np.testing.assert_allclose(y_last.numpy().transpose(0, 3, 1, 2), first(x).numpy(),
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("make, x_shape", [
    (lambda: nn.Conv1D(2, 3, 3, padding=1, dilation=2), (2, 2, 6)),
    (lambda: nn.Conv2D(4, 4, 2, stride=2, groups=2), (2, 4, 5, 4)),
    (lambda: nn.Conv2D(2, 3, 3, padding=1, padding_mode="circular"), (1, 2, 4, 4)),
    (lambda: nn.Conv3D(2, 2, 2, padding=[1, 0, 1]), (1, 2, 3, 3, 2)),
    (lambda: nn.Conv1DTranspose(2, 2, 3, stride=2), (2, 2, 3)),
    (lambda: nn.Conv2DTranspose(2, 4, 3, stride=2, padding=1, groups=2), (1, 2, 3, 3)),
    (lambda: nn.Conv3DTranspose(1, 2, 2), (1, 1, 2, 2, 2)),
])
def test_conv_layer_gradients(float64, make, x_shape):
    layer = make()
    assert layer.weight.dtype == dygraph.float64
    assert _layer_gradcheck(layer, _t(x_shape, False, "float64"), ["weight", "bias"])


def test_conv_defaults_follow_paddle():
    conv = nn.Conv2D(64, 32, 3)
    std = np.sqrt(2.0 / (9 * 64))
    assert abs(conv.weight.numpy().std() - std) < 0.1 * std
    assert not conv.bias.numpy().any()
    assert conv.weight.name.startswith("conv2d_") and conv.weight.name.endswith(".w_0")
    assert conv.bias.name.endswith(".b_0")
    transposed = nn.Conv2DTranspose(16, 8, 3)
    bound = np.sqrt(6.0 / ((16 + 8) * 9))  # XavierUniform of a [16, 8, 3, 3] weight
    assert transposed.weight.shape == [16, 8, 3, 3]
    assert np.abs(transposed.weight.numpy()).max() <= bound
    assert nn.Conv2D(1, 2, 3, bias_attr=False).bias is None
    assert repr(nn.Conv2D(3, 4, 3, stride=2, padding=1, groups=1)) == (
        "Conv2D(3, 4, kernel_size=[3, 3], stride=[2, 2], padding=1, data_format=NCHW)")


def test_conv_errors_name_the_shapes():
    with pytest.raises(ValueError, match="groups"):
        nn.Conv2D(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="padding_mode"):
        nn.Conv2D(3, 4, 3, padding_mode="mirror")
    with pytest.raises(ValueError, match=r"x has 2 channels .*\[4, 3, 3, 3\]"):
        nn.Conv2D(3, 4, 3)(_t((1, 2, 5, 5)))
    with pytest.raises(ValueError, match="4-D"):
        nn.Conv2D(3, 4, 3)(_t((3, 5, 5)))
    with pytest.raises(ValueError, match="empty"):
        nn.Conv2D(1, 1, 5)(_t((1, 1, 3, 3)))
    with pytest.raises(TypeError, match="dtype"):
        F.conv2d(_t((1, 1, 3, 3)), _t((1, 1, 2, 2), dtype="float64"))
    with pytest.raises(ValueError, match="data_format"):
        F.conv1d(_t((1, 1, 3)), _t((1, 1, 2)), data_format="NCHW")


# -- pooling -------------------------------------------------------------------------------

def _distinct(shape):
    return dygraph.to_tensor((RNG.permutation(int(np.prod(shape))).reshape(shape) * 0.1)
                             .astype(np.float32))


@pytest.mark.parametrize("layer, x_shape, ref", [
    (nn.MaxPool1D(3, 2, 1), (2, 3, 8), lambda x: pool_ref(x, [3], [2], [(1, 1)])),
    (nn.MaxPool2D(2), (2, 3, 6, 4), lambda x: pool_ref(x, [2, 2])),
    (nn.MaxPool2D(3, 2, 1, ceil_mode=True), (1, 2, 6, 7),
     lambda x: pool_ref(x, [3, 3], [2, 2], [(1, 1), (1, 1)], ceil=True)),
    (nn.MaxPool3D(2, 1), (1, 2, 3, 3, 3), lambda x: pool_ref(x, [2, 2, 2], [1, 1, 1])),
    (nn.AvgPool1D(2), (2, 3, 8), lambda x: pool_ref(x, [2], mode="avg")),
    (nn.AvgPool2D(3, 2, 1, exclusive=False), (2, 2, 5, 5),
     lambda x: pool_ref(x, [3, 3], [2, 2], [(1, 1), (1, 1)], mode="avg", exclusive=False)),
    (nn.AvgPool3D(2), (1, 2, 4, 2, 2), lambda x: pool_ref(x, [2, 2, 2], mode="avg")),
    (nn.AdaptiveAvgPool1D(3), (2, 3, 7), lambda x: adaptive_ref(x, [3], "avg")),
    (nn.AdaptiveAvgPool2D([2, 3]), (2, 3, 5, 7), lambda x: adaptive_ref(x, [2, 3], "avg")),
    (nn.AdaptiveAvgPool3D(1), (1, 2, 3, 3, 3), lambda x: adaptive_ref(x, [1, 1, 1], "avg")),
    (nn.AdaptiveMaxPool1D(3), (2, 3, 7), lambda x: adaptive_ref(x, [3], "max")),
    (nn.AdaptiveMaxPool2D(2), (2, 3, 5, 5), lambda x: adaptive_ref(x, [2, 2], "max")),
    (nn.AdaptiveMaxPool3D([1, 2, 2]), (1, 2, 3, 4, 4),
     lambda x: adaptive_ref(x, [1, 2, 2], "max")),
])
def test_pool_layers_match_reference(layer, x_shape, ref):
    x = _distinct(x_shape)
    np.testing.assert_allclose(layer(x).numpy(), ref(x.numpy().astype(np.float64)),
                               rtol=1e-5, atol=1e-5)


def test_max_pool_mask_indexes_the_input_and_ties_go_to_the_first():
    x = dygraph.to_tensor(np.array([[[[1.0, 5.0, 5.0, 0.0],
                                      [2.0, 3.0, 7.0, 7.0],
                                      [4.0, 4.0, 0.0, 1.0],
                                      [4.0, 4.0, 2.0, 9.0]]]], np.float32),
                          stop_gradient=False)
    y, mask = nn.MaxPool2D(2, return_mask=True)(x)
    np.testing.assert_array_equal(mask.numpy()[0, 0], [[1, 6], [8, 15]])
    assert mask.dtype == dygraph.int32
    y.sum().backward()
    want = np.zeros((4, 4), np.float32)
    want[0, 1] = want[1, 2] = want[2, 0] = want[3, 3] = 1.0
    np.testing.assert_array_equal(x.grad.numpy()[0, 0], want)
    flat = x.numpy().reshape(1, 1, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, mask.numpy().reshape(1, 1, -1), 2),
                                  y.numpy().reshape(1, 1, -1))
    with pytest.raises(ValueError, match="return_mask"):
        F.max_pool2d(x, 2, return_mask=True, data_format="NHWC")


def test_pool_reprs():
    assert repr(nn.MaxPool2D(3, 2, 1)) == "MaxPool2D(kernel_size=3, stride=2, padding=1)"
    assert repr(nn.AdaptiveAvgPool2D(3)) == "AdaptiveAvgPool2D(output_size=3)"
    assert repr(nn.AdaptiveMaxPool1D(3, return_mask=True)) == (
        "AdaptiveMaxPool1D(output_size=3, return_mask=True)")


# -- normalization -------------------------------------------------------------------------

def test_batch_norm_training_updates_running_statistics_then_eval_uses_them():
    bn = nn.BatchNorm2D(3, momentum=0.8)
    x1, x2 = _t((4, 3, 2, 2)), _t((4, 3, 2, 2))
    a1, a2 = x1.numpy(), x2.numpy()
    y = bn(x1)
    np.testing.assert_allclose(y.numpy(), _std(a1, (0, 2, 3)), rtol=1e-4, atol=1e-4)
    bn(x2)
    mean = 0.8 * (0.2 * a1.mean((0, 2, 3))) + 0.2 * a2.mean((0, 2, 3))
    var = 0.8 * (0.8 + 0.2 * a1.var((0, 2, 3))) + 0.2 * a2.var((0, 2, 3))
    np.testing.assert_allclose(bn._mean.numpy(), mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn._variance.numpy(), var, rtol=1e-5, atol=1e-6)
    bn.eval()
    want = (a1 - mean.reshape(1, 3, 1, 1)) / np.sqrt(var.reshape(1, 3, 1, 1) + 1e-5)
    np.testing.assert_allclose(bn(x1).numpy(), want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(bn._mean.numpy(), mean, rtol=1e-5, atol=1e-6)  # unchanged
    assert set(bn.state_dict()) == {"weight", "bias", "_mean", "_variance"}
    assert bn._mean.stop_gradient and not bn._mean.trainable


def test_batch_norm_global_stats_and_formats():
    bn = nn.BatchNorm1D(3, use_global_stats=True)
    bn._mean.set_value(np.array([1.0, 2.0, 3.0], np.float32))
    x = _t((5, 3))
    np.testing.assert_allclose(bn(x).numpy(), (x.numpy() - [1.0, 2.0, 3.0]) / np.sqrt(1 + 1e-5),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(bn._mean.numpy(), [1.0, 2.0, 3.0])
    nlc = nn.BatchNorm1D(3, data_format="NLC")
    x = _t((2, 4, 3))
    np.testing.assert_allclose(nlc(x).numpy(), _std(x.numpy(), (0, 1)), rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="4-D"):
        nn.BatchNorm2D(3)(_t((2, 3, 4)))


def test_batch_norm_1x_act_and_trainable_statistics():
    bn = nn.BatchNorm(3, act="relu", trainable_statistics=True)
    bn.eval()
    x = _t((6, 3, 2))
    np.testing.assert_allclose(bn(x).numpy(), np.maximum(_std(x.numpy(), (0, 2)), 0),
                               rtol=1e-4, atol=1e-4)
    assert repr(bn) == "BatchNorm()"
    assert [n for n, _ in bn.named_parameters()] == ["weight", "bias", "_mean", "_variance"]


@pytest.mark.parametrize("make, x_shape, names", [
    (lambda: nn.BatchNorm1D(3), (5, 3, 2), ["weight", "bias"]),
    (lambda: nn.BatchNorm2D(2), (3, 2, 2, 2), ["weight", "bias"]),
    (lambda: nn.BatchNorm3D(2), (2, 2, 2, 1, 2), ["weight", "bias"]),
    (lambda: nn.BatchNorm(2), (4, 2, 3), ["weight", "bias"]),
    (lambda: nn.LayerNorm([2, 3]), (2, 2, 3), ["weight", "bias"]),
    (lambda: nn.GroupNorm(2, 4), (2, 4, 3), ["weight", "bias"]),
    (lambda: nn.InstanceNorm1D(2), (2, 2, 4), ["scale", "bias"]),
    (lambda: nn.InstanceNorm2D(2), (2, 2, 2, 3), ["scale", "bias"]),
    (lambda: nn.InstanceNorm3D(2), (1, 2, 2, 2, 2), ["scale", "bias"]),
])
def test_norm_layer_gradients(float64, make, x_shape, names):
    layer = make()
    x = _t(x_shape, False, "float64")
    assert _layer_gradcheck(layer, x, names)
    layer.eval()
    assert _layer_gradcheck(layer, x, names)


def test_batch_norm_eval_gradient(float64):
    bn = nn.BatchNorm2D(2)
    bn._mean.set_value(np.array([0.3, -0.2]))
    bn._variance.set_value(np.array([0.5, 2.0]))
    bn.eval()
    assert _layer_gradcheck(bn, _t((2, 2, 2, 2), False, "float64"), ["weight", "bias"])


@pytest.mark.parametrize("layer, x_shape, axes", [
    (nn.BatchNorm3D(2), (3, 2, 2, 3, 2), (0, 2, 3, 4)),
    (nn.InstanceNorm1D(3), (2, 3, 5), (2,)),
    (nn.InstanceNorm3D(2), (2, 2, 2, 3, 2), (2, 3, 4)),
])
def test_more_norm_layers_match_reference(layer, x_shape, axes):
    x = _t(x_shape)
    np.testing.assert_allclose(layer(x).numpy(), _std(x.numpy(), axes), rtol=1e-4, atol=1e-4)


def test_layer_group_instance_norm_match_reference():
    x = _t((2, 4, 3, 2))
    a = x.numpy()
    ln = nn.LayerNorm([3, 2])
    ln.weight.set_value(np.arange(6, dtype=np.float32))
    want = _std(a, (2, 3)) * np.arange(6).reshape(3, 2)
    np.testing.assert_allclose(ln(x).numpy(), want, rtol=1e-4, atol=1e-4)
    gn = nn.GroupNorm(2, 4)
    want = _std(a.reshape(2, 2, -1), (2,)).reshape(a.shape)
    np.testing.assert_allclose(gn(x).numpy(), want, rtol=1e-4, atol=1e-4)
    inorm = nn.InstanceNorm2D(4)
    np.testing.assert_allclose(inorm(x).numpy(), _std(a, (2, 3)), rtol=1e-4, atol=1e-4)
    lrn = nn.LocalResponseNorm(3, alpha=0.5)
    np.testing.assert_allclose(lrn(x).numpy(), lrn_ref(a.astype(np.float64), 3, 0.5, 0.75, 1.0),
                               rtol=1e-5, atol=1e-5)
    assert nn.LayerNorm(4, weight_attr=False).weight is None
    assert nn.InstanceNorm2D(2, bias_attr=False).bias is None
    with pytest.raises(ValueError, match="num_groups"):
        nn.GroupNorm(3, 4)
    with pytest.raises(ValueError, match="normalized_shape"):
        ln(_t((2, 3, 3)))


# -- in a model ----------------------------------------------------------------------------

def test_small_cnn_trains():
    dygraph.seed(3)
    model = nn.Sequential(nn.Conv2D(1, 4, 3, padding=1), nn.BatchNorm2D(4), nn.ReLU(),
                          nn.MaxPool2D(2), nn.Flatten(), nn.Linear(4 * 4 * 4, 2))
    opt = dygraph.optimizer.Adam(learning_rate=0.05, parameters=model.parameters())
    x = _t((16, 1, 8, 8))
    label = dygraph.to_tensor((x.numpy()[:, 0, :4].mean((1, 2)) > 0).astype(np.int64))
    losses = []
    for _ in range(15):
        loss = F.cross_entropy(model(x), label)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < 0.5 * losses[0]


def test_saved_columns_survive_later_calls_and_a_second_backward():
    conv = nn.Conv2D(2, 3, 3)
    x1, x2 = _t((2, 2, 5, 5)), _t((2, 2, 5, 5))
    y1 = conv(x1)
    conv(x2).sum().backward()  # another conv of the same shape before y1's backward
    conv.clear_gradients()
    y1.sum().backward(retain_graph=True)
    first = conv.weight.grad.numpy().copy()
    for _ in range(3):
        conv(x2)  # columns taken from and given back to the workspace meanwhile
    y1.sum().backward()
    np.testing.assert_allclose(conv.weight.grad.numpy(), 2 * first, rtol=1e-5)
    # d sum(y) / dW[m, c, i, j] is the sum of x over the windows shifted by (i, j).
    a = x1.numpy()
    expected = np.array([[[a[:, c, i:i + 3, j:j + 3].sum() for j in range(3)]
                          for i in range(3)] for c in range(2)])
    np.testing.assert_allclose(first[0], expected, rtol=1e-4)


@pytest.mark.parametrize("x_shape, w_shape", [((5, 2, 7, 6), (3, 2, 3, 3)),
                                              ((5, 6, 3, 3), (4, 6, 3, 3)),
                                              ((3, 80, 24, 24), (4, 80, 3, 3))])
def test_conv_in_sample_chunks_equals_one_pass(monkeypatch, x_shape, w_shape):
    """Big batches build their columns a few samples at a time (all three filter-gradient
    layouts: per sample, few positions, and the flipped product of many positions)."""
    from dygraph.ops.conv import im2col

    def run():
        x, w = _t(x_shape, False, "float64"), _t(w_shape, False, "float64")
        x._data, w._data = base_x, base_w
        y = F.conv2d(x, w, padding=1)
        (y * y).sum().backward()
        return y.numpy(), x.grad.numpy(), w.grad.numpy()

    base_x, base_w = RNG.standard_normal(x_shape), RNG.standard_normal(w_shape)
    whole = run()
    monkeypatch.setattr(im2col, "CHUNK_BYTES", 1)  # one sample per chunk
    for got, want in zip(run(), whole):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


def test_empty_batch():
    x = dygraph.zeros([0, 2, 5, 5])
    x.stop_gradient = False
    conv = nn.Conv2D(2, 3, 3)
    y = nn.MaxPool2D(2)(conv(x))
    assert y.shape == [0, 3, 1, 1]
    y.sum().backward()
    assert x.grad.shape == [0, 2, 5, 5]
    assert not conv.weight.grad.numpy().any()


def test_result_memory_is_reused_only_after_every_view_is_gone():
    import gc

    from dygraph.backend.workspace import workspace

    gc.collect()  # buffers earlier tests left in the pool would be handed out first
    workspace.free.clear()
    workspace.held = 0
    w = _t((8, 8, 3, 3))
    y = F.conv2d(_t((4, 8, 32, 32)), w)  # 115 KB: large enough to come from the workspace
    view = y._data[1]
    want = view.copy()
    first = y._data.__array_interface__["data"][0]
    del y
    z = F.conv2d(_t((4, 8, 32, 32)), w)  # the view still holds the first buffer
    second = z._data.__array_interface__["data"][0]
    assert second != first
    np.testing.assert_array_equal(view, want)
    del view, z
    again = F.conv2d(_t((4, 8, 32, 32)), w)
    assert again._data.__array_interface__["data"][0] in (first, second)


def test_max_pool_with_more_taps_than_a_byte_counts():
    """Overlapping 17x17 windows (289 taps) keep the winning tap as int32."""
    x = _distinct((1, 2, 20, 20))
    x.stop_gradient = False
    y, mask = F.max_pool2d(x, 17, 1, return_mask=True)
    np.testing.assert_allclose(y.numpy(), pool_ref(x.numpy(), [17, 17], [1, 1]))
    flat = x.numpy().reshape(1, 2, -1)
    np.testing.assert_array_equal(
        np.take_along_axis(flat, mask.numpy().reshape(1, 2, -1), 2).reshape(y.shape), y.numpy())
    y.sum().backward()
    assert x.grad.numpy().sum() == y.size


def test_sync_batch_norm_on_one_process_is_batch_norm():
    x = dygraph.to_tensor(np.random.default_rng(2).standard_normal((4, 3, 2, 2)))
    sync, ref = nn.SyncBatchNorm(3), nn.BatchNorm2D(3)
    np.testing.assert_allclose(sync(x).numpy(), ref(x).numpy())
    np.testing.assert_allclose(sync._mean.numpy(), ref._mean.numpy())
    net = nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(nn.BatchNorm1D(3)))
    assert isinstance(net[0], nn.SyncBatchNorm)


def test_spectral_norm_divides_by_the_largest_singular_value():
    w = np.random.default_rng(3).standard_normal((3, 4))
    sn = nn.SpectralNorm([3, 4], power_iters=50, dtype="float64")
    out = sn(dygraph.to_tensor(w)).numpy()
    np.testing.assert_allclose(np.linalg.svd(out, compute_uv=False)[0], 1.0, rtol=1e-6)
    # The singular vectors are constants in the gradient: d/dW <G, W / s> with s = u^T W v.
    x = dygraph.to_tensor(w, stop_gradient=False)
    g = np.arange(12.0).reshape(3, 4)
    (sn(x) * dygraph.to_tensor(g)).sum().backward()
    u, s, vt = np.linalg.svd(w)
    want = g / s[0] - (g * w).sum() / s[0] ** 2 * np.outer(u[:, 0], vt[0])
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-5, atol=1e-8)
