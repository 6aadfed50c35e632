"""DenseNet ("Densely Connected Convolutional Networks") 121/161/169/201/264 as in
`paddle.vision.models`, with Paddle's layer names. densenet121 has 7,978,856 trainable parameters
with 1000 classes.

Example:
    >>> import dygraph
    >>> net = DenseNet(121, num_classes=10)  # doctest: +SKIP
    >>> net(dygraph.rand([1, 3, 32, 32])).shape  # doctest: +SKIP
    [1, 10]
"""

import math

import dygraph
from dygraph import nn
from dygraph.vision.models._utils import build_model

__all__ = ["DenseNet", "DenseLayer", "DenseBlock", "TransitionLayer", "densenet121",
           "densenet161", "densenet169", "densenet201", "densenet264"]

# depth: (stem channels, growth rate, dense layers per block)
_SPECS = {121: (64, 32, (6, 12, 24, 16)), 161: (96, 48, (6, 12, 36, 24)),
          169: (64, 32, (6, 12, 32, 32)), 201: (64, 32, (6, 12, 48, 32)),
          264: (64, 32, (6, 12, 64, 48))}


class BNACConvLayer(nn.Layer):
    """Pre-activation convolution: batch norm + relu, then a bias-free convolution.

    Example:
        >>> import dygraph
        >>> BNACConvLayer(3, 4, 3, pad=1)(dygraph.rand([1, 3, 5, 5])).shape
        [1, 4, 5, 5]
    """

    def __init__(self, num_channels, num_filters, filter_size, stride=1, pad=0, groups=1,
                 act="relu"):
        super().__init__()
        self._batch_norm = nn.BatchNorm(num_channels, act=act)
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride,
                               padding=pad, groups=groups, bias_attr=False)

    def forward(self, x):
        """conv(act(bn(x)))."""
        return self._conv(self._batch_norm(x))


class ConvBNLayer(nn.Layer):
    """Convolution (no bias), then batch norm with activation `act`.

    Example:
        >>> import dygraph
        >>> ConvBNLayer(3, 4, 3, pad=1)(dygraph.rand([1, 3, 5, 5])).shape
        [1, 4, 5, 5]
    """

    def __init__(self, num_channels, num_filters, filter_size, stride=1, pad=0, groups=1,
                 act="relu"):
        super().__init__()
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride,
                               padding=pad, groups=groups, bias_attr=False)
        self._batch_norm = nn.BatchNorm(num_filters, act=act)

    def forward(self, x):
        """act(bn(conv(x)))."""
        return self._batch_norm(self._conv(x))


class DenseLayer(nn.Layer):
    """A 1x1 bottleneck (`bn_size` x `growth_rate` channels) and a 3x3 conv to
    `growth_rate` channels, optional dropout, concatenated to the input.

    Example:
        >>> import dygraph
        >>> DenseLayer(8, 4, 2, 0.0)(dygraph.rand([1, 8, 3, 3])).shape
        [1, 12, 3, 3]
    """

    def __init__(self, num_channels, growth_rate, bn_size, dropout):
        super().__init__()
        self.dropout = dropout
        self.bn_ac_func1 = BNACConvLayer(num_channels, bn_size * growth_rate, 1)
        self.bn_ac_func2 = BNACConvLayer(bn_size * growth_rate, growth_rate, 3, pad=1)
        if dropout:
            self.dropout_func = nn.Dropout(p=dropout, mode="downscale_in_infer")

    def forward(self, x):
        """concat(x, new features)."""
        new = self.bn_ac_func2(self.bn_ac_func1(x))
        if self.dropout:
            new = self.dropout_func(new)
        return dygraph.concat([x, new], axis=1)


class DenseBlock(nn.Layer):
    """`num_layers` DenseLayers, each adding `growth_rate` channels.

    Example:
        >>> import dygraph
        >>> DenseBlock(8, 2, 2, 4, 0.0, name='b')(dygraph.rand([1, 8, 3, 3])).shape
        [1, 16, 3, 3]
    """

    def __init__(self, num_channels, num_layers, bn_size, growth_rate, dropout, name=None):
        super().__init__()
        self.dropout = dropout
        self.dense_layer_func = []
        for i in range(num_layers):
            layer = DenseLayer(num_channels + i * growth_rate, growth_rate, bn_size, dropout)
            self.dense_layer_func.append(self.add_sublayer(f"{name}_{i + 1}", layer))

    def forward(self, x):
        """The layers in turn."""
        for layer in self.dense_layer_func:
            x = layer(x)
        return x


