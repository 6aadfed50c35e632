"""Builders of normalizations (Paddle's paddle.static.nn.batch_norm, group_norm,
instance_norm, layer_norm, spectral_norm): parameters named and started as in Paddle
(scale `.w_0` ones, shift `.b_0` zeros; batch norm's running mean `.w_1` and variance
`.w_2`, which a training run updates in the scope), computed by the functional ops.

Example:
    >>> import dygraph
    >>> layer_norm(dygraph.to_tensor([[1.0, 3.0]])).numpy().round(3).tolist()
    [[-1.0, 1.0]]
"""

import math

from dygraph.nn.initializer import Constant, Normal
from dygraph.nn.param_attr import ParamAttr
from dygraph.static.nn.layer_helper import LayerHelper, activation, channels

__all__ = ["batch_norm", "group_norm", "instance_norm", "layer_norm", "spectral_norm"]


def batch_norm(input, act=None, is_test=False, momentum=0.9, epsilon=1e-05,  # noqa: A002
               param_attr=None, bias_attr=None, data_layout="NCHW", in_place=False,
               name=None, moving_mean_name=None, moving_variance_name=None,
               do_model_average_for_mean_and_var=True, use_global_stats=False):
    """Batch normalization over all but the channel axis. Training (is_test False)
    normalizes with the batch's statistics and moves the running ones (`running =
    momentum * running + (1 - momentum) * batch`); is_test, use_global_stats or a
    clone(for_test=True) normalize with the running ones.

    Example:
        >>> import dygraph
        >>> batch_norm(dygraph.to_tensor([[1.0], [3.0]])).numpy().round(3).tolist()
        [[-1.0], [1.0]]
    """
    import dygraph.nn.functional as F

    c = channels(input, data_layout, "batch_norm")
    dtype = input._data.dtype
    helper = LayerHelper("batch_norm", name)
    scale = helper.parameter([c], param_attr, dtype, default_initializer=Constant(1.0))
    shift = helper.parameter([c], bias_attr, dtype, is_bias=True)
    stats = []
    for stat_name, start in ((moving_mean_name, 0.0), (moving_variance_name, 1.0)):
        stat = helper.parameter([c], ParamAttr(name=stat_name, trainable=False), dtype,
                                default_initializer=Constant(start))
        stat.do_model_average = do_model_average_for_mean_and_var
        stats.append(stat)
    out = F.batch_norm(input, stats[0], stats[1], scale, shift, training=not is_test,
                       momentum=momentum, epsilon=epsilon, data_format=data_layout,
                       use_global_stats=use_global_stats or None)
    return activation(out, act)


