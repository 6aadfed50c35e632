"""MultiHeadAttention (Paddle 2.x): projections q_proj/k_proj/v_proj/out_proj, masks and
the key/value caches of incremental decoding (Cache, StaticCache, gen_cache).

Masks follow Paddle: a bool (or int) mask keeps the positions that are True (non-zero)
and hides the others by adding -1e9 to their scores; a float mask is added as is. A mask
broadcasts to the scores' shape [batch, num_heads, query_len, key_len].
"""

import collections

from dygraph.framework.errors import AssertedValueError, describe, op_error
from dygraph.nn import functional as F
from dygraph.nn.layer.common import Linear
from dygraph.nn.layer.layers import Layer
from dygraph.ops.common import as_tensor, cast
from dygraph.ops.creation import constructors as creation
from dygraph.ops.linalg import products as linalg
from dygraph.ops.manipulation import rearrange as manipulation
from dygraph.ops.manipulation import shape
from dygraph.ops.nn import fused_attention as fused

__all__ = ["MultiHeadAttention"]

# The score added at hidden positions: exp(-1e9 + s) is 0 in float32 and float64 alike,
# and a row with every position hidden still gives finite (uniform) weights.
_HIDDEN = 1e9


def convert_attention_mask(attn_mask, dtype):
    """A bool/int mask (True keeps) as an additive float mask; float masks and None
    are returned unchanged.

    Example:
        >>> import dygraph
        >>> convert_attention_mask(dygraph.to_tensor([True, False]), 'float32').numpy()
        array([ 0.e+00, -1.e+09], dtype=float32)
    """
    if attn_mask is None:
        return None
    mask = as_tensor(attn_mask, "attention")
    if mask._data.dtype.kind in "fc":
        return mask if mask.dtype == dtype else cast(mask, dtype)
    return (cast(mask, dtype) - 1.0) * _HIDDEN


def attr_list(attr, count, op):
    """weight_attr/bias_attr for `count` sublayers: one attr for all, or a list of them.

    Example:
        >>> attr_list(None, 2, 'TransformerEncoderLayer')
        [None, None]
    """
    if isinstance(attr, (list, tuple)):
        if len(attr) == 1:
            return list(attr) * count
        if len(attr) != count:
            raise ValueError(f"{op}: expected 1 or {count} attributes, got {len(attr)}")
        return list(attr)
    return [attr] * count


