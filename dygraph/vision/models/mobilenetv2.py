"""MobileNetV2 ("Inverted Residuals and Linear Bottlenecks") as in `paddle.vision.models`.

With scale 1.0 and 1000 classes it has 3,504,872 trainable parameters, as in Paddle and
torchvision.

Example:
    >>> import dygraph
    >>> model = MobileNetV2(scale=0.5, num_classes=10)
    >>> model(dygraph.rand([1, 3, 32, 32])).shape
    [1, 10]
"""

import dygraph
from dygraph import nn
from dygraph.vision.models._utils import build_model, make_divisible

__all__ = ["MobileNetV2", "InvertedResidual", "mobilenet_v2"]

# (expansion t, output channels c, repeats n, first stride s) of each stage.
_STAGES = ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
           (6, 160, 3, 2), (6, 320, 1, 1))


def _conv_bn(in_channels, out_channels, kernel_size=3, stride=1, groups=1, act=True):
    # conv (no bias: batch norm shifts) -> batch norm -> relu6 (left out for the linear
    # bottleneck projection).
    layers = [nn.Conv2D(in_channels, out_channels, kernel_size, stride=stride,
                        padding=(kernel_size - 1) // 2, groups=groups, bias_attr=False),
              nn.BatchNorm2D(out_channels)]
    if act:
        layers.append(nn.ReLU6())
    return nn.Sequential(*layers)


class InvertedResidual(nn.Layer):
    """1x1 expansion (by `expand_ratio`), 3x3 depthwise (strided) and linear 1x1 projection,
    with a shortcut when the stride is 1 and the channel count is kept.

    Example:
        >>> import dygraph
        >>> InvertedResidual(8, 8, stride=1, expand_ratio=6)(dygraph.rand([1, 8, 4, 4])).shape
        [1, 8, 4, 4]
    """

    def __init__(self, inp, oup, stride, expand_ratio):
        super().__init__()
        if stride not in (1, 2):
            raise ValueError(f"InvertedResidual: stride should be 1 or 2, got {stride}")
        hidden = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = [_conv_bn(inp, hidden, kernel_size=1)] if expand_ratio != 1 else []
        # The linear projection's conv and batch norm sit directly in the Sequential (not
        # grouped), so that the state-dict keys are Paddle's.
        layers += [_conv_bn(hidden, hidden, stride=stride, groups=hidden),
                   *_conv_bn(hidden, oup, kernel_size=1, act=False)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        """x + block(x) with the shortcut, block(x) without."""
        out = self.conv(x)
        return x + out if self.use_res_connect else out


class MobileNetV2(nn.Layer):
    """MobileNetV2. `scale` multiplies every channel count (rounded to multiples of 8; the
    last 1280 channels only grow); `num_classes <= 0` leaves out the dropout + linear head,
    `with_pool=False` the global average pool.

    Example:
        >>> import dygraph
        >>> net = MobileNetV2(scale=0.25, num_classes=0, with_pool=False)
        >>> net(dygraph.rand([1, 3, 32, 32])).shape
        [1, 1280, 1, 1]
    """

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__()
        self.scale = scale
        self.num_classes = num_classes
        self.with_pool = with_pool
        channels = make_divisible(32 * scale)
        self.last_channel = make_divisible(1280 * max(1.0, scale))
        features = [_conv_bn(3, channels, stride=2)]
        for t, c, n, s in _STAGES:
            out = make_divisible(c * scale)
            for i in range(n):
                features.append(InvertedResidual(channels, out, s if i == 0 else 1, t))
                channels = out
        features.append(_conv_bn(channels, self.last_channel, kernel_size=1))
        self.features = nn.Sequential(*features)
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.classifier = nn.Sequential(nn.Dropout(0.2),
                                            nn.Linear(self.last_channel, num_classes))

    def forward(self, x):
        """Logits [N, num_classes] (or features, see the class docstring)."""
        x = self.features(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.classifier(dygraph.flatten(x, 1))
        return x


def mobilenet_v2(pretrained=False, scale=1.0, **kwargs):
    """MobileNetV2 with channel `scale`; `kwargs` go to MobileNetV2 (num_classes, with_pool).

    Example:
        >>> model = mobilenet_v2(scale=0.5, num_classes=10)
    """
    return build_model("mobilenet_v2", pretrained,
                       lambda: MobileNetV2(scale=scale, **kwargs))
