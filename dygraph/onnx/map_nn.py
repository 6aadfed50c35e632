"""ONNX mappings of the network ops: convolution (deformable too, from opset 19), pooling,
normalization, linear and matmul, and the functions static capture records whole (dropout,
embedding).

Example:
    >>> from dygraph.ops.conv.convolution import Conv
    >>> from dygraph.onnx.graph import MAPPINGS
    >>> Conv in MAPPINGS
    True
"""

import math

import numpy as np

from dygraph.onnx.graph import maps
from dygraph.ops.conv.convolution import Conv
from dygraph.ops.linalg.products import MatMul
from dygraph.ops.nn.dropout import dropout
from dygraph.ops.nn.linear import Linear, Lookup, embedding
from dygraph.ops.nn.resample import Resample
from dygraph.ops.normalization.normalize import Normalize
from dygraph.ops.normalization.norms import batch_norm
from dygraph.ops.normalization.running import RunningBatchNorm
from dygraph.ops.pool.pooling import AvgPool, MaxPool
from dygraph.ops.vision.deform_conv import DeformConv
from dygraph.static.eager_call import EagerCall

__all__ = []


@maps(Conv)
def _conv(g, op, ins, outs):
    geo = op.geo
    return g.add("Conv", ins, outs, kernel_shape=list(g.shape(ins[1])[2:]),
                 strides=list(geo.stride), dilations=list(geo.dilation),
                 pads=[lo for lo, _ in geo.pads] + [hi for _, hi in geo.pads],
                 group=int(geo.groups))


# ONNX has DeformConv from opset 19 on.
_DEFORM_CONV_OPSET = 19


@maps(DeformConv)
def _deform_conv(g, op, ins, outs):
    if g.opset < _DEFORM_CONV_OPSET:
        raise NotImplementedError(
            f"paddle.onnx.export: deform_conv2d has no ONNX mapping below opset "
            f"{_DEFORM_CONV_OPSET} (exporting at {g.opset}); pass opset_version="
            f"{_DEFORM_CONV_OPSET} or newer")
    x, offset, weight = ins[:3]
    rest = list(ins[3:])
    mask = rest.pop(0) if op.has_mask else ""
    bias = rest.pop(0) if op.has_bias else ""
    inputs = [x, weight, offset, bias, mask]  # ONNX's order; trailing absent ones dropped
    while inputs[-1] == "":
        inputs.pop()
    return g.add("DeformConv", inputs, outs, kernel_shape=list(g.shape(weight)[2:]),
                 strides=list(op.stride), dilations=list(op.dilation),
                 pads=list(op.padding) * 2, group=op.groups,
                 offset_group=op.deformable_groups)


def _window_attrs(geo):
    return dict(kernel_shape=list(geo.ksize), strides=list(geo.stride),
                pads=[lo for lo, _ in geo.pads] + list(geo.ext))


@maps(MaxPool)
def _max_pool(g, op, ins, outs):
    if op.geo.ksize is None:
        raise NotImplementedError("paddle.onnx.export: adaptive max pooling with uneven bins "
                                  f"({list(op.geo.in_sizes)} -> {list(op.geo.out_sizes)}) has "
                                  "no ONNX mapping; use an output size that divides the input")
    # The ceil-mode windows are in `ext` (the high padding used), so ceil_mode stays 0.
    return g.add("MaxPool", ins, outs, **_window_attrs(op.geo))


def _bin_matrix(starts, ends, size, dtype):
    """[out, size] with ones over each adaptive bin: a product with it sums the bins."""
    m = np.zeros((len(starts), size), dtype)
    for row, (a, b) in enumerate(zip(starts, ends)):
        m[row, a:b] = 1
    return m


