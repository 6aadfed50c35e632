"""Builders of dense layers (Paddle's paddle.static.nn.fc, bilinear_tensor_product, prelu,
row_conv): one call makes the layer's parameters, named as Paddle names them, and applies
it with the functional ops, in a static program or eagerly.

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph import static
    >>> dygraph.enable_static()
    >>> main, startup = static.Program(), static.Program()
    >>> with static.program_guard(main, startup):
    ...     x = static.data('x', [None, 13])
    ...     y = fc(x, size=1)
    >>> dygraph.disable_static()
    >>> exe = static.Executor(); _ = exe.run(startup)
    >>> exe.run(main, feed={'x': np.ones((4, 13), np.float32)}, fetch_list=[y])[0].shape
    (4, 1)
"""

import math

from dygraph.static.nn.layer_helper import LayerHelper
from dygraph.static.nn.layer_helper import activation as _activation

__all__ = ["fc", "bilinear_tensor_product", "prelu", "row_conv"]


def _dtype(x):
    return x._data.dtype


def fc(x, size, num_flatten_dims=1, weight_attr=None, bias_attr=None, activation=None,
       name=None):
    """A fully connected layer on `x` (a Tensor or a list of them): the dimensions from
    `num_flatten_dims` on are flattened and multiplied by a new weight `fc_<n>.w_<k>` of
    `size` columns; several inputs are summed; one bias `fc_<n>.b_0` is added
    (bias_attr=False: none); `activation` is applied by name. The output has shape
    x.shape[:num_flatten_dims] + [size].

    Example:
        >>> import dygraph
        >>> fc(dygraph.ones([2, 3, 4]), size=5, num_flatten_dims=2).shape
        [2, 3, 5]
    """
    import dygraph

    inputs = list(x) if isinstance(x, (list, tuple)) else [x]
    if not inputs:
        raise ValueError("fc: x is an empty list")
    attrs = list(weight_attr) if isinstance(weight_attr, (list, tuple)) else \
        [weight_attr] * len(inputs)
    helper = LayerHelper("fc", name)
    total = None
    for t, attr in zip(inputs, attrs):
        shape = list(t.shape)
        if not 1 <= num_flatten_dims < len(shape):
            raise ValueError(f"fc: num_flatten_dims={num_flatten_dims} needs an input of more "
                             f"dimensions than that, got shape {shape}")
        tail = shape[num_flatten_dims:]
        if any(d == -1 for d in tail):
            raise ValueError(f"fc: the flattened dimensions {tail} must have sizes")
        features = math.prod(int(d) for d in tail)
        flat = t.reshape([0] * num_flatten_dims + [features])  # 0 keeps a leading dim
        w = helper.parameter([features, size], attr, _dtype(t))
        y = dygraph.matmul(flat, w)
        total = y if total is None else total + y
    b = helper.parameter([size], bias_attr, _dtype(inputs[0]), is_bias=True)
    if b is not None:
        total = total + b
    return _activation(total, activation)


def bilinear_tensor_product(x, y, size, act=None, name=None, param_attr=None,
                            bias_attr=None):
    """out[:, k] = x W_k y^T + b_k for `size` new [x_dim, y_dim] weights
    (`bilinear_tensor_product_<n>.w_0` of shape [size, x_dim, y_dim], bias [1, size]).

    Example:
        >>> import dygraph
        >>> bilinear_tensor_product(dygraph.ones([2, 3]), dygraph.ones([2, 4]), 5).shape
        [2, 5]
    """
    import dygraph.nn.functional as F

    helper = LayerHelper("bilinear_tensor_product", name)
    w = helper.parameter([size, int(x.shape[1]), int(y.shape[1])], param_attr, _dtype(x))
    b = helper.parameter([1, size], bias_attr, _dtype(x), is_bias=True)
    return _activation(F.bilinear(x, y, w, b), act)


def prelu(x, mode, param_attr=None, data_format="NCHW", name=None):
    """max(0, x) + alpha * min(0, x) with a learned alpha (`prelu_<n>.w_0`, 0.25 at the
    start): one for all values (mode 'all'), one per channel ('channel'), one per element
    of a sample ('element').

    Example:
        >>> import dygraph
        >>> prelu(dygraph.to_tensor([[-4.0, 2.0]]), 'all').tolist()
        [[-1.0, 2.0]]
    """
    import dygraph.nn.functional as F
    from dygraph.nn.initializer import Constant

    if mode not in ("all", "channel", "element"):
        raise ValueError(f"prelu: mode must be 'all', 'channel' or 'element', got {mode!r}")
    if data_format not in ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"):
        raise ValueError(f"prelu: unknown data_format {data_format!r}")
    shape = list(x.shape)
    if mode == "all":
        alpha_shape = [1]
    elif mode == "channel":
        if len(shape) < 2:
            raise ValueError(f"prelu: mode 'channel' needs a channel dimension, got {shape}")
        alpha_shape = [1] * len(shape)
        axis = 1 if data_format.startswith("NC") else len(shape) - 1
        alpha_shape[axis] = int(shape[axis])
    else:
        if any(d == -1 for d in shape[1:]):
            raise ValueError(f"prelu: mode 'element' needs sizes for {shape[1:]}")
        alpha_shape = [1] + [int(d) for d in shape[1:]]
    alpha = LayerHelper("prelu", name).parameter(alpha_shape, param_attr, _dtype(x),
                                                 default_initializer=Constant(0.25))
    positive = F.relu(x)
    return positive + alpha * (x - positive)


def row_conv(input, future_context_size, param_attr=None, act=None):  # noqa: A002
    """Lookahead convolution over time of a [batch, time, features] input: out[:, t] =
    sum over k = 0..future_context_size of input[:, t + k] * w[k] (zero past the end), with
    a new weight `row_conv_<n>.w_0` of shape [future_context_size + 1, features].

    Example:
        >>> import dygraph
        >>> row_conv(dygraph.ones([1, 4, 2]), 1, act=None).shape
        [1, 4, 2]
    """
    import dygraph
    import dygraph.nn.functional as F

    if input.ndim != 3:
        raise ValueError(f"row_conv: the input is [batch, time, features] (Paddle's LoD "
                         f"sequences are not supported), got shape {list(input.shape)}")
    features = int(input.shape[2])
    w = LayerHelper("row_conv").parameter([future_context_size + 1, features], param_attr,
                                          _dtype(input))
    # a depthwise convolution over time, padded after the end only: [B, D, 1, T] rows
    kernel = dygraph.reshape(dygraph.transpose(w, [1, 0]), [features, 1, 1, -1])
    rows = dygraph.unsqueeze(dygraph.transpose(input, [0, 2, 1]), 2)
    out = F.conv2d(rows, kernel, padding=[0, 0, 0, future_context_size], groups=features)
    out = dygraph.squeeze(out, 2)
    return _activation(dygraph.transpose(out, [0, 2, 1]), act)
