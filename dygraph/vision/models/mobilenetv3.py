"""MobileNetV3 ("Searching for MobileNetV3"), Small and Large, as in `paddle.vision.models`,
with Paddle's layer names. With scale 1.0 and 1000 classes MobileNetV3Small has 2,542,856
trainable parameters and MobileNetV3Large 5,483,032, as in Paddle.

Example:
    >>> import dygraph
    >>> MobileNetV3Small(scale=0.5, num_classes=10)(dygraph.rand([1, 3, 32, 32])).shape
    [1, 10]
"""

import functools

import dygraph
from dygraph import nn
from dygraph.vision.models._utils import ConvNormActivation, build_model, make_divisible

__all__ = ["MobileNetV3", "MobileNetV3Small", "MobileNetV3Large", "SqueezeExcitation",
           "InvertedResidual", "InvertedResidualConfig", "mobilenet_v3_small",
           "mobilenet_v3_large"]

_ACTIVATIONS = {"relu": nn.ReLU, "hardswish": nn.Hardswish, None: None}

# (input, kernel, expanded, output channels, squeeze-excite, activation, stride), unscaled.
_SMALL = ((16, 3, 16, 16, True, "relu", 2), (16, 3, 72, 24, False, "relu", 2),
          (24, 3, 88, 24, False, "relu", 1), (24, 5, 96, 40, True, "hardswish", 2),
          (40, 5, 240, 40, True, "hardswish", 1), (40, 5, 240, 40, True, "hardswish", 1),
          (40, 5, 120, 48, True, "hardswish", 1), (48, 5, 144, 48, True, "hardswish", 1),
          (48, 5, 288, 96, True, "hardswish", 2), (96, 5, 576, 96, True, "hardswish", 1),
          (96, 5, 576, 96, True, "hardswish", 1))
_LARGE = ((16, 3, 16, 16, False, "relu", 1), (16, 3, 64, 24, False, "relu", 2),
          (24, 3, 72, 24, False, "relu", 1), (24, 5, 72, 40, True, "relu", 2),
          (40, 5, 120, 40, True, "relu", 1), (40, 5, 120, 40, True, "relu", 1),
          (40, 3, 240, 80, False, "hardswish", 2), (80, 3, 200, 80, False, "hardswish", 1),
          (80, 3, 184, 80, False, "hardswish", 1), (80, 3, 184, 80, False, "hardswish", 1),
          (80, 3, 480, 112, True, "hardswish", 1), (112, 3, 672, 112, True, "hardswish", 1),
          (112, 5, 672, 160, True, "hardswish", 2), (160, 5, 960, 160, True, "hardswish", 1),
          (160, 5, 960, 160, True, "hardswish", 1))


