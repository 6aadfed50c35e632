"""The 1.x convolution and pooling layers: Conv2D, Conv2DTranspose, Pool2D.

Each has the 1.5 signature with a `name_scope` first and the 1.6 one without it. Conv2D also
takes the 1.4 `num_channels=` keyword; without it (1.5) the input channels are read at the
first call, and the filter is created then. Computation is `dygraph.nn.functional`'s.

Example:
    >>> import numpy as np
    >>> import dygraph.fluid as fluid
    >>> with fluid.dygraph.guard():
    ...     conv = fluid.dygraph.Conv2D('conv', num_filters=4, filter_size=3, act='relu')
    ...     out = conv(fluid.dygraph.to_variable(np.ones([2, 3, 8, 8], np.float32)))
    ...     out.shape, conv._filter_param.shape
    ([2, 4, 6, 6], [4, 3, 3, 3])
"""

from dygraph.fluid.dygraph.layer_args import bind, pair
from dygraph.fluid.dygraph.layers import Layer
from dygraph.fluid.layers.nn import apply_act
from dygraph.nn import functional as F
from dygraph.nn.initializer import Normal

__all__ = ["Conv2D", "Conv2DTranspose", "Pool2D"]


def _conv_15(name_scope, num_filters, filter_size, stride=1, padding=0, dilation=1,
             groups=None, param_attr=None, bias_attr=None, use_cudnn=True, act=None,
             dtype="float32", *, num_channels=None):
    """Conv2D in 1.5 form (1.4: num_channels given)."""


def _conv_16(num_channels, num_filters, filter_size, stride=1, padding=0, dilation=1,
             groups=None, param_attr=None, bias_attr=None, use_cudnn=True, act=None,
             dtype="float32"):
    """Conv2D in 1.6 form."""


def _padding(value, owner):
    # 1.x paddings are symmetric pairs; later releases also took [top, bottom, left, right].
    if isinstance(value, (list, tuple)) and len(value) == 4:
        return list(value)
    return pair(value, "padding", owner)


def _groups(groups, owner):
    groups = 1 if groups is None else groups
    if not isinstance(groups, int) or isinstance(groups, bool) or groups < 1:
        raise ValueError(f"{owner}: groups must be a positive int, got {groups!r}")
    return groups


