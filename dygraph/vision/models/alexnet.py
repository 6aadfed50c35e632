"""AlexNet ("ImageNet Classification with Deep Convolutional Neural Networks") as in
`paddle.vision.models`, with the same layer names (so Paddle's weight files load) and the
same uniform initialisation. It has 61,100,840 parameters with 1000 classes.

The classifier expects a 256 x 6 x 6 feature map, which a 224 x 224 input gives; with
`num_classes <= 0` the model returns the feature map for any input of at least 63 x 63.

Example:
    >>> import dygraph
    >>> AlexNet(num_classes=0)(dygraph.rand([1, 3, 63, 63])).shape
    [1, 256, 1, 1]
"""

import math

import dygraph
from dygraph import nn
from dygraph.nn import functional as F
from dygraph.vision.models._utils import build_model

__all__ = ["AlexNet", "alexnet"]


def _uniform_attr(fan_in):
    stdv = 1.0 / math.sqrt(fan_in)
    return nn.ParamAttr(initializer=nn.initializer.Uniform(-stdv, stdv))


def _conv(in_channels, out_channels, kernel_size, stride, padding):
    fan_in = in_channels * kernel_size * kernel_size
    return nn.Conv2D(in_channels, out_channels, kernel_size, stride=stride, padding=padding,
                     weight_attr=_uniform_attr(fan_in), bias_attr=_uniform_attr(fan_in))


class ConvPoolLayer(nn.Layer):
    """Convolution, optional relu (`act='relu'`), then a 3x3/2 max-pool.

    Example:
        >>> import dygraph
        >>> ConvPoolLayer(3, 4, 3, 1, 1, act='relu')(dygraph.rand([1, 3, 7, 7])).shape
        [1, 4, 3, 3]
    """

    def __init__(self, input_channels, output_channels, filter_size, stride, padding,
                 stdv=None, groups=1, act=None):
        super().__init__()
        # `stdv` and `groups` are accepted for Paddle's signature; the initialisation
        # range follows from the fan-in, as Paddle's callers compute it.
        self.relu = nn.ReLU() if act == "relu" else None
        self._conv = _conv(input_channels, output_channels, filter_size, stride, padding)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)

    def forward(self, inputs):
        """pool(relu(conv(x)))."""
        x = self._conv(inputs)
        if self.relu is not None:
            x = self.relu(x)
        return self._pool(x)


class AlexNet(nn.Layer):
    """Five convolutions (three followed by max-pools) and, unless `num_classes <= 0`,
    a dropout + 9216 -> 4096 -> 4096 -> num_classes classifier.

    Example:
        >>> AlexNet(num_classes=10)._fc8.weight.shape
        [4096, 10]
    """

    def __init__(self, num_classes=1000):
        super().__init__()
        self.num_classes = num_classes
        self._conv1 = ConvPoolLayer(3, 64, 11, 4, 2, act="relu")
        self._conv2 = ConvPoolLayer(64, 192, 5, 1, 2, act="relu")
        self._conv3 = _conv(192, 384, 3, 1, 1)
        self._conv4 = _conv(384, 256, 3, 1, 1)
        self._conv5 = ConvPoolLayer(256, 256, 3, 1, 1, act="relu")
        if num_classes > 0:
            fan_in = 256 * 6 * 6
            self._drop1 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc6 = nn.Linear(fan_in, 4096, weight_attr=_uniform_attr(fan_in),
                                  bias_attr=_uniform_attr(fan_in))
            self._drop2 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc7 = nn.Linear(4096, 4096, weight_attr=_uniform_attr(fan_in),
                                  bias_attr=_uniform_attr(fan_in))
            self._fc8 = nn.Linear(4096, num_classes, weight_attr=_uniform_attr(fan_in),
                                  bias_attr=_uniform_attr(fan_in))

    def forward(self, inputs):
        """Logits [N, num_classes], or the feature map when num_classes <= 0."""
        x = self._conv2(self._conv1(inputs))
        x = F.relu(self._conv4(F.relu(self._conv3(x))))
        x = self._conv5(x)
        if self.num_classes > 0:
            x = self._drop1(dygraph.flatten(x, 1))
            x = self._drop2(F.relu(self._fc6(x)))
            x = self._fc8(F.relu(self._fc7(x)))
        return x


def alexnet(pretrained=False, **kwargs):
    """AlexNet; `kwargs` go to AlexNet (num_classes). `pretrained` may be a local weights
    path; True raises (no weights are downloaded).

    Example:
        >>> model = alexnet(num_classes=10)  # doctest: +SKIP
    """
    return build_model("alexnet", pretrained, lambda: AlexNet(**kwargs))
