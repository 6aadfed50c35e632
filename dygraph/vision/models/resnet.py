"""ResNet ("Deep Residual Learning for Image Recognition") as in `paddle.vision.models`:
`ResNet(Block, depth)`, the blocks, and the constructors resnet18/34/50/101/152,
wide_resnet50_2/101_2 and resnext50/101/152 in 32x4d and 64x4d.

The layout matches Paddle's and torchvision's, so parameter counts agree: resnet18 has
11,689,512 trainable parameters with 1000 classes. (The constructors' examples are skipped
as doctests: initialising tens of millions of parameters takes seconds.)

Example:
    >>> import dygraph
    >>> model = resnet18(num_classes=10)
    >>> model(dygraph.rand([1, 3, 32, 32])).shape
    [1, 10]
"""

import dygraph
from dygraph import nn
from dygraph.vision.models._utils import build_model

__all__ = ["ResNet", "BasicBlock", "BottleneckBlock", "resnet18", "resnet34", "resnet50",
           "resnet101", "resnet152", "wide_resnet50_2", "wide_resnet101_2",
           "resnext50_32x4d", "resnext50_64x4d", "resnext101_32x4d", "resnext101_64x4d",
           "resnext152_32x4d", "resnext152_64x4d"]


def _conv(in_channels, out_channels, kernel_size, stride=1, groups=1, dilation=1):
    # Every ResNet convolution is followed by batch norm, whose shift makes a bias useless.
    padding = dilation * (kernel_size - 1) // 2
    return nn.Conv2D(in_channels, out_channels, kernel_size, stride=stride, padding=padding,
                     dilation=dilation, groups=groups, bias_attr=False)


class BasicBlock(nn.Layer):
    """Two 3x3 conv-bn layers with a shortcut (ResNet-18/34). `expansion` is 1.

    Example:
        >>> import dygraph
        >>> BasicBlock(8, 8)(dygraph.rand([1, 8, 6, 6])).shape
        [1, 8, 6, 6]
    """

    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64,
                 dilation=1, norm_layer=None):
        super().__init__()
        if groups != 1 or base_width != 64:
            raise ValueError(f"BasicBlock: only groups=1 and base_width=64 are supported, "
                             f"got groups={groups}, base_width={base_width}")
        if dilation > 1:
            raise ValueError(f"BasicBlock: dilation > 1 is not supported, got {dilation}")
        norm_layer = nn.BatchNorm2D if norm_layer is None else norm_layer
        self.conv1 = _conv(inplanes, planes, 3, stride)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU()
        self.conv2 = _conv(planes, planes, 3)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        """relu(bn(conv(relu(bn(conv(x))))) + shortcut(x))."""
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class BottleneckBlock(nn.Layer):
    """1x1 reduce, 3x3 (grouped, strided) and 1x1 expand conv-bn layers with a shortcut
    (ResNet-50 and deeper). `expansion` is 4.

    Example:
        >>> import dygraph
        >>> down = nn.Sequential(nn.Conv2D(8, 16, 1, bias_attr=False), nn.BatchNorm2D(16))
        >>> BottleneckBlock(8, 4, downsample=down)(dygraph.rand([1, 8, 5, 5])).shape
        [1, 16, 5, 5]
    """

    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64,
                 dilation=1, norm_layer=None):
        super().__init__()
        norm_layer = nn.BatchNorm2D if norm_layer is None else norm_layer
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = _conv(inplanes, width, 1)
        self.bn1 = norm_layer(width)
        self.conv2 = _conv(width, width, 3, stride, groups=groups, dilation=dilation)
        self.bn2 = norm_layer(width)
        self.conv3 = _conv(width, planes * self.expansion, 1)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU()
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        """relu(bn(conv1x1(relu(bn(conv3x3(relu(bn(conv1x1(x)))))))) + shortcut(x))."""
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + identity)


