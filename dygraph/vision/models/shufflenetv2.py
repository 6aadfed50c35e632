"""ShuffleNetV2 ("Practical Guidelines for Efficient CNN Architecture Design") as in
`paddle.vision.models`: widths x0.25, x0.33, x0.5, x1.0, x1.5, x2.0 and a swish variant,
with Paddle's layer names. shufflenet_v2_x1_0 has 2,278,604 trainable parameters with 1000 classes.

Example:
    >>> import dygraph
    >>> ShuffleNetV2(scale=0.25, num_classes=10)(dygraph.rand([1, 3, 32, 32])).shape
    [1, 10]
"""

import dygraph
from dygraph import nn
from dygraph.vision.models._utils import ConvNormActivation, build_model

__all__ = ["ShuffleNetV2", "InvertedResidual", "InvertedResidualDS", "channel_shuffle",
           "shufflenet_v2_x0_25", "shufflenet_v2_x0_33", "shufflenet_v2_x0_5",
           "shufflenet_v2_x1_0", "shufflenet_v2_x1_5", "shufflenet_v2_x2_0",
           "shufflenet_v2_swish"]

# Output channels of the stem, the three stages and the last 1x1 conv, per width.
_STAGE_CHANNELS = {0.25: (24, 24, 48, 96, 512), 0.33: (24, 32, 64, 128, 512),
                   0.5: (24, 48, 96, 192, 1024), 1.0: (24, 116, 232, 464, 1024),
                   1.5: (24, 176, 352, 704, 1024), 2.0: (24, 224, 488, 976, 2048)}
_STAGE_REPEATS = (4, 8, 4)
_ACTIVATIONS = {"relu": nn.ReLU, "swish": nn.Swish, None: None}


