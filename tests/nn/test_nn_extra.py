"""Behaviour of the Paddle 3 additions to dygraph.nn that the spec table does not cover:
Paddle's window rules of fractional pooling (values recorded from Paddle 3.3), the layers
(padding by mode, pooling, losses, SyncBatchNorm on one process, SpectralNorm, containers,
torch-style aliases), the Layer API of Paddle 3 (Sequential.insert, remove_duplicate,
forward hooks with kwargs) and Embedding's max_norm / scale_grad_by_freq."""

import numpy as np
import pytest

import dygraph
import dygraph.nn as nn
import dygraph.nn.functional as F
from dygraph.ops.pool.lp_unpool_fractional import _fractional_windows


@pytest.mark.parametrize("size, out, u, k, starts, ends", [
    (9, 4, 0.56, 2, [0, 2, 4, 7], [2, 4, 6, 9]),
    (10, 3, 0.3, 2, [0, 4, 8], [2, 6, 10]),
    (7, 3, 0.9, 3, [0, 2, 4], [3, 5, 7]),
    (7, 1, 0.5, 2, [0], [2]),
    (9, 4, 0.56, 0, [0, 2, 5, 7], [2, 5, 7, 9]),
    (7, 6, 0.95, 0, [0, 1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 7]),
    (7, 6, 0.5, 0, [0, 1, 2, 4, 5, 6], [1, 2, 4, 5, 6, 7]),
    (13, 5, 0.9, 0, [0, 2, 5, 8, 10], [2, 5, 8, 10, 13]),
])
def test_fractional_windows_follow_paddle(size, out, u, k, starts, ends):
    assert _fractional_windows(size, out, u, k) == (starts, ends)


def test_fractional_pool_mask_points_at_the_maxima():
    x = dygraph.to_tensor(np.random.default_rng(0).standard_normal((2, 3, 7, 6)))
    y, mask = F.fractional_max_pool2d(x, [3, 4], random_u=0.3, return_mask=True)
    flat = x.numpy().reshape(2, 3, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, mask.numpy().reshape(2, 3, -1), 2),
                                  y.numpy().reshape(2, 3, -1))
    with pytest.raises(ValueError, match="random_u"):
        F.fractional_max_pool2d(x, 3, random_u=1.5)


def test_max_unpool_inverts_max_pool():
    x = dygraph.to_tensor(np.random.default_rng(1).standard_normal((1, 2, 4, 4)))
    y, idx = F.max_pool2d(x, 2, return_mask=True)
    back = nn.MaxUnPool2D(2)(y, idx).numpy()
    assert back.shape == (1, 2, 4, 4)
    kept = back != 0
    np.testing.assert_array_equal(back[kept], x.numpy()[kept])
    assert kept.sum() == 8
    with pytest.raises(ValueError, match="indices"):
        F.max_unpool2d(y, idx * 10, 2)


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


def test_loss_layers_call_their_functions():
    x = dygraph.to_tensor([[0.1, 0.2, 0.4, 0.8], [0.5, -0.3, 0.2, 0.0]])
    y = dygraph.to_tensor([3, 0])
    assert float(nn.MultiMarginLoss(reduction="sum")(x, y)) == pytest.approx(
        float(F.multi_margin_loss(x, y, reduction="sum")))
    var = dygraph.ones([2, 4])
    assert float(nn.GaussianNLLLoss(full=True)(x, x, var)) == pytest.approx(
        0.5 * np.log(2 * np.pi))
    with pytest.raises(ValueError, match="reduction"):
        nn.SoftMarginLoss(reduction="avg")


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


def test_containers_and_aliases():
    maker = nn.Layer()
    params = nn.ParameterDict({"a": maker.create_parameter([2])})
    params["b"] = maker.create_parameter([3])
    assert list(params) == ["a", "b"] and "b" in params
    holder = nn.Module()
    holder.params = params
    assert sorted(holder.state_dict()) == ["params.a", "params.b"]
    assert nn.ModuleList is nn.LayerList and nn.ModuleDict is nn.LayerDict
    conv = nn.Conv1d(2, 4, 3, bias=False, dtype="float64")
    assert conv.bias is None and conv.weight.dtype == dygraph.float64
    assert nn.AdaptiveMaxPool2d is nn.AdaptiveMaxPool2D and nn.LPPool1d is nn.LPPool1D
    made = nn.Parameter([2, 3], "float64")  # Paddle's (shape, dtype) form
    assert made.shape == [2, 3] and made.dtype == dygraph.float64 and not made.stop_gradient
    wrapped = nn.Parameter(dygraph.ones([2]), name="w", trainable=False)
    assert wrapped.name == "w" and wrapped.stop_gradient


def test_sequential_append_insert_extend():
    net = nn.Sequential(nn.ReLU()).append(nn.Tanh()).extend([nn.Sigmoid()])
    net.insert(-1, nn.Silu())
    assert [type(layer).__name__ for layer in net] == ["ReLU", "Tanh", "Silu", "Sigmoid"]
    assert list(net._sub_layers) == ["0", "1", "2", "3"]
    with pytest.raises(IndexError):
        net.insert(9, nn.ReLU())


def test_remove_duplicate_lists_shared_members_under_every_name():
    shared = nn.Linear(2, 2)
    net = nn.Sequential(shared, shared)
    assert len(list(net.named_parameters())) == 2
    assert [n for n, _ in net.named_parameters(remove_duplicate=False)] == [
        "0.weight", "0.bias", "1.weight", "1.bias"]
    assert [n for n, _ in net.named_sublayers(remove_duplicate=False)] == ["0", "1"]


class _Scaled(nn.Layer):
    def forward(self, x, scale=1.0):
        if scale < 0:
            raise ValueError("negative scale")
        return x * scale


def test_forward_hooks_with_kwargs_prepend_and_always_call():
    layer, log = _Scaled(), []
    layer.register_forward_pre_hook(lambda m, args: log.append("plain"))
    layer.register_forward_pre_hook(
        lambda m, args, kwargs: (log.append("kwargs"), (args, {"scale": 3.0}))[1],
        with_kwargs=True, prepend=True)
    layer.register_forward_post_hook(lambda m, args, kwargs, out: out + kwargs["scale"],
                                     with_kwargs=True)
    assert float(layer(dygraph.to_tensor(1.0))) == 6.0
    assert log == ["kwargs", "plain"]
    failing, seen = _Scaled(), []
    failing.register_forward_post_hook(lambda m, args, out: seen.append(out), always_call=True)
    with pytest.raises(ValueError, match="negative"):
        failing(dygraph.to_tensor(1.0), scale=-1.0)
    assert seen == [None]


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


def test_inplace_forms_keep_the_input_for_backward():
    x = dygraph.to_tensor([0.5, -1.0], stop_gradient=False)
    y = x * 1.0
    y.sin_()
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([0.5, -1.0]))
    x.clear_grad()
    F.elu_(x * 1.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, np.exp(-1.0)])


def test_sequence_helpers():
    np.testing.assert_array_equal(F.sequence_mask(dygraph.to_tensor([2, 0]), 3).numpy(),
                                  [[1, 1, 0], [0, 0, 0]])
    labels = dygraph.to_tensor([5, 2, 5])
    remapped, centers = F.class_center_sample(labels, 10, 4)
    centers = centers.numpy()
    assert len(centers) == 4 and list(centers[:2]) == [2, 5] and len(set(centers)) == 4
    np.testing.assert_array_equal(centers[remapped.numpy()], labels.numpy())
