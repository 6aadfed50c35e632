"""The pooling layers of dygraph.nn: Max/AvgPool1D/2D/3D and the adaptive pools.

Each stores its arguments and calls the dygraph.nn.functional op; none has parameters.
"""

from dygraph.nn import functional as F
from dygraph.nn.layer.layers import Layer

__all__ = ["MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D",
           "AdaptiveAvgPool1D", "AdaptiveAvgPool2D", "AdaptiveAvgPool3D", "AdaptiveMaxPool1D",
           "AdaptiveMaxPool2D", "AdaptiveMaxPool3D", "LPPool1D", "LPPool2D", "LPPool1d",
           "LPPool2d", "MaxUnPool1D", "MaxUnPool2D", "MaxUnPool3D", "FractionalMaxPool2D",
           "FractionalMaxPool3D", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d"]


class _Pool(Layer):
    def __init__(self, kernel_size, stride, padding, name):
        super().__init__()
        self.ksize, self.stride, self.padding, self._name = kernel_size, stride, padding, name

    def extra_repr(self):
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class _MaxPool(_Pool):
    _function = staticmethod(F.max_pool2d)
    _format = None

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format=None, name=None):
        super().__init__(kernel_size, stride, padding, name)
        self.return_mask, self.ceil_mode, self.data_format = return_mask, ceil_mode, data_format

    def forward(self, x):
        kwargs = {} if self.data_format is None else {"data_format": self.data_format}
        return self._function(x, self.ksize, self.stride, self.padding, self.return_mask,
                              self.ceil_mode, **kwargs)


class MaxPool1D(_MaxPool):
    """Max pooling over x [N, C, L].

    Example:
        >>> import dygraph
        >>> dygraph.nn.MaxPool1D(2)(dygraph.to_tensor([[[1.0, 3.0, 2.0, 0.0]]])).numpy()
        array([[[3., 2.]]], dtype=float32)
    """

    _function = staticmethod(F.max_pool1d)

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 name=None):
        super().__init__(kernel_size, stride, padding, return_mask, ceil_mode, None, name)


class MaxPool2D(_MaxPool):
    """Max pooling over x [N, C, H, W] (or NHWC); return_mask adds the argmax indices.

    Example:
        >>> import dygraph
        >>> pool = dygraph.nn.MaxPool2D(2)
        >>> pool(dygraph.ones([1, 3, 4, 4])).shape, pool
        ([1, 3, 2, 2], MaxPool2D(kernel_size=2, stride=None, padding=0))
    """

    _function = staticmethod(F.max_pool2d)

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format="NCHW", name=None):
        super().__init__(kernel_size, stride, padding, return_mask, ceil_mode, data_format, name)


class MaxPool3D(_MaxPool):
    """Max pooling over x [N, C, D, H, W] (or NDHWC).

    Example:
        >>> import dygraph
        >>> dygraph.nn.MaxPool3D(2)(dygraph.ones([1, 1, 4, 4, 4])).shape
        [1, 1, 2, 2, 2]
    """

    _function = staticmethod(F.max_pool3d)

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format="NCDHW", name=None):
        super().__init__(kernel_size, stride, padding, return_mask, ceil_mode, data_format, name)


class AvgPool1D(_Pool):
    """Average pooling over x [N, C, L]; exclusive=True leaves padding out of the count.

    Example:
        >>> import dygraph
        >>> dygraph.nn.AvgPool1D(2)(dygraph.to_tensor([[[1.0, 3.0, 2.0, 0.0]]])).numpy()
        array([[[2., 1.]]], dtype=float32)
    """

    def __init__(self, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False,
                 name=None):
        super().__init__(kernel_size, stride, padding, name)
        self.exclusive, self.ceil_mode = exclusive, ceil_mode

    def forward(self, x):
        return F.avg_pool1d(x, self.ksize, self.stride, self.padding, self.exclusive,
                            self.ceil_mode)


class _AvgPool(_Pool):
    _function = staticmethod(F.avg_pool2d)

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format="NCHW", name=None):
        super().__init__(kernel_size, stride, padding, name)
        self.ceil_mode, self.exclusive = ceil_mode, exclusive
        self.divisor, self.data_format = divisor_override, data_format

    def forward(self, x):
        return self._function(x, self.ksize, self.stride, self.padding, self.ceil_mode,
                              self.exclusive, self.divisor, self.data_format)


