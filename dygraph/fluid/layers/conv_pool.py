"""fluid.layers convolutions, pooling and normalizations in 1.x form (1.5's conv2d, conv3d,
their transposes, pool2d, pool3d, adaptive_pool2d/3d, batch_norm, layer_norm, group_norm,
spectral_norm, embedding, prelu, bilinear_tensor_product, row_conv): the builders of
dygraph.static.nn with 1.x's argument names, in static programs and eagerly.

Example:
    >>> import numpy as np
    >>> import dygraph.fluid as fluid
    >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    >>> fluid.layers.pool2d(x, pool_size=2, pool_stride=2).numpy().ravel().tolist()
    [5.0, 7.0, 13.0, 15.0]
"""

import dygraph
from dygraph.fluid.dygraph.base import to_variable
from dygraph.static.nn import conv as _conv
from dygraph.static.nn import dense as _dense
from dygraph.static.nn import norm as _norm
from dygraph.tensor.tensor import Tensor

__all__ = ["conv2d", "conv3d", "conv2d_transpose", "conv3d_transpose", "pool2d", "pool3d",
           "adaptive_pool2d", "adaptive_pool3d", "batch_norm", "layer_norm", "group_norm",
           "spectral_norm", "embedding", "prelu", "bilinear_tensor_product", "row_conv",
           "lrn"]


def _var(x):
    return x if isinstance(x, Tensor) else to_variable(x)


def conv2d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None,  # noqa: A002
           param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
           data_format="NCHW"):
    """A 2-D convolution with a new filter and bias (static.nn.conv2d).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.conv2d(np.ones([1, 2, 5, 5], np.float32), 3, 3).shape
        [1, 3, 3, 3]
    """
    return _conv.conv2d(_var(input), num_filters, filter_size, stride, padding, dilation,
                        groups, param_attr, bias_attr, use_cudnn, act, name, data_format)


def conv3d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None,  # noqa: A002
           param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
           data_format="NCDHW"):
    """A 3-D convolution with a new filter and bias (static.nn.conv3d).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.conv3d(np.ones([1, 2, 4, 4, 4], np.float32), 2, 3).shape
        [1, 2, 2, 2, 2]
    """
    return _conv.conv3d(_var(input), num_filters, filter_size, stride, padding, dilation,
                        groups, param_attr, bias_attr, use_cudnn, act, name, data_format)


def conv2d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0,  # noqa: A002
                     stride=1, dilation=1, groups=None, param_attr=None, bias_attr=None,
                     use_cudnn=True, act=None, name=None, data_format="NCHW"):
    """A 2-D transposed convolution (static.nn.conv2d_transpose).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.conv2d_transpose(np.ones([1, 2, 3, 3], np.float32), 2,
        ...                               filter_size=2).shape
        [1, 2, 4, 4]
    """
    return _conv.conv2d_transpose(_var(input), num_filters, output_size, filter_size,
                                  padding, stride, dilation, groups, param_attr, bias_attr,
                                  use_cudnn, act, name, data_format)


def conv3d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0,  # noqa: A002
                     stride=1, dilation=1, groups=None, param_attr=None, bias_attr=None,
                     use_cudnn=True, act=None, name=None, data_format="NCDHW"):
    """A 3-D transposed convolution (static.nn.conv3d_transpose).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.conv3d_transpose(np.ones([1, 2, 2, 2, 2], np.float32), 1,
        ...                               filter_size=2).shape
        [1, 1, 3, 3, 3]
    """
    return _conv.conv3d_transpose(_var(input), num_filters, output_size, filter_size,
                                  padding, stride, dilation, groups, param_attr, bias_attr,
                                  use_cudnn, act, name, data_format)


