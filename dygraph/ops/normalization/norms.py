"""Normalization ops of dygraph.nn.functional: batch_norm, layer_norm, group_norm,
instance_norm and local_response_norm.

The first four are one op, Normalize (ops/normalization/normalize.py), with the statistics
over different axes; this module checks their arguments, shapes x and the parameters for
it, and updates batch_norm's running statistics (running.py).
"""

import math

import numpy as np

from dygraph.autograd.function import apply
from dygraph.autograd.grad_mode import no_grad
from dygraph.autograd.grad_mode import state as _state
from dygraph.autograd.whole_call import register_whole_call
from dygraph.backend import get_array_module, is_gpu_array
from dygraph.framework.errors import UnsupportedDTypeError, op_error
from dygraph.kernels.cuda import batch_norm as cuda_batch_norm
from dygraph.ops.common import as_tensor, cast
from dygraph.ops.conv.spatial_args import to_channels_first, to_channels_last
from dygraph.ops.normalization.normalize import BLAS_FLOATS, Normalize
from dygraph.ops.pool.windows import PoolGeometry
from dygraph.tensor.tensor import _new_tensor

__all__ = ["batch_norm", "layer_norm", "group_norm", "instance_norm", "local_response_norm"]
NONDIFF = set()


def _params(x, weight, bias, size, op):
    """weight/bias as tensors of x's dtype with `size` values; a missing weight with a bias
    becomes an op input slot filled by None."""
    out = []
    for name, p in (("weight", weight), ("bias", bias)):
        if p is None:
            out.append(None)
            continue
        p = as_tensor(p, op)
        if p._data.size != size:
            raise op_error(op, f"{name} must have {size} values, got shape {p.shape}")
        if p._data.dtype != x._data.dtype:
            p = cast(p, x._data.dtype)
        out.append(p)
    return out


def _normalize(x, w, b, op_obj):
    if w is None and b is None:
        return apply(op_obj, x)
    if w is None:
        # The op reads inputs by position: a bias alone rides with a weight of ones.
        from dygraph.ops.creation.constructors import ones_like

        w = ones_like(b)
    return apply(op_obj, x, w) if b is None else apply(op_obj, x, w, b)


def _inference_kernel(x, mean, var, w, b):
    """Whether batch norm on running statistics runs as one GPU kernel: CuPy float32/64
    arrays of one dtype, and no gradient to record."""
    d = x._data
    if not is_gpu_array(d) or d.dtype not in BLAS_FLOATS:
        return False
    tensors = [t for t in (x, w, b) if t is not None]
    if _state.grad_on and not all(t._sg for t in tensors):
        return False
    return all(t._data.dtype == d.dtype for t in (mean, var, *tensors))


def _float_input(x, op, min_ndim):
    x = as_tensor(x, op)
    if x._data.dtype.kind != "f":
        raise op_error(op, f"x must be a float tensor, got {x._data.dtype}",
                       UnsupportedDTypeError)
    if x._data.ndim < min_ndim:
        raise op_error(op, f"x must have at least {min_ndim} dims, got shape {x.shape}")
    return x


def _in_program(x):
    from dygraph.static.program import Variable

    return isinstance(x, Variable)


_BN_FORMATS = {"NC": 1, "NCL": 1, "NCHW": 1, "NCDHW": 1, "NLC": -1, "NHWC": -1, "NDHWC": -1}


def batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.9, epsilon=1e-05, data_format="NCHW", use_global_stats=None,
               name=None):
    """Normalize each channel over the batch (and spatial dims).

    With batch statistics (training, or use_global_stats=False) the running statistics are
    updated in place: running = momentum * running + (1 - momentum) * batch (biased batch
    variance). Otherwise the running statistics normalize.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x = dygraph.to_tensor([[1.0, 2.0], [3.0, 6.0]])
        >>> mean, var = dygraph.zeros([2]), dygraph.ones([2])
        >>> F.batch_norm(x, mean, var, training=True).numpy().round(3)
        array([[-1., -1.],
               [ 1.,  1.]], dtype=float32)
        >>> mean.numpy()
        array([0.2, 0.4], dtype=float32)
    """
    op = "batch_norm"
    program = _state.static_program
    if program is not None and program.live_tensors is not None:
        # jit.to_static: one op that runs batch norm on each call's arrays, so the running
        # statistics are read (and, training, updated) at run time, for any batch size.
        from dygraph.static.eager_call import capture_call

        captured = capture_call(batch_norm, (x, running_mean, running_var, weight, bias),
                                {"training": training, "momentum": momentum,
                                 "epsilon": epsilon, "data_format": data_format,
                                 "use_global_stats": use_global_stats})
        if captured is not NotImplemented:
            return captured
    x = _float_input(x, op, 2)
    if data_format not in _BN_FORMATS:
        raise op_error(op, f"data_format must be one of {sorted(_BN_FORMATS)}, got "
                       f"{data_format!r}")
    nd = x._data.ndim
    axis = 1 if _BN_FORMATS[data_format] == 1 or nd == 2 else nd - 1
    c = x._data.shape[axis]
    running_mean, running_var = as_tensor(running_mean, op), as_tensor(running_var, op)
    for name_, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t._data.size != c:
            raise op_error(op, f"{name_} must have {c} values (the channels of x with shape "
                           f"{x.shape}), got shape {t.shape}")
    w, b = _params(x, weight, bias, c, op)
    pshape = tuple(c if i == axis else 1 for i in range(nd))
    axes = tuple(i for i in range(nd) if i != axis)
    use_global = (not training) if use_global_stats is None else use_global_stats
    if _in_program(x):  # the running statistics are program values (normalization/running.py)
        from dygraph.ops.normalization.running import running_batch_norm

        return running_batch_norm(x, running_mean, running_var, w, b, axes, epsilon, pshape,
                                  momentum, not use_global)
    if use_global:
        dtype = x._data.dtype
        if _inference_kernel(x, running_mean, running_var, w, b):
            # A GPU without gradients: one kernel (kernels/cuda/batch_norm.py).
            return _new_tensor(cuda_batch_norm.batch_norm_inference(
                x._data, running_mean._data.reshape(pshape), running_var._data.reshape(pshape),
                None if w is None else w._data.reshape(pshape),
                None if b is None else b._data.reshape(pshape), epsilon), None, 0, True)
        mean = running_mean._data.reshape(pshape).astype(dtype)
        rstd = (1.0 / (running_var._data.reshape(pshape).astype(dtype) + epsilon) ** 0.5)
        return _normalize(x, w, b, Normalize(axes, epsilon, None, pshape,
                                             (mean, rstd.astype(dtype))))
    norm = Normalize(axes, epsilon, None, pshape)
    y = _normalize(x, w, b, norm)
    from dygraph.ops.normalization.running import updated_statistics

    with no_grad():
        updated_statistics(norm, get_array_module(x._data), running_mean._data,
                           running_var._data, momentum, in_place=True)
        running_mean._version[0] += 1
        running_var._version[0] += 1
    return y


register_whole_call(batch_norm)  # static capture records it whole; saved programs call it


def layer_norm(x, normalized_shape, weight=None, bias=None, epsilon=1e-05, name=None):
    """Normalize over the trailing dims given by normalized_shape.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.layer_norm(dygraph.to_tensor([[1.0, 3.0]]), 2).numpy().round(3)
        array([[-1.,  1.]], dtype=float32)
    """
    op = "layer_norm"
    x = _float_input(x, op, 1)
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    nd, k = x._data.ndim, len(shape)
    if k == 0 or k > nd or list(x._data.shape[nd - k:]) != [int(s) for s in shape]:
        raise op_error(op, f"normalized_shape {shape} must match the trailing dims of x "
                       f"(shape {x.shape})")
    w, b = _params(x, weight, bias, math.prod(shape), op)
    pshape = (1,) * (nd - k) + tuple(int(s) for s in shape)
    axes = tuple(range(nd - k, nd))
    return _normalize(x, w, b, Normalize(axes, epsilon, None, pshape))