_LAYERS = {18: (2, 2, 2, 2), 34: (3, 4, 6, 3), 50: (3, 4, 6, 3), 101: (3, 4, 23, 3),
           152: (3, 8, 36, 3)}


class ResNet(nn.Layer):
    """ResNet: a 7x7/2 stem, a 3x3/2 max-pool, four stages of `Block`s (64, 128, 256, 512
    planes; the last three halve the resolution), global average pooling and a linear head.

    `depth` is 18, 34, 50, 101 or 152; `width` is the base width of bottleneck blocks
    (128 gives Wide ResNet), `groups` their convolution groups (ResNeXt). With
    `with_pool=False` the pooling is skipped, with `num_classes <= 0` the head is (the model
    then returns feature maps).

    Example:
        >>> import dygraph
        >>> net = ResNet(BasicBlock, 18, num_classes=0, with_pool=False)
        >>> net(dygraph.rand([1, 3, 64, 64])).shape
        [1, 512, 2, 2]
    """

    def __init__(self, Block, depth=50, width=64, num_classes=1000, with_pool=True,
                 groups=1):
        super().__init__()
        if depth not in _LAYERS:
            raise ValueError(f"ResNet: depth should be one of {sorted(_LAYERS)}, got {depth}")
        self.groups = groups
        self.base_width = width
        self.num_classes = num_classes
        self.with_pool = with_pool
        self.inplanes = 64
        self.conv1 = nn.Conv2D(3, self.inplanes, 7, stride=2, padding=3, bias_attr=False)
        self.bn1 = nn.BatchNorm2D(self.inplanes)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        blocks = _LAYERS[depth]
        self.layer1 = self._make_layer(Block, 64, blocks[0])
        self.layer2 = self._make_layer(Block, 128, blocks[1], stride=2)
        self.layer3 = self._make_layer(Block, 256, blocks[2], stride=2)
        self.layer4 = self._make_layer(Block, 512, blocks[3], stride=2)
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((1, 1))
        if num_classes > 0:
            self.fc = nn.Linear(512 * Block.expansion, num_classes)

    def _make_layer(self, Block, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes * Block.expansion:
            downsample = nn.Sequential(
                _conv(self.inplanes, planes * Block.expansion, 1, stride),
                nn.BatchNorm2D(planes * Block.expansion))
        layers = [Block(self.inplanes, planes, stride, downsample, self.groups,
                        self.base_width)]
        self.inplanes = planes * Block.expansion
        layers += [Block(self.inplanes, planes, groups=self.groups,
                         base_width=self.base_width) for _ in range(1, blocks)]
        return nn.Sequential(*layers)

    def forward(self, x):
        """Logits [N, num_classes] (or features, see the class docstring)."""
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.fc(dygraph.flatten(x, 1))
        return x


def _resnet(arch, Block, depth, pretrained, **kwargs):
    return build_model(arch, pretrained, lambda: ResNet(Block, depth, **kwargs))


def resnet18(pretrained=False, **kwargs):
    """ResNet-18; `kwargs` go to ResNet (num_classes, with_pool).

    Example:
        >>> model = resnet18(num_classes=10)  # doctest: +SKIP
    """
    return _resnet("resnet18", BasicBlock, 18, pretrained, **kwargs)


def resnet34(pretrained=False, **kwargs):
    """ResNet-34; `kwargs` go to ResNet (num_classes, with_pool).

    Example:
        >>> model = resnet34(num_classes=10)  # doctest: +SKIP
    """
    return _resnet("resnet34", BasicBlock, 34, pretrained, **kwargs)


def resnet50(pretrained=False, **kwargs):
    """ResNet-50 (bottleneck blocks); `kwargs` go to ResNet (num_classes, with_pool).

    Example:
        >>> model = resnet50(num_classes=10)  # doctest: +SKIP
    """
    return _resnet("resnet50", BottleneckBlock, 50, pretrained, **kwargs)


def resnet101(pretrained=False, **kwargs):
    """ResNet-101; `kwargs` go to ResNet (num_classes, with_pool).

    Example:
        >>> model = resnet101(num_classes=10)  # doctest: +SKIP
    """
    return _resnet("resnet101", BottleneckBlock, 101, pretrained, **kwargs)


def resnet152(pretrained=False, **kwargs):
    """ResNet-152; `kwargs` go to ResNet (num_classes, with_pool).

    Example:
        >>> model = resnet152(num_classes=10)  # doctest: +SKIP
    """
    return _resnet("resnet152", BottleneckBlock, 152, pretrained, **kwargs)


def wide_resnet50_2(pretrained=False, **kwargs):
    """Wide ResNet-50-2: ResNet-50 with bottlenecks twice as wide.

    Example:
        >>> model = wide_resnet50_2(num_classes=10)  # doctest: +SKIP
    """
    return _resnet("wide_resnet50_2", BottleneckBlock, 50, pretrained, width=128, **kwargs)


def wide_resnet101_2(pretrained=False, **kwargs):
    """Wide ResNet-101-2: ResNet-101 with bottlenecks twice as wide.

    Example:
        >>> model = wide_resnet101_2(num_classes=10)  # doctest: +SKIP
    """
    return _resnet("wide_resnet101_2", BottleneckBlock, 101, pretrained, width=128,
                   **kwargs)


def resnext50_32x4d(pretrained=False, **kwargs):
    """ResNeXt-50 32x4d: ResNet-50 with 32 groups of width 4 in each bottleneck.

    Example:
        >>> model = resnext50_32x4d(num_classes=10)  # doctest: +SKIP
    """
    return _resnet("resnext50_32x4d", BottleneckBlock, 50, pretrained, width=4, groups=32,
                   **kwargs)


def resnext50_64x4d(pretrained=False, **kwargs):
    """ResNeXt-50 64x4d: ResNet-50 with 64 groups of width 4 in each bottleneck.

    Example:
        >>> model = resnext50_64x4d(num_classes=10)  # doctest: +SKIP
    """
    return _resnet("resnext50_64x4d", BottleneckBlock, 50, pretrained, width=4,
                   groups=64, **kwargs)


def resnext101_32x4d(pretrained=False, **kwargs):
    """ResNeXt-101 32x4d: ResNet-101 with 32 groups of width 4 in each bottleneck.

    Example:
        >>> model = resnext101_32x4d(num_classes=10)  # doctest: +SKIP
    """
    return _resnet("resnext101_32x4d", BottleneckBlock, 101, pretrained, width=4,
                   groups=32, **kwargs)


def resnext101_64x4d(pretrained=False, **kwargs):
    """ResNeXt-101 64x4d: ResNet-101 with 64 groups of width 4 in each bottleneck.

    Example:
        >>> model = resnext101_64x4d(num_classes=10)  # doctest: +SKIP
    """
    return _resnet("resnext101_64x4d", BottleneckBlock, 101, pretrained, width=4,
                   groups=64, **kwargs)


def resnext152_32x4d(pretrained=False, **kwargs):
    """ResNeXt-152 32x4d: ResNet-152 with 32 groups of width 4 in each bottleneck.

    Example:
        >>> model = resnext152_32x4d(num_classes=10)  # doctest: +SKIP
    """
    return _resnet("resnext152_32x4d", BottleneckBlock, 152, pretrained, width=4,
                   groups=32, **kwargs)


def resnext152_64x4d(pretrained=False, **kwargs):
    """ResNeXt-152 64x4d: ResNet-152 with 64 groups of width 4 in each bottleneck.

    Example:
        >>> model = resnext152_64x4d(num_classes=10)  # doctest: +SKIP
    """
    return _resnet("resnext152_64x4d", BottleneckBlock, 152, pretrained, width=4,
                   groups=64, **kwargs)
