"""Batch norm in training on cuDNN (backend/cudnn/): the forward on batch statistics, giving
y, the mean and 1 / sqrt(var + eps), and the backward from those statistics. The running
statistics are Paddle's, updated by DyGraph from the batch statistics
(ops/normalization/running.py), not cuDNN's.

Example:
    >>> import numpy as np
    >>> batch_variance(np, np.float32([0.5]), 0.0)
    array([4.], dtype=float32)
"""

import numpy as np

from dygraph.backend import dtype_name
from dygraph.backend.cudnn.graphs import (
    _build,
    _channels_last,
    _dense,
    _describe,
    _empty,
    _new_graph,
    _output,
    _plan,
    _ready,
    _run,
    _stats,
    _tensor,
)

__all__ = ["batch_norm", "batch_variance", "batch_norm_grads"]

_CONSTANTS = {}    # (device, channels, value) -> float32 CuPy array of that value


def _per_channel(xp, device, a, c, value):
    """(C,) float32 values of `a` (any shape of C values), or of `value` where a is None."""
    if a is not None:
        flat = a if a.ndim == 1 else a.reshape(-1)
        if flat.dtype == np.float32 and flat.flags.c_contiguous:
            return flat
        return xp.ascontiguousarray(flat, dtype=np.float32)
    key = (device, c, value)
    if key not in _CONSTANTS:
        _CONSTANTS[key] = xp.full(c, value, dtype=np.float32)
    return _CONSTANTS[key]


def _norm_call(xp, x, axis):
    """(frontend, data type, device, x as (N, C, *S), channels-last, x's dims and strides,
    the statistics' dims and strides) for a batch norm over channel `axis` (1 or the last),
    or None where cuDNN does not take it."""
    if x.ndim < 2 or x.ndim > 5 or axis not in (1, x.ndim - 1):
        return None
    ready = _ready(x)
    if ready is None:
        return None
    xl = x if axis == 1 else xp.moveaxis(x, axis, 1)
    last = _channels_last(xl)
    return ready + (xp.cuda.runtime.getDevice(), xl, last, _describe(xl.shape, last),
                    _stats(xl.shape[1], x.ndim))


def batch_norm(xp, x, w, b, eps, axis):
    """Batch norm of x over all axes but channel `axis` (1 or the last), with weight and bias
    (C values each, or None): (y, mean, rstd), the statistics float32 (C,), rstd being
    1 / sqrt(var + eps) (`batch_variance` gives var); or None where cuDNN does not run it.

    Example:
        >>> y, mean, rstd = batch_norm(cupy, x, w, b, 1e-5, 1)  # doctest: +SKIP
    """
    call = _norm_call(xp, x, axis)
    if call is None:
        return None
    lib, io, device, xl, last, desc, stats = call
    c, f32 = xl.shape[1], lib.data_type.FLOAT
    key = ("batchnorm", device, dtype_name(x.dtype), xl.shape, last, float(eps))

    def build():
        graph = _new_graph(lib, xp, device, io)
        ones = [1] * len(desc[0])
        t = {name: graph.tensor(name=name, dim=ones, stride=ones, data_type=f32,
                                is_pass_by_value=True) for name in ("eps", "momentum")}
        t["x"] = _tensor(graph, "x", desc, io)
        for name in ("scale", "bias", "running_mean", "running_var"):
            t[name] = _tensor(graph, name, stats, f32)
        names = ("y", "mean", "rstd", "next_mean", "next_var")
        t.update(zip(names, graph.batchnorm(
            input=t["x"], scale=t["scale"], bias=t["bias"], in_running_mean=t["running_mean"],
            in_running_var=t["running_var"], epsilon=t["eps"], momentum=t["momentum"],
            compute_data_type=f32, name="batchnorm")))
        _output(t["y"], desc, io)
        for name in names[1:]:
            _output(t[name], stats, f32)
        # eps and the momentum are host scalars. cuDNN's running statistics (unbiased, its
        # momentum) go to a scratch pair updated in place and never read: the op updates
        # Paddle's from the batch statistics.
        host = np.array([eps, 0.1], dtype=np.float32)
        scratch = xp.zeros(2 * c, dtype=np.float32)
        mean_ptr, var_ptr = scratch.data.ptr, scratch.data.ptr + 4 * c
        fixed = {"eps": host.ctypes.data, "momentum": host.ctypes.data + 4,
                 "running_mean": mean_ptr, "next_mean": mean_ptr,
                 "running_var": var_ptr, "next_var": var_ptr}
        return _build(lib, graph, io, t, fixed, (host, scratch))

    plan = _plan(key, build)
    if plan is None:
        return None
    y = _empty(xp, xl.shape, x.dtype, last)
    mean, rstd = xp.empty(c, np.float32), xp.empty(c, np.float32)
    arrays = {"x": _dense(xp, xl, last), "scale": _per_channel(xp, device, w, c, 1.0),
              "bias": _per_channel(xp, device, b, c, 0.0), "y": y, "mean": mean, "rstd": rstd}
    if not _run(xp, key, plan, device, arrays):
        return None
    return (y if axis == 1 else xp.moveaxis(y, 1, axis)), mean, rstd


