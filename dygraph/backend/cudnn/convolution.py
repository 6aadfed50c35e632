"""Convolutions on cuDNN (backend/cudnn/): forward, data gradient and filter gradient, one
graph each per (device, dtype, shapes, layout, geometry), with groups and depthwise ones
among them.

Example:
    >>> sorted(_conv_args(type("G", (), {"pads": [(1, 1)], "stride": [2], "dilation": [1]}),
    ...                   3))
    ['dilation', 'post_padding', 'pre_padding', 'stride']
"""

from dygraph.backend import dtype_name, product_precision
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
    _tensor,
)

__all__ = ["conv_forward", "conv_data", "conv_filter"]


def _conv_args(geo, ndim):
    """pre/post padding, stride and dilation lists of a conv, 1-D ones with a unit height."""
    unit = [] if ndim > 3 else [(0, 0, 1, 1)]
    dims = unit + [(lo, hi, s, d) for (lo, hi), s, d in zip(geo.pads, geo.stride,
                                                              geo.dilation)]
    return {"pre_padding": [v[0] for v in dims], "post_padding": [v[1] for v in dims],
            "stride": [v[2] for v in dims], "dilation": [v[3] for v in dims]}


def _conv(xp, op, first, second, out_shape, geo):
    """Run conv graph `op` on operands (name, array) `first` (whose layout all take) and
    `second`, into a new array of out_shape; None where cuDNN does not run it."""
    ready = _ready(first[1], second[1])
    if ready is None:
        return None
    lib, io = ready
    device = xp.cuda.runtime.getDevice()
    last = _channels_last(first[1])
    # bfloat16 values in float32 arrays: TF32 engines multiply them exactly
    # (backend/product_precision.py), so they may run.
    tf32 = io == lib.data_type.FLOAT and product_precision.active()
    key = (op, device, dtype_name(first[1].dtype), first[1].shape, second[1].shape,
           tuple(out_shape), last, tuple(geo.stride), tuple(geo.dilation), tuple(geo.pads),
           tf32)

    def build():
        graph = _new_graph(lib, xp, device, io)
        a = _tensor(graph, first[0], _describe(first[1].shape, last), io)
        b = _tensor(graph, second[0], _describe(second[1].shape, last), io)
        args = dict(_conv_args(geo, len(out_shape)), compute_data_type=lib.data_type.FLOAT,
                    name=op)
        if op == "conv_fprop":
            out = graph.conv_fprop(image=a, weight=b, **args)
        elif op == "conv_dgrad":
            out = graph.conv_dgrad(loss=a, filter=b, **args)
        else:
            out = graph.conv_wgrad(image=a, loss=b, **args)
        _output(out, _describe(out_shape, last), io)
        return _build(lib, graph, io, {first[0]: a, second[0]: b, "out": out}, tf32=tf32)

    plan = _plan(key, build)
    if plan is None:
        return None
    out = _empty(xp, out_shape, first[1].dtype, last)
    arrays = {first[0]: _dense(xp, first[1], last), second[0]: _dense(xp, second[1], last),
              "out": out}
    return out if _run(xp, key, plan, device, arrays) else None


def conv_forward(xp, x, w, geo):
    """conv(x, w) of x (N, C, *S) and w (M, C/groups, *k) for Geometry `geo`
    (dygraph.ops.conv.im2col), or None where cuDNN does not run it.

    Example:
        >>> import numpy as np
        >>> from dygraph.ops.conv.im2col import Geometry
        >>> geo = Geometry((1, 1), (1, 1), ((1, 1), (1, 1)), 1)
        >>> y = conv_forward(cupy, x, w, geo)  # doctest: +SKIP
    """
    out = (x.shape[0], w.shape[0]) + geo.out_sizes(x.shape[2:], w.shape[2:])
    return _conv(xp, "conv_fprop", ("x", x), ("w", w), out, geo)


def conv_data(xp, g, w, in_sizes, geo):
    """The data gradient of conv: g (N, M, *O) and w (M, C/groups, *k) -> (N, C, *in_sizes),
    or None where cuDNN does not run it.

    Example:
        >>> dx = conv_data(cupy, g, w, (32, 32), geo)  # doctest: +SKIP
    """
    out = (g.shape[0], w.shape[1] * geo.groups) + tuple(in_sizes)
    return _conv(xp, "conv_dgrad", ("dy", g), ("w", w), out, geo)


def conv_filter(xp, x, g, ksize, geo):
    """The filter gradient of conv: x (N, C, *S) and g (N, M, *O) -> (M, C/groups, *ksize),
    or None where cuDNN does not run it.

    Example:
        >>> dw = conv_filter(cupy, x, g, (3, 3), geo)  # doctest: +SKIP
    """
    out = (g.shape[1], x.shape[1] // geo.groups) + tuple(ksize)
    return _conv(xp, "conv_wgrad", ("x", x), ("dy", g), out, geo)