def _pool(n, input, pool_size, pool_type, pool_stride, pool_padding, global_pooling,  # noqa: A002
          ceil_mode, exclusive, data_format):
    import dygraph.nn.functional as F

    if pool_type not in ("max", "avg"):
        raise ValueError(f"pool{n}d: pool_type must be 'max' or 'avg', got {pool_type!r}")
    x = _var(input)
    if global_pooling:  # each whole map: a reduction over the spatial axes
        axes = list(range(2, 2 + n)) if data_format.startswith("NC") else \
            list(range(1, 1 + n))
        reduce = dygraph.max if pool_type == "max" else dygraph.mean
        return reduce(x, axis=axes, keepdim=True)
    if pool_size == -1:
        raise ValueError(f"pool{n}d: give pool_size (or global_pooling=True)")
    if pool_type == "max":
        fn = F.max_pool2d if n == 2 else F.max_pool3d
        return fn(x, pool_size, pool_stride, pool_padding, ceil_mode=ceil_mode,
                  data_format=data_format)
    fn = F.avg_pool2d if n == 2 else F.avg_pool3d
    return fn(x, pool_size, pool_stride, pool_padding, ceil_mode=ceil_mode,
              exclusive=exclusive, data_format=data_format)


def pool2d(input, pool_size=-1, pool_type="max", pool_stride=1, pool_padding=0,  # noqa: A002
           global_pooling=False, use_cudnn=True, ceil_mode=False, name=None, exclusive=True,
           data_format="NCHW"):
    """Max or average pooling over 2-D windows (1.x: the stride defaults to 1;
    global_pooling pools each whole map; exclusive leaves padding out of averages).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.pool2d(np.ones([1, 1, 4, 4], np.float32), 2, 'avg').shape
        [1, 1, 3, 3]
    """
    return _pool(2, input, pool_size, pool_type, pool_stride, pool_padding, global_pooling,
                 ceil_mode, exclusive, data_format)


def pool3d(input, pool_size=-1, pool_type="max", pool_stride=1, pool_padding=0,  # noqa: A002
           global_pooling=False, use_cudnn=True, ceil_mode=False, name=None, exclusive=True,
           data_format="NCDHW"):
    """Max or average pooling over 3-D windows (see pool2d).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.pool3d(np.ones([1, 1, 2, 2, 2], np.float32), 2).shape
        [1, 1, 1, 1, 1]
    """
    return _pool(3, input, pool_size, pool_type, pool_stride, pool_padding, global_pooling,
                 ceil_mode, exclusive, data_format)


def adaptive_pool2d(input, pool_size, pool_type="max", require_index=False, name=None):  # noqa: A002
    """Pooling to a fixed output size (with the argmax indices when require_index, for
    max pooling).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.adaptive_pool2d(np.ones([1, 1, 5, 5], np.float32), 2).shape
        [1, 1, 2, 2]
    """
    import dygraph.nn.functional as F

    if pool_type == "max":
        return F.adaptive_max_pool2d(_var(input), pool_size, return_mask=require_index)
    if require_index:
        raise ValueError("adaptive_pool2d: require_index needs pool_type 'max'")
    return F.adaptive_avg_pool2d(_var(input), pool_size)


def adaptive_pool3d(input, pool_size, pool_type="max", require_index=False, name=None):  # noqa: A002
    """3-D pooling to a fixed output size (see adaptive_pool2d).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.adaptive_pool3d(np.ones([1, 1, 4, 4, 4], np.float32), 2, 'avg').shape
        [1, 1, 2, 2, 2]
    """
    import dygraph.nn.functional as F

    if pool_type == "max":
        return F.adaptive_max_pool3d(_var(input), pool_size, return_mask=require_index)
    if require_index:
        raise ValueError("adaptive_pool3d: require_index needs pool_type 'max'")
    return F.adaptive_avg_pool3d(_var(input), pool_size)


def batch_norm(input, act=None, is_test=False, momentum=0.9, epsilon=1e-05,  # noqa: A002
               param_attr=None, bias_attr=None, data_layout="NCHW", in_place=False,
               name=None, moving_mean_name=None, moving_variance_name=None,
               do_model_average_for_mean_and_var=False, fuse_with_relu=False,
               use_global_stats=False):
    """Batch normalization (static.nn.batch_norm; fuse_with_relu applies relu after).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.batch_norm(np.ones([2, 3], np.float32)).shape
        [2, 3]
    """
    out = _norm.batch_norm(_var(input), act, is_test, momentum, epsilon, param_attr,
                           bias_attr, data_layout, in_place, name, moving_mean_name,
                           moving_variance_name, do_model_average_for_mean_and_var,
                           use_global_stats)
    return dygraph.nn.functional.relu(out) if fuse_with_relu else out


