"""Vision models (`paddle.vision.models`): LeNet and the seeds' MNISTNet, AlexNet, VGG,
ResNet/ResNeXt/Wide ResNet, MobileNet V1/V2/V3, ShuffleNetV2, SqueezeNet, DenseNet,
GoogLeNet and InceptionV3, with Paddle's layer names and parameter counts. Each takes
`num_classes` (most also `with_pool`); constructors take `pretrained`, which must be False
or the path of a local weights file (no weights ship with DyGraph, and none are
downloaded). Building blocks live in the submodules, as in Paddle.

Example:
    >>> import dygraph
    >>> from dygraph.vision.models import MNISTNet
    >>> MNISTNet()(dygraph.rand([1, 1, 28, 28])).shape
    [1, 10]
"""

from dygraph.vision.models.alexnet import AlexNet, alexnet
from dygraph.vision.models.densenet import (
    DenseNet,
    densenet121,
    densenet161,
    densenet169,
    densenet201,
    densenet264,
)
from dygraph.vision.models.googlenet import GoogLeNet, googlenet
from dygraph.vision.models.inceptionv3 import InceptionV3, inception_v3
from dygraph.vision.models.lenet import LeNet, MNISTNet
from dygraph.vision.models.mobilenetv1 import MobileNetV1, mobilenet_v1
from dygraph.vision.models.mobilenetv2 import MobileNetV2, mobilenet_v2
from dygraph.vision.models.mobilenetv3 import (
    MobileNetV3Large,
    MobileNetV3Small,
    mobilenet_v3_large,
    mobilenet_v3_small,
)
from dygraph.vision.models.resnet import (
    ResNet,
    resnet18,
    resnet34,
    resnet50,
    resnet101,
    resnet152,
    resnext50_32x4d,
    resnext50_64x4d,
    resnext101_32x4d,
    resnext101_64x4d,
    resnext152_32x4d,
    resnext152_64x4d,
    wide_resnet50_2,
    wide_resnet101_2,
)
from dygraph.vision.models.shufflenetv2 import (
    ShuffleNetV2,
    shufflenet_v2_swish,
    shufflenet_v2_x0_5,
    shufflenet_v2_x0_25,
    shufflenet_v2_x0_33,
    shufflenet_v2_x1_0,
    shufflenet_v2_x1_5,
    shufflenet_v2_x2_0,
)
from dygraph.vision.models.squeezenet import SqueezeNet, squeezenet1_0, squeezenet1_1
from dygraph.vision.models.vgg import VGG, vgg11, vgg13, vgg16, vgg19

__all__ = ["ResNet", "resnet18", "resnet34", "resnet50", "resnet101", "resnet152",
           "resnext50_32x4d", "resnext50_64x4d", "resnext101_32x4d", "resnext101_64x4d",
           "resnext152_32x4d", "resnext152_64x4d", "wide_resnet50_2", "wide_resnet101_2",
           "VGG", "vgg11", "vgg13", "vgg16", "vgg19", "MobileNetV1", "mobilenet_v1",
           "MobileNetV2", "mobilenet_v2", "MobileNetV3Small", "MobileNetV3Large",
           "mobilenet_v3_small", "mobilenet_v3_large", "LeNet", "MNISTNet", "DenseNet",
           "densenet121", "densenet161", "densenet169", "densenet201", "densenet264",
           "AlexNet", "alexnet", "InceptionV3", "inception_v3", "SqueezeNet", "squeezenet1_0",
           "squeezenet1_1", "GoogLeNet", "googlenet", "ShuffleNetV2", "shufflenet_v2_x0_25",
           "shufflenet_v2_x0_33", "shufflenet_v2_x0_5", "shufflenet_v2_x1_0",
           "shufflenet_v2_x1_5", "shufflenet_v2_x2_0", "shufflenet_v2_swish"]
