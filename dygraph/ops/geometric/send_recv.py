"""The two ops of message passing, which every paddle.geometric gradient is written in.

- `SendRecv`: out[r] = reduce over the edges e with dst[e] == r of msg[e], where msg[e] is
  x[src[e]] (or x[e] without `src`), combined with the edge feature y[e] by `message`
  ('add' or 'mul'). It is send_u_recv, send_ue_recv and the segment reductions.
- `SendUV`: out[e] = x[src[e]] combined with y[dst[e]] (or x[src[e]] alone): send_uv, and
  the gather of rows.

Each one's gradient is the other, transposed: the gradient of a gather is a scatter-sum
and the other way round; a max or min passes the gradient to every edge whose message
equals the reduced value (ties included, as Paddle), a mean divides it by the row's count.
The formulas are written with `m.geometric_*`, so the same code gives the first gradient on
arrays and, under create_graph, a gradient that is differentiable again.

The ops read their index inputs at each run (the row count comes from x or the `rows`
attribute, never from the values), so static programs record them as they are.

Example:
    >>> import dygraph
    >>> from dygraph.autograd.function import apply
    >>> x = dygraph.to_tensor([[1.0], [2.0], [3.0]])
    >>> src, dst = dygraph.to_tensor([0, 1, 2]), dygraph.to_tensor([1, 1, 0])
    >>> apply(SendRecv(None, "sum", None, True, "send_u_recv"), x, src, dst).numpy().ravel()
    array([3., 3., 0.], dtype=float32)
"""

from dygraph.autograd.backward_math import register
from dygraph.autograd.function import Op, apply
from dygraph.backend import get_array_module
from dygraph.backend.scatter_at import bincount
from dygraph.framework.errors import op_error
from dygraph.ops.common import as_tensor
from dygraph.ops.geometric.scatter_rows import gather_rows, reduce_rows
from dygraph.ops.manipulation.args import check_bounds
from dygraph.tensor.tensor import Tensor

__all__ = ["SendRecv", "SendUV"]


def _combine(a, b, message):
    if message is None:
        return a
    return a + b if message == "add" else a * b


def _send_recv(xp, x, y, src, dst, message, reduce, rows):
    msg = x if src is None else gather_rows(xp, x, src)
    return reduce_rows(xp, _combine(msg, y, message), dst, rows, reduce)[0]


def _send_uv(xp, x, y, src, dst, message):
    a = gather_rows(xp, x, src)
    return a if message is None else _combine(a, gather_rows(xp, y, dst), message)


def _constant(value):
    """A gradient formula's constant array (a mask, a count) as a Tensor; Tensors pass."""
    return value if value is None or isinstance(value, Tensor) else as_tensor(value)


def _tensor_send_recv(x, w, src, dst, rows):
    """Gather x by src, times w (edge weights, or None), summed into `rows` rows by dst."""
    w = _constant(w)
    op = SendRecv(None if w is None else "mul", "sum", rows, src is not None, "send_recv")
    args = [t for t in (x, w, src, dst) if t is not None]
    return apply(op, *args)


def _tensor_send_uv(x, y, src, dst, message):
    if message is None:
        return apply(SendUV(None, "send_uv"), x, src)
    return apply(SendUV(message, "send_uv"), x, _constant(y), src, dst)


# m.geometric_send_recv(x, w, src, dst, rows): the weighted gather-scatter-sum (src may be
# None: x is already one row per edge); m.geometric_send_uv(x, y, src, dst, message).
register("geometric_send_recv",
         lambda xp: (lambda x, w, src, dst, rows: _send_recv(
             xp, x, w, src, dst, None if w is None else "mul", "sum", rows)),
         _tensor_send_recv)
register("geometric_send_uv",
         lambda xp: (lambda x, y, src, dst, message: _send_uv(xp, x, y, src, dst, message)),
         _tensor_send_uv)


