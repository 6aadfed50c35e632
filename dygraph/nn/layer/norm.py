"""The normalization layers of dygraph.nn: BatchNorm1D/2D/3D, the 1.x-style BatchNorm,
LayerNorm, GroupNorm, InstanceNorm1D/2D/3D and LocalResponseNorm.

As in Paddle, batch norm keeps its running statistics as the non-trainable parameters
`_mean` and `_variance` (stop_gradient, saved in the state dict), scales start at one and
shifts at zero, and weight_attr=False / bias_attr=False freeze them at those values.
"""

import math

import numpy as np

from dygraph import ops as P
from dygraph.autograd import grad_mode
from dygraph.framework.dtype import get_default_dtype
from dygraph.framework.errors import op_error
from dygraph.nn import functional as F
from dygraph.nn.initializer import Constant, Normal
from dygraph.nn.layer.layers import Layer
from dygraph.nn.param_attr import ParamAttr
from dygraph.ops.device_constants import const

__all__ = ["BatchNorm", "BatchNorm1D", "BatchNorm2D", "BatchNorm3D", "LayerNorm", "GroupNorm",
           "InstanceNorm1D", "InstanceNorm2D", "InstanceNorm3D", "LocalResponseNorm",
           "SyncBatchNorm", "SpectralNorm"]


def _affine(layer, shape, weight_attr, bias_attr, frozen_when_false):
    """Create weight (ones) and bias (zeros). An attr of False gives a frozen parameter when
    `frozen_when_false` (batch norm) and no parameter otherwise."""
    params = []
    for attr, value, is_bias in ((weight_attr, 1.0, False), (bias_attr, 0.0, True)):
        if attr is False and not frozen_when_false:
            params.append(None)
            continue
        p = layer.create_parameter(shape, attr=None if attr is False else attr, is_bias=is_bias,
                                   default_initializer=Constant(value))
        if attr is False:
            p.stop_gradient = True
        params.append(p)
    return params


class _BatchNormBase(Layer):
    """Shared parameters and forward of the batch norm layers."""

    _ndims = None  # accepted input ranks
    _default_format = "NCHW"
    # The data_format values the class takes (None: any of F.batch_norm's), checked at the
    # call as Paddle does; 2-D and 3-D batch norms also take the 4-D names.
    _formats = None

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format=None, use_global_stats=None, name=None,
                 moving_mean_name=None, moving_variance_name=None, dtype=None):
        super().__init__(dtype=dtype or get_default_dtype())
        self._num_features, self._momentum, self._epsilon = num_features, momentum, epsilon
        self._data_format = data_format or self._default_format
        self._use_global_stats, self._name = use_global_stats, name
        self.weight, self.bias = _affine(self, [num_features], weight_attr, bias_attr, True)
        # The initializer sits in the attr so that a global initializer cannot replace it.
        self._mean = self.create_parameter(
            [num_features], attr=ParamAttr(name=moving_mean_name, initializer=Constant(0.0),
                                           trainable=False))
        self._variance = self.create_parameter(
            [num_features], attr=ParamAttr(name=moving_variance_name, initializer=Constant(1.0),
                                           trainable=False))

    def _check_input(self, x):
        if self._formats is not None and self._data_format not in self._formats:
            raise op_error(type(self).__name__, f"data_format must be one of "
                           f"{list(self._formats)}, got {self._data_format!r}")
        if self._ndims is not None and x.ndim not in self._ndims:
            raise op_error(type(self).__name__, f"expects a {' or '.join(map(str, self._ndims))}"
                           f"-D input, got shape {x.shape}")

    def forward(self, x):
        self._check_input(x)
        return F.batch_norm(x, self._mean, self._variance, self.weight, self.bias,
                            training=self.training, momentum=self._momentum,
                            epsilon=self._epsilon, data_format=self._data_format,
                            use_global_stats=self._use_global_stats)

    def extra_repr(self):
        text = (f"num_features={self._num_features}, momentum={self._momentum}, "
                f"epsilon={self._epsilon}")
        if self._data_format != "NCHW":
            text += f", data_format={self._data_format}"
        if self._name is not None:
            text += f", name={self._name}"
        return text


class BatchNorm1D(_BatchNormBase):
    """Batch norm over x [N, C] or [N, C, L] (data_format 'NC', 'NCL' or 'NLC').

    Example:
        >>> import dygraph
        >>> bn = dygraph.nn.BatchNorm1D(3)
        >>> bn(dygraph.randn([8, 3])).shape, bn._mean.shape
        ([8, 3], [3])
    """

    _ndims = (2, 3)
    _default_format = "NCL"
    _formats = ("NC", "NCL", "NLC", "NCHW", "NHWC")