def layer_norm(input, scale=True, shift=True, begin_norm_axis=1, epsilon=1e-05,  # noqa: A002
               param_attr=None, bias_attr=None, act=None, name=None):
    """Layer normalization (static.nn.layer_norm).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.layer_norm(np.ones([2, 3], np.float32)).numpy().tolist()
        [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    """
    return _norm.layer_norm(_var(input), scale, shift, begin_norm_axis, epsilon, param_attr,
                            bias_attr, act, name)


def group_norm(input, groups, epsilon=1e-05, param_attr=None, bias_attr=None, act=None,  # noqa: A002
               data_layout="NCHW", name=None):
    """Group normalization; 1.x made the scale and shift by default (None: made).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.group_norm(np.ones([1, 4, 2, 2], np.float32), 2).shape
        [1, 4, 2, 2]
    """
    return _norm.group_norm(_var(input), groups, epsilon,
                            True if param_attr is None else param_attr,
                            True if bias_attr is None else bias_attr, act, data_layout, name)


def spectral_norm(weight, dim=0, power_iters=1, eps=1e-12, name=None):
    """The weight divided by its largest singular value (static.nn.spectral_norm).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.spectral_norm(np.eye(2, dtype=np.float32), power_iters=5).shape
        [2, 2]
    """
    return _norm.spectral_norm(_var(weight), dim, power_iters, eps, name)


def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None,  # noqa: A002
              param_attr=None, dtype="float32"):
    """Rows of a new [size[0], size[1]] table for integer ids. As 1.x's lookup_table, ids
    shaped [..., 1] give [..., size[1]] (the trailing 1 replaced); other shapes gain a
    last dimension.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.embedding(np.array([[1], [3]]), size=[5, 4]).shape
        [2, 4]
    """
    from dygraph.static.nn.embedding import embedding as lookup

    ids = _var(input)
    if ids.ndim >= 2 and ids.shape[-1] == 1:
        ids = dygraph.squeeze(ids, -1)
    return lookup(ids, size, is_sparse, is_distributed, padding_idx, param_attr, dtype)


def prelu(x, mode, param_attr=None, name=None):
    """max(0, x) + alpha * min(0, x) with a learned alpha (static.nn.prelu).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.prelu(np.array([[-4.0, 2.0]], np.float32), 'all').numpy().tolist()
        [[-1.0, 2.0]]
    """
    return _dense.prelu(_var(x), mode, param_attr, "NCHW", name)


def bilinear_tensor_product(x, y, size, act=None, name=None, param_attr=None,
                            bias_attr=None):
    """x W_k y^T + b_k for `size` new weights (static.nn.bilinear_tensor_product).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.bilinear_tensor_product(np.ones([2, 3], np.float32),
        ...                                      np.ones([2, 4], np.float32), 5).shape
        [2, 5]
    """
    return _dense.bilinear_tensor_product(_var(x), _var(y), size, act, name, param_attr,
                                          bias_attr)


def row_conv(input, future_context_size, param_attr=None, act=None):  # noqa: A002
    """Lookahead convolution over time of [batch, time, features] (static.nn.row_conv).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.row_conv(np.ones([1, 4, 2], np.float32), 1).shape
        [1, 4, 2]
    """
    return _dense.row_conv(_var(input), future_context_size, param_attr, act)


def lrn(input, n=5, k=1.0, alpha=1e-4, beta=0.75, name=None, data_format="NCHW"):  # noqa: A002
    """Local response normalization across channels: x / (k + alpha * sum of the squares
    of the n neighbouring channels) ** beta (1.x scales alpha by nothing, unlike 2.x's
    local_response_norm, which divides it by n).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.lrn(np.ones([1, 3, 2, 2], np.float32), n=3).shape
        [1, 3, 2, 2]
    """
    import dygraph.nn.functional as F

    return F.local_response_norm(_var(input), n, alpha * n, beta, k,
                                 data_format=data_format)