class AvgPool2D(_AvgPool):
    """Average pooling over x [N, C, H, W] (or NHWC).

    Example:
        >>> import dygraph
        >>> dygraph.nn.AvgPool2D(2)(dygraph.ones([1, 1, 4, 4])).numpy()[0, 0]
        array([[1., 1.],
               [1., 1.]], dtype=float32)
    """


class AvgPool3D(_AvgPool):
    """Average pooling over x [N, C, D, H, W] (or NDHWC).

    Example:
        >>> import dygraph
        >>> dygraph.nn.AvgPool3D(2)(dygraph.ones([1, 1, 2, 2, 2])).shape
        [1, 1, 1, 1, 1]
    """

    _function = staticmethod(F.avg_pool3d)

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format="NCDHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
                         data_format, name)


class _Adaptive(Layer):
    def __init__(self, output_size, name=None):
        super().__init__()
        self._output_size, self._name = output_size, name

    def extra_repr(self):
        return f"output_size={self._output_size}"


class AdaptiveAvgPool1D(_Adaptive):
    """Average over output_size bins of x [N, C, L].

    Example:
        >>> import dygraph
        >>> dygraph.nn.AdaptiveAvgPool1D(2)(dygraph.to_tensor([[[1.0, 3.0, 2.0]]])).numpy()
        array([[[2. , 2.5]]], dtype=float32)
    """

    def forward(self, x):
        return F.adaptive_avg_pool1d(x, self._output_size)


class AdaptiveAvgPool2D(_Adaptive):
    """Average over an output_size grid of bins; output_size=1 is global average pooling.

    Example:
        >>> import dygraph
        >>> dygraph.nn.AdaptiveAvgPool2D(1)(dygraph.ones([2, 3, 7, 7])).shape
        [2, 3, 1, 1]
    """

    def __init__(self, output_size, data_format="NCHW", name=None):
        super().__init__(output_size, name)
        self._data_format = data_format

    def forward(self, x):
        return F.adaptive_avg_pool2d(x, self._output_size, self._data_format)


class AdaptiveAvgPool3D(AdaptiveAvgPool2D):
    """Average over an output_size grid of bins of x [N, C, D, H, W].

    Example:
        >>> import dygraph
        >>> dygraph.nn.AdaptiveAvgPool3D(1)(dygraph.ones([1, 2, 3, 3, 3])).shape
        [1, 2, 1, 1, 1]
    """

    def __init__(self, output_size, data_format="NCDHW", name=None):
        super().__init__(output_size, data_format, name)

    def forward(self, x):
        return F.adaptive_avg_pool3d(x, self._output_size, self._data_format)


class _AdaptiveMax(_Adaptive):
    _function = staticmethod(F.adaptive_max_pool2d)

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(output_size, name)
        self._return_mask = return_mask

    def forward(self, x):
        return self._function(x, self._output_size, self._return_mask)

    def extra_repr(self):
        return f"output_size={self._output_size}, return_mask={self._return_mask}"


class AdaptiveMaxPool1D(_AdaptiveMax):
    """Max over output_size bins of x [N, C, L].

    Example:
        >>> import dygraph
        >>> dygraph.nn.AdaptiveMaxPool1D(2)(dygraph.to_tensor([[[1.0, 3.0, 2.0]]])).numpy()
        array([[[3., 3.]]], dtype=float32)
    """

    _function = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool2D(_AdaptiveMax):
    """Max over an output_size grid of bins of x [N, C, H, W].

    Example:
        >>> import dygraph
        >>> dygraph.nn.AdaptiveMaxPool2D([2, 3])(dygraph.ones([1, 1, 5, 7])).shape
        [1, 1, 2, 3]
    """


class AdaptiveMaxPool3D(_AdaptiveMax):
    """Max over an output_size grid of bins of x [N, C, D, H, W].

    Example:
        >>> import dygraph
        >>> dygraph.nn.AdaptiveMaxPool3D(1)(dygraph.ones([1, 1, 2, 2, 2])).shape
        [1, 1, 1, 1, 1]
    """

    _function = staticmethod(F.adaptive_max_pool3d)


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
