"""dygraph.vision.models: output shapes on small inputs, parameter counts equal to Paddle's
and torchvision's, headless variants, pretrained=True refused, and a few training steps that
lower the loss."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.vision import models
from dygraph.vision.models.lenet import SimpleImgConvPool
from dygraph.vision.models.resnet import BasicBlock, BottleneckBlock
from dygraph.vision.models.vgg import make_layers


def trainable(model):
    """Trainable parameter count (batch-norm running statistics are not trainable)."""
    return sum(int(np.prod(p.shape)) for p in model.parameters() if not p.stop_gradient)


def images(shape, seed=0):
    return dygraph.to_tensor(np.random.default_rng(seed).standard_normal(shape)
                             .astype(np.float32))


@pytest.fixture(autouse=True)
def _seeded():
    dygraph.seed(0)


# -- LeNet and the seeds' model -------------------------------------------------------------
def test_lenet_shape_and_parameter_count():
    model = models.LeNet()
    assert model(images([2, 1, 28, 28])).shape == [2, 10]
    assert trainable(model) == 61_610  # Paddle's summary of LeNet()
    assert models.LeNet(num_classes=0)(images([1, 1, 28, 28])).shape == [1, 16, 5, 5]


def test_mnistnet_is_the_seeds_model():
    model = models.MNISTNet()
    assert model(images([3, 1, 28, 28])).shape == [3, 10]
    assert trainable(model) == 20 * 25 + 20 + 50 * 20 * 25 + 50 + 800 * 10 + 10
    state = model.state_dict()
    shapes = sorted(tuple(v.shape) for v in state.values())
    assert shapes == [(10,), (20,), (20, 1, 5, 5), (50,), (50, 20, 5, 5), (800, 10)]
    fc_w = model._fc.weight.numpy()
    # The seeds' FC initialiser: N(0, sqrt(2 / (800**2 * 10))) ~ 5.6e-4; biases start at 0.
    assert 3e-4 < fc_w.std() < 8e-4
    conv_w = model._simple_img_conv_pool_2._conv2d.weight.numpy()
    assert abs(conv_w.std() - (2.0 / 500) ** 0.5) < 0.01
    for name, value in state.items():
        if name.endswith("bias"):
            assert not value.numpy().any(), name


def test_simple_img_conv_pool_options():
    block = SimpleImgConvPool(1, 4, 3, pool_size=2, pool_stride=2, pool_type="avg")
    assert block(images([1, 1, 8, 8])).shape == [1, 4, 3, 3]
    with pytest.raises(ValueError, match="act"):
        SimpleImgConvPool(1, 4, 3, 2, 2, act="tanh")
    with pytest.raises(ValueError, match="pool_type"):
        SimpleImgConvPool(1, 4, 3, 2, 2, pool_type="lp")


# -- ResNet ----------------------------------------------------------------------------------
@pytest.mark.parametrize("build, count", [(models.resnet18, 11_689_512),
                                          (models.resnet34, 21_797_672),
                                          (models.resnext50_32x4d, 25_028_904)])
def test_resnet_parameter_counts(build, count):
    assert trainable(build()) == count  # torchvision's / Paddle's published counts


def test_resnet50_count_and_forward():
    model = models.resnet50()
    assert trainable(model) == 25_557_032
    assert model.eval()(images([1, 3, 32, 32])).shape == [1, 1000]


def test_resnet_shapes_and_errors():
    assert models.resnet18(num_classes=10).eval()(images([2, 3, 32, 32])).shape == [2, 10]
    headless = models.ResNet(BasicBlock, 18, num_classes=0, with_pool=False).eval()
    assert headless(images([1, 3, 64, 64])).shape == [1, 512, 2, 2]
    block = BottleneckBlock(16, 4).eval()
    assert block(images([1, 16, 4, 4])).shape == [1, 16, 4, 4]
    with pytest.raises(ValueError, match="depth"):
        models.ResNet(BasicBlock, 20)
    with pytest.raises(ValueError, match="groups"):
        BasicBlock(8, 8, groups=2)


# -- VGG -------------------------------------------------------------------------------------
def test_vgg_parameter_counts():
    # The convolutional parts; the classifier (25088 -> 4096 -> 4096 -> 1000, 123.6M of
    # vgg16's 138,357,544 parameters) is too slow to initialise in a unit test.
    assert trainable(models.vgg16(num_classes=0, with_pool=False)) == 14_714_688
    assert trainable(models.vgg16(batch_norm=True, num_classes=0)) == 14_714_688 + 2 * 4224
    assert trainable(models.vgg11(num_classes=0)) == 9_220_480


def test_vgg_features_shape():
    net = models.VGG(make_layers([8, "M", 512, "M"], batch_norm=True), num_classes=0).eval()
    assert net(images([1, 3, 16, 16])).shape == [1, 512, 7, 7]
    assert len(make_layers([64, "M"], batch_norm=True)) == 4


# -- MobileNetV2 -----------------------------------------------------------------------------
def test_mobilenetv2_count_and_shapes():
    assert trainable(models.MobileNetV2()) == 3_504_872
    model = models.mobilenet_v2(scale=0.5, num_classes=10).eval()
    assert model(images([2, 3, 32, 32])).shape == [2, 10]
    headless = models.MobileNetV2(scale=0.25, num_classes=0, with_pool=False).eval()
    assert headless(images([1, 3, 32, 32])).shape == [1, 1280, 1, 1]
    assert models.MobileNetV2(scale=1.4, num_classes=0).last_channel == 1792


# -- pretrained ------------------------------------------------------------------------------
@pytest.mark.parametrize("build", [models.resnet18, models.resnet34, models.resnet50,
                                   models.resnet101, models.resnet152, models.wide_resnet50_2,
                                   models.wide_resnet101_2, models.resnext50_32x4d,
                                   models.vgg11, models.vgg13, models.vgg16, models.vgg19,
                                   models.mobilenet_v2])
def test_pretrained_is_refused(build):
    with pytest.raises(NotImplementedError, match="pretrained"):
        build(pretrained=True)


def test_reachable_from_vision():
    import dygraph.vision as vision

    assert vision.models.LeNet is models.LeNet
    assert vision.LeNet is models.LeNet


# -- training --------------------------------------------------------------------------------
@pytest.mark.parametrize("build, shape", [
    (lambda: models.MNISTNet(), [8, 1, 28, 28]),
    (lambda: models.LeNet(), [8, 1, 28, 28]),
    (lambda: models.resnet18(num_classes=4), [8, 3, 16, 16]),
    # batch 8: with 4 samples, batch norm makes the first steps too noisy to compare
    (lambda: models.MobileNetV2(scale=0.25, num_classes=4), [8, 3, 32, 32]),
])
def test_training_steps_lower_the_loss(build, shape):
    model = build()
    x = images(shape, seed=1)
    y = dygraph.to_tensor(np.arange(shape[0]) % 4)
    opt = dygraph.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    losses = []
    for _ in range(3):
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(loss.item())
    assert losses[-1] < losses[0], losses