@maps(AvgPool)
def _avg_pool(g, op, ins, outs):
    geo, x = op.geo, ins[0]
    dtype = g.dtype(x)
    if geo.ksize is not None:
        # Window sums (the average over the full window, padding included) over the op's
        # own divisor, which already counts padding and ceil-mode windows Paddle's way.
        total = g.add("AveragePool", [x], count_include_pad=1, **_window_attrs(geo))
        scale = math.prod(geo.ksize) / np.asarray(op.divisor, np.float64)
    elif len(geo.in_sizes) <= 2:
        # Uneven adaptive bins: products with 0/1 bin matrices sum them.
        dims = list(zip(geo.starts, geo.ends, geo.in_sizes))
        total = x
        if len(dims) == 2:
            rows = _bin_matrix(*dims[0], dtype)
            total = g.add("MatMul", [g.const(rows), total])
        cols = _bin_matrix(*dims[-1], dtype)
        total = g.add("MatMul", [total, g.const(cols.T)])
        scale = 1.0 / np.asarray(op.divisor, np.float64)
    else:
        raise NotImplementedError("paddle.onnx.export: 3-D adaptive average pooling with "
                                  "uneven bins has no ONNX mapping")
    if np.all(scale == 1.0):
        return g.add("Identity", [total], outs)
    return g.add("Mul", [total, g.const(scale.astype(dtype))], outs)


def _reshaped(g, name, shape):
    """`name` viewed as `shape` (folded into a new initializer when it is one)."""
    value = g.value(name)
    if value is not None:
        return g.const(value.reshape(shape))
    return g.add("Reshape", [name, g.ints(shape)])


def _fixed_statistics(g, op, x, w, b, outs):
    """y = x * scale + shift with the running statistics (and a constant weight and bias)
    folded into scale and shift."""
    mean, rstd = (np.asarray(a, np.float64) for a in op.fixed)
    wv = np.ones(op.pshape) if w is None else g.value(w)
    bv = np.zeros(op.pshape) if b is None else g.value(b)
    dtype = g.dtype(x)
    if wv is not None and bv is not None:
        scale = rstd * wv.reshape(op.pshape)
        shift = bv.reshape(op.pshape) - mean * scale
        y = g.add("Mul", [x, g.const(scale.astype(dtype))])
        return g.add("Add", [y, g.const(shift.astype(dtype))], outs)
    y = g.add("Mul", [g.add("Sub", [x, g.const(mean.astype(dtype))]),
                      g.const(rstd.astype(dtype))])
    if w is not None:
        y = g.add("Mul", [y, _reshaped(g, w, op.pshape)])
    if b is not None:
        y = g.add("Add", [y, _reshaped(g, b, op.pshape)])
    return g.add("Identity", [y], outs)


def _same_view(g, op, x):
    """True when the op normalizes x in its own shape (its view template is None, or
    differs from x's shape only in the free batch)."""
    return op.template is None or tuple(op.template[1:]) == g.shape(x)[1:]


def _is_layer_norm(g, op, x, w):
    nd = g.rank(x)
    first = min(op.axes)
    return (g.opset >= 17 and w is not None and tuple(op.axes) == tuple(range(first, nd))
            and _same_view(g, op, x)
            and all(s == 1 for s in op.pshape[:first]) and first > 0)


@maps(RunningBatchNorm)
def _running_batch_norm(g, op, ins, outs):
    """Batch norm as static programs record it; exported models are in eval mode, where it
    normalizes with the running statistics (constants of the export) and passes them on."""
    if op.training:
        raise NotImplementedError("paddle.onnx.export: batch norm in training mode has no "
                                  "ONNX mapping; export the model in eval mode")
    x, mean, var, *affine = ins
    mean_v, var_v = g.value(mean), g.value(var)
    if mean_v is None or var_v is None:
        raise NotImplementedError("paddle.onnx.export: batch norm whose running statistics "
                                  "are computed in the program has no ONNX mapping")
    dtype = g.dtype(x)
    fixed = (mean_v.reshape(op.pshape).astype(dtype),
             (1.0 / np.sqrt(var_v.reshape(op.pshape).astype(np.float64) + op.eps)).astype(dtype))
    inner = Normalize(op.axes, op.eps, None, op.pshape, fixed)
    w, b = (list(affine) + [None, None])[:2]
    for source, out in ((mean, outs[1]), (var, outs[2])):
        if out != source:  # the program writes them back to the same variables
            g.add("Identity", [source], [out])
    return _fixed_statistics(g, inner, x, w, b, [outs[0]])


