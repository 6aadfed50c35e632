"""SqueezeNet 1.0 and 1.1 ("AlexNet-level accuracy with 50x fewer parameters") as in
`paddle.vision.models`, with Paddle's layer names. squeezenet1_0 has 1,248,424 parameters
and squeezenet1_1 1,235,496 with 1000 classes.

Example:
    >>> import dygraph
    >>> SqueezeNet('1.1', num_classes=10)(dygraph.rand([2, 3, 32, 32])).shape
    [2, 10]
"""

import dygraph
from dygraph import nn
from dygraph.nn import functional as F
from dygraph.vision.models._utils import build_model

__all__ = ["SqueezeNet", "MakeFire", "squeezenet1_0", "squeezenet1_1"]

# (input, squeeze, expand 1x1, expand 3x3) channels of the eight fire modules.
_FIRES = ((96, 16, 64, 64), (128, 16, 64, 64), (128, 32, 128, 128), (256, 32, 128, 128),
          (256, 48, 192, 192), (384, 48, 192, 192), (384, 64, 256, 256),
          (512, 64, 256, 256))
# After which fire modules (1-based) a max-pool comes, per version.
_POOLS_AFTER = {"1.0": (3, 7), "1.1": (2, 4)}


class MakeFireConv(nn.Layer):
    """Convolution followed by relu.

    Example:
        >>> import dygraph
        >>> MakeFireConv(3, 4, 3, padding=1)(dygraph.rand([1, 3, 5, 5])).shape
        [1, 4, 5, 5]
    """

    def __init__(self, input_channels, output_channels, filter_size, padding=0):
        super().__init__()
        self._conv = nn.Conv2D(input_channels, output_channels, filter_size, padding=padding)

    def forward(self, x):
        """relu(conv(x))."""
        return F.relu(self._conv(x))


class MakeFire(nn.Layer):
    """A fire module: a 1x1 squeeze, then 1x1 and 3x3 expands concatenated.

    Example:
        >>> import dygraph
        >>> MakeFire(8, 2, 4, 4)(dygraph.rand([1, 8, 5, 5])).shape
        [1, 8, 5, 5]
    """

    def __init__(self, input_channels, squeeze_channels, expand1x1_channels,
                 expand3x3_channels):
        super().__init__()
        self._conv = MakeFireConv(input_channels, squeeze_channels, 1)
        self._conv_path1 = MakeFireConv(squeeze_channels, expand1x1_channels, 1)
        self._conv_path2 = MakeFireConv(squeeze_channels, expand3x3_channels, 3, padding=1)

    def forward(self, inputs):
        """concat(expand1x1(s), expand3x3(s)) with s = squeeze(x)."""
        x = self._conv(inputs)
        return dygraph.concat([self._conv_path1(x), self._conv_path2(x)], axis=1)


class SqueezeNet(nn.Layer):
    """SqueezeNet `version` '1.0' (7x7 stem) or '1.1' (3x3 stem, earlier pools): eight
    fire modules, then (unless `num_classes <= 0`) dropout and a 1x1 convolution to the
    classes, and (unless `with_pool=False`) relu and global average pooling.

    Example:
        >>> import dygraph
        >>> SqueezeNet('1.0', num_classes=0, with_pool=False)(
        ...     dygraph.rand([1, 3, 64, 64])).shape
        [1, 512, 2, 2]
    """

    def __init__(self, version, num_classes=1000, with_pool=True):
        super().__init__()
        if version not in _POOLS_AFTER:
            raise ValueError(f"SqueezeNet: supported versions are ['1.0', '1.1'], but got "
                             f"{version!r}")
        self.version, self.num_classes, self.with_pool = version, num_classes, with_pool
        if version == "1.0":
            self._conv = nn.Conv2D(3, 96, 7, stride=2)
        else:
            self._conv = nn.Conv2D(3, 64, 3, stride=2, padding=1)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        first = 96 if version == "1.0" else 64
        for i, channels in enumerate(_FIRES):
            channels = (first,) + channels[1:] if i == 0 else channels
            setattr(self, f"_conv{i + 1}", MakeFire(*channels))
        self._drop = nn.Dropout(p=0.5, mode="downscale_in_infer")
        self._conv9 = nn.Conv2D(512, num_classes, 1) if num_classes > 0 else None
        self._avg_pool = nn.AdaptiveAvgPool2D(1)

    def forward(self, inputs):
        """Logits [N, num_classes] (or feature maps, see the class docstring)."""
        x = self._pool(F.relu(self._conv(inputs)))
        for i in range(1, 9):
            x = getattr(self, f"_conv{i}")(x)
            if i in _POOLS_AFTER[self.version]:
                x = self._pool(x)
        if self.num_classes > 0:
            x = self._conv9(self._drop(x))
        if self.with_pool:
            x = dygraph.squeeze(self._avg_pool(F.relu(x)), axis=[2, 3])
        return x


def squeezenet1_0(pretrained=False, **kwargs):
    """SqueezeNet 1.0; `kwargs` go to SqueezeNet (num_classes, with_pool).

    Example:
        >>> squeezenet1_0(num_classes=10).version
        '1.0'
    """
    return build_model("squeezenet1_0", pretrained, lambda: SqueezeNet("1.0", **kwargs))


def squeezenet1_1(pretrained=False, **kwargs):
    """SqueezeNet 1.1 (2.4x less computation than 1.0); `kwargs` go to SqueezeNet.

    Example:
        >>> squeezenet1_1(num_classes=10).version
        '1.1'
    """
    return build_model("squeezenet1_1", pretrained, lambda: SqueezeNet("1.1", **kwargs))