def channel_shuffle(x, groups):
    """Interleave the channels of `groups` groups: [N, g*c, H, W] -> transpose g and c.

    Example:
        >>> import dygraph
        >>> x = dygraph.arange(4, dtype='float32').reshape([1, 4, 1, 1])
        >>> channel_shuffle(x, 2).flatten().tolist()
        [0.0, 2.0, 1.0, 3.0]
    """
    n, c, h, w = x.shape
    x = x.reshape([n, groups, c // groups, h, w]).transpose([0, 2, 1, 3, 4])
    return x.reshape([n, c, h, w])


def _branch(in_channels, out_channels, stride, activation_layer):
    # 1x1 conv-bn-act, 3x3 depthwise conv-bn (strided), 1x1 conv-bn-act.
    return (ConvNormActivation(in_channels, out_channels, 1, padding=0,
                               activation_layer=activation_layer),
            ConvNormActivation(out_channels, out_channels, 3, stride=stride, padding=1,
                               groups=out_channels, activation_layer=None),
            ConvNormActivation(out_channels, out_channels, 1, padding=0,
                               activation_layer=activation_layer))


class InvertedResidual(nn.Layer):
    """The stride-1 unit: split the channels in half, transform one half, concatenate
    and shuffle.

    Example:
        >>> import dygraph
        >>> InvertedResidual(8, 8, 1)(dygraph.rand([1, 8, 4, 4])).shape
        [1, 8, 4, 4]
    """

    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        self._conv_pw, self._conv_dw, self._conv_linear = _branch(
            in_channels // 2, out_channels // 2, stride, activation_layer)

    def forward(self, inputs):
        """shuffle(concat(x1, branch(x2)))."""
        half = inputs.shape[1] // 2
        x1, x2 = dygraph.split(inputs, [half, half], axis=1)
        x2 = self._conv_linear(self._conv_dw(self._conv_pw(x2)))
        return channel_shuffle(dygraph.concat([x1, x2], axis=1), 2)


class InvertedResidualDS(nn.Layer):
    """The downsampling unit: two strided branches on the whole input, concatenated and
    shuffled.

    Example:
        >>> import dygraph
        >>> InvertedResidualDS(8, 16, 2)(dygraph.rand([1, 8, 4, 4])).shape
        [1, 16, 2, 2]
    """

    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        self._conv_dw_1 = ConvNormActivation(in_channels, in_channels, 3, stride=stride,
                                             padding=1, groups=in_channels,
                                             activation_layer=None)
        self._conv_linear_1 = ConvNormActivation(in_channels, out_channels // 2, 1, padding=0,
                                                 activation_layer=activation_layer)
        self._conv_pw_2, self._conv_dw_2, self._conv_linear_2 = _branch(
            in_channels, out_channels // 2, stride, activation_layer)

    def forward(self, inputs):
        """shuffle(concat(branch1(x), branch2(x)))."""
        x1 = self._conv_linear_1(self._conv_dw_1(inputs))
        x2 = self._conv_linear_2(self._conv_dw_2(self._conv_pw_2(inputs)))
        return channel_shuffle(dygraph.concat([x1, x2], axis=1), 2)


class ShuffleNetV2(nn.Layer):
    """ShuffleNetV2 of width `scale` (0.25, 0.33, 0.5, 1.0, 1.5 or 2.0) and activation
    `act` ('relu', 'swish' or None); `with_pool=False` leaves out the global average pool
    and `num_classes <= 0` the linear head.

    Example:
        >>> import dygraph
        >>> net = ShuffleNetV2(scale=0.25, num_classes=0, with_pool=False)
        >>> net(dygraph.rand([1, 3, 64, 64])).shape
        [1, 512, 2, 2]
    """

    def __init__(self, scale=1.0, act="relu", num_classes=1000, with_pool=True):
        super().__init__()
        if scale not in _STAGE_CHANNELS:
            raise ValueError(f"ShuffleNetV2: scale should be one of "
                             f"{sorted(_STAGE_CHANNELS)}, but got {scale!r}")
        if act not in _ACTIVATIONS:
            raise ValueError(f"ShuffleNetV2: act should be 'relu', 'swish' or None, but got "
                             f"{act!r}")
        self.scale, self.num_classes, self.with_pool = scale, num_classes, with_pool
        channels, activation = _STAGE_CHANNELS[scale], _ACTIVATIONS[act]
        self._conv1 = ConvNormActivation(3, channels[0], 3, stride=2, padding=1,
                                         activation_layer=activation)
        self._max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self._block_list = []
        for stage, repeats in enumerate(_STAGE_REPEATS):
            inp, out = channels[stage], channels[stage + 1]
            for i in range(repeats):
                block = (InvertedResidualDS(inp, out, 2, activation) if i == 0
                         else InvertedResidual(out, out, 1, activation))
                self._block_list.append(self.add_sublayer(f"{stage + 2}_{i + 1}", block))
        self._last_conv = ConvNormActivation(channels[-2], channels[-1], 1, padding=0,
                                             activation_layer=activation)
        if with_pool:
            self._pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self._out_c = channels[-1]
            self._fc = nn.Linear(channels[-1], num_classes)

    def forward(self, inputs):
        """Logits [N, num_classes] (or features, see the class docstring)."""
        x = self._max_pool(self._conv1(inputs))
        for block in self._block_list:
            x = block(x)
        x = self._last_conv(x)
        if self.with_pool:
            x = self._pool2d_avg(x)
        if self.num_classes > 0:
            x = self._fc(dygraph.flatten(x, 1))
        return x


def _shufflenet(arch, pretrained, scale, act="relu", **kwargs):
    return build_model(arch, pretrained, lambda: ShuffleNetV2(scale, act, **kwargs))


def shufflenet_v2_x0_25(pretrained=False, **kwargs):
    """ShuffleNetV2 x0.25; `kwargs` go to ShuffleNetV2 (num_classes, with_pool).

    Example:
        >>> shufflenet_v2_x0_25(num_classes=10).scale
        0.25
    """
    return _shufflenet("shufflenet_v2_x0_25", pretrained, 0.25, **kwargs)


def shufflenet_v2_x0_33(pretrained=False, **kwargs):
    """ShuffleNetV2 x0.33.

    Example:
        >>> shufflenet_v2_x0_33(num_classes=10).scale
        0.33
    """
    return _shufflenet("shufflenet_v2_x0_33", pretrained, 0.33, **kwargs)


def shufflenet_v2_x0_5(pretrained=False, **kwargs):
    """ShuffleNetV2 x0.5.

    Example:
        >>> shufflenet_v2_x0_5(num_classes=10).scale
        0.5
    """
    return _shufflenet("shufflenet_v2_x0_5", pretrained, 0.5, **kwargs)


def shufflenet_v2_x1_0(pretrained=False, **kwargs):
    """ShuffleNetV2 x1.0.

    Example:
        >>> shufflenet_v2_x1_0(num_classes=10).scale  # doctest: +SKIP
        1.0
    """
    return _shufflenet("shufflenet_v2_x1_0", pretrained, 1.0, **kwargs)


def shufflenet_v2_x1_5(pretrained=False, **kwargs):
    """ShuffleNetV2 x1.5.

    Example:
        >>> shufflenet_v2_x1_5(num_classes=10).scale  # doctest: +SKIP
        1.5
    """
    return _shufflenet("shufflenet_v2_x1_5", pretrained, 1.5, **kwargs)


def shufflenet_v2_x2_0(pretrained=False, **kwargs):
    """ShuffleNetV2 x2.0.

    Example:
        >>> shufflenet_v2_x2_0(num_classes=10).scale  # doctest: +SKIP
        2.0
    """
    return _shufflenet("shufflenet_v2_x2_0", pretrained, 2.0, **kwargs)


def shufflenet_v2_swish(pretrained=False, **kwargs):
    """ShuffleNetV2 x1.0 with swish activations.

    Example:
        >>> shufflenet_v2_swish(num_classes=10).scale  # doctest: +SKIP
        1.0
    """
    return _shufflenet("shufflenet_v2_swish", pretrained, 1.0, act="swish", **kwargs)