def group_norm(input, groups, epsilon=1e-05, param_attr=None, bias_attr=None, act=None,  # noqa: A002
               data_layout="NCHW", name=None):
    """Group normalization: the channels in `groups` groups, each normalized over its
    channels and positions. As Paddle 3.3's builder, the scale and shift exist only when
    `param_attr` and `bias_attr` are given (truthy).

    Example:
        >>> import dygraph
        >>> group_norm(dygraph.to_tensor([[[1.0], [3.0]]]), 1).numpy().round(3).tolist()
        [[[-1.0], [1.0]]]
    """
    import dygraph.nn.functional as F

    if data_layout not in ("NCHW", "NHWC"):
        raise ValueError(f"group_norm: data_layout must be 'NCHW' or 'NHWC', got "
                         f"{data_layout!r}")
    c = channels(input, data_layout, "group_norm")
    dtype = input._data.dtype
    helper = LayerHelper("group_norm", name)
    scale = helper.parameter([c], param_attr, dtype, default_initializer=Constant(1.0)) \
        if param_attr else None
    shift = helper.parameter([c], bias_attr, dtype, is_bias=True) if bias_attr else None
    layouts = {3: ("NCL", "NLC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}
    if input.ndim not in layouts:
        raise ValueError(f"group_norm: expected 3D to 5D input, got shape {list(input.shape)}")
    layout = layouts[input.ndim][data_layout == "NHWC"]
    out = F.group_norm(input, groups, epsilon, scale, shift, data_format=layout)
    return activation(out, act)


def instance_norm(input, epsilon=1e-05, param_attr=None, bias_attr=None, name=None):  # noqa: A002
    """Instance normalization: each sample's channel normalized over its positions. As
    Paddle 3.3's builder, scale and shift exist only when both attrs are given (truthy).

    Example:
        >>> import dygraph
        >>> instance_norm(dygraph.to_tensor([[[1.0, 3.0]]])).numpy().round(3).tolist()
        [[[-1.0, 1.0]]]
    """
    import dygraph.nn.functional as F

    if not 2 <= input.ndim <= 5:
        raise ValueError(f"instance_norm: expected 2D to 5D input, got shape "
                         f"{list(input.shape)}")
    if param_attr is False and bias_attr is not False:
        raise AssertionError("param_attr and bias_attr must be set to False at the same time "
                             "in instance_norm")
    c = channels(input, "NCHW", "instance_norm")
    dtype = input._data.dtype
    scale = shift = None
    if param_attr and bias_attr:
        helper = LayerHelper("instance_norm", name)
        scale = helper.parameter([c], param_attr, dtype, default_initializer=Constant(1.0))
        shift = helper.parameter([c], bias_attr, dtype, is_bias=True)
    return F.instance_norm(input, weight=scale, bias=shift, eps=epsilon)


def layer_norm(input, scale=True, shift=True, begin_norm_axis=1, epsilon=1e-05,  # noqa: A002
               param_attr=None, bias_attr=None, act=None, name=None):
    """Layer normalization over the axes from `begin_norm_axis` on, with a scale and a
    shift of prod(those sizes) elements each (as Paddle flattens them).

    Example:
        >>> import dygraph
        >>> layer_norm(dygraph.ones([2, 3]), scale=False, shift=False).tolist()
        [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    """
    import dygraph.nn.functional as F

    shape = list(input.shape)
    if not 0 < begin_norm_axis < len(shape):
        raise ValueError(f"layer_norm: begin_norm_axis={begin_norm_axis} must be in [1, "
                         f"{len(shape)}) for an input of shape {shape}")
    normalized = shape[begin_norm_axis:]
    if any(d == -1 for d in normalized):
        raise ValueError(f"layer_norm: the normalized dimensions {normalized} need sizes")
    normalized = [int(d) for d in normalized]
    size = math.prod(normalized)
    dtype = input._data.dtype
    helper = LayerHelper("layer_norm", name)
    w = helper.parameter([size], param_attr, dtype, default_initializer=Constant(1.0)) \
        if scale else None
    b = helper.parameter([size], bias_attr, dtype, is_bias=True) if shift else None
    out = F.layer_norm(input, normalized, w.reshape(normalized) if w is not None else None,
                       b.reshape(normalized) if b is not None else None, epsilon)
    return activation(out, act)


def spectral_norm(weight, dim=0, power_iters=1, eps=1e-12, name=None):
    """`weight` divided by its largest singular value, estimated by `power_iters` steps of
    power iteration from the vectors u (`spectral_norm_<n>.w_0`, [weight.shape[dim]]) and
    v (`.w_1`, the other sizes' product), both Normal(0, 1) at the start and not trained;
    the estimate is a constant for the gradient, as in Paddle.

    Example:
        >>> import dygraph
        >>> w = dygraph.to_tensor([[3.0, 0.0], [0.0, 1.0]])
        >>> [round(v, 4) for v in spectral_norm(w, power_iters=20).flatten().tolist()]
        [1.0, 0.0, 0.0, 0.3333]
    """
    import dygraph

    shape = [int(d) for d in weight.shape]
    if not -len(shape) <= dim < len(shape):
        raise ValueError(f"spectral_norm: dim={dim} is out of range for shape {shape}")
    dim = dim % len(shape)
    h = shape[dim]
    w_size = math.prod(shape) // h
    helper = LayerHelper("spectral_norm", name)
    dtype = weight._data.dtype
    u, v = (helper.parameter([n], ParamAttr(trainable=False), dtype,
                             default_initializer=Normal(0.0, 1.0)) for n in (h, w_size))
    perm = [dim] + [a for a in range(len(shape)) if a != dim]
    mat = dygraph.reshape(dygraph.transpose(weight, perm), [h, w_size])
    frozen = mat.detach()
    for _ in range(power_iters):
        v = dygraph.matmul(u, frozen)
        v = v / (dygraph.linalg.norm(v) + eps)
        u = dygraph.matmul(frozen, v)
        u = u / (dygraph.linalg.norm(u) + eps)
    sigma = dygraph.sum(dygraph.matmul(u.detach(), mat) * v.detach())
    return weight / sigma