class Conv2D(Layer):
    """2-D convolution over NCHW input, plus bias and an optional activation.

    Signatures: `Conv2D(name_scope, num_filters, filter_size, stride=1, padding=0,
    dilation=1, groups=None, param_attr=None, bias_attr=None, use_cudnn=True, act=None,
    dtype='float32')` (1.5; add `num_channels=` for the 1.4 form) and
    `Conv2D(num_channels, num_filters, filter_size, ...)` (1.6). The filter
    `_filter_param` has shape [num_filters, channels / groups, kh, kw] and defaults to
    N(0, 2 / (kh * kw * channels)), as 1.x; `_bias_param` has shape [num_filters] and
    starts at 0 (bias_attr=False: no bias). `use_cudnn` changes nothing here.

    Example:
        >>> import dygraph
        >>> conv = Conv2D('c14', num_channels=1, num_filters=2, filter_size=3)
        >>> conv._filter_param.shape, conv(dygraph.ones([1, 1, 5, 5])).shape
        ([2, 1, 3, 3], [1, 2, 3, 3])
    """

    def __init__(self, *args, **kwargs):
        a = bind((_conv_15, _conv_16), args, kwargs)
        super().__init__(a["name_scope"], a["dtype"])
        if a["num_filters"] is None or a["filter_size"] is None:
            raise TypeError("Conv2D: num_filters and filter_size are required")
        self._num_filters = int(a["num_filters"])
        self._filter_size = pair(a["filter_size"], "filter_size", "Conv2D")
        self._stride = pair(a["stride"], "stride", "Conv2D")
        self._padding = _padding(a["padding"], "Conv2D")
        self._dilation = pair(a["dilation"], "dilation", "Conv2D")
        self._groups = _groups(a["groups"], "Conv2D")
        self._param_attr = a["param_attr"]
        self._bias_attr = a["bias_attr"]
        self._act = a["act"]
        self._filter_param = None
        self._bias_param = None
        if a["num_channels"] is not None:
            self._create_parameters(int(a["num_channels"]))

    def _create_parameters(self, num_channels):
        if num_channels % self._groups:
            raise ValueError(f"Conv2D: the input has {num_channels} channels, which "
                             f"groups={self._groups} does not divide")
        self._num_channels = num_channels
        kh, kw = self._filter_size
        std = (2.0 / (kh * kw * num_channels)) ** 0.5
        self._filter_param = self.create_parameter(
            self._param_attr, [self._num_filters, num_channels // self._groups, kh, kw],
            self._dtype, default_initializer=Normal(0.0, std))
        self._bias_param = self.create_parameter(self._bias_attr, [self._num_filters],
                                                 self._dtype, is_bias=True)

    def _build_once(self, input):
        if self._filter_param is None:
            self._create_parameters(input.shape[1])

    @property
    def weight(self):
        """The filter (1.6 name)."""
        return self._filter_param

    @property
    def bias(self):
        """The bias, or None (1.6 name)."""
        return self._bias_param

    def forward(self, input):
        out = F.conv2d(input, self._filter_param, self._bias_param, self._stride,
                       self._padding, self._dilation, self._groups)
        return apply_act(out, self._act)


def _deconv_15(name_scope, num_filters, output_size=None, filter_size=None, padding=0,
               stride=1, dilation=1, groups=None, param_attr=None, bias_attr=None,
               use_cudnn=True, act=None, dtype="float32"):
    """Conv2DTranspose in 1.5 form."""


def _deconv_16(num_channels, num_filters, filter_size, output_size=None, padding=0, stride=1,
               dilation=1, groups=None, param_attr=None, bias_attr=None, use_cudnn=True,
               act=None, dtype="float32"):
    """Conv2DTranspose in 1.6 form."""


class Conv2DTranspose(Layer):
    """Transposed 2-D convolution (the gradient of Conv2D with respect to its input).

    Signatures: `Conv2DTranspose(name_scope, num_filters, output_size=None,
    filter_size=None, padding=0, stride=1, dilation=1, groups=None, param_attr=None,
    bias_attr=None, use_cudnn=True, act=None)` (1.5; the filter is created at the first
    call, its size computed from output_size when filter_size is None) and
    `Conv2DTranspose(num_channels, num_filters, filter_size, output_size=None, ...)` (1.6).
    The weight has shape [in_channels, num_filters / groups, kh, kw] (Xavier by default).

    Example:
        >>> import dygraph
        >>> up = Conv2DTranspose('up', num_filters=2, output_size=8, stride=2)
        >>> up(dygraph.ones([1, 3, 4, 4])).shape, up.weight.shape
        ([1, 2, 8, 8], [3, 2, 2, 2])
    """

    def __init__(self, *args, **kwargs):
        a = bind((_deconv_15, _deconv_16), args, kwargs)
        super().__init__(a["name_scope"], a["dtype"])
        if a["filter_size"] is None and a["output_size"] is None:
            raise ValueError("Conv2DTranspose: give filter_size or output_size")
        self._num_filters = int(a["num_filters"])
        self._output_size = (None if a["output_size"] is None
                             else pair(a["output_size"], "output_size", "Conv2DTranspose"))
        self._filter_size = (None if a["filter_size"] is None
                             else pair(a["filter_size"], "filter_size", "Conv2DTranspose"))
        self._padding = _padding(a["padding"], "Conv2DTranspose")
        self._stride = pair(a["stride"], "stride", "Conv2DTranspose")
        self._dilation = pair(a["dilation"], "dilation", "Conv2DTranspose")
        self._groups = _groups(a["groups"], "Conv2DTranspose")
        self._param_attr = a["param_attr"]
        self._bias_attr = a["bias_attr"]
        self._act = a["act"]
        self.weight = None
        self.bias = None
        if a.get("num_channels") is not None:
            self._create_parameters(int(a["num_channels"]), None)

    def _filter_from_output(self, spatial):
        pads = self._padding if len(self._padding) == 2 else self._padding[::2]
        return [(out - (n - 1) * s + 2 * p - 1) // d + 1 for out, n, s, p, d in
                zip(self._output_size, spatial, self._stride, pads, self._dilation)]

    def _create_parameters(self, num_channels, spatial):
        if self._filter_size is None:
            self._filter_size = self._filter_from_output(spatial)
        if self._num_filters % self._groups or num_channels % self._groups:
            raise ValueError(f"Conv2DTranspose: groups={self._groups} must divide the "
                             f"{num_channels} input channels and the {self._num_filters} "
                             f"filters")
        shape = [num_channels, self._num_filters // self._groups] + self._filter_size
        self.weight = self.create_parameter(self._param_attr, shape, self._dtype)
        self.bias = self.create_parameter(self._bias_attr, [self._num_filters], self._dtype,
                                          is_bias=True)

    def _build_once(self, input):
        if self.weight is None:
            self._create_parameters(input.shape[1], input.shape[2:])

    def forward(self, input):
        out = F.conv2d_transpose(input, self.weight, self.bias, self._stride, self._padding,
                                 dilation=self._dilation, groups=self._groups,
                                 output_size=self._output_size)
        return apply_act(out, self._act)


def _pool_15(name_scope, pool_size=-1, pool_type="max", pool_stride=1, pool_padding=0,
             global_pooling=False, use_cudnn=True, ceil_mode=False, exclusive=True,
             dtype="float32"):
    """Pool2D in 1.5 form."""


def _pool_16(pool_size=-1, pool_type="max", pool_stride=1, pool_padding=0,
             global_pooling=False, use_cudnn=True, ceil_mode=False, exclusive=True,
             dtype="float32"):
    """Pool2D in 1.6 form."""


class Pool2D(Layer):
    """Max or average pooling over NCHW input.

    Signatures: `Pool2D(name_scope, pool_size=-1, pool_type='max', pool_stride=1,
    pool_padding=0, global_pooling=False, use_cudnn=True, ceil_mode=False, exclusive=True)`
    (1.5) and the same without name_scope (1.6). `global_pooling` pools each whole feature
    map to 1x1; `exclusive` leaves padding out of averages.

    Example:
        >>> import dygraph
        >>> pool = Pool2D('pool', pool_size=2, pool_type='max', pool_stride=2)
        >>> pool(dygraph.ones([1, 3, 8, 8])).shape
        [1, 3, 4, 4]
    """

    def __init__(self, *args, **kwargs):
        a = bind((_pool_15, _pool_16), args, kwargs)
        super().__init__(a["name_scope"], a["dtype"])
        if a["pool_type"] not in ("max", "avg"):
            raise ValueError(f"Pool2D: pool_type must be 'max' or 'avg', got "
                             f"{a['pool_type']!r}")
        self._global = bool(a["global_pooling"])
        if not self._global and a["pool_size"] == -1:
            raise ValueError("Pool2D: give pool_size, or set global_pooling=True")
        self._pool_size = None if self._global else pair(a["pool_size"], "pool_size",
                                                         "Pool2D")
        self._pool_type = a["pool_type"]
        self._stride = pair(a["pool_stride"], "pool_stride", "Pool2D")
        self._padding = _padding(a["pool_padding"], "Pool2D")
        self._ceil_mode = bool(a["ceil_mode"])
        self._exclusive = bool(a["exclusive"])

    def forward(self, input):
        if self._global:
            size, stride, padding = input.shape[2:], 1, 0
        else:
            size, stride, padding = self._pool_size, self._stride, self._padding
        if self._pool_type == "max":
            return F.max_pool2d(input, size, stride, padding, ceil_mode=self._ceil_mode)
        return F.avg_pool2d(input, size, stride, padding, ceil_mode=self._ceil_mode,
                            exclusive=self._exclusive)
