"""Vision rearranging layers of dygraph.nn (Paddle's paddle.nn.layer.vision): PixelShuffle,
PixelUnshuffle and ChannelShuffle, each calling its dygraph.nn.functional function.
"""

from dygraph.nn import functional as F
from dygraph.nn.layer.common import _name_suffix
from dygraph.nn.layer.layers import Layer

__all__ = ["PixelShuffle", "PixelUnshuffle", "ChannelShuffle"]


class PixelShuffle(Layer):
    """F.pixel_shuffle as a layer.

    Example:
        >>> import dygraph
        >>> dygraph.nn.PixelShuffle(2)(dygraph.ones([1, 8, 3, 3])).shape
        [1, 2, 6, 6]
    """

    _fn, _factor_name = staticmethod(F.pixel_shuffle), "upscale_factor"

    def __init__(self, upscale_factor, data_format="NCHW", name=None):
        super().__init__()
        self._factor, self._data_format, self._name = upscale_factor, data_format, name

    def forward(self, x):
        return self._fn(x, self._factor, self._data_format)

    def extra_repr(self):
        text = f"{self._factor_name}={self._factor}"
        if self._data_format != "NCHW":
            text += f", data_format={self._data_format}"
        return text + _name_suffix(self._name)


class PixelUnshuffle(PixelShuffle):
    """F.pixel_unshuffle as a layer.

    Example:
        >>> import dygraph
        >>> dygraph.nn.PixelUnshuffle(2)(dygraph.ones([1, 2, 6, 6])).shape
        [1, 8, 3, 3]
    """

    _fn, _factor_name = staticmethod(F.pixel_unshuffle), "downscale_factor"

    def __init__(self, downscale_factor, data_format="NCHW", name=None):
        super().__init__(downscale_factor, data_format, name)


class ChannelShuffle(Layer):
    """Interleave the channels of `groups` groups (see F.channel_shuffle).

    Example:
        >>> import dygraph
        >>> x = dygraph.arange(4, dtype='float32').reshape([1, 4, 1, 1])
        >>> dygraph.nn.ChannelShuffle(2)(x).numpy().ravel()
        array([0., 2., 1., 3.], dtype=float32)
    """

    def __init__(self, groups, data_format="NCHW", name=None):
        super().__init__()
        self._groups, self._data_format, self._name = groups, data_format, name

    def forward(self, x):
        return F.channel_shuffle(x, self._groups, self._data_format)

    def extra_repr(self):
        return f"groups={self._groups}, data_format={self._data_format}"
