"""More pooling layers: LPPool1D/2D, MaxUnPool1D/2D/3D, FractionalMaxPool2D/3D, and the
torch-style spellings Paddle 3 exports (LPPool1d, AdaptiveMaxPool2d, ...)."""

from dygraph.nn import functional as F
from dygraph.nn.layer.layers import Layer
from dygraph.nn.layer.pooling import AdaptiveMaxPool1D, AdaptiveMaxPool2D, AdaptiveMaxPool3D

__all__ = ["LPPool1D", "LPPool2D", "LPPool1d", "LPPool2d", "MaxUnPool1D", "MaxUnPool2D",
           "MaxUnPool3D", "FractionalMaxPool2D", "FractionalMaxPool3D", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool2d", "AdaptiveMaxPool3d"]


class LPPool1D(Layer):
    """Power-average pooling over L (see F.lp_pool1d).

    Example:
        >>> import dygraph
        >>> dygraph.nn.LPPool1D(2, 2)(dygraph.to_tensor([[[3.0, 4.0, 1.0, 0.0]]])).numpy()
        array([[[5., 1.]]], dtype=float32)
    """

    _function, _format = staticmethod(F.lp_pool1d), "NCL"

    def __init__(self, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
                 data_format=None, name=None):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride = norm_type, kernel_size, stride
        self.padding, self.ceil_mode = padding, ceil_mode
        self.data_format = data_format or self._format

    def forward(self, x):
        return self._function(x, self.norm_type, self.kernel_size, self.stride, self.padding,
                              self.ceil_mode, self.data_format)

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, padding={self.padding}")


class LPPool2D(LPPool1D):
    """Power-average pooling over H and W (see F.lp_pool2d).

    Example:
        >>> import dygraph
        >>> dygraph.nn.LPPool2D(1, 2)(dygraph.ones([1, 1, 2, 2])).numpy()
        array([[[[4.]]]], dtype=float32)
    """

    _function, _format = staticmethod(F.lp_pool2d), "NCHW"


class MaxUnPool1D(Layer):
    """The inverse of MaxPool1D given its mask (see F.max_unpool1d).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> y, idx = F.max_pool1d(dygraph.to_tensor([[[1.0, 3.0]]]), 2, return_mask=True)
        >>> dygraph.nn.MaxUnPool1D(2)(y, idx).numpy()
        array([[[0., 3.]]], dtype=float32)
    """

    _function, _format = staticmethod(F.max_unpool1d), "NCL"

    def __init__(self, kernel_size, stride=None, padding=0, data_format=None,
                 output_size=None, name=None):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.data_format = data_format or self._format
        self.output_size = output_size

    def forward(self, x, indices):
        return self._function(x, indices, self.kernel_size, self.stride, self.padding,
                              self.data_format, self.output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnPool2D(MaxUnPool1D):
    """The inverse of MaxPool2D given its mask (see F.max_unpool2d).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> y, idx = F.max_pool2d(dygraph.ones([1, 1, 2, 2]), 2, return_mask=True)
        >>> dygraph.nn.MaxUnPool2D(2)(y, idx).shape
        [1, 1, 2, 2]
    """

    _function, _format = staticmethod(F.max_unpool2d), "NCHW"


class MaxUnPool3D(MaxUnPool1D):
    """The inverse of MaxPool3D given its mask (see F.max_unpool3d).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> y, idx = F.max_pool3d(dygraph.ones([1, 1, 2, 2, 2]), 2, return_mask=True)
        >>> dygraph.nn.MaxUnPool3D(2)(y, idx).shape
        [1, 1, 2, 2, 2]
    """

    _function, _format = staticmethod(F.max_unpool3d), "NCDHW"


class FractionalMaxPool2D(Layer):
    """Fractional max pooling to output_size (see F.fractional_max_pool2d).

    Example:
        >>> import dygraph
        >>> x = dygraph.arange(16, dtype='float32').reshape([1, 1, 4, 4])
        >>> dygraph.nn.FractionalMaxPool2D(2, random_u=0.5)(x).numpy()
        array([[[[ 5.,  7.],
                 [13., 15.]]]], dtype=float32)
    """

    _function = staticmethod(F.fractional_max_pool2d)

    def __init__(self, output_size, kernel_size=None, random_u=None, return_mask=False,
                 name=None):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.random_u, self.return_mask = random_u, return_mask

    def forward(self, x):
        return self._function(x, self.output_size, self.kernel_size, self.random_u,
                              self.return_mask)

    def extra_repr(self):
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"random_u={self.random_u}, return_mask={self.return_mask}")


class FractionalMaxPool3D(FractionalMaxPool2D):
    """Fractional max pooling of NCDHW input (see F.fractional_max_pool3d).

    Example:
        >>> import dygraph
        >>> dygraph.nn.FractionalMaxPool3D(1, random_u=0.5)(dygraph.ones([1, 1, 2, 2, 2])).shape
        [1, 1, 1, 1, 1]
    """

    _function = staticmethod(F.fractional_max_pool3d)


LPPool1d, LPPool2d = LPPool1D, LPPool2D
AdaptiveMaxPool1d, AdaptiveMaxPool2d = AdaptiveMaxPool1D, AdaptiveMaxPool2D
AdaptiveMaxPool3d = AdaptiveMaxPool3D
