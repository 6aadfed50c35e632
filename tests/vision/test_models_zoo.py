"""The larger model zoo: AlexNet, SqueezeNet, MobileNet V1/V3, ShuffleNetV2, DenseNet,
GoogLeNet, InceptionV3 and the ResNeXt variants. Trainable parameter counts equal
Paddle 3.3's (measured with paddle.vision.models), layer names are Paddle's (so its weight
files load), and each family gets an output-shape check and one training step on a small
input."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.vision import models
from dygraph.vision.models.shufflenetv2 import channel_shuffle


def trainable(model):
    return sum(int(np.prod(p.shape)) for p in model.parameters() if not p.stop_gradient)


def images(shape, seed=0):
    return dygraph.to_tensor(np.random.default_rng(seed).standard_normal(shape)
                             .astype(np.float32))


# Counts from Paddle 3.3 with the default 1000 classes.
@pytest.mark.parametrize("build, count", [
    (models.alexnet, 61_100_840), (models.squeezenet1_0, 1_248_424),
    (models.squeezenet1_1, 1_235_496), (models.mobilenet_v1, 4_231_976),
    (models.mobilenet_v3_small, 2_542_856), (models.mobilenet_v3_large, 5_483_032),
    (models.shufflenet_v2_x0_25, 603_688), (models.shufflenet_v2_x0_33, 647_272),
    (models.shufflenet_v2_x0_5, 1_366_792), (models.shufflenet_v2_x1_0, 2_278_604),
    (models.shufflenet_v2_x1_5, 3_503_624), (models.shufflenet_v2_swish, 2_278_604),
    (models.densenet121, 7_978_856), (models.densenet169, 14_149_480),
    (models.googlenet, 11_535_736), (models.inception_v3, 23_834_568),
    (models.resnext50_64x4d, 45_192_488)])
def test_trainable_parameter_counts_equal_paddles(build, count):
    assert trainable(build()) == count


def test_layer_names_are_paddles():
    keys = {
        models.AlexNet(num_classes=10): ["_conv1._conv.weight", "_conv3.bias", "_fc8.weight"],
        models.SqueezeNet("1.1", 10): ["_conv.weight", "_conv8._conv_path2._conv.weight",
                                       "_conv9.bias"],
        models.MobileNetV1(0.25, 10): ["conv1.0.weight", "conv5_3._depthwise_conv.1._mean",
                                       "conv6._pointwise_conv.0.weight", "fc.weight"],
        models.MobileNetV3Small(0.5, 10): ["conv.1._variance", "blocks.0.mid_se.fc1.weight",
                                           "lastconv.0.weight", "classifier.3.bias"],
        models.ShuffleNetV2(0.25, num_classes=10): ["_conv1.0.weight",
                                                    "2_1._conv_dw_1.1.weight",
                                                    "4_4._conv_linear.0.weight", "_fc.bias"],
        models.DenseNet(121, num_classes=10): [
            "conv1_func._conv.weight", "db_conv_2.conv2_1.bn_ac_func1._batch_norm._mean",
            "tr_conv4_blk.conv_ac_func._conv.weight", "batch_norm.weight", "out.weight"],
        models.GoogLeNet(10): ["_ince5b._convprj._conv.weight", "_fc_o2.weight", "_out1.bias"],
    }
    for model, names in keys.items():
        state = model.state_dict()
        assert all(name in state for name in names), (type(model).__name__, names)


def step(model, x, num_classes=4):
    """One SGD step on cross-entropy; returns the output and how far the weights moved."""
    y = dygraph.to_tensor(np.arange(x.shape[0]) % num_classes)
    before = [p.numpy().copy() for p in model.parameters() if not p.stop_gradient]
    opt = dygraph.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    out = model(x)
    logits = out[0] if isinstance(out, tuple) else out
    loss = F.cross_entropy(logits, y)
    if isinstance(out, tuple):
        loss = loss + 0.3 * (F.cross_entropy(out[1], y) + F.cross_entropy(out[2], y))
    loss.backward()
    opt.step()
    after = [p.numpy() for p in model.parameters() if not p.stop_gradient]
    moved = sum(float(np.abs(a - b).sum()) for a, b in zip(after, before))
    assert np.isfinite(loss.item())
    return out, moved


@pytest.mark.parametrize("build, shape", [
    (lambda: models.squeezenet1_0(num_classes=4), [2, 3, 48, 48]),
    (lambda: models.squeezenet1_1(num_classes=4), [2, 3, 32, 32]),
    (lambda: models.mobilenet_v1(scale=0.25, num_classes=4), [2, 3, 32, 32]),
    (lambda: models.mobilenet_v3_small(scale=0.5, num_classes=4), [2, 3, 32, 32]),
    (lambda: models.mobilenet_v3_large(scale=0.5, num_classes=4), [2, 3, 32, 32]),
    (lambda: models.shufflenet_v2_x0_25(num_classes=4), [2, 3, 32, 32]),
    (lambda: models.ShuffleNetV2(0.33, act="swish", num_classes=4), [2, 3, 32, 32]),
    (lambda: models.densenet121(num_classes=4), [2, 3, 32, 32]),
    (lambda: models.inception_v3(num_classes=4), [1, 3, 75, 75]),
    (lambda: models.resnext50_64x4d(num_classes=4), [2, 3, 32, 32]),
    (lambda: models.wide_resnet50_2(num_classes=4), [2, 3, 32, 32]),
    (lambda: models.mobilenet_v2(num_classes=4), [2, 3, 32, 32]),
    # The heaviest (a 25088 x 4096 classifier): about 4 s on one core.
    (lambda: models.vgg11(batch_norm=True, num_classes=4), [2, 3, 32, 32]),
])
def test_output_shape_and_training_step(build, shape):
    out, moved = step(build(), images(shape))
    assert out.shape == [shape[0], 4] and moved > 0


def test_alexnet_and_googlenet_at_their_input_sizes():
    out, moved = step(models.alexnet(num_classes=4), images([1, 3, 224, 224]))
    assert out.shape == [1, 4] and moved > 0
    (main, aux1, aux2), moved = step(models.googlenet(num_classes=4), images([1, 3, 189, 189]))
    assert main.shape == aux1.shape == aux2.shape == [1, 4] and moved > 0


def test_headless_models_return_feature_maps():
    x = images([1, 3, 64, 64])
    assert models.AlexNet(num_classes=0)(x).shape == [1, 256, 1, 1]
    assert models.SqueezeNet("1.1", num_classes=0, with_pool=False)(x).shape == [1, 512, 3, 3]
    assert models.MobileNetV1(0.25, num_classes=0)(x).shape == [1, 256, 1, 1]
    assert models.MobileNetV3Large(0.5, num_classes=0, with_pool=False)(x).shape == \
        [1, 480, 2, 2]
    assert models.ShuffleNetV2(0.25, num_classes=0, with_pool=False)(x).shape == \
        [1, 512, 2, 2]
    assert models.DenseNet(121, num_classes=0)(x).shape == [1, 1024, 1, 1]
    out, out1, out2 = models.GoogLeNet(num_classes=0, with_pool=False)(x)
    assert out.shape == [1, 1024, 1, 1] and out1.shape == [1, 512, 3, 3]
    out, out1, out2 = models.GoogLeNet(num_classes=0)(images([1, 3, 96, 96]))
    assert out.shape == [1, 1024, 1, 1] and out2.shape == [1, 528, 1, 1]


def test_channel_shuffle_interleaves_groups():
    x = dygraph.arange(6, dtype="float32").reshape([1, 6, 1, 1])
    assert channel_shuffle(x, 2).flatten().tolist() == [0, 3, 1, 4, 2, 5]
    assert channel_shuffle(x, 3).flatten().tolist() == [0, 2, 4, 1, 3, 5]


def test_bad_configurations_raise():
    with pytest.raises(ValueError, match="supported versions"):
        models.SqueezeNet("2.0")
    with pytest.raises(ValueError, match="scale should be one of"):
        models.ShuffleNetV2(scale=0.7)
    with pytest.raises(ValueError, match="act should be"):
        models.ShuffleNetV2(act="gelu")
    with pytest.raises(ValueError, match="supported layers"):
        models.DenseNet(100)


@pytest.mark.parametrize("build", [
    models.alexnet, models.squeezenet1_0, models.squeezenet1_1, models.mobilenet_v1,
    models.mobilenet_v3_small, models.mobilenet_v3_large, models.shufflenet_v2_x0_25,
    models.shufflenet_v2_x0_33, models.shufflenet_v2_x0_5, models.shufflenet_v2_x1_0,
    models.shufflenet_v2_x1_5, models.shufflenet_v2_x2_0, models.shufflenet_v2_swish,
    models.densenet121, models.densenet161, models.densenet169, models.densenet201,
    models.densenet264, models.googlenet, models.inception_v3, models.resnext50_64x4d,
    models.resnext101_32x4d, models.resnext101_64x4d, models.resnext152_32x4d,
    models.resnext152_64x4d])
def test_pretrained_true_is_refused_before_building(build):
    with pytest.raises(NotImplementedError, match="no pretrained weights"):
        build(pretrained=True)


def test_paddle_pdparams_pickles_load_safely(tmp_path):
    # Paddle's .pdparams is a pickle of {structured name: ndarray}; the models read it with
    # the restricted unpickler (with Paddle 3.3's own files, outputs matched Paddle's
    # forward to float32 rounding for every family).
    import os
    import pickle

    source = models.mobilenet_v2(scale=0.5, num_classes=3).eval()
    assert "features.1.conv.1.weight" in source.state_dict()  # Paddle's layout
    path = tmp_path / "mobilenet_v2.pdparams"
    with open(path, "wb") as f:
        pickle.dump({k: v.numpy() for k, v in source.state_dict().items()}, f, protocol=4)
    loaded = models.mobilenet_v2(pretrained=str(path), scale=0.5, num_classes=3).eval()
    x = images([1, 3, 32, 32])
    np.testing.assert_array_equal(loaded(x).numpy(), source(x).numpy())

    class Exploit:
        def __reduce__(self):
            return (os.system, ("touch pwned",))

    evil = tmp_path / "evil.pdparams"
    with open(evil, "wb") as f:
        pickle.dump({"_conv.weight": Exploit()}, f)
    with pytest.raises(pickle.UnpicklingError, match="refusing"):
        models.squeezenet1_1(pretrained=str(evil))
    assert not os.path.exists("pwned")


def test_pretrained_local_path_is_loaded(tmp_path):
    source = models.squeezenet1_1(num_classes=3)
    path = str(tmp_path / "squeezenet1_1.pdparams")
    dygraph.save(source.state_dict(), path)
    loaded = models.squeezenet1_1(pretrained=path, num_classes=3)
    for name, value in source.state_dict().items():
        np.testing.assert_array_equal(loaded.state_dict()[name].numpy(), value.numpy())
    with pytest.raises(FileNotFoundError, match="does not exist"):
        models.squeezenet1_1(pretrained=str(tmp_path / "missing.pdparams"))


PADDLE_MODEL_NAMES = [
    "ResNet", "resnet18", "resnet34", "resnet50", "resnet101", "resnet152",
    "resnext50_32x4d", "resnext50_64x4d", "resnext101_32x4d", "resnext101_64x4d",
    "resnext152_32x4d", "resnext152_64x4d", "wide_resnet50_2", "wide_resnet101_2", "VGG",
    "vgg11", "vgg13", "vgg16", "vgg19", "MobileNetV1", "mobilenet_v1", "MobileNetV2",
    "mobilenet_v2", "MobileNetV3Small", "MobileNetV3Large", "mobilenet_v3_small",
    "mobilenet_v3_large", "LeNet", "DenseNet", "densenet121", "densenet161", "densenet169",
    "densenet201", "densenet264", "AlexNet", "alexnet", "InceptionV3", "inception_v3",
    "SqueezeNet", "squeezenet1_0", "squeezenet1_1", "GoogLeNet", "googlenet", "ShuffleNetV2",
    "shufflenet_v2_x0_25", "shufflenet_v2_x0_33", "shufflenet_v2_x0_5", "shufflenet_v2_x1_0",
    "shufflenet_v2_x1_5", "shufflenet_v2_x2_0", "shufflenet_v2_swish"]


def test_every_paddle_model_name_exists():
    assert [n for n in PADDLE_MODEL_NAMES if not hasattr(models, n)] == []