def batch_variance(xp, rstd, eps):
    """The biased batch variance from batch_norm's rstd: cuDNN keeps none, and
    1 / rstd^2 - eps is it to float32 rounding for var >= eps (below, off by at most
    1.2e-7 * eps, where var hardly matters next to eps).

    Example:
        >>> import numpy as np
        >>> batch_variance(np, np.float32([0.5]), 0.0)
        array([4.], dtype=float32)
    """
    return xp.maximum(1.0 / (rstd * rstd) - np.float32(eps), 0)


def batch_norm_grads(xp, g, x, w, mean, rstd, axis):
    """The gradient of batch_norm from its statistics (float32 (C,) each): (dx, dw, db),
    dw and db float32 (C,) (dw also without a weight: then the weight is ones); or None
    where cuDNN does not run it.

    Example:
        >>> dx, dw, db = batch_norm_grads(cupy, g, x, w, mean, rstd, 1)  # doctest: +SKIP
    """
    call = _norm_call(xp, x, axis)
    if call is None or g.dtype != x.dtype:
        return None
    lib, io, device, xl, last, desc, stats = call
    c, f32 = xl.shape[1], lib.data_type.FLOAT
    key = ("batchnorm_backward", device, dtype_name(x.dtype), xl.shape, last)

    def build():
        graph = _new_graph(lib, xp, device, io)
        t = {name: _tensor(graph, name, desc, io) for name in ("dy", "x")}
        for name in ("scale", "mean", "rstd"):
            t[name] = _tensor(graph, name, stats, f32)
        t["dx"], t["dscale"], t["dbias"] = graph.batchnorm_backward(
            grad=t["dy"], input=t["x"], scale=t["scale"], mean=t["mean"],
            inv_variance=t["rstd"], compute_data_type=f32, name="batchnorm_backward")
        _output(t["dx"], desc, io)
        _output(t["dscale"], stats, f32)
        _output(t["dbias"], stats, f32)
        return _build(lib, graph, io, t)

    plan = _plan(key, build)
    if plan is None:
        return None
    dx = _empty(xp, xl.shape, x.dtype, last)
    dw, db = xp.empty(c, np.float32), xp.empty(c, np.float32)
    arrays = {"dy": _dense(xp, g if axis == 1 else xp.moveaxis(g, axis, 1), last),
              "x": _dense(xp, xl, last),
              "scale": _per_channel(xp, device, w, c, 1.0), "mean": mean, "rstd": rstd,
              "dx": dx, "dscale": dw, "dbias": db}
    if not _run(xp, key, plan, device, arrays):
        return None
    return (dx if axis == 1 else xp.moveaxis(dx, 1, axis)), dw, db
