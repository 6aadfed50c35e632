"""MobileNetV1 ("Efficient Convolutional Neural Networks for Mobile Vision Applications") as
in `paddle.vision.models`, with Paddle's layer names. With scale 1.0 and 1000 classes it has
4,231,976 trainable parameters.

Example:
    >>> import dygraph
    >>> MobileNetV1(scale=0.25, num_classes=10)(dygraph.rand([1, 3, 32, 32])).shape
    [1, 10]
"""

import dygraph
from dygraph import nn
from dygraph.vision.models._utils import ConvNormActivation, build_model

__all__ = ["MobileNetV1", "DepthwiseSeparable", "mobilenet_v1"]

# (sublayer name, input channels, depthwise channels, pointwise channels, stride), unscaled.
_BLOCKS = (("conv2_1", 32, 32, 64, 1), ("conv2_2", 64, 64, 128, 2),
           ("conv3_1", 128, 128, 128, 1), ("conv3_2", 128, 128, 256, 2),
           ("conv4_1", 256, 256, 256, 1), ("conv4_2", 256, 256, 512, 2),
           *((f"conv5_{i}", 512, 512, 512, 1) for i in range(1, 6)),
           ("conv5_6", 512, 512, 1024, 2), ("conv6", 1024, 1024, 1024, 1))


class DepthwiseSeparable(nn.Layer):
    """A 3x3 depthwise conv-bn-relu (`num_groups` groups, scaled) and a 1x1 pointwise
    conv-bn-relu.

    Example:
        >>> import dygraph
        >>> DepthwiseSeparable(8, 8, 16, 8, 2, 1.0)(dygraph.rand([1, 8, 6, 6])).shape
        [1, 16, 3, 3]
    """

    def __init__(self, in_channels, out_channels1, out_channels2, num_groups, stride, scale):
        super().__init__()
        self._depthwise_conv = ConvNormActivation(
            in_channels, int(out_channels1 * scale), 3, stride=stride, padding=1,
            groups=int(num_groups * scale))
        self._pointwise_conv = ConvNormActivation(
            int(out_channels1 * scale), int(out_channels2 * scale), 1, padding=0)

    def forward(self, x):
        """pointwise(depthwise(x))."""
        return self._pointwise_conv(self._depthwise_conv(x))


class MobileNetV1(nn.Layer):
    """MobileNetV1: a 3x3/2 stem and 13 depthwise-separable blocks, every channel count
    multiplied by `scale`; `with_pool=False` leaves out the global average pool and
    `num_classes <= 0` the linear head.

    Example:
        >>> import dygraph
        >>> net = MobileNetV1(scale=0.25, num_classes=0, with_pool=False)
        >>> net(dygraph.rand([1, 3, 32, 32])).shape
        [1, 256, 1, 1]
    """

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__()
        self.scale, self.num_classes, self.with_pool = scale, num_classes, with_pool
        self.conv1 = ConvNormActivation(3, int(32 * scale), 3, stride=2, padding=1)
        self.dwsl = []
        for name, inp, depthwise, pointwise, stride in _BLOCKS:
            block = DepthwiseSeparable(int(inp * scale), depthwise, pointwise, depthwise,
                                       stride, scale)
            self.dwsl.append(self.add_sublayer(name, block))
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.fc = nn.Linear(int(1024 * scale), num_classes)

    def forward(self, x):
        """Logits [N, num_classes] (or features, see the class docstring)."""
        x = self.conv1(x)
        for block in self.dwsl:
            x = block(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.fc(dygraph.flatten(x, 1))
        return x


def mobilenet_v1(pretrained=False, scale=1.0, **kwargs):
    """MobileNetV1 with channel `scale`; `kwargs` go to MobileNetV1 (num_classes,
    with_pool).

    Example:
        >>> mobilenet_v1(scale=0.25, num_classes=10).fc.weight.shape
        [256, 10]
    """
    return build_model(f"mobilenetv1_{scale}", pretrained,
                       lambda: MobileNetV1(scale=scale, **kwargs))