@maps(Normalize)
def _normalize(g, op, ins, outs):
    x, w, b = (list(ins) + [None, None])[:3]
    same_view = _same_view(g, op, x)
    if op.fixed is not None and same_view:
        return _fixed_statistics(g, op, x, w, b, outs)
    if op.fixed is None and _is_layer_norm(g, op, x, w):
        first = min(op.axes)
        trailing = list(op.pshape[first:])
        inputs = [x, _reshaped(g, w, trailing)] + ([_reshaped(g, b, trailing)] if b else [])
        return g.add("LayerNormalization", inputs, outs, axis=first, epsilon=float(op.eps))
    xs = x if same_view else g.add("Reshape", [x, g.ints(op.template)])
    if op.fixed is not None:
        mean, rstd = (g.const(np.asarray(a, g.dtype(x))) for a in op.fixed)
        xhat = g.add("Mul", [g.add("Sub", [xs, mean]), rstd])
    else:
        mean = g.axes_op("ReduceMean", xs, list(op.axes), keepdims=1)
        centred = g.add("Sub", [xs, mean])
        var = g.axes_op("ReduceMean", g.add("Mul", [centred, centred]), list(op.axes),
                        keepdims=1)
        std = g.add("Sqrt", [g.add("Add", [var, g.scalar(op.eps, x)])])
        xhat = g.add("Div", [centred, std])
    y = xhat if same_view else g.add("Reshape", [xhat, g.add("Shape", [x])])
    if w is not None:
        y = g.add("Mul", [y, _reshaped(g, w, op.pshape)])
    if b is not None:
        y = g.add("Add", [y, _reshaped(g, b, op.pshape)])
    return g.add("Identity", [y], outs)


@maps(Linear)
def _linear(g, op, ins, outs):
    if g.rank(ins[0]) == 2:
        return g.add("Gemm", ins, outs)
    y = g.add("MatMul", ins[:2])
    return g.add("Add", [y, ins[2]], outs) if len(ins) > 2 else g.add("Identity", [y], outs)


def _swap_last(g, name):
    nd = g.rank(name)
    value = g.value(name)
    if value is not None:
        return g.const(np.swapaxes(value, -1, -2))
    return g.add("Transpose", [name], perm=list(range(nd - 2)) + [nd - 1, nd - 2])


@maps(MatMul)
def _matmul(g, op, ins, outs):
    x, y = ins
    if op.tx and g.rank(x) >= 2:
        x = _swap_last(g, x)
    if op.ty and g.rank(y) >= 2:
        y = _swap_last(g, y)
    return g.add("MatMul", [x, y], outs)


def _gather_rows(g, weight, ids, pad, outs):
    rows = g.add("Gather", [weight, ids], axis=0)
    if pad is None:
        return g.add("Identity", [rows], outs)
    hit = g.axes_op("Unsqueeze", g.add("Equal", [ids, g.const(np.asarray(pad, g.dtype(ids)))]),
                    [-1])
    return g.add("Where", [hit, g.scalar(0.0, weight), rows], outs)


@maps(Lookup)
def _lookup(g, op, ins, outs):
    ids = g.const(np.asarray(op.ids, np.int64))
    g.shapes[ids] = (np.shape(op.ids), np.dtype(np.int64))
    return _gather_rows(g, ins[0], ids, op.pad, outs)


def _dropout(g, op, args, outs):
    kw = op.kwargs
    if kw.get("training", True) and kw.get("p", 0.5) != 0:
        raise ValueError("paddle.onnx.export: dropout in training mode cannot be exported; "
                         "the exporter calls layer.eval(), so a functional dropout needs "
                         "training=self.training")
    if kw.get("mode", "upscale_in_train") == "upscale_in_train":
        return g.add("Identity", [args["x"]], outs)
    return g.add("Mul", [args["x"], g.scalar(1.0 - kw.get("p", 0.5), args["x"])], outs)