class BatchNorm2D(_BatchNormBase):
    """Batch norm over x [N, C, H, W] (or NHWC): batch statistics in training mode (which
    update the running ones), running statistics in eval mode.

    Example:
        >>> import dygraph
        >>> bn = dygraph.nn.BatchNorm2D(2)
        >>> [name for name, _ in bn.named_parameters()]
        ['weight', 'bias', '_mean', '_variance']
    """

    _ndims = (4,)
    _formats = ("NCHW", "NHWC")


class BatchNorm3D(_BatchNormBase):
    """Batch norm over x [N, C, D, H, W] (or NDHWC).

    Example:
        >>> import dygraph
        >>> dygraph.nn.BatchNorm3D(2)(dygraph.randn([2, 2, 2, 2, 2])).shape
        [2, 2, 2, 2, 2]
    """

    _ndims = (5,)
    _default_format = "NCDHW"
    _formats = ("NCDHW", "NDHWC", "NCHW", "NHWC")


class BatchNorm(_BatchNormBase):
    """The 1.x-style batch norm of paddle.nn: num_channels, an optional activation `act`,
    param_attr/bias_attr, data_layout and named running statistics.

    In dygraph the mode comes from train()/eval(); is_test is accepted for compatibility.
    trainable_statistics=True uses batch statistics in eval mode too.

    Example:
        >>> import dygraph
        >>> bn = dygraph.nn.BatchNorm(3, act='relu')
        >>> bool((bn(dygraph.randn([4, 3, 2, 2])).numpy() >= 0).all())
        True
    """

    def __init__(self, num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05,
                 param_attr=None, bias_attr=None, dtype="float32", data_layout="NCHW",
                 in_place=False, moving_mean_name=None, moving_variance_name=None,
                 do_model_average_for_mean_and_var=True, use_global_stats=False,
                 trainable_statistics=False):
        super().__init__(num_channels, momentum, epsilon, param_attr, bias_attr, data_layout,
                         use_global_stats, None, moving_mean_name, moving_variance_name, dtype)
        self._act, self._is_test = act, is_test
        self._trainable_statistics = trainable_statistics

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        # None follows `training` (running statistics in eval mode), so a program saved in
        # eval mode and switched to train() after jit.load uses batch statistics again.
        global_stats = True if self._use_global_stats else (
            False if not self.training and self._trainable_statistics else None)
        y = F.batch_norm(input, self._mean, self._variance, self.weight, self.bias,
                         training=self.training, momentum=self._momentum,
                         epsilon=self._epsilon, data_format=self._data_format,
                         use_global_stats=global_stats)
        return getattr(F, self._act)(y) if self._act else y

    def extra_repr(self):
        return ""


class LayerNorm(Layer):
    """Layer norm over the trailing normalized_shape dims; weight and bias hold
    prod(normalized_shape) values.

    Example:
        >>> import dygraph
        >>> ln = dygraph.nn.LayerNorm([3, 4])
        >>> ln(dygraph.randn([2, 3, 4])).shape, ln.weight.shape, ln
        ([2, 3, 4], [12], LayerNorm(normalized_shape=[3, 4], epsilon=1e-05))
    """

    def __init__(self, normalized_shape, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 name=None):
        super().__init__(dtype=get_default_dtype())
        shape = [normalized_shape] if isinstance(normalized_shape, int) else list(
            normalized_shape)
        self._normalized_shape, self._epsilon = shape, epsilon
        self.weight, self.bias = _affine(self, [math.prod(shape)], weight_attr, bias_attr,
                                         False)

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        return F.layer_norm(input, self._normalized_shape, self.weight, self.bias,
                            self._epsilon)

    def extra_repr(self):
        return f"normalized_shape={self._normalized_shape}, epsilon={self._epsilon}"


