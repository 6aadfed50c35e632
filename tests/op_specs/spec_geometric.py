"""Spec entries for paddle.geometric's differentiable functions: send_u_recv, send_ue_recv,
send_uv and the segment reductions, on a small fixed graph.

Sums, means, maxima and minima are linear in the features (piecewise, for max and min), so
their second derivative alone is zero and would not exercise the create_graph formulas:
those entries square the result ("-sq"), which runs the gradient formula on Tensors. The
'mul' and 'div' messages are nonlinear in (x, y) and need no square. Random features have
no ties, so every max and min is differentiable at the entry's inputs.

The lambdas call `D.geometric.<name>` when they run, so that tools/record_error_walk.py
can run them through Paddle (it imports Paddle under DyGraph's name).
"""

import numpy as np

import dygraph as D
import dygraph.geometric  # noqa: F401 - makes D.geometric an attribute
from tests.op_specs import OpSpec

I32, I64 = np.int32, np.int64
NODES = 6
# Eight edges of a six-node graph: nodes 3 and 5 receive none (their output rows are 0),
# node 5 sends none (its gradient is 0). No edge repeats another: Paddle passes a max's
# gradient to every tied message, so a repeated edge would get it twice.
SRC = np.array([0, 1, 2, 0, 4, 3, 2, 1], I64)
DST = np.array([1, 2, 1, 0, 1, 1, 4, 4], I64)
SEGMENTS = np.array([0, 0, 1, 1, 1, 3, 3, 3], I64)  # sorted; segment 2 is empty


def _away_from_zero(shape):
    """Random draws of `shape` with |v| in [0.5, 1.5]: safe divisors."""
    def draw(rng):
        return rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 1.0], shape)

    return draw


def _reduce_ref(msg, index, rows, reduce):
    """Row r: the reduction of the rows of msg with index == r (0 where there is none)."""
    out = np.zeros((rows,) + msg.shape[1:])
    for r in range(rows):
        rows_r = msg[index == r]
        if len(rows_r):
            out[r] = {"sum": np.sum, "mean": np.mean, "max": np.max,
                      "min": np.min}[reduce](rows_r, axis=0)
    return out


def _aligned(x, y):
    """Paddle's alignment of node and edge features (see send_ue_recv)."""
    x = x[:, None] if x.ndim == 1 else x
    y = y[:, None] if y.ndim == 1 else y
    while x.ndim < y.ndim:
        x = np.expand_dims(x, 1)
    while y.ndim < x.ndim:
        y = np.expand_dims(y, 1)
    return x, y


def _message(a, b, message):
    return {"add": a + b, "sub": a - b, "mul": a * b, "div": a / (b + 1e-12)}[message]


def _square(result):
    return result * result


def _maybe_squared(fn, squared):
    return (lambda *a: _square(fn(*a))) if squared else fn


def _u_recv(reduce, out_size=None, squared=True):
    def fn(x, src, dst):
        return D.geometric.send_u_recv(x, src, dst, reduce_op=reduce, out_size=out_size)

    def ref(x, src, dst):
        return _reduce_ref(x[src], dst, out_size or x.shape[0], reduce)

    rows = f"-out{out_size}" if out_size else ""
    return OpSpec("geometric.send_u_recv", _maybe_squared(fn, squared),
                  _maybe_squared(ref, squared), [(NODES, 3), SRC, DST],
                  id=f"{reduce}{rows}{'-sq' if squared else ''}", family="manipulation")


def _ue_recv(message, reduce, x_shape=(NODES, 3), y_shape=(8, 3), id_extra=""):
    squared = message in ("add", "sub")

    def fn(x, y, src, dst):
        return D.geometric.send_ue_recv(x, y, src, dst, message_op=message, reduce_op=reduce)

    def ref(x, y, src, dst):
        x, y = _aligned(x, y)
        return _reduce_ref(_message(x[src], y, message), dst, x.shape[0], reduce)

    y = _away_from_zero(y_shape) if message == "div" else y_shape
    return OpSpec("geometric.send_ue_recv", _maybe_squared(fn, squared),
                  _maybe_squared(ref, squared), [x_shape, y, SRC, DST],
                  id=f"{message}-{reduce}{id_extra}{'-sq' if squared else ''}",
                  family="manipulation")


def _uv(message, x_shape=(NODES, 3), y_shape=(NODES, 3), src=SRC, dst=DST, id_extra=""):
    squared = message in ("add", "sub")

    def fn(x, y, s, d):
        return D.geometric.send_uv(x, y, s, d, message_op=message)

    def ref(x, y, s, d):
        x, y = _aligned(x, y)
        return _message(x[s], y[d], message)

    y = _away_from_zero(y_shape) if message == "div" else y_shape
    return OpSpec("geometric.send_uv", _maybe_squared(fn, squared),
                  _maybe_squared(ref, squared), [x_shape, y, src, dst],
                  id=f"{message}{id_extra}{'-sq' if squared else ''}", family="manipulation")


def _segment(reduce, shape=(8, 3), ids=SEGMENTS, id="sq"):  # noqa: A002 - OpSpec's field
    def fn(data, segment_ids):
        return getattr(D.geometric, f"segment_{reduce}")(data, segment_ids)

    def ref(data, segment_ids):
        return _reduce_ref(data, segment_ids, int(segment_ids[-1]) + 1, reduce)

    return OpSpec(f"geometric.segment_{reduce}", lambda *a: _square(fn(*a)),
                  lambda *a: _square(ref(*a)), [shape, ids], id=id, family="manipulation")


SPECS = [
    *[_u_recv(reduce) for reduce in ("sum", "mean", "max", "min")],
    _u_recv("sum", squared=False),
    _u_recv("mean", out_size=7),
    OpSpec("geometric.send_u_recv",
           lambda x, s, d: _square(D.geometric.send_u_recv(x, s, d, "max")),
           lambda x, s, d: _square(_reduce_ref(x[s], d, NODES, "max")),
           [(NODES,), SRC.astype(I32), DST.astype(I32)], id="1d-int32-sq",
           family="manipulation"),
    *[_ue_recv(message, reduce) for message in ("add", "sub", "mul", "div")
      for reduce in ("sum", "mean", "max", "min")],
    # The edge feature first: the error walk misshapes the first float input, and a
    # misshaped x would leave src_index out of range, which Paddle's send_ue_recv does not
    # check (it reads out of bounds).
    OpSpec("geometric.send_ue_recv",
           lambda y, x, s, d: D.geometric.send_ue_recv(x, y, s, d, "mul", "sum"),
           lambda y, x, s, d: _reduce_ref(x[s] * y[:, None], d, NODES, "sum"),
           [(8,), (NODES, 3), SRC, DST], id="mul-sum-edge-scalar", family="manipulation"),
    _ue_recv("add", "max", x_shape=(NODES, 3), y_shape=(8, 2, 1), id_extra="-broadcast"),
    *[_uv(message) for message in ("add", "sub", "mul", "div")],
    _uv("mul", x_shape=(NODES, 2, 1), y_shape=(4, 3), dst=DST % 4, id_extra="-broadcast"),
    *[_segment(reduce) for reduce in ("sum", "mean", "max", "min")],
    _segment("max", shape=(8,), ids=SEGMENTS.astype(I32), id="1d-int32-sq"),
]