def group_norm(x, num_groups, epsilon=1e-05, weight=None, bias=None, data_format="NCHW",
               name=None):
    """Normalize over groups of channels (and the spatial dims) of each sample.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.group_norm(dygraph.to_tensor([[1.0, 3.0, 5.0, 7.0]]), 2).numpy().round(3)
        array([[-1.,  1., -1.,  1.]], dtype=float32)
    """
    op = "group_norm"
    x = _float_input(x, op, 2)
    last = data_format in ("NLC", "NHWC", "NDHWC")
    if not last and data_format not in ("NC", "NCL", "NCHW", "NCDHW"):
        raise op_error(op, f"data_format {data_format!r} is not a channels-first or "
                       "channels-last layout")
    d = x._data.ndim - 2
    if last and d > 0:
        x = to_channels_first(x, d)
    c = x._data.shape[1]
    groups = int(num_groups)
    if groups < 1 or c % groups:
        raise op_error(op, f"num_groups={groups} must divide the channels ({c})")
    w, b = _params(x, weight, bias, c, op)
    pshape = (1, c) + (1,) * d
    per_group = (c // groups) * math.prod(x._data.shape[2:])
    y = _normalize(x, w, b, Normalize((2,), epsilon, (-1, groups, per_group), pshape))
    return to_channels_last(y, d) if last and d > 0 else y


def instance_norm(x, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.9, eps=1e-05, data_format="NCHW",
                  name=None):
    """Normalize each channel of each sample over its spatial dims. A 2-D x, [N, C], has
    one value per channel and sample, so it normalizes to 0 (the output is the bias), as in
    Paddle.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.instance_norm(dygraph.to_tensor([[[1.0, 3.0]]])).numpy().round(3)
        array([[[-1.,  1.]]], dtype=float32)
    """
    op = "instance_norm"
    x = _float_input(x, op, 2)
    if data_format not in ("NC", "NCL", "NCHW", "NCDHW"):
        raise op_error(op, f"data_format must be channels-first, got {data_format!r}")
    if x._data.ndim == 2:
        # [N, C] as [N, C, 1]: a spatial size of one, then back.
        y = instance_norm(x[:, :, None], running_mean, running_var, weight, bias,
                          use_input_stats, momentum, eps, data_format)
        return y[:, :, 0]
    nd = x._data.ndim
    c = x._data.shape[1]
    w, b = _params(x, weight, bias, c, op)
    pshape = (1, c) + (1,) * (nd - 2)
    axes = tuple(range(2, nd))
    fixed = None
    if not use_input_stats:
        if running_mean is None or running_var is None:
            raise op_error(op, "use_input_stats=False needs running_mean and running_var")
        dtype = x._data.dtype
        rv = as_tensor(running_var, op)._data.reshape(pshape).astype(dtype)
        fixed = (as_tensor(running_mean, op)._data.reshape(pshape).astype(dtype),
                 (1.0 / (rv + eps) ** 0.5).astype(dtype))
    return _normalize(x, w, b, Normalize(axes, eps, None, pshape, fixed))


def local_response_norm(x, size, alpha=0.0001, beta=0.75, k=1.0, data_format="NCHW",
                        name=None):
    """x / (k + alpha * sum of x**2 over `size` neighbouring channels / size) ** beta.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> y = F.local_response_norm(dygraph.ones([1, 3, 1, 1]), 3, alpha=3.0, beta=1.0)
        >>> y.numpy().ravel()
        array([0.33333334, 0.25      , 0.33333334], dtype=float32)
    """
    from dygraph.ops.pool.pooling import AvgPool

    op = "local_response_norm"
    x = _float_input(x, op, 3)
    last = data_format in ("NLC", "NHWC", "NDHWC")
    if not last and data_format not in ("NCL", "NCHW", "NCDHW"):
        raise op_error(op, f"data_format {data_format!r} is not a channels-first or "
                       "channels-last layout")
    size = int(size)
    if size < 1:
        raise op_error(op, f"size must be positive, got {size}")
    d = x._data.ndim - 2
    if last:
        x = to_channels_first(x, d)
    c = x._data.shape[1]
    rest = math.prod(x._data.shape[2:])
    # The window sum over channels is an average pool over the channel axis of (N, 1, C, rest)
    # with a fixed divisor of `size`; the window sits size // 2 channels before.
    geo = PoolGeometry.regular((c, rest), (size, 1), (1, 1), ((size // 2, (size - 1) // 2),
                                                               (0, 0)), False)
    # (the batch as -1: a static program's batch is free)
    sq = (x * x).reshape([-1, 1, c, rest])
    mean_sq = apply(AvgPool(geo, np.asarray(float(size))), sq).reshape(
        [-1] + list(x._data.shape[1:]))
    y = x / (mean_sq * alpha + k) ** beta
    return to_channels_last(y, d) if last else y
