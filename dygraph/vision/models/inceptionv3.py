"""InceptionV3 ("Rethinking the Inception Architecture for Computer Vision") as in
`paddle.vision.models`, with Paddle's layer names. It has 23,834,568 trainable parameters with 1000
classes; inputs should be at least 75 x 75 (299 x 299 is the usual size).

Example:
    >>> import dygraph
    >>> InceptionV3(num_classes=10)(dygraph.rand([1, 3, 75, 75])).shape  # doctest: +SKIP
    [1, 10]
"""

import math

import dygraph
from dygraph import nn
from dygraph.vision.models._utils import ConvNormActivation, build_model

__all__ = ["InceptionV3", "InceptionStem", "InceptionA", "InceptionB", "InceptionC",
           "InceptionD", "InceptionE", "inception_v3"]


def _cna(in_channels, out_channels, kernel_size, stride=1, padding=0):
    return ConvNormActivation(in_channels, out_channels, kernel_size, stride=stride,
                              padding=padding)


def _avg_pool():
    return nn.AvgPool2D(kernel_size=3, stride=1, padding=1, exclusive=False)


class InceptionStem(nn.Layer):
    """Five conv-bn-relu layers and two 3x3/2 max-pools: 3 -> 192 channels, /8 size.

    Example:
        >>> import dygraph
        >>> InceptionStem()(dygraph.rand([1, 3, 75, 75])).shape
        [1, 192, 7, 7]
    """

    def __init__(self):
        super().__init__()
        self.conv_1a_3x3 = _cna(3, 32, 3, stride=2)
        self.conv_2a_3x3 = _cna(32, 32, 3)
        self.conv_2b_3x3 = _cna(32, 64, 3, padding=1)
        self.max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        self.conv_3b_1x1 = _cna(64, 80, 1)
        self.conv_4a_3x3 = _cna(80, 192, 3)

    def forward(self, x):
        """The stem."""
        x = self.conv_2b_3x3(self.conv_2a_3x3(self.conv_1a_3x3(x)))
        x = self.conv_4a_3x3(self.conv_3b_1x1(self.max_pool(x)))
        return self.max_pool(x)


class InceptionA(nn.Layer):
    """1x1; 1x1 -> 5x5; 1x1 -> 3x3 -> 3x3; avg-pool -> 1x1 (`pool_features`).

    Example:
        >>> import dygraph
        >>> InceptionA(8, 4)(dygraph.rand([1, 8, 3, 3])).shape
        [1, 228, 3, 3]
    """

    def __init__(self, num_channels, pool_features):
        super().__init__()
        self.branch1x1 = _cna(num_channels, 64, 1)
        self.branch5x5_1 = _cna(num_channels, 48, 1)
        self.branch5x5_2 = _cna(48, 64, 5, padding=2)
        self.branch3x3dbl_1 = _cna(num_channels, 64, 1)
        self.branch3x3dbl_2 = _cna(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = _cna(96, 96, 3, padding=1)
        self.branch_pool = _avg_pool()
        self.branch_pool_conv = _cna(num_channels, pool_features, 1)

    def forward(self, x):
        """Concatenated branches."""
        dbl = self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x)))
        return dygraph.concat([self.branch1x1(x), self.branch5x5_2(self.branch5x5_1(x)), dbl,
                               self.branch_pool_conv(self.branch_pool(x))], axis=1)


class InceptionB(nn.Layer):
    """Grid reduction: 3x3/2; 1x1 -> 3x3 -> 3x3/2; 3x3/2 max-pool.

    Example:
        >>> import dygraph
        >>> InceptionB(8)(dygraph.rand([1, 8, 5, 5])).shape
        [1, 488, 2, 2]
    """

    def __init__(self, num_channels):
        super().__init__()
        self.branch3x3 = _cna(num_channels, 384, 3, stride=2)
        self.branch3x3dbl_1 = _cna(num_channels, 64, 1)
        self.branch3x3dbl_2 = _cna(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = _cna(96, 96, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)

    def forward(self, x):
        """Concatenated branches."""
        dbl = self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x)))
        return dygraph.concat([self.branch3x3(x), dbl, self.branch_pool(x)], axis=1)


class InceptionC(nn.Layer):
    """Factorised 7x7 convolutions (1x7 and 7x1) with `channels_7x7` inner channels.

    Example:
        >>> import dygraph
        >>> InceptionC(8, 4)(dygraph.rand([1, 8, 3, 3])).shape
        [1, 768, 3, 3]
    """

    def __init__(self, num_channels, channels_7x7):
        super().__init__()
        c7 = channels_7x7
        self.branch1x1 = _cna(num_channels, 192, 1)
        self.branch7x7_1 = _cna(num_channels, c7, 1)
        self.branch7x7_2 = _cna(c7, c7, (1, 7), padding=(0, 3))
        self.branch7x7_3 = _cna(c7, 192, (7, 1), padding=(3, 0))
        self.branch7x7dbl_1 = _cna(num_channels, c7, 1)
        self.branch7x7dbl_2 = _cna(c7, c7, (7, 1), padding=(3, 0))
        self.branch7x7dbl_3 = _cna(c7, c7, (1, 7), padding=(0, 3))
        self.branch7x7dbl_4 = _cna(c7, c7, (7, 1), padding=(3, 0))
        self.branch7x7dbl_5 = _cna(c7, 192, (1, 7), padding=(0, 3))
        self.branch_pool = _avg_pool()
        self.branch_pool_conv = _cna(num_channels, 192, 1)

    def forward(self, x):
        """Concatenated branches."""
        b7 = self.branch7x7_3(self.branch7x7_2(self.branch7x7_1(x)))
        dbl = self.branch7x7dbl_1(x)
        for i in range(2, 6):
            dbl = getattr(self, f"branch7x7dbl_{i}")(dbl)
        return dygraph.concat([self.branch1x1(x), b7, dbl,
                               self.branch_pool_conv(self.branch_pool(x))], axis=1)


