"""Scaled dot-product attention on cuDNN (backend/cudnn/): the fused forward of
softmax(Q K^T * scale) V (FlashAttention-2: the scores never reach memory), keeping each
query row's log-sum-exp of its scores ("stats", float32) for the fused backward, which
gives dQ, dK and dV.

Operands are in Paddle's layout, [batch, seq, heads, head_dim], C-ordered, which cuDNN reads
as its logical (batch, heads, seq, head_dim) through strides: no transposed copies. Key and value
may have fewer heads than the query, a divisor of them (grouped-query attention). cuDNN
runs this for float16 and bfloat16 data only (and head dims it supports: multiples of 8,
up to 128, or 256 on Hopper); it declines the rest, and the caller computes the
composition of matmul, softmax and matmul instead.

Example:
    >>> _layout((2, 5, 3, 8), (120, 24, 8, 1))
    ([2, 3, 5, 8], [120, 8, 24, 1])
"""

import numpy as np

from dygraph.backend import dtype_name
from dygraph.backend.cudnn.graphs import (
    _build,
    _new_graph,
    _output,
    _plan,
    _ready,
    _run,
    _tensor,
)

__all__ = ["attention", "attention_grads"]


def _layout(shape, strides):
    """cuDNN's (dims, strides) of a [batch, seq, heads, dim] array: (batch, heads, seq, dim)."""
    order = (0, 2, 1, 3)
    return [int(shape[a]) for a in order], [int(strides[a]) for a in order]


def _elements(a):
    return tuple(st // a.itemsize for st in a.strides)


def _read(xp, a):
    """`a` C-ordered, as cuDNN reads it (a gradient may come broadcast, with zero strides):
    a copy only where it is not."""
    return a if a.flags.c_contiguous else xp.ascontiguousarray(a)


def _stats_layout(q_shape):
    """(dims, strides) of the float32 stats [batch, heads, seq_q, 1], C-ordered."""
    b, s, h, _ = q_shape
    return [b, h, s, 1], [h * s, s, 1, 1]


def _masking(lib, causal):
    """The keyword arguments of a causal mask (each query sees the keys up to its own
    position, counted from the top-left corner, as Paddle's is_causal), or none."""
    if not causal:
        return {}
    return {"diagonal_alignment": lib.diagonal_alignment.TOP_LEFT,
            "diagonal_band_right_bound": 0}


def attention(xp, q, k, v, scale, causal):
    """softmax(q k^T * scale) v per head, by cuDNN, on CuPy [batch, seq, heads, dim]
    arrays (k and v with the same seq; kv heads dividing q's): (out [batch, seq_q, heads,
    dim_v] C-ordered, stats float32 [batch, heads, seq_q, 1], each row's log-sum-exp of its
    scaled scores); None where cuDNN does not run it.

    Example:
        >>> out, stats = attention(cupy, q, k, v, 0.125, False)  # doctest: +SKIP
    """
    ready = _ready(q, k, v)
    if ready is None or q.ndim != 4:
        return None
    lib, io = ready
    device = xp.cuda.runtime.getDevice()
    q, k, v = (_read(xp, a) for a in (q, k, v))
    out_shape = q.shape[:3] + (v.shape[3],)
    key = ("sdpa", device, dtype_name(q.dtype), q.shape, k.shape, v.shape, _elements(q),
           _elements(k), _elements(v), float(scale), bool(causal))

    def build():
        graph = _new_graph(lib, xp, device, io)
        t = {name: _tensor(graph, name, _layout(a.shape, _elements(a)), io)
             for name, a in (("q", q), ("k", k), ("v", v))}
        t["out"], t["stats"] = graph.sdpa(name="sdpa", q=t["q"], k=t["k"], v=t["v"],
                                          generate_stats=True, attn_scale=float(scale),
                                          **_masking(lib, causal))
        _output(t["out"], _layout(out_shape, _c_strides(out_shape)), io)
        _output(t["stats"], _stats_layout(q.shape), lib.data_type.FLOAT)
        return _build(lib, graph, io, t)

    plan = _plan(key, build)
    if plan is None:
        return None
    out = xp.empty(out_shape, q.dtype)
    stats = xp.empty(tuple(_stats_layout(q.shape)[0]), np.float32)
    if not _run(xp, key, plan, device, {"q": q, "k": k, "v": v, "out": out, "stats": stats}):
        return None
    return out, stats


def attention_grads(xp, q, k, v, out, g, stats, scale, causal):
    """The gradients (dq, dk, dv) of `attention` by cuDNN, from its inputs, output, stats
    and the output's gradient g, each C-ordered in its input's shape; None where cuDNN does
    not run it.

    Example:
        >>> dq, dk, dv = attention_grads(cupy, q, k, v, out, g, stats, 0.125, False)
        ... # doctest: +SKIP
    """
    ready = _ready(q, k, v, out, g)
    if ready is None:
        return None
    lib, io = ready
    device = xp.cuda.runtime.getDevice()
    q, k, v, out, g = (_read(xp, a) for a in (q, k, v, out, g))
    operands = (("q", q), ("k", k), ("v", v), ("out", out), ("g", g))
    key = ("sdpa_backward", device, dtype_name(q.dtype), q.shape, k.shape, v.shape) + tuple(
        _elements(a) for _, a in operands) + (float(scale), bool(causal))

    def build():
        graph = _new_graph(lib, xp, device, io)
        t = {name: _tensor(graph, name, _layout(a.shape, _elements(a)), io)
             for name, a in operands}
        t["stats"] = _tensor(graph, "stats", _stats_layout(q.shape), lib.data_type.FLOAT)
        t["dq"], t["dk"], t["dv"] = graph.sdpa_backward(
            name="sdpa_backward", q=t["q"], k=t["k"], v=t["v"], o=t["out"], dO=t["g"],
            stats=t["stats"], attn_scale=float(scale), **_masking(lib, causal))
        for name, a in (("dq", q), ("dk", k), ("dv", v)):
            _output(t[name], _layout(a.shape, _c_strides(a.shape)), io)
        return _build(lib, graph, io, t)

    plan = _plan(key, build)
    if plan is None:
        return None
    grads = {name: xp.empty(a.shape, a.dtype) for name, a in (("dq", q), ("dk", k), ("dv", v))}
    if not _run(xp, key, plan, device, dict(operands, stats=stats, **grads)):
        return None
    return grads["dq"], grads["dk"], grads["dv"]


def _c_strides(shape):
    """The element strides of a C-ordered array of `shape`."""
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= int(size)
    return tuple(reversed(strides))
