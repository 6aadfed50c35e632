"""Message passing: send_u_recv, send_ue_recv, send_uv (paddle.geometric).

A graph's edges are given as two index tensors, src_index and dst_index (edge e goes from
node src_index[e] to node dst_index[e]). send_u_recv gathers the source nodes' features
and reduces them into the destination nodes; send_ue_recv combines each gathered feature
with the edge's own feature first; send_uv gives each edge the combination of its two end
nodes' features. All three have gradients (and double backward) for float features; they
run as the ops of dygraph/ops/geometric/send_recv.py.

As Paddle, message_op 'sub' adds -y and 'div' multiplies by 1 / (y + 1e-12), so a zero
edge feature divides into a large finite number rather than infinity.
"""

from dygraph.autograd.function import apply
from dygraph.framework.errors import op_error
from dygraph.ops.geometric.checks import (
    aligned,
    check_message,
    check_reduce,
    edge_indices,
    features,
    out_rows,
    same_dtype,
    whole_if_tensor_out_size,
)
from dygraph.ops.geometric.send_recv import SendRecv, SendUV

__all__ = ["send_u_recv", "send_ue_recv", "send_uv"]


@whole_if_tensor_out_size
def send_u_recv(x, src_index, dst_index, reduce_op="sum", out_size=None, name=None):
    """out[i] = reduce_op ('sum', 'mean', 'max' or 'min') of x[src_index[e]] over the edges
    e with dst_index[e] == i; rows that no edge reaches are 0.

    The output has x's shape, with out_size rows when out_size (an int or a Tensor) is
    given and positive (it must exceed every dst_index). x: float16, float32, float64,
    int32 or int64 (an integer mean rounds toward zero); the indices: int32 or int64 of
    shape [E] or [E, 1].

    Example:
        >>> import dygraph
        >>> from dygraph import geometric
        >>> x = dygraph.to_tensor([[0.0, 2.0, 3.0], [1.0, 4.0, 5.0], [2.0, 6.0, 7.0]])
        >>> src, dst = dygraph.to_tensor([0, 1, 2, 0]), dygraph.to_tensor([1, 2, 1, 0])
        >>> geometric.send_u_recv(x, src, dst, reduce_op="sum").numpy()
        array([[ 0.,  2.,  3.],
               [ 2.,  8., 10.],
               [ 1.,  4.,  5.]], dtype=float32)
    """
    check_reduce(reduce_op, "send_u_recv")
    x = features(x, "send_u_recv")
    src, dst = edge_indices(src_index, dst_index, "send_u_recv")
    rows = out_rows(out_size, "send_u_recv")
    return apply(SendRecv(None, reduce_op, rows, True, "send_u_recv"), x, src, dst)


def _edge_message(x, y, message_op, op):
    """(x, y, message) with y rewritten as Paddle does: 'sub' adds -y, 'div' multiplies by
    1 / (y + 1e-12)."""
    x, y = features(x, op), features(y, op, "y")
    same_dtype(x, y, op)
    x, y = aligned(x, y, op)
    if message_op == "sub":
        return x, -y, "add"
    if message_op == "div":
        if y._data.dtype.kind != "f":
            raise op_error(op, f"message_op 'div' needs float features, got dtype "
                           f"{y._data.dtype.name}")
        return x, 1.0 / (y + 1e-12), "mul"
    return x, y, message_op


@whole_if_tensor_out_size
def send_ue_recv(x, y, src_index, dst_index, message_op="add", reduce_op="sum",
                 out_size=None, name=None):
    """out[i] = reduce_op over the edges e with dst_index[e] == i of
    message_op(x[src_index[e]], y[e]): node features x combined with edge features y
    ('add', 'sub', 'mul' or 'div'), then reduced ('sum', 'mean', 'max' or 'min').

    y has one row per edge; the features of x and y (all dims but the first) broadcast,
    after a 1-D one becomes [N, 1] and the one with fewer dims gets size-1 dims after the
    first. out_size as in send_u_recv.

    Example:
        >>> import dygraph
        >>> from dygraph import geometric
        >>> x = dygraph.to_tensor([[0.0, 2.0, 3.0], [1.0, 4.0, 5.0], [2.0, 6.0, 7.0]])
        >>> y = dygraph.to_tensor([1.0, 1.0, 1.0, 1.0])
        >>> src, dst = dygraph.to_tensor([0, 1, 2, 0]), dygraph.to_tensor([1, 2, 1, 0])
        >>> geometric.send_ue_recv(x, y, src, dst, message_op="add", reduce_op="sum").numpy()
        array([[ 1.,  3.,  4.],
               [ 4., 10., 12.],
               [ 2.,  5.,  6.]], dtype=float32)
    """
    check_message(message_op, "send_ue_recv")
    check_reduce(reduce_op, "send_ue_recv")
    x, y, message = _edge_message(x, y, message_op, "send_ue_recv")
    src, dst = edge_indices(src_index, dst_index, "send_ue_recv")
    rows = out_rows(out_size, "send_ue_recv")
    return apply(SendRecv(message, reduce_op, rows, True, "send_ue_recv"), x, y, src, dst)


def send_uv(x, y, src_index, dst_index, message_op="add", name=None):
    """out[e] = message_op(x[src_index[e]], y[dst_index[e]]) for every edge e: 'add',
    'sub', 'mul' or 'div' of the features of its source node (from x) and destination
    node (from y), which broadcast as in send_ue_recv.

    Example:
        >>> import dygraph
        >>> from dygraph import geometric
        >>> x = dygraph.to_tensor([[0.0, 2.0, 3.0], [1.0, 4.0, 5.0], [2.0, 6.0, 7.0]])
        >>> y = dygraph.to_tensor([[0.0, 1.0, 2.0], [2.0, 3.0, 4.0], [4.0, 5.0, 6.0]])
        >>> src, dst = dygraph.to_tensor([0, 1, 2, 0]), dygraph.to_tensor([1, 2, 1, 0])
        >>> geometric.send_uv(x, y, src, dst, message_op="add").numpy()
        array([[ 2.,  5.,  7.],
               [ 5.,  9., 11.],
               [ 4.,  9., 11.],
               [ 0.,  3.,  5.]], dtype=float32)
    """
    check_message(message_op, "send_uv")
    x, y, message = _edge_message(x, y, message_op, "send_uv")
    src, dst = edge_indices(src_index, dst_index, "send_uv")
    return apply(SendUV(message, "send_uv"), x, y, src, dst)