class TransitionLayer(nn.Layer):
    """Between blocks: a pre-activated 1x1 conv, then a 2x2/2 average pool.

    Example:
        >>> import dygraph
        >>> TransitionLayer(8, 4)(dygraph.rand([1, 8, 4, 4])).shape
        [1, 4, 2, 2]
    """

    def __init__(self, num_channels, num_output_features):
        super().__init__()
        self.conv_ac_func = BNACConvLayer(num_channels, num_output_features, 1)
        self.pool2d_avg = nn.AvgPool2D(kernel_size=2, stride=2, padding=0)

    def forward(self, x):
        """pool(conv(x))."""
        return self.pool2d_avg(self.conv_ac_func(x))


class DenseNet(nn.Layer):
    """DenseNet of depth `layers` (121, 161, 169, 201 or 264): a 7x7/2 stem and max-pool,
    four dense blocks with halving transitions, a final batch norm + relu, then pooling
    (unless `with_pool=False`) and a linear head (unless `num_classes <= 0`).

    Example:
        >>> DenseNet(121, num_classes=10).out.weight.shape  # doctest: +SKIP
        [1024, 10]
    """

    def __init__(self, layers=121, bn_size=4, dropout=0.0, num_classes=1000, with_pool=True):
        super().__init__()
        if layers not in _SPECS:
            raise ValueError(f"DenseNet: supported layers are {sorted(_SPECS)}, but got "
                             f"{layers!r}")
        self.num_classes, self.with_pool = num_classes, with_pool
        channels, growth_rate, block_config = _SPECS[layers]
        self.block_config = block_config
        self.conv1_func = ConvBNLayer(3, channels, 7, stride=2, pad=3, act="relu")
        self.pool2d_max = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.dense_block_func_list, self.transition_func_list = [], []
        for i, num_layers in enumerate(block_config):
            block = DenseBlock(channels, num_layers, bn_size, growth_rate, dropout,
                               name=f"conv{i + 2}")
            self.dense_block_func_list.append(self.add_sublayer(f"db_conv_{i + 2}", block))
            channels += num_layers * growth_rate
            if i != len(block_config) - 1:
                transition = TransitionLayer(channels, channels // 2)
                self.transition_func_list.append(
                    self.add_sublayer(f"tr_conv{i + 2}_blk", transition))
                channels //= 2
        self.batch_norm = nn.BatchNorm(channels, act="relu")
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            stdv = 1.0 / math.sqrt(channels)
            self.out = nn.Linear(channels, num_classes, weight_attr=nn.ParamAttr(
                initializer=nn.initializer.Uniform(-stdv, stdv)))

    def forward(self, x):
        """Logits [N, num_classes] (or features, see the class docstring)."""
        x = self.pool2d_max(self.conv1_func(x))
        for i, block in enumerate(self.dense_block_func_list):
            x = block(x)
            if i < len(self.transition_func_list):
                x = self.transition_func_list[i](x)
        x = self.batch_norm(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.out(dygraph.flatten(x, 1))
        return x


def _densenet(depth, pretrained, **kwargs):
    return build_model(f"densenet{depth}", pretrained, lambda: DenseNet(depth, **kwargs))


def densenet121(pretrained=False, **kwargs):
    """DenseNet-121; `kwargs` go to DenseNet (bn_size, dropout, num_classes, with_pool).

    Example:
        >>> model = densenet121(num_classes=10)  # doctest: +SKIP
    """
    return _densenet(121, pretrained, **kwargs)


def densenet161(pretrained=False, **kwargs):
    """DenseNet-161 (growth rate 48).

    Example:
        >>> model = densenet161(num_classes=10)  # doctest: +SKIP
    """
    return _densenet(161, pretrained, **kwargs)


def densenet169(pretrained=False, **kwargs):
    """DenseNet-169.

    Example:
        >>> model = densenet169(num_classes=10)  # doctest: +SKIP
    """
    return _densenet(169, pretrained, **kwargs)


def densenet201(pretrained=False, **kwargs):
    """DenseNet-201.

    Example:
        >>> model = densenet201(num_classes=10)  # doctest: +SKIP
    """
    return _densenet(201, pretrained, **kwargs)


def densenet264(pretrained=False, **kwargs):
    """DenseNet-264.

    Example:
        >>> model = densenet264(num_classes=10)  # doctest: +SKIP
    """
    return _densenet(264, pretrained, **kwargs)
