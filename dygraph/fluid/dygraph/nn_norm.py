"""The 1.x normalisation layers: BatchNorm and LayerNorm, computed by
`dygraph.nn.functional.batch_norm` / `layer_norm`.

Example:
    >>> import numpy as np
    >>> import dygraph.fluid as fluid
    >>> with fluid.dygraph.guard():
    ...     bn = fluid.dygraph.BatchNorm('bn', num_channels=3)
    ...     out = bn(fluid.dygraph.to_variable(np.random.rand(4, 3, 2, 2).astype('float32')))
    ...     out.shape, [p.name.split('.')[-1] for p in bn.parameters()]
    ([4, 3, 2, 2], ['w_0', 'b_0', 'w_1', 'w_2'])
"""

import math

import dygraph
from dygraph.fluid.dygraph.layer_args import bind
from dygraph.fluid.dygraph.layers import Layer
from dygraph.fluid.layers.nn import apply_act
from dygraph.fluid.param_attr import ParamAttr
from dygraph.nn import functional as F
from dygraph.nn.initializer import Constant

__all__ = ["BatchNorm", "LayerNorm"]


def _bn_15(name_scope, num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05,
           param_attr=None, bias_attr=None, dtype="float32", data_layout="NCHW",
           in_place=False, moving_mean_name=None, moving_variance_name=None,
           do_model_average_for_mean_and_var=False, fuse_with_relu=False,
           use_global_stats=False, trainable_statistics=False):
    """BatchNorm in 1.5 form."""


def _bn_16(num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05,
           param_attr=None, bias_attr=None, dtype="float32", data_layout="NCHW",
           in_place=False, moving_mean_name=None, moving_variance_name=None,
           do_model_average_for_mean_and_var=False, fuse_with_relu=False,
           use_global_stats=False, trainable_statistics=False):
    """BatchNorm in 1.6 form."""


class BatchNorm(Layer):
    """Batch normalisation over the channel axis, then an optional activation.

    `BatchNorm(name_scope, num_channels, act=None, is_test=False, momentum=0.9,
    epsilon=1e-05, param_attr=None, bias_attr=None, dtype='float32', data_layout='NCHW',
    ..., use_global_stats=False, trainable_statistics=False)` (1.5; 1.6 without
    name_scope). Parameters: `weight` (scale, starts at 1), `bias` (starts at 0) and the
    running statistics `_mean` (0) and `_variance` (1), which are non-trainable
    parameters as in 1.x, so state_dict holds them. Batch statistics are used in train()
    mode unless is_test or use_global_stats; trainable_statistics uses them in eval() mode
    too. `in_place` and `fuse_with_relu` change nothing (fuse_with_relu applies relu).

    Example:
        >>> import dygraph
        >>> bn = BatchNorm(2)
        >>> bn.eval()(dygraph.ones([1, 2, 3])).numpy().round(3)[0, 0]
        array([1., 1., 1.], dtype=float32)
    """

    def __init__(self, *args, **kwargs):
        a = bind((_bn_15, _bn_16), args, kwargs)
        super().__init__(a["name_scope"], a["dtype"])
        channels = int(a["num_channels"])
        dtype = self._dtype
        self._act = "relu" if a["fuse_with_relu"] and a["act"] is None else a["act"]
        self._is_test = bool(a["is_test"])
        self._momentum = float(a["momentum"])
        self._epsilon = float(a["epsilon"])
        self._data_layout = a["data_layout"]
        self._use_global_stats = bool(a["use_global_stats"])
        self._trainable_statistics = bool(a["trainable_statistics"])
        self.weight = self.create_parameter(a["param_attr"], [channels], dtype,
                                            default_initializer=Constant(1.0))
        self.bias = self.create_parameter(a["bias_attr"], [channels], dtype, is_bias=True)
        average = bool(a["do_model_average_for_mean_and_var"])
        self._mean = self.create_parameter(
            ParamAttr(name=a["moving_mean_name"], initializer=Constant(0.0),
                      trainable=False, do_model_average=average), [channels], dtype)
        self._variance = self.create_parameter(
            ParamAttr(name=a["moving_variance_name"], initializer=Constant(1.0),
                      trainable=False, do_model_average=average), [channels], dtype)

    def forward(self, input):
        batch_stats = ((self.training and not self._is_test) or self._trainable_statistics) \
            and not self._use_global_stats
        out = F.batch_norm(input, self._mean, self._variance, self.weight, self.bias,
                           training=batch_stats, momentum=self._momentum,
                           epsilon=self._epsilon, data_format=self._data_layout)
        return apply_act(out, self._act)


def _ln_15(name_scope, scale=True, shift=True, begin_norm_axis=1, epsilon=1e-05,
           param_attr=None, bias_attr=None, act=None, dtype="float32"):
    """LayerNorm in 1.5 form: the normalised shape is read at the first call."""


def _ln_17(normalized_shape, scale=True, shift=True, epsilon=1e-05, param_attr=None,
           bias_attr=None, act=None, dtype="float32"):
    """LayerNorm in the later 1.x form, with the normalised shape given."""


class LayerNorm(Layer):
    """Layer normalisation over the trailing axes, with optional scale and shift.

    `LayerNorm(name_scope, scale=True, shift=True, begin_norm_axis=1, epsilon=1e-05,
    param_attr=None, bias_attr=None, act=None)` (1.5: axes begin_norm_axis.. of the first
    input, parameters created at the first call) or `LayerNorm(normalized_shape, ...)`.
    The scale ('weight', starts at 1) and shift ('bias', starts at 0) have the normalised
    size, flattened to 1-D as in 1.x.

    Example:
        >>> import dygraph
        >>> ln = LayerNorm('ln', begin_norm_axis=1)
        >>> out = ln(dygraph.to_tensor([[1.0, 3.0]]))
        >>> out.numpy().round(3), ln.weight.shape
        (array([[-1.,  1.]], dtype=float32), [2])
    """

    def __init__(self, *args, **kwargs):
        a = bind((_ln_15, _ln_17), args, kwargs)
        super().__init__(a["name_scope"], a["dtype"])
        self._scale = a["scale"]
        self._shift = a["shift"]
        self._epsilon = float(a["epsilon"])
        self._param_attr = a["param_attr"]
        self._bias_attr = a["bias_attr"]
        self._act = a["act"]
        self._begin_norm_axis = a.get("begin_norm_axis")
        self._normalized_shape = None
        self.weight = None
        self.bias = None
        if "normalized_shape" in a:
            shape = a["normalized_shape"]
            self._create_parameters([shape] if isinstance(shape, int) else list(shape))

    def _create_parameters(self, normalized_shape):
        self._normalized_shape = normalized_shape
        size = [math.prod(normalized_shape)]
        if self._scale:
            self.weight = self.create_parameter(self._param_attr, size, self._dtype,
                                                default_initializer=Constant(1.0))
        if self._shift:
            self.bias = self.create_parameter(self._bias_attr, size, self._dtype,
                                              is_bias=True)

    def _build_once(self, input):
        if self._normalized_shape is None:
            axis = self._begin_norm_axis
            if not 0 < axis < input.ndim:
                raise ValueError(f"LayerNorm: begin_norm_axis={axis} must be in "
                                 f"[1, {input.ndim}) for an input of shape {input.shape}")
            self._create_parameters(input.shape[axis:])

    def forward(self, input):
        shape = self._normalized_shape
        weight = None if self.weight is None else dygraph.reshape(self.weight, shape)
        bias = None if self.bias is None else dygraph.reshape(self.bias, shape)
        out = F.layer_norm(input, shape, weight, bias, self._epsilon)
        return apply_act(out, self._act)