class MultiHeadAttention(Layer):
    """Attention with `num_heads` heads of size embed_dim // num_heads:
    softmax(Q K^T / sqrt(head_dim) + mask) V, then the output projection.

    query is [batch, query_len, embed_dim]; key ([batch, key_len, kdim]) defaults to
    query and value ([batch, key_len, vdim]) to key's default, query. With need_weights
    the attention weights [batch, num_heads, query_len, key_len] are returned too, and
    with a `cache` the updated cache.

    Example:
        >>> import dygraph
        >>> mha = MultiHeadAttention(8, 2)
        >>> mha(dygraph.randn([3, 5, 8])).shape
        [3, 5, 8]
    """

    Cache = collections.namedtuple("Cache", ["k", "v"])
    StaticCache = collections.namedtuple("StaticCache", ["k", "v"])

    def __init__(self, embed_dim, num_heads, dropout=0.0, kdim=None, vdim=None,
                 need_weights=False, weight_attr=None, bias_attr=None):
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0 or embed_dim % num_heads:
            raise AssertedValueError(f"MultiHeadAttention: embed_dim ({embed_dim}) must be a "
                                     f"positive multiple of num_heads ({num_heads})")
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self.head_dim = embed_dim // num_heads
        self.dropout, self.need_weights = dropout, need_weights
        self.q_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.k_proj = Linear(self.kdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.v_proj = Linear(self.vdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.out_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)

    def _heads(self, x):
        """[B, L, E] -> [B, H, L, D]."""
        b, n = x.shape[0], x.shape[1]
        return shape.transpose(shape.reshape(x, [b, n, self.num_heads, self.head_dim]),
                               [0, 2, 1, 3])

    def compute_kv(self, key, value):
        """Project key and value and split the heads: two [B, H, key_len, head_dim]."""
        return self._heads(self.k_proj(key)), self._heads(self.v_proj(value))

    def gen_cache(self, key, value=None, type=Cache):  # noqa: A002 - Paddle's argument name
        """A cache for decoding: StaticCache holds the projected key/value (cross
        attention over a fixed memory); Cache starts empty (value None) and grows by one
        step per call (self attention), or wraps given k/v tensors.

        Example:
            >>> import dygraph
            >>> mha = MultiHeadAttention(4, 2)
            >>> mha.gen_cache(dygraph.zeros([3, 5, 4])).k.shape
            [3, 2, 0, 2]
        """
        if type is MultiHeadAttention.StaticCache:
            return type(*self.compute_kv(key, value if value is not None else key))
        if value is None:
            empty = [key.shape[0], self.num_heads, 0, self.head_dim]
            return type(creation.zeros(empty, key.dtype), creation.zeros(empty, key.dtype))
        return type(key, value)

    def _prepare_qkv(self, query, key, value, cache):
        q = self._heads(self.q_proj(query))
        if isinstance(cache, MultiHeadAttention.StaticCache):
            return q, cache.k, cache.v, cache
        k, v = self.compute_kv(key, value)
        if isinstance(cache, MultiHeadAttention.Cache):
            k = manipulation.concat([cache.k, k], axis=2)
            v = manipulation.concat([cache.v, v], axis=2)
            cache = MultiHeadAttention.Cache(k, v)
        return q, k, v, cache

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        key = query if key is None else key
        value = query if value is None else value
        if query.ndim != 3 or query.shape[-1] != self.embed_dim:
            raise op_error("MultiHeadAttention", f"query must be [batch, length, embed_dim="
                           f"{self.embed_dim}], got {describe(query)}")
        if (cache is None and not self.need_weights and attn_mask is None
                and not (self.dropout and self.training)):
            projected = self.q_proj(query), self.k_proj(key), self.v_proj(value)
            if fused.half_on_gpu(*projected):  # float16 (or auto_cast's) on a GPU
                return self._fused(*projected)
            q, k, v = (self._heads(x) for x in projected)
        else:
            q, k, v, cache = self._prepare_qkv(query, key, value, cache)
        # q scaled before the product, as Paddle does: a pass over q, not over the scores
        scores = linalg.matmul(q * (self.head_dim ** -0.5), k, transpose_y=True)
        if attn_mask is not None:
            scores = scores + convert_attention_mask(attn_mask, scores.dtype)
        weights = F.softmax(scores)
        if self.dropout:
            weights = F.dropout(weights, self.dropout, training=self.training)
        out = shape.transpose(linalg.matmul(weights, v), [0, 2, 1, 3])
        out = self.out_proj(shape.reshape(out, [out.shape[0], out.shape[1], self.embed_dim]))
        outs = [out]
        if self.need_weights:
            outs.append(weights)
        if cache is not None:
            outs.append(cache)
        return out if len(outs) == 1 else tuple(outs)

    def _fused(self, q, k, v):
        """The attention of float16 projections q, k, v ([batch, length, embed_dim]) on a
        GPU as one op on cuDNN's fused kernels (ops/nn/fused_attention.py), in [batch,
        length, heads, head_dim] as the projections give them: no transposed copies, no
        scores in memory. The scores are scaled inside (Paddle scales q first: the same up
        to float16 rounding)."""
        def heads(x):
            return shape.reshape(x, [x.shape[0], x.shape[1], self.num_heads, self.head_dim])

        out = fused.fused_attention(heads(q), heads(k), heads(v), self.head_dim ** -0.5,
                                    False)
        return self.out_proj(shape.reshape(out, [out.shape[0], out.shape[1], self.embed_dim]))

    def extra_repr(self):
        return f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, dropout={self.dropout}"
