"""VGG ("Very Deep Convolutional Networks for Large-Scale Image Recognition") as in
`paddle.vision.models`: `VGG(features)`, `make_layers` and vgg11/13/16/19 with an optional
batch norm after every convolution.

The classifier expects the 512x7x7 map that the adaptive pool makes, so any input size of
at least 32x32 works. vgg16 has 138,357,544 parameters with 1000 classes (the
constructors' examples are skipped as doctests: initialising them takes seconds).

Example:
    >>> import dygraph
    >>> features = make_layers([8, 'M', 16, 'M'], batch_norm=True)
    >>> features(dygraph.rand([1, 3, 16, 16])).shape
    [1, 16, 4, 4]
"""

import dygraph
from dygraph import nn
from dygraph.vision.models._utils import build_model

__all__ = ["VGG", "make_layers", "vgg11", "vgg13", "vgg16", "vgg19"]

# Output channels of each 3x3 convolution; 'M' is a 2x2 max-pool.
_CONFIGS = {
    11: [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    13: [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    16: [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512,
         "M"],
    19: [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M", 512,
         512, 512, 512, "M"],
}


def make_layers(cfg, batch_norm=False, in_channels=3):
    """The convolutional part of a VGG: `cfg` lists output channels of 3x3 convolutions
    (each followed by batch norm when `batch_norm` and a relu) and 'M' for 2x2 max-pools.

    Example:
        >>> len(make_layers([64, 'M']))
        3
    """
    layers = []
    for item in cfg:
        if item == "M":
            layers.append(nn.MaxPool2D(kernel_size=2, stride=2))
            continue
        layers.append(nn.Conv2D(in_channels, item, kernel_size=3, padding=1))
        if batch_norm:
            layers.append(nn.BatchNorm2D(item))
        layers.append(nn.ReLU())
        in_channels = item
    return nn.Sequential(*layers)


class VGG(nn.Layer):
    """A VGG network: `features` (see make_layers, ending with 512 channels), a 7x7
    adaptive average pool (skipped with `with_pool=False`) and the classifier
    linear 25088 -> 4096 -> 4096 -> num_classes with relu and dropout (left out when
    `num_classes <= 0`).

    Example:
        >>> import dygraph
        >>> net = VGG(make_layers([512, 'M']), num_classes=0)
        >>> net(dygraph.rand([1, 3, 8, 8])).shape
        [1, 512, 7, 7]
    """

    def __init__(self, features, num_classes=1000, with_pool=True):
        super().__init__()
        self.features = features
        self.num_classes = num_classes
        self.with_pool = with_pool
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((7, 7))
        if num_classes > 0:
            self.classifier = nn.Sequential(
                nn.Linear(512 * 7 * 7, 4096), nn.ReLU(), nn.Dropout(),
                nn.Linear(4096, 4096), nn.ReLU(), nn.Dropout(),
                nn.Linear(4096, num_classes))

    def forward(self, x):
        """Logits [N, num_classes] (or features, see the class docstring)."""
        x = self.features(x)
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.classifier(dygraph.flatten(x, 1))
        return x


def _vgg(depth, pretrained, batch_norm, **kwargs):
    arch = f"vgg{depth}" + ("_bn" if batch_norm else "")
    return build_model(arch, pretrained,
                       lambda: VGG(make_layers(_CONFIGS[depth], batch_norm), **kwargs))


def vgg11(pretrained=False, batch_norm=False, **kwargs):
    """VGG-11 (configuration A); `kwargs` go to VGG (num_classes, with_pool).

    Example:
        >>> model = vgg11(num_classes=10)  # doctest: +SKIP
    """
    return _vgg(11, pretrained, batch_norm, **kwargs)


def vgg13(pretrained=False, batch_norm=False, **kwargs):
    """VGG-13 (configuration B); `kwargs` go to VGG (num_classes, with_pool).

    Example:
        >>> model = vgg13(num_classes=10)  # doctest: +SKIP
    """
    return _vgg(13, pretrained, batch_norm, **kwargs)


def vgg16(pretrained=False, batch_norm=False, **kwargs):
    """VGG-16 (configuration D); `kwargs` go to VGG (num_classes, with_pool).

    Example:
        >>> model = vgg16(batch_norm=True, num_classes=10)  # doctest: +SKIP
    """
    return _vgg(16, pretrained, batch_norm, **kwargs)


def vgg19(pretrained=False, batch_norm=False, **kwargs):
    """VGG-19 (configuration E); `kwargs` go to VGG (num_classes, with_pool).

    Example:
        >>> model = vgg19(num_classes=10)  # doctest: +SKIP
    """
    return _vgg(19, pretrained, batch_norm, **kwargs)