def _embedding(g, op, args, outs):
    weight = args["weight"]
    rows = g.shape(weight)[0]
    pad = op.kwargs.get("padding_idx")
    return _gather_rows(g, weight, args["x"], None if pad is None else int(pad) % rows, outs)


def _batch_norm_call(g, op, args, outs):
    """F.batch_norm as to_static records it (one whole-call op): in eval mode it normalizes
    with the running statistics, constants of the export."""
    kwargs = op.kwargs
    if kwargs.get("training") and kwargs.get("use_global_stats") is not True:
        raise NotImplementedError("paddle.onnx.export: batch norm in training mode has no "
                                  "ONNX mapping; export the model in eval mode")
    x, mean, var = args["x"], args["running_mean"], args["running_var"]
    mean_v, var_v = g.value(mean), g.value(var)
    if mean_v is None or var_v is None:
        raise NotImplementedError("paddle.onnx.export: batch norm whose running statistics "
                                  "are computed in the program has no ONNX mapping")
    rank = g.rank(x)
    channel = rank - 1 if str(kwargs.get("data_format", "NCHW")).endswith("C") and rank > 2 \
        else 1
    pshape = tuple(mean_v.size if d == channel else 1 for d in range(rank))
    axes = tuple(d for d in range(rank) if d != channel)
    dtype = g.dtype(x)
    eps = float(kwargs.get("epsilon", 1e-5))
    fixed = (mean_v.reshape(pshape).astype(dtype),
             (1.0 / np.sqrt(var_v.reshape(pshape).astype(np.float64) + eps)).astype(dtype))
    inner = Normalize(axes, eps, None, pshape, fixed)
    return _fixed_statistics(g, inner, x, args.get("weight"), args.get("bias"), outs)


_WHOLE = {dropout: _dropout, embedding: _embedding, batch_norm: _batch_norm_call}


@maps(EagerCall)
def _eager_call(g, op, ins, outs):
    fn = getattr(op.fn, "__wrapped__", op.fn)
    for known, mapping in _WHOLE.items():
        if fn is getattr(known, "__wrapped__", known):
            return mapping(g, op, dict(zip(op.names, ins)), outs)
    raise NotImplementedError(f"paddle.onnx.export: no ONNX mapping for "
                              f"{op.fn.__module__}.{op.fn.__qualname__} (recorded whole as "
                              "an EagerCall op)")


@maps(Resample)
def _resample(g, op, ins, outs):
    """interpolate: each axis map in turn, a Gather for a pure gather (nearest) and
    otherwise a MatMul with its dense [n_in, n_out] matrix along that axis, so every mode
    gives DyGraph's own weights (Paddle's coordinate rules) exactly. The resized axes
    keep the sizes they had at export."""
    x, rank = ins[0], g.rank(ins[0])
    dtype = np.dtype(g.dtype(ins[0]))
    for k, amap in enumerate(op.maps):
        out = outs if k == len(op.maps) - 1 else None
        taps, n_out = amap.index.shape
        if amap.weight is None and taps == 1:
            x = g.add("Gather", [x, g.ints(amap.index[0])], out, axis=amap.axis)
            continue
        matrix = np.zeros((n_out, amap.n_in))
        weight = np.ones((taps, n_out)) if amap.weight is None else amap.weight
        for t in range(taps):
            np.add.at(matrix, (np.arange(n_out), amap.index[t]), weight[t])
        perm = [a for a in range(rank) if a != amap.axis] + [amap.axis]
        moved = g.add("Transpose", [x], perm=perm)
        product = g.add("MatMul", [moved, g.const(matrix.T.astype(dtype), hint="resample")])
        x = g.add("Transpose", [product], out, perm=[int(i) for i in np.argsort(perm)])
    return x
