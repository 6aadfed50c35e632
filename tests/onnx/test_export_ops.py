"""Each op mapping on its own: a small function exported with a dynamic batch equals eager
in onnxruntime at two batch sizes; unmapped ops and bad arguments fail clearly."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph import nn
from dygraph.static import InputSpec
from tests.onnx.helpers import check_export, images


class Fn(nn.Layer):
    """A function of x as a layer, with optional sublayers (their parameters export)."""

    def __init__(self, fn, *layers):
        super().__init__()
        self.fn = fn
        self.parts = nn.LayerList(list(layers))

    def forward(self, x):
        return self.fn(x, *self.parts)


CASES = {
    # activations
    "relu6_hardswish_hardsigmoid": lambda x: F.relu6(x * 4) + F.hardswish(x * 4)
    + F.hardsigmoid(x * 4),
    "sigmoid_tanh_silu": lambda x: F.sigmoid(x) * dygraph.tanh(x) + F.silu(x),
    "gelu": lambda x: F.gelu(x) + F.gelu(x * 2, approximate=True),
    "leaky_elu_selu_celu": lambda x: F.leaky_relu(x, 0.2) + F.elu(x, 0.5) + F.selu(x)
    + F.celu(x, 2.0),
    "softplus_softsign_mish_logsigmoid": lambda x: F.softplus(x * 5, beta=2, threshold=4)
    + F.softsign(x) + F.mish(x) + F.log_sigmoid(x),
    "hardtanh_shrinks_thresholded": lambda x: F.hardtanh(x, -0.5, 0.5) + F.hardshrink(x)
    + F.softshrink(x, 0.3) + F.thresholded_relu(x, 0.5) + F.tanhshrink(x),
    "softmax_log_softmax": lambda x: F.softmax(x, -1) + F.log_softmax(x, 1),
    "prelu": lambda x, p: p(x),
    # elementwise with broadcasting, unary math
    "broadcast_arith": lambda x: (x - x.mean(axis=1, keepdim=True)) / (x.abs().mean() + 1.0)
    * dygraph.to_tensor(np.arange(5, dtype=np.float32)) + 2.0,
    "pow_max_min_clip": lambda x: dygraph.pow(dygraph.abs(x), 1.5) + dygraph.maximum(x, -x * 2)
    + dygraph.minimum(x, dygraph.zeros([5])) + dygraph.clip(x, -0.3, 0.4),
    "unary_math": lambda x: dygraph.exp(x) + dygraph.log(dygraph.abs(x) + 1)
    + dygraph.sqrt(dygraph.abs(x)) + dygraph.rsqrt(dygraph.abs(x) + 1) + dygraph.square(x)
    + dygraph.sin(x) + dygraph.cos(x) + dygraph.log1p(dygraph.abs(x))
    + dygraph.expm1(x) + dygraph.reciprocal(x * x + 1) + dygraph.floor(x) - x.sign(),
    "where_compare": lambda x: dygraph.where(x > 0, x, x * 0.1)
    + (x <= 0.2).astype("float32"),
    "reductions": lambda x: x.sum(axis=[1, 2, 3]) + x.mean(axis=-1).max(axis=[1, 2])
    + x.min(axis=[1, 2, 3]) + x.sum(axis=2, keepdim=True).squeeze(2).amax([1, 2]),
    "var_std": lambda x: dygraph.std(x, axis=[1, 3]).sum(axis=1, keepdim=True)
    + dygraph.var(x, axis=-1, unbiased=False).mean(axis=[1, 2]).unsqueeze(1)
    + dygraph.std(x).unsqueeze(0)
    + dygraph.std(x, axis=0, keepdim=True, unbiased=False)[:, 0, 0, :1],
    "interpolate": lambda x: dygraph.concat([
        F.interpolate(x, size=[6, 7], mode="bilinear").flatten(1),
        F.interpolate(x, scale_factor=2, mode="nearest").flatten(1),
        F.interpolate(x, size=[4, 9], mode="bicubic", align_corners=True).flatten(1),
        F.interpolate(x, size=[2, 3], mode="area").flatten(1)], 1),
    "cumsum": lambda x: dygraph.cumsum(x, 1) + dygraph.cumsum(x, axis=-1) * 0.5,
    "argmax_argmin": lambda x: dygraph.argmax(x, axis=1) * 10 + dygraph.argmin(
        x, axis=1, keepdim=True, dtype="int32").astype("int64").squeeze(1)
    + dygraph.argmax(x[:, 0, 0], keepdim=True),
    # shapes
    "reshape_flatten_transpose": lambda x: dygraph.transpose(
        dygraph.flatten(x, 1).reshape([0, 5, -1]), [0, 2, 1]),
    "concat_split_stack": lambda x: dygraph.concat(
        dygraph.split(x, [1, 3], axis=1)[::-1] + [dygraph.stack([x[:, 0], x[:, 1]], 1)], 1),
    "chunk_unbind_unsqueeze": lambda x: dygraph.unsqueeze(
        dygraph.unbind(dygraph.chunk(x, 2, axis=1)[1], 1)[0], [1, 3]),
    "slicing": lambda x: x[:, 1:3, ::2, -1] + x[..., 0, None][:, :2, ::-2, 0]
    + dygraph.slice(x, [1, 2], [0, 1], [2, 3])[..., 0],
    "tile_flip_pad_cast": lambda x: dygraph.flip(dygraph.tile(x, [1, 1, 2, 1]), [2, 3])[:, :, :3]
    + F.pad(x, [1, 1, 2, 2])[:, :, 1:9:2, 1:6].astype("float64").astype("float32"),
    "matmul_transposes": lambda x: dygraph.matmul(x, x, transpose_y=True)
    + dygraph.matmul(x[:, :, :4], x[:, :, :4], transpose_x=True)[:, :4, :4].sum()
    + dygraph.matmul(x, dygraph.ones([5])).unsqueeze(-1),
    # layers
    "linear_3d": lambda x, lin: lin(x),
    "layer_norm": lambda x, ln: ln(x),
    "group_instance_norm": lambda x, gn, inorm: gn(x) + inorm(x),
}
LAYERS = {
    "prelu": lambda: [nn.PReLU(4, 0.1)],
    "linear_3d": lambda: [nn.Linear(5, 3)],
    "layer_norm": lambda: [nn.LayerNorm([3, 5])],
    "group_instance_norm": lambda: [nn.GroupNorm(2, 4), nn.InstanceNorm2D(4)],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_op_mappings_match_eager(tmp_path, name):
    dygraph.seed(0)
    layer = Fn(CASES[name], *LAYERS.get(name, lambda: [])())
    check_export(tmp_path, layer, [None, 4, 3, 5], images((4, 3, 5)), batches=(1, 3),
                 atol=1e-5)


def test_conv_variants_and_pools(tmp_path):
    dygraph.seed(1)
    convs = [nn.Conv2D(4, 8, 3, stride=2, padding=1), nn.Conv2D(8, 8, 3, groups=8, padding=2,
                                                                 dilation=2),
             nn.Conv2D(8, 6, (1, 3), padding="same", bias_attr=False), nn.Conv1D(4, 4, 3)]

    def fn(x, a, b, c, d):
        y = c(b(a(x)))
        return (F.max_pool2d(y, 3, 2, 1, ceil_mode=True).mean(axis=[2, 3])
                + F.avg_pool2d(y, 3, 2, 1, exclusive=True).sum(axis=[2, 3])
                + F.avg_pool2d(y, 2, ceil_mode=True, exclusive=False).amax(axis=[2, 3])
                + F.adaptive_avg_pool2d(y, 3).mean(axis=[2, 3])
                + F.adaptive_avg_pool2d(y, 1).flatten(1)
                + F.adaptive_max_pool2d(y, (5, 3)).sum(axis=[2, 3])
                + F.avg_pool1d(d(x.flatten(2)), 2).sum(axis=2)[:, :1])

    check_export(tmp_path, Fn(fn, *convs), [None, 4, 9, 11], images((4, 9, 11)), atol=1e-5)


def test_unmapped_op_names_its_class(tmp_path):
    with pytest.raises(NotImplementedError, match="op Cumprod .* has no ONNX mapping"):
        dygraph.onnx.export(Fn(lambda x: dygraph.cumprod(x, 1)), str(tmp_path / "m"),
                            [InputSpec([None, 4])])
    with pytest.raises(NotImplementedError, match="uneven bins"):
        dygraph.onnx.export(Fn(lambda x: F.adaptive_max_pool2d(x, 2)), str(tmp_path / "m"),
                            [InputSpec([None, 1, 5, 5])])


def test_training_dropout_and_bad_arguments_are_refused(tmp_path):
    layer = Fn(lambda x: F.dropout(x, 0.5, training=True))
    with pytest.raises(ValueError, match="dropout in training mode"):
        dygraph.onnx.export(layer, str(tmp_path / "m"), [InputSpec([None, 4])])
    with pytest.raises(ValueError, match="input_spec"):
        dygraph.onnx.export(nn.ReLU(), str(tmp_path / "m"))
    with pytest.raises(ValueError, match="opset_version"):
        dygraph.onnx.export(nn.ReLU(), str(tmp_path / "m"), [InputSpec([2])], opset_version=7)
    with pytest.raises(TypeError, match="unsupported options"):
        dygraph.onnx.export(nn.ReLU(), str(tmp_path / "m"), [InputSpec([2])], verbose=True)


def test_example_tensor_spec_fixes_the_shape_and_training_flag_is_restored(tmp_path):
    net = nn.Sequential(nn.Linear(3, 2), nn.Dropout(0.5))
    net.train()
    path = str(tmp_path / "fixed")
    dygraph.onnx.export(net, path, [dygraph.ones([2, 3])])
    assert net.training
    from tests.onnx.helpers import session

    sess = session(path + ".onnx")
    assert sess.get_inputs()[0].shape == [2, 3]
    net.eval()
    x = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(sess.run(None, {sess.get_inputs()[0].name: x})[0],
                               net(dygraph.to_tensor(x)).numpy(), atol=1e-6)


@pytest.mark.parametrize("opset", [13, 17, 20])
def test_opsets(tmp_path, opset):
    dygraph.seed(2)
    layer = Fn(lambda x, ln: F.gelu(ln(x)).mean(axis=-1).max(axis=1), nn.LayerNorm(5))
    layer.eval()
    path = str(tmp_path / "m")
    dygraph.onnx.export(layer, path, [InputSpec([None, 4, 5], "float32", "x")],
                        opset_version=opset)
    from tests.onnx.helpers import session

    x = images((4, 5))(2)
    got = session(path + ".onnx").run(None, {"x": x})[0]
    np.testing.assert_allclose(got, layer(dygraph.to_tensor(x)).numpy(), atol=1e-5)


@pytest.mark.parametrize("with_mask", [False, True])
def test_deform_conv2d_exports_from_opset_19(tmp_path, with_mask):
    """DeformConv2D maps to ONNX's DeformConv (opset 19+): onnxruntime equals eager, with
    and without a mask, with two offset groups; below opset 19 the export says why."""
    from dygraph.vision.ops import DeformConv2D
    from tests.onnx.helpers import session

    dygraph.seed(0)
    deform = DeformConv2D(4, 6, 3, padding=1, deformable_groups=2)
    offsets = nn.Conv2D(4, 2 * 2 * 9, 3, padding=1)
    masks = nn.Conv2D(4, 2 * 9, 3, padding=1)

    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.deform, self.offsets, self.masks = deform, offsets, masks

        def forward(self, x):
            mask = F.sigmoid(self.masks(x)) if with_mask else None
            return self.deform(x, self.offsets(x), mask)

    net = Net()
    net.eval()
    path = str(tmp_path / "deform")
    spec = [InputSpec([None, 4, 8, 8], "float32", "x")]
    with pytest.raises(NotImplementedError, match="no ONNX mapping below opset 19"):
        dygraph.onnx.export(net, path, spec)
    dygraph.onnx.export(net, path, spec, opset_version=19)
    x = images((4, 8, 8))(2)
    got = session(path + ".onnx").run(None, {"x": x})[0]
    np.testing.assert_allclose(got, net(dygraph.to_tensor(x)).numpy(), rtol=1e-4, atol=1e-4)