class GroupNorm(Layer):
    """Group norm: channels split into num_groups groups, each normalized per sample.

    Example:
        >>> import dygraph
        >>> gn = dygraph.nn.GroupNorm(2, 4)
        >>> gn(dygraph.randn([3, 4, 2, 2])).shape, gn
        ([3, 4, 2, 2], GroupNorm(num_groups=2, num_channels=4, epsilon=1e-05))
    """

    def __init__(self, num_groups, num_channels, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCHW", name=None):
        super().__init__(dtype=get_default_dtype())
        if num_groups < 1 or num_channels % num_groups:
            raise op_error("GroupNorm", f"num_groups={num_groups} must divide num_channels="
                           f"{num_channels}")
        self._num_groups, self._num_channels = num_groups, num_channels
        self._epsilon, self._data_format = epsilon, data_format
        self.weight, self.bias = _affine(self, [num_channels], weight_attr, bias_attr, False)

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        return F.group_norm(input, self._num_groups, self._epsilon, self.weight, self.bias,
                            self._data_format)

    def extra_repr(self):
        return (f"num_groups={self._num_groups}, num_channels={self._num_channels}, "
                f"epsilon={self._epsilon}")


class _InstanceNorm(Layer):
    _ndims = (4,)

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None,
                 bias_attr=None, data_format="NCHW", name=None):
        super().__init__(dtype=get_default_dtype())
        self._num_features, self._epsilon, self._momentum = num_features, epsilon, momentum
        self._data_format = data_format
        self.scale, self.bias = _affine(self, [num_features], weight_attr, bias_attr, False)

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        if input.ndim not in self._ndims:
            raise op_error(type(self).__name__, f"expects a {' or '.join(map(str, self._ndims))}"
                           f"-D input, got shape {input.shape}")
        return F.instance_norm(input, weight=self.scale, bias=self.bias, eps=self._epsilon,
                               momentum=self._momentum, data_format=self._data_format)

    def extra_repr(self):
        return f"num_features={self._num_features}, epsilon={self._epsilon}"


class InstanceNorm1D(_InstanceNorm):
    """Instance norm over x [N, C, L]: each channel of each sample normalized on its own.

    Example:
        >>> import dygraph
        >>> dygraph.nn.InstanceNorm1D(2)(dygraph.randn([3, 2, 5])).shape
        [3, 2, 5]
    """

    _ndims = (3,)

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None,
                 bias_attr=None, data_format="NCL", name=None):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format,
                         name)


class InstanceNorm2D(_InstanceNorm):
    """Instance norm over x [N, C, H, W]; parameters `scale` and `bias`.

    Example:
        >>> import dygraph
        >>> [name for name, _ in dygraph.nn.InstanceNorm2D(2).named_parameters()]
        ['scale', 'bias']
    """


class InstanceNorm3D(_InstanceNorm):
    """Instance norm over x [N, C, D, H, W].

    Example:
        >>> import dygraph
        >>> dygraph.nn.InstanceNorm3D(2)(dygraph.randn([1, 2, 2, 2, 2])).shape
        [1, 2, 2, 2, 2]
    """

    _ndims = (5,)

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None,
                 bias_attr=None, data_format="NCDHW", name=None):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format,
                         name)


class LocalResponseNorm(Layer):
    """Local response normalization across channels (see F.local_response_norm).

    Example:
        >>> import dygraph
        >>> lrn = dygraph.nn.LocalResponseNorm(3)
        >>> lrn(dygraph.ones([1, 4, 2, 2])).shape, lrn
        ([1, 4, 2, 2], LocalResponseNorm(size=3, alpha=0.0001, beta=0.75, k=1.0))
    """

    def __init__(self, size, alpha=0.0001, beta=0.75, k=1.0, data_format="NCHW", name=None):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k
        self.data_format = data_format

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k,
                                     self.data_format)

    def extra_repr(self):
        return f"size={self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


def _world():
    from dygraph import distributed

    if not distributed.is_initialized():
        return 1
    return distributed.get_world_size()


