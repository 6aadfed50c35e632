"""Vision models (`paddle.vision.models`): LeNet and the seeds' MNISTNet, ResNet, VGG and
MobileNetV2. Each takes `num_classes`; constructors take `pretrained`, which must stay False
(no weights ship with DyGraph, and none are downloaded). Building blocks (BasicBlock,
BottleneckBlock, make_layers, InvertedResidual, SimpleImgConvPool) live in the submodules,
as in Paddle.

Example:
    >>> import dygraph
    >>> from dygraph.vision.models import MNISTNet
    >>> MNISTNet()(dygraph.rand([1, 1, 28, 28])).shape
    [1, 10]
"""

from dygraph.vision.models.lenet import LeNet, MNISTNet
from dygraph.vision.models.mobilenetv2 import MobileNetV2, mobilenet_v2
from dygraph.vision.models.resnet import (
    ResNet,
    resnet18,
    resnet34,
    resnet50,
    resnet101,
    resnet152,
    resnext50_32x4d,
    wide_resnet50_2,
    wide_resnet101_2,
)
from dygraph.vision.models.vgg import VGG, vgg11, vgg13, vgg16, vgg19

__all__ = ["LeNet", "MNISTNet", "ResNet", "resnet18", "resnet34", "resnet50", "resnet101",
           "resnet152", "wide_resnet50_2", "wide_resnet101_2", "resnext50_32x4d", "VGG",
           "vgg11", "vgg13", "vgg16", "vgg19", "MobileNetV2", "mobilenet_v2"]
