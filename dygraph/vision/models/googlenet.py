"""GoogLeNet ("Going Deeper with Convolutions") as in `paddle.vision.models`, with Paddle's
layer names and its two auxiliary heads: the model returns (out, out1, out2), the main
logits and the logits of the heads on inception 4a and 4d. It has 11,535,736 trainable parameters
with 1000 classes.

The auxiliary heads expect a 3x3 pooled map (a 224 x 224 input gives it; inputs from 189
to 236 pixels do too); with `num_classes <= 0` there are no heads, and inputs of at
least 93 x 93 work (61 x 61 with `with_pool=False`).

Example:
    >>> import dygraph
    >>> out, out1, out2 = GoogLeNet(num_classes=0, with_pool=False)(
    ...     dygraph.rand([1, 3, 64, 64]))
    >>> out.shape, out1.shape
    ([1, 1024, 1, 1], [1, 512, 3, 3])
"""

import dygraph
from dygraph import nn
from dygraph.nn import functional as F
from dygraph.vision.models._utils import build_model

__all__ = ["GoogLeNet", "Inception", "googlenet"]

# (input channels, 1x1, 3x3 reduce, 3x3, 5x5 reduce, 5x5, pool projection) per module.
_INCEPTIONS = {"_ince3a": (192, 64, 96, 128, 16, 32, 32),
               "_ince3b": (256, 128, 128, 192, 32, 96, 64),
               "_ince4a": (480, 192, 96, 208, 16, 48, 64),
               "_ince4b": (512, 160, 112, 224, 24, 64, 64),
               "_ince4c": (512, 128, 128, 256, 24, 64, 64),
               "_ince4d": (512, 112, 144, 288, 32, 64, 64),
               "_ince4e": (528, 256, 160, 320, 32, 128, 128),
               "_ince5a": (832, 256, 160, 320, 32, 128, 128),
               "_ince5b": (832, 384, 192, 384, 48, 128, 128)}


def _xavier(fan_in):
    stdv = (3.0 / fan_in) ** 0.5
    return nn.ParamAttr(initializer=nn.initializer.Uniform(-stdv, stdv))


class ConvLayer(nn.Layer):
    """A bias-free "same" convolution.

    Example:
        >>> import dygraph
        >>> ConvLayer(3, 4, 3, stride=2)(dygraph.rand([1, 3, 6, 6])).shape
        [1, 4, 3, 3]
    """

    def __init__(self, num_channels, num_filters, filter_size, stride=1, groups=1):
        super().__init__()
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride,
                               padding=(filter_size - 1) // 2, groups=groups,
                               bias_attr=False)

    def forward(self, x):
        """conv(x)."""
        return self._conv(x)


class Inception(nn.Layer):
    """Four parallel branches (1x1; 1x1 then 3x3; 1x1 then 5x5; 3x3 max-pool then 1x1),
    concatenated, then relu. `output_channels` is accepted for Paddle's signature.

    Example:
        >>> import dygraph
        >>> Inception(8, 8, 2, 2, 4, 2, 4, 2)(dygraph.rand([1, 8, 4, 4])).shape
        [1, 12, 4, 4]
    """

    def __init__(self, input_channels, output_channels, filter1, filter3R, filter3, filter5R,
                 filter5, proj):
        super().__init__()
        self._conv1 = ConvLayer(input_channels, filter1, 1)
        self._conv3r = ConvLayer(input_channels, filter3R, 1)
        self._conv3 = ConvLayer(filter3R, filter3, 3)
        self._conv5r = ConvLayer(input_channels, filter5R, 1)
        self._conv5 = ConvLayer(filter5R, filter5, 5)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=1, padding=1)
        self._convprj = ConvLayer(input_channels, proj, 1)

    def forward(self, x):
        """relu(concat of the branches)."""
        branches = [self._conv1(x), self._conv3(self._conv3r(x)),
                    self._conv5(self._conv5r(x)), self._convprj(self._pool(x))]
        return F.relu(dygraph.concat(branches, axis=1))


class GoogLeNet(nn.Layer):
    """GoogLeNet; `forward` returns (out, out1, out2). `with_pool=False` leaves out the
    pools before the heads, `num_classes <= 0` the heads (the three outputs are then the
    feature maps of inception 5b, 4a and 4d).

    Example:
        >>> GoogLeNet(num_classes=10)._fc_out.weight.shape
        [1024, 10]
    """

    def __init__(self, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes, self.with_pool = num_classes, with_pool
        self._conv = ConvLayer(3, 64, 7, 2)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2)
        self._conv_1 = ConvLayer(64, 64, 1)
        self._conv_2 = ConvLayer(64, 192, 3)
        for name, (inp, *filters) in _INCEPTIONS.items():
            setattr(self, name, Inception(inp, inp, *filters))
        if with_pool:
            self._pool_5 = nn.AdaptiveAvgPool2D(1)
            self._pool_o1 = nn.AvgPool2D(kernel_size=5, stride=3)
            self._pool_o2 = nn.AvgPool2D(kernel_size=5, stride=3)
        if num_classes > 0:
            self._drop = nn.Dropout(p=0.4, mode="downscale_in_infer")
            self._fc_out = nn.Linear(1024, num_classes, weight_attr=_xavier(1024))
            for i, inp in ((1, 512), (2, 528)):
                setattr(self, f"_conv_o{i}", ConvLayer(inp, 128, 1))
                setattr(self, f"_fc_o{i}", nn.Linear(1152, 1024, weight_attr=_xavier(2048)))
                setattr(self, f"_drop_o{i}", nn.Dropout(p=0.7, mode="downscale_in_infer"))
                setattr(self, f"_out{i}", nn.Linear(1024, num_classes,
                                                    weight_attr=_xavier(1024)))

    def _aux_head(self, x, i):
        x = dygraph.flatten(getattr(self, f"_conv_o{i}")(x), 1)
        x = getattr(self, f"_fc_o{i}")(x)
        if i == 1:  # Paddle applies relu in the first auxiliary head only.
            x = F.relu(x)
        return getattr(self, f"_out{i}")(getattr(self, f"_drop_o{i}")(x))

    def forward(self, inputs):
        """(main logits, auxiliary logits 1, auxiliary logits 2)."""
        x = self._pool(self._conv(inputs))
        x = self._pool(self._conv_2(self._conv_1(x)))
        x = self._pool(self._ince3b(self._ince3a(x)))
        ince4a = self._ince4a(x)
        ince4d = self._ince4d(self._ince4c(self._ince4b(ince4a)))
        x = self._pool(self._ince4e(ince4d))
        out, out1, out2 = self._ince5b(self._ince5a(x)), ince4a, ince4d
        if self.with_pool:
            out, out1, out2 = self._pool_5(out), self._pool_o1(out1), self._pool_o2(out2)
        if self.num_classes > 0:
            out = self._fc_out(dygraph.flatten(self._drop(out), 1))
            out1, out2 = self._aux_head(out1, 1), self._aux_head(out2, 2)
        return out, out1, out2


def googlenet(pretrained=False, **kwargs):
    """GoogLeNet; `kwargs` go to GoogLeNet (num_classes, with_pool).

    Example:
        >>> model = googlenet(num_classes=10)  # doctest: +SKIP
    """
    return build_model("googlenet", pretrained, lambda: GoogLeNet(**kwargs))
