"""scaled_dot_product_attention of dygraph.nn.functional, in Paddle's [batch, seq, heads, dim]
layout, composed of matmul, softmax and dropout (so it has gradients of every order)."""

import math

import numpy as np

from dygraph.framework.errors import AssertedValueError, NotATensorError, op_error
from dygraph.ops.activation.softmax import softmax
from dygraph.ops.common import as_tensor, cast, float_operand
from dygraph.ops.linalg.products import matmul
from dygraph.ops.manipulation.args import constant, xp_of
from dygraph.ops.manipulation.gather import repeat_interleave
from dygraph.ops.manipulation.shape import transpose
from dygraph.ops.nn.dropout import dropout
from dygraph.ops.unary.core import where
from dygraph.tensor.tensor import _new_tensor

__all__ = ["scaled_dot_product_attention"]
NONDIFF = set()


def _heads_first(t, batched):
    return transpose(t, [0, 2, 1, 3] if batched else [1, 0, 2])


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, training=True, backend=None, scale=None,
                                 enable_gqa=True, name=None):
    """softmax(Q K^T * scale + mask) V per head, scale 1 / sqrt(head_dim) unless given.
    query is [batch, seq_q, heads, head_dim] (or [seq_q, heads, head_dim]); key and value
    are [batch, seq_k, kv_heads, ...], with kv_heads = heads, or with enable_gqa a divisor
    of heads (grouped-query attention: query head h reads key/value head h // (heads /
    kv_heads)). attn_mask broadcasts to [batch, heads, seq_q, seq_k]: a bool mask keeps
    the True positions, a float mask is added to the scores. is_causal hides the keys after
    each query. dropout_p drops attention weights while training. `backend` (Paddle's
    choice of kernel) changes nothing here.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> q = dygraph.ones([1, 2, 1, 4])
        >>> v = dygraph.to_tensor([[[[1.0] * 4], [[3.0] * 4]]])
        >>> F.scaled_dot_product_attention(q, q, v).numpy()[0, :, 0, 0]
        array([2., 2.], dtype=float32)
        >>> F.scaled_dot_product_attention(q, q, v, is_causal=True).numpy()[0, :, 0, 0]
        array([1., 2.], dtype=float32)
    """
    op = "scaled_dot_product_attention"
    for what, t in (("query", query), ("key", key), ("value", value)):
        if not hasattr(t, "shape"):
            raise op_error(op, f"{what} must be a Tensor, got {type(t).__name__}",
                           NotATensorError)
    q, k, v = (float_operand(t, op) for t in (query, key, value))
    qs, ks, vs = q._data.shape, k._data.shape, v._data.shape
    nd = len(qs)
    if (nd not in (3, 4) or len(ks) != nd or len(vs) != nd or qs[-1] != ks[-1]
            or ks[:-1] != vs[:-1] or qs[:-3] != ks[:-3] or ks[-2] == 0
            or qs[-2] % ks[-2]):
        raise op_error(op, f"query {list(qs)}, key {list(ks)} and value {list(vs)} do not fit; "
                       "expected [batch, seq, heads, head_dim] (or [seq, heads, head_dim]) "
                       "with matching batch, query/key head_dim and heads (key/value heads "
                       "dividing the query's), and key and value of the same seq")
    if qs[-2] != ks[-2] and not enable_gqa:
        raise op_error(op, f"query has {qs[-2]} heads and key/value {ks[-2]}; with "
                       "enable_gqa=False they must be equal", AssertedValueError)
    batched = nd == 4
    qh, kh, vh = (_heads_first(t, batched) for t in (q, k, v))
    if qs[-2] != ks[-2]:  # each key/value head serves a group of query heads
        group = qs[-2] // ks[-2]
        kh, vh = (repeat_interleave(t, group, axis=-3) for t in (kh, vh))
    factor = 1.0 / math.sqrt(qs[-1]) if scale is None else float(scale)
    scores = matmul(qh, kh, transpose_y=True) * factor
    neg_inf = constant(-np.inf, scores)
    if is_causal:
        xp = xp_of(scores._data)
        seq_q, seq_k = qs[-3], ks[-3]
        keep = xp.tril(xp.ones((seq_q, seq_k), dtype=bool))
        scores = where(_new_tensor(keep, None, 0, True), scores, neg_inf)
    if attn_mask is not None:
        mask = as_tensor(attn_mask, op)
        if mask._data.dtype == np.bool_:
            scores = where(mask, scores, neg_inf)
        else:
            if mask._data.dtype != scores._data.dtype:
                mask = cast(mask, scores._data.dtype)
            scores = scores + mask
    weights = softmax(scores, axis=-1)
    if dropout_p and training:
        weights = dropout(weights, dropout_p)
    return _heads_first(matmul(weights, vh), batched)