class InceptionD(nn.Layer):
    """Grid reduction: 1x1 -> 3x3/2; 1x1 -> 1x7 -> 7x1 -> 3x3/2; 3x3/2 max-pool.

    Example:
        >>> import dygraph
        >>> InceptionD(8)(dygraph.rand([1, 8, 5, 5])).shape
        [1, 520, 2, 2]
    """

    def __init__(self, num_channels):
        super().__init__()
        self.branch3x3_1 = _cna(num_channels, 192, 1)
        self.branch3x3_2 = _cna(192, 320, 3, stride=2)
        self.branch7x7x3_1 = _cna(num_channels, 192, 1)
        self.branch7x7x3_2 = _cna(192, 192, (1, 7), padding=(0, 3))
        self.branch7x7x3_3 = _cna(192, 192, (7, 1), padding=(3, 0))
        self.branch7x7x3_4 = _cna(192, 192, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)

    def forward(self, x):
        """Concatenated branches."""
        b7 = self.branch7x7x3_1(x)
        for i in range(2, 5):
            b7 = getattr(self, f"branch7x7x3_{i}")(b7)
        return dygraph.concat([self.branch3x3_2(self.branch3x3_1(x)), b7,
                               self.branch_pool(x)], axis=1)


class InceptionE(nn.Layer):
    """Expanded filter bank: 1x1; 1x1 -> (1x3 | 3x1); 1x1 -> 3x3 -> (1x3 | 3x1); pool.

    Example:
        >>> import dygraph
        >>> InceptionE(8)(dygraph.rand([1, 8, 2, 2])).shape
        [1, 2048, 2, 2]
    """

    def __init__(self, num_channels):
        super().__init__()
        self.branch1x1 = _cna(num_channels, 320, 1)
        self.branch3x3_1 = _cna(num_channels, 384, 1)
        self.branch3x3_2a = _cna(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3_2b = _cna(384, 384, (3, 1), padding=(1, 0))
        self.branch3x3dbl_1 = _cna(num_channels, 448, 1)
        self.branch3x3dbl_2 = _cna(448, 384, 3, padding=1)
        self.branch3x3dbl_3a = _cna(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3dbl_3b = _cna(384, 384, (3, 1), padding=(1, 0))
        self.branch_pool = _avg_pool()
        self.branch_pool_conv = _cna(num_channels, 192, 1)

    def forward(self, x):
        """Concatenated branches."""
        b3 = self.branch3x3_1(x)
        dbl = self.branch3x3dbl_2(self.branch3x3dbl_1(x))
        return dygraph.concat([
            self.branch1x1(x), self.branch3x3_2a(b3), self.branch3x3_2b(b3),
            self.branch3x3dbl_3a(dbl), self.branch3x3dbl_3b(dbl),
            self.branch_pool_conv(self.branch_pool(x))], axis=1)


class InceptionV3(nn.Layer):
    """InceptionV3: the stem, 3 A, 1 B, 4 C, 1 D and 2 E modules, pooling (unless
    `with_pool=False`) and dropout + linear (unless `num_classes <= 0`).

    Example:
        >>> InceptionV3(num_classes=10).fc.weight.shape  # doctest: +SKIP
        [2048, 10]
    """

    def __init__(self, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes, self.with_pool = num_classes, with_pool
        self.inception_stem = InceptionStem()
        blocks = [InceptionA(192, 32), InceptionA(256, 64), InceptionA(288, 64),
                  InceptionB(288), InceptionC(768, 128), InceptionC(768, 160),
                  InceptionC(768, 160), InceptionC(768, 192), InceptionD(768),
                  InceptionE(1280), InceptionE(2048)]
        self.inception_block_list = nn.LayerList(blocks)
        if with_pool:
            self.avg_pool = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            stdv = 1.0 / math.sqrt(2048.0)
            self.dropout = nn.Dropout(p=0.2, mode="downscale_in_infer")
            self.fc = nn.Linear(2048, num_classes, weight_attr=nn.ParamAttr(
                initializer=nn.initializer.Uniform(-stdv, stdv)))

    def forward(self, x):
        """Logits [N, num_classes] (or features, see the class docstring)."""
        x = self.inception_stem(x)
        for block in self.inception_block_list:
            x = block(x)
        if self.with_pool:
            x = self.avg_pool(x)
        if self.num_classes > 0:
            x = self.fc(self.dropout(x.reshape([-1, 2048])))
        return x


def inception_v3(pretrained=False, **kwargs):
    """InceptionV3; `kwargs` go to InceptionV3 (num_classes, with_pool).

    Example:
        >>> model = inception_v3(num_classes=10)  # doctest: +SKIP
    """
    return build_model("inception_v3", pretrained, lambda: InceptionV3(**kwargs))