class SqueezeExcitation(nn.Layer):
    """Channel attention: x * scale_activation(fc2(activation(fc1(avgpool(x))))), with
    1x1 convolutions as the fully connected layers.

    Example:
        >>> import dygraph
        >>> SqueezeExcitation(8, 2)(dygraph.rand([1, 8, 3, 3])).shape
        [1, 8, 3, 3]
    """

    def __init__(self, input_channels, squeeze_channels, activation=nn.ReLU,
                 scale_activation=nn.Sigmoid):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2D(1)
        self.fc1 = nn.Conv2D(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2D(squeeze_channels, input_channels, 1)
        self.activation = activation()
        self.scale_activation = scale_activation()

    def forward(self, x):
        """x scaled per channel."""
        scale = self.fc2(self.activation(self.fc1(self.avgpool(x))))
        return self.scale_activation(scale) * x


class InvertedResidualConfig:
    """One block's settings, with channel counts scaled and rounded to multiples of 8.

    Example:
        >>> InvertedResidualConfig(16, 3, 72, 24, False, "relu", 2, 0.5).expanded_channels
        40
    """

    def __init__(self, in_channels, kernel, expanded_channels, out_channels, use_se,
                 activation, stride, scale=1.0):
        if activation not in _ACTIVATIONS:
            raise ValueError(f"InvertedResidualConfig: activation should be 'relu', "
                             f"'hardswish' or None, but got {activation!r}")
        self.in_channels = self.adjust_channels(in_channels, scale)
        self.kernel = kernel
        self.expanded_channels = self.adjust_channels(expanded_channels, scale)
        self.out_channels = self.adjust_channels(out_channels, scale)
        self.use_se = use_se
        self.activation_layer = _ACTIVATIONS[activation]
        self.stride = stride

    @staticmethod
    def adjust_channels(channels, scale=1.0):
        """`channels * scale` rounded to a multiple of 8."""
        return make_divisible(channels * scale, 8)


class InvertedResidual(nn.Layer):
    """1x1 expansion (when the width changes), k x k depthwise (strided), optional
    squeeze-excite, and a linear 1x1 projection; a shortcut when shapes allow.

    Example:
        >>> import dygraph
        >>> block = InvertedResidual(8, 16, 8, 3, 1, True, nn.ReLU, nn.BatchNorm2D)
        >>> block(dygraph.rand([1, 8, 4, 4])).shape
        [1, 8, 4, 4]
    """

    def __init__(self, in_channels, expanded_channels, out_channels, filter_size, stride,
                 use_se, activation_layer, norm_layer):
        super().__init__()
        self.use_res_connect = stride == 1 and in_channels == out_channels
        self.use_se = use_se
        self.expand = in_channels != expanded_channels
        if self.expand:
            self.expand_conv = ConvNormActivation(
                in_channels, expanded_channels, 1, padding=0, norm_layer=norm_layer,
                activation_layer=activation_layer)
        self.bottleneck_conv = ConvNormActivation(
            expanded_channels, expanded_channels, filter_size, stride=stride,
            padding=(filter_size - 1) // 2, groups=expanded_channels, norm_layer=norm_layer,
            activation_layer=activation_layer)
        if use_se:
            self.mid_se = SqueezeExcitation(expanded_channels,
                                            make_divisible(expanded_channels // 4),
                                            scale_activation=nn.Hardsigmoid)
        self.linear_conv = ConvNormActivation(
            expanded_channels, out_channels, 1, padding=0, norm_layer=norm_layer,
            activation_layer=None)

    def forward(self, x):
        """The block, plus x when there is a shortcut."""
        out = self.expand_conv(x) if self.expand else x
        out = self.bottleneck_conv(out)
        if self.use_se:
            out = self.mid_se(out)
        out = self.linear_conv(out)
        return x + out if self.use_res_connect else out


class MobileNetV3(nn.Layer):
    """MobileNetV3 from a list of InvertedResidualConfig: a hardswish stem, the blocks, a
    1x1 conv to 6x the last width, pooling (unless `with_pool=False`) and the classifier
    linear -> hardswish -> dropout -> linear (unless `num_classes <= 0`).

    Example:
        >>> import dygraph
        >>> cfg = [InvertedResidualConfig(16, 3, 16, 16, True, "relu", 2)]
        >>> MobileNetV3(cfg, last_channel=32, num_classes=5)(dygraph.rand([1, 3, 8, 8])).shape
        [1, 5]
    """

    def __init__(self, config, last_channel, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__()
        self.config, self.scale, self.last_channel = config, scale, last_channel
        self.num_classes, self.with_pool = num_classes, with_pool
        self.firstconv_in_channels = config[0].in_channels
        self.lastconv_in_channels = config[-1].in_channels
        self.lastconv_out_channels = self.lastconv_in_channels * 6
        norm_layer = functools.partial(nn.BatchNorm2D, epsilon=0.001, momentum=0.99)
        self.conv = ConvNormActivation(3, self.firstconv_in_channels, 3, stride=2, padding=1,
                                       norm_layer=norm_layer, activation_layer=nn.Hardswish)
        self.blocks = nn.Sequential(*[
            InvertedResidual(c.in_channels, c.expanded_channels, c.out_channels, c.kernel,
                             c.stride, c.use_se, c.activation_layer, norm_layer)
            for c in config])
        self.lastconv = ConvNormActivation(
            self.lastconv_in_channels, self.lastconv_out_channels, 1, padding=0,
            norm_layer=norm_layer, activation_layer=nn.Hardswish)
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.classifier = nn.Sequential(
                nn.Linear(self.lastconv_out_channels, last_channel), nn.Hardswish(),
                nn.Dropout(p=0.2), nn.Linear(last_channel, num_classes))

    def forward(self, x):
        """Logits [N, num_classes] (or features, see the class docstring)."""
        x = self.lastconv(self.blocks(self.conv(x)))
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.classifier(dygraph.flatten(x, 1))
        return x


class MobileNetV3Small(MobileNetV3):
    """MobileNetV3-Small with channel `scale`.

    Example:
        >>> MobileNetV3Small(scale=0.5, num_classes=10).last_channel
        512
    """

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        config = [InvertedResidualConfig(*row, scale) for row in _SMALL]
        super().__init__(config, make_divisible(1024 * scale, 8), scale, num_classes,
                         with_pool)


class MobileNetV3Large(MobileNetV3):
    """MobileNetV3-Large with channel `scale`.

    Example:
        >>> MobileNetV3Large(scale=0.5, num_classes=10).last_channel
        640
    """

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        config = [InvertedResidualConfig(*row, scale) for row in _LARGE]
        super().__init__(config, make_divisible(1280 * scale, 8), scale, num_classes,
                         with_pool)


def mobilenet_v3_small(pretrained=False, scale=1.0, **kwargs):
    """MobileNetV3-Small; `kwargs` go to MobileNetV3Small (num_classes, with_pool).

    Example:
        >>> mobilenet_v3_small(scale=0.5, num_classes=10).scale
        0.5
    """
    return build_model(f"mobilenet_v3_small_x{scale}", pretrained,
                       lambda: MobileNetV3Small(scale=scale, **kwargs))


def mobilenet_v3_large(pretrained=False, scale=1.0, **kwargs):
    """MobileNetV3-Large; `kwargs` go to MobileNetV3Large (num_classes, with_pool).

    Example:
        >>> mobilenet_v3_large(scale=0.5, num_classes=10).scale
        0.5
    """
    return build_model(f"mobilenet_v3_large_x{scale}", pretrained,
                       lambda: MobileNetV3Large(scale=scale, **kwargs))
