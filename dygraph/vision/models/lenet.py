"""LeNet (Paddle's `paddle.vision.models.LeNet`) and MNISTNet, the seeds' MNIST model.

Example:
    >>> import dygraph
    >>> LeNet()(dygraph.rand([2, 1, 28, 28])).shape
    [2, 10]
"""

import dygraph
from dygraph import nn
from dygraph.nn.initializer import Constant, Normal

__all__ = ["LeNet", "MNISTNet", "SimpleImgConvPool"]


class LeNet(nn.Layer):
    """LeNet for 1x28x28 images: conv 6@3x3 (padded), relu, max-pool 2, conv 16@5x5, relu,
    max-pool 2, then linear 400 -> 120 -> 84 -> num_classes (no activations between the
    linear layers, as in Paddle). With `num_classes <= 0` the linear head is left out and
    the model returns the 16x5x5 feature maps. 61,610 parameters with 10 classes.

    Example:
        >>> import dygraph
        >>> LeNet(num_classes=0)(dygraph.rand([1, 1, 28, 28])).shape
        [1, 16, 5, 5]
    """

    def __init__(self, num_classes=10):
        super().__init__()
        self.num_classes = num_classes
        self.features = nn.Sequential(
            nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
            nn.Conv2D(6, 16, 5, stride=1, padding=0), nn.ReLU(), nn.MaxPool2D(2, 2))
        if num_classes > 0:
            self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84),
                                    nn.Linear(84, num_classes))

    def forward(self, inputs):
        """Logits [N, num_classes] (or features when there is no head)."""
        x = self.features(inputs)
        if self.num_classes > 0:
            x = self.fc(dygraph.flatten(x, 1))
        return x


def _conv_init(in_channels, kernel_size):
    # Paddle 1.x's default conv initializer: N(0, sqrt(2 / fan_in)), the seeds' setting.
    return dygraph.ParamAttr(
        initializer=Normal(0.0, (2.0 / (kernel_size * kernel_size * in_channels)) ** 0.5))


class SimpleImgConvPool(nn.Layer):
    """The seeds' building block: a convolution, an optional activation and a pooling.

    `act` is 'relu' or None; `pool_type` is 'max' or 'avg'. The convolution is initialised
    with N(0, sqrt(2 / fan_in)) and a zero bias, like Paddle 1.x's Conv2D.

    Example:
        >>> import dygraph
        >>> block = SimpleImgConvPool(1, 20, 5, pool_size=2, pool_stride=2, act='relu')
        >>> block(dygraph.rand([1, 1, 28, 28])).shape
        [1, 20, 12, 12]
    """

    def __init__(self, in_channels, out_channels, filter_size, pool_size, pool_stride,
                 pool_padding=0, pool_type="max", act=None, conv_stride=1, conv_padding=0):
        super().__init__()
        if act not in (None, "relu"):
            raise ValueError(f"SimpleImgConvPool: act should be 'relu' or None, got {act!r}")
        if pool_type not in ("max", "avg"):
            raise ValueError(f"SimpleImgConvPool: pool_type should be 'max' or 'avg', "
                             f"got {pool_type!r}")
        self._conv2d = nn.Conv2D(in_channels, out_channels, filter_size, stride=conv_stride,
                                 padding=conv_padding,
                                 weight_attr=_conv_init(in_channels, filter_size),
                                 bias_attr=dygraph.ParamAttr(initializer=Constant(0.0)))
        self._act = nn.ReLU() if act == "relu" else None
        pool = nn.MaxPool2D if pool_type == "max" else nn.AvgPool2D
        self._pool2d = pool(pool_size, stride=pool_stride, padding=pool_padding)

    def forward(self, inputs):
        """conv -> act -> pool."""
        x = self._conv2d(inputs)
        if self._act is not None:
            x = self._act(x)
        return self._pool2d(x)


class MNISTNet(nn.Layer):
    """The seeds' handwritten-digit model, in the 2.x style: conv 20@5x5, relu, max-pool 2,
    conv 50@5x5, relu, max-pool 2, linear 800 -> num_classes. It returns logits (the 1.x
    model ended in softmax; 2.x `cross_entropy` applies the softmax itself), so take
    `softmax` of the output for probabilities. Input: [N, 1, 28, 28] scaled to [-1, 1].

    The linear weight starts from N(0, sqrt(2 / (800**2 * 10))) as in the seeds, and the
    convolutions from N(0, sqrt(2 / fan_in)); biases start at zero. 33,580 parameters.

    Example:
        >>> import dygraph
        >>> model = MNISTNet()
        >>> model(dygraph.rand([4, 1, 28, 28])).shape
        [4, 10]
        >>> sum(p.size for p in model.parameters())
        33580
    """

    def __init__(self, num_classes=10):
        super().__init__()
        self._simple_img_conv_pool_1 = SimpleImgConvPool(1, 20, 5, 2, 2, act="relu")
        self._simple_img_conv_pool_2 = SimpleImgConvPool(20, 50, 5, 2, 2, act="relu")
        features = 50 * 4 * 4
        scale = (2.0 / (features ** 2 * num_classes)) ** 0.5
        self._fc = nn.Linear(features, num_classes,
                             weight_attr=dygraph.ParamAttr(initializer=Normal(0.0, scale)),
                             bias_attr=dygraph.ParamAttr(initializer=Constant(0.0)))

    def forward(self, inputs):
        """Logits [N, num_classes] for images [N, 1, 28, 28]."""
        x = self._simple_img_conv_pool_1(inputs)
        x = self._simple_img_conv_pool_2(x)
        return self._fc(dygraph.flatten(x, 1))