class SyncBatchNorm(_BatchNormBase):
    """Batch norm over the global batch of a data-parallel job (see the module doc).

    Example:
        >>> import dygraph
        >>> bn = dygraph.nn.SyncBatchNorm(2)
        >>> bn(dygraph.to_tensor([[1.0, 2.0], [3.0, 6.0]])).numpy().round(3)
        array([[-1., -1.],
               [ 1.,  1.]], dtype=float32)
    """

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCHW", name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         None, name)

    def forward(self, x):
        if not self.training or _world() == 1:
            return super().forward(x)
        return self._synced(x)

    def _synced(self, x):
        from dygraph import distributed

        nd = x.ndim
        channel = nd - 1 if self._data_format[-1] == "C" and nd > 2 else 1
        axes = [a for a in range(nd) if a != channel]
        count = float(np.prod([x.shape[a] for a in axes]))
        stats = P.concat([P.sum(x, axis=axes), P.sum(x * x, axis=axes),
                          const([count], x)])
        distributed.all_reduce(stats)
        c = self._num_features
        total = stats[2 * c]
        mean, mean_sq = stats[:c] / total, stats[c:2 * c] / total
        var = mean_sq - mean * mean
        shape = [1] * nd
        shape[channel] = c
        out = (x - P.reshape(mean, shape)) * P.reshape(P.rsqrt(var + self._epsilon), shape)
        if self.weight is not None:
            out = out * P.reshape(self.weight, shape)
        if self.bias is not None:
            out = out + P.reshape(self.bias, shape)
        m = self._momentum
        with grad_mode.no_grad():
            for running, batch in ((self._mean, mean), (self._variance, var)):
                running.set_value(running.numpy() * m + batch.numpy() * (1.0 - m))
        return out

    @classmethod
    def convert_sync_batchnorm(cls, layer):
        """Replace every BatchNorm*D in `layer` (itself included) by a SyncBatchNorm with the
        same parameters and statistics; returns the converted layer.

        Example:
            >>> import dygraph
            >>> net = dygraph.nn.Sequential(dygraph.nn.BatchNorm2D(3))
            >>> type(dygraph.nn.SyncBatchNorm.convert_sync_batchnorm(net)[0]).__name__
            'SyncBatchNorm'
        """
        if isinstance(layer, _BatchNormBase) and not isinstance(layer, SyncBatchNorm):
            new = cls(layer._num_features, layer._momentum, layer._epsilon,
                      data_format=layer._data_format, name=layer._name)
            for attr in ("weight", "bias", "_mean", "_variance"):
                if getattr(layer, attr, None) is not None:
                    setattr(new, attr, getattr(layer, attr))
            return new
        for name, sub in list(layer._sub_layers.items()):
            layer._sub_layers[name] = cls.convert_sync_batchnorm(sub)
        return layer


class SpectralNorm(Layer):
    """Divide a weight by its largest singular value, estimated by power iteration from the
    vectors weight_u, weight_v (the weight reshaped to a matrix with dim `dim` first).

    As in Paddle, weight_u and weight_v are not updated by the call, and the estimated
    singular vectors are treated as constants in the gradient.

    Example:
        >>> import dygraph
        >>> sn = dygraph.nn.SpectralNorm([2, 2], power_iters=20)
        >>> sn(dygraph.to_tensor([[2.0, 0.0], [0.0, 1.0]])).numpy().round(3)
        array([[1. , 0. ],
               [0. , 0.5]], dtype=float32)
    """

    def __init__(self, weight_shape, dim=0, power_iters=1, eps=1e-12, dtype="float32"):
        super().__init__(dtype=dtype)
        self._weight_shape = [int(s) for s in weight_shape]
        if not self._weight_shape or min(self._weight_shape) <= 0:
            raise op_error("SpectralNorm", f"weight_shape must have positive dims, got "
                           f"{self._weight_shape}")
        if not -len(self._weight_shape) <= dim < len(self._weight_shape):
            raise op_error("SpectralNorm", f"dim {dim} is out of range for weight_shape "
                           f"{self._weight_shape}")
        self._dim, self._power_iters, self._eps = dim % len(self._weight_shape), power_iters, eps
        h = self._weight_shape[self._dim]
        w = int(np.prod(self._weight_shape)) // h
        self.weight_u = self.create_parameter([h], dtype=dtype, default_initializer=Normal())
        self.weight_v = self.create_parameter([w], dtype=dtype, default_initializer=Normal())
        self.weight_u.stop_gradient = True
        self.weight_v.stop_gradient = True

    def forward(self, x):
        if list(x.shape) != self._weight_shape:
            raise op_error("SpectralNorm", f"expects a weight of shape {self._weight_shape}, "
                           f"got {list(x.shape)}")
        perm = [self._dim] + [a for a in range(x.ndim) if a != self._dim]
        mat = P.reshape(P.transpose(x, perm), [self._weight_shape[self._dim], -1])
        w = np.asarray(mat.numpy(), dtype=np.float64)
        u = np.asarray(self.weight_u.numpy(), dtype=np.float64)
        v = np.asarray(self.weight_v.numpy(), dtype=np.float64)
        for _ in range(self._power_iters):
            v = w.T @ u
            v /= np.linalg.norm(v) + self._eps
            u = w @ v
            u /= np.linalg.norm(u) + self._eps
        outer = const(np.outer(u, v), x)
        sigma = P.sum(mat * outer)
        return x / sigma

    def extra_repr(self):
        return (f"weight_shape={self._weight_shape}, dim={self._dim}, "
                f"power_iters={self._power_iters}, eps={self._eps}")