class SendRecv(Op):
    """Reduce messages into rows: inputs (x, [y], [src], dst).

    message: None, 'add' or 'mul' (with the edge feature y); reduce: 'sum', 'mean', 'max'
    or 'min'; rows: the output's row count, or None for x's; gathered: whether a `src`
    input picks the rows of x (else x has one row per edge); api: the public name errors
    give.

    Example (segment_max's op: no src, two output rows):
        >>> import dygraph
        >>> x, ids = dygraph.to_tensor([1.0, 5.0, 2.0]), dygraph.to_tensor([0, 0, 1])
        >>> apply(SendRecv(None, "max", 2, False, "segment_max"), x, ids).numpy()
        array([5., 2.], dtype=float32)
    """

    attrs = ("api", "gathered", "message", "out_rows", "reduce")
    save_inputs = True
    save_output = True

    def __init__(self, message, reduce, rows, gathered, api):
        self.message, self.reduce, self.out_rows = message, reduce, rows
        self.gathered, self.api = gathered, api

    def _parts(self, values):
        """(x, y, src, dst) from the inputs, None for those this op does not take."""
        y = values[1] if self.message else None
        src = values[-2] if self.gathered else None
        return values[0], y, src, values[-1]

    def forward(self, xp, *arrays):
        x, y, src, dst = self._parts(arrays)
        rows = x.shape[0] if self.out_rows is None else self.out_rows
        if src is not None:
            check_bounds(src, x.shape[0], self.api, "src_index")
        edges = src.shape[0] if src is not None else x.shape[0]
        if dst.shape[0] != edges or (y is not None and y.shape[0] != edges):
            sizes = [a.shape[0] for a in (src, dst, y) if a is not None]
            raise op_error(self.api, f"the index and edge tensors have {sizes} rows "
                           f"(x of shape {list(x.shape)}); expected one row per edge each")
        check_bounds(dst, rows, self.api, "dst_index")
        return _send_recv(xp, x, y, src, dst, self.message, self.reduce, rows)

    def backward(self, m, g):
        x, y, src, dst = self._parts([self.x(i, m) for i in range(len(self.inputs))])
        gd, dst_data = m.data(g), m.data(dst)
        xp = get_array_module(gd)
        if self.reduce == "mean":
            count = xp.maximum(bincount(xp, dst_data, gd.shape[0]), 1)
            g = g * (1 / count).astype(gd.dtype).reshape((-1,) + (1,) * (gd.ndim - 1))
        mask = None
        if self.reduce in ("max", "min"):
            msg = m.data(x) if src is None else gather_rows(xp, m.data(x), m.data(src))
            msg = _combine(msg, None if y is None else m.data(y), self.message)
            reached = gather_rows(xp, m.data(self.y(m)), dst_data)
            mask = (msg == reached).astype(gd.dtype)
        grads = [None] * len(self.inputs)
        if self.edges[0] is not None:
            w = y if self.message == "mul" else None
            if mask is not None:
                w = mask if w is None else w * mask
            if src is not None:
                grads[0] = m.geometric_send_recv(g, w, dst, src, m.data(x).shape[0])
            else:
                grads[0] = m.geometric_send_uv(g, None, dst, None, None)
                grads[0] = grads[0] if w is None else grads[0] * w
        if y is not None and self.edges[1] is not None:
            if self.message == "mul" and src is not None:
                gy = m.geometric_send_uv(g, x, dst, src, "mul")
            else:
                gy = m.geometric_send_uv(g, None, dst, None, None)
                gy = gy * x if self.message == "mul" else gy
            grads[1] = gy if mask is None else gy * mask
        return tuple(grads)


class SendUV(Op):
    """Per-edge messages: inputs (x, src) give x[src]; (x, y, src, dst) give x[src]
    combined with y[dst] by message ('add' or 'mul'); api: the public name errors give.

    Example:
        >>> import dygraph
        >>> x, y = dygraph.to_tensor([1.0, 2.0]), dygraph.to_tensor([10.0, 20.0])
        >>> src, dst = dygraph.to_tensor([0, 1, 1]), dygraph.to_tensor([1, 0, 1])
        >>> apply(SendUV("add", "send_uv"), x, y, src, dst).numpy()
        array([21., 12., 22.], dtype=float32)
    """

    attrs = ("api", "message")
    save_inputs = True

    def __init__(self, message, api):
        self.message, self.api = message, api

    def forward(self, xp, *arrays):
        if self.message is None:
            x, src = arrays
            check_bounds(src, x.shape[0], self.api, "src_index")
            return gather_rows(xp, x, src)
        x, y, src, dst = arrays
        if src.shape[0] != dst.shape[0]:
            raise op_error(self.api, f"src_index has {src.shape[0]} edges and dst_index "
                           f"{dst.shape[0]}; expected the same number")
        check_bounds(src, x.shape[0], self.api, "src_index")
        check_bounds(dst, y.shape[0], self.api, "dst_index")
        return _send_uv(xp, x, y, src, dst, self.message)

    def backward(self, m, g):
        if self.message is None:
            x, src = self.x(0, m), self.x(1, m)
            return m.geometric_send_recv(g, None, None, src, m.data(x).shape[0]), None
        x, y, src, dst = (self.x(i, m) for i in range(4))
        gx = gy = None
        mul = self.message == "mul"
        if self.edges[0] is not None:
            w = m.geometric_send_uv(y, None, dst, None, None) if mul else None
            gx = m.geometric_send_recv(g, w, None, src, m.data(x).shape[0])
        if self.edges[1] is not None:
            w = m.geometric_send_uv(x, None, src, None, None) if mul else None
            gy = m.geometric_send_recv(g, w, None, dst, m.data(y).shape[0])
        return gx, gy, None, None
