"""scaled_dot_product_attention and flashmask_attention of dygraph.nn.functional, in
Paddle's [batch, seq, heads, dim] layout, composed of matmul, softmax and dropout (so they
have gradients of every order). Eager float16 attention on a GPU runs as one op on cuDNN's
fused kernels instead (ops/nn/fused_attention.py).

flashmask_attention describes its mask by row ranges per key column (FlashMask's
startend_row_indices); here that is expanded to the dense boolean mask and applied to the
scores like scaled_dot_product_attention's. Paddle runs it only on GPUs (CUDA kernels for
float16 and bfloat16); DyGraph computes it on the host for any float dtype.
"""

import math

import numpy as np

from dygraph.autograd.function import apply
from dygraph.framework.errors import (
    AssertedTypeError,
    AssertedValueError,
    NotTensorError,
    UnsupportedDTypeError,
    op_error,
)
from dygraph.framework.random import rng
from dygraph.ops.activation.softmax import softmax
from dygraph.ops.common import as_tensor, cast, float_operand
from dygraph.ops.device_constants import const
from dygraph.ops.linalg.products import matmul
from dygraph.ops.manipulation.args import constant, xp_of
from dygraph.ops.manipulation.gather import repeat_interleave
from dygraph.ops.manipulation.shape import transpose
from dygraph.ops.nn import fused_attention as fused
from dygraph.ops.nn.dropout import MaskScale, _check_p, dropout
from dygraph.ops.reduction.statistics import logsumexp
from dygraph.ops.unary.core import where
from dygraph.tensor.tensor import _new_tensor

__all__ = ["scaled_dot_product_attention", "flashmask_attention"]
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
                           NotTensorError)
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
    factor = 1.0 / math.sqrt(qs[-1]) if scale is None else float(scale)
    if fused.takes(q, k, v, attn_mask, dropout_p, training):  # float16 on a GPU: cuDNN
        return fused.fused_attention(q, k, v, factor, is_causal)
    batched = nd == 4
    qh, kh, vh = (_heads_first(t, batched) for t in (q, k, v))
    if qs[-2] != ks[-2]:  # each key/value head serves a group of query heads
        group = qs[-2] // ks[-2]
        kh, vh = (repeat_interleave(t, group, axis=-3) for t in (kh, vh))
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


_BLOCK = 128  # block_mask's block: 128 x 128 scores (Paddle's kernels know no other size)
_FLASH = "flashmask_attention"


def flashmask_attention(query, key, value, startend_row_indices=None, *, dropout=0.0,
                        causal=False, window_size=None, return_softmax_lse=False,
                        return_seed_offset=False, fixed_seed_offset=None, rng_name="",
                        training=True, name=None, softmax_scale=None, block_mask=None):
    """softmax(Q K^T * scale + M) V with FlashMask's column-wise sparse mask M.

    query is [batch, seq_q, heads, head_dim]; key and value are [batch, seq_k, kv_heads,
    ...] with kv_heads dividing heads (grouped-query attention). scale is 1 / sqrt(head_dim)
    unless softmax_scale is given. startend_row_indices, int32 [batch, 1 or kv_heads or
    heads, seq_k, n], masks for each key column j the score rows (queries) r:

    - causal, n = 1: r >= s[0]; n = 2: s[0] <= r < s[1] (plus the causal mask r < j);
    - not causal, n = 2: r >= s[0] or r < s[1]; n = 4: s[0] <= r < s[1] or s[2] <= r < s[3].

    causal alone hides the keys after each query (r < j, from the top-left corner).
    window_size w (or (left, right)) keeps the keys j with r - left <= j <= r (causal) or
    r + right (not causal); it excludes startend_row_indices. block_mask, int32 [batch,
    heads of startend_row_indices, ceil(seq_q / 128), ceil(seq_k / 128)], keeps the 128 x 128
    score blocks where it is 1 (head_dim must be 128, as in Paddle). A query whose keys are
    all masked gets zeros, as from Paddle's kernels. dropout drops attention weights while
    training, drawn from [seed, offset] (fixed_seed_offset, an int64 [2] tensor, or a seed
    from the global generator). Returns the output of query's shape, followed by
    softmax_lse (float32 [batch, heads, seq_q]; +inf for a fully masked query, the flash
    kernels' value) with return_softmax_lse and the int64 [seed, offset] with
    return_seed_offset (a list then). rng_name and name are accepted and unused (DyGraph
    has one generator). Paddle takes float16 and bfloat16 on GPUs only and, by kernel,
    refuses some of the options; DyGraph computes every float dtype and option.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> q = dygraph.ones([1, 3, 1, 2])
        >>> v = dygraph.to_tensor([[[[1.0, 1.0]], [[3.0, 3.0]], [[5.0, 5.0]]]])
        >>> s = dygraph.to_tensor([[[[3], [3], [2]]]], dtype='int32')  # row 2 skips key 2
        >>> F.flashmask_attention(q, q, v, s, causal=True).numpy()[0, :, 0, 0]
        array([1., 2., 2.], dtype=float32)
    """
    q, k, v = _flash_operands(query, key, value)
    b, sq, heads, d = q._data.shape
    sk, kv_heads = k._data.shape[1], k._data.shape[2]
    if window_size is not None:
        if startend_row_indices is not None:
            raise op_error(_FLASH, "window_size and startend_row_indices exclude each other",
                           AssertedValueError)
        keep = _window_keep(window_size, sq, sk, causal)
    elif startend_row_indices is not None:
        keep = _startend_keep(startend_row_indices, causal, (b, sq, heads, sk, kv_heads))
    else:
        keep = np.tril(np.ones((sq, sk), bool)) if causal else None
    if block_mask is not None:
        if startend_row_indices is None:
            raise op_error(_FLASH, "block_mask needs startend_row_indices",
                           AssertedValueError)
        keep = keep & _block_keep(block_mask, startend_row_indices.shape[1], b, sq, sk, d)
    if keep is not None and keep.ndim == 4 and keep.shape[1] not in (1, heads):
        keep = np.repeat(keep, heads // kv_heads, axis=1)  # one mask per kv head's group
    scale = 1.0 / math.sqrt(d) if softmax_scale is None else float(softmax_scale)
    p = _check_p(dropout, _FLASH)
    seed_offset = _seed_offset(fixed_seed_offset, training and p > 0.0)
    if sk:
        out, scores, seen = _masked_attention(q, k, v, keep, scale, p if training else 0.0,
                                              seed_offset)
    else:  # no key: every query is fully masked (zeros; softmax_lse +inf)
        out = const(np.zeros((b, sq, heads, v._data.shape[3])), q)
        scores, seen = const(np.zeros((b, heads, sq, 0)), q), None
    outputs = [out]
    if return_softmax_lse:
        outputs.append(_softmax_lse(scores, seen))
    if return_seed_offset:
        outputs.append(_new_tensor(np.asarray(seed_offset, np.int64), None, 0, True))
    return outputs[0] if len(outputs) == 1 else outputs


def _masked_attention(q, k, v, keep, scale, p, seed_offset):
    """(output, masked scores, which queries keep a key) of attention with a keep mask
    (None: all kept) broadcasting to [batch, heads, seq_q, seq_k]."""
    heads, kv_heads = q._data.shape[2], k._data.shape[2]
    qh, kh, vh = (transpose(t, [0, 2, 1, 3]) for t in (q, k, v))
    if heads != kv_heads:
        kh, vh = (repeat_interleave(t, heads // kv_heads, axis=1) for t in (kh, vh))
    scores = matmul(qh, kh, transpose_y=True) * scale
    seen = None  # [.., seq_q, 1]
    if keep is not None:
        seen = keep.any(axis=-1, keepdims=True)
        # a fully masked row is given finite scores, then its weights are zeroed: no NaN
        scores = where(const(keep | ~seen, scores, bool), scores, constant(-np.inf, scores))
    weights = softmax(scores, axis=-1)
    if seen is not None and not seen.all():
        weights = weights * const(seen, weights)
    if p:
        weights = _seeded_dropout(weights, p, seed_offset)
    return transpose(matmul(weights, vh), [0, 2, 1, 3]), scores, seen


def _flash_operands(query, key, value):
    """query, key and value checked: float Tensors of one dtype, 4-D, fitting shapes."""
    for what, t in (("query", query), ("key", key), ("value", value)):
        if not hasattr(t, "shape"):
            raise op_error(_FLASH, f"{what} must be a Tensor, got {type(t).__name__}",
                           NotTensorError)
    q, k, v = (as_tensor(t, _FLASH) for t in (query, key, value))
    dtypes = {t._data.dtype for t in (q, k, v)}
    if len(dtypes) > 1:
        raise op_error(_FLASH, f"query, key and value must have one dtype, got "
                       f"{sorted(str(t) for t in dtypes)}")
    dtype = dtypes.pop()
    if dtype.kind != "f":
        raise op_error(_FLASH, f"query, key and value must be float tensors, got {dtype}",
                       UnsupportedDTypeError)
    qs, ks, vs = q._data.shape, k._data.shape, v._data.shape
    if (len(qs) != 4 or len(ks) != 4 or len(vs) != 4 or qs[0] != ks[0] or qs[3] != ks[3]
            or ks[:3] != vs[:3] or ks[2] == 0 or qs[2] % ks[2]):
        raise op_error(_FLASH, f"query {list(qs)}, key {list(ks)} and value {list(vs)} do not "
                       "fit; expected [batch, seq, heads, head_dim] with matching batch and "
                       "query/key head_dim, key/value heads dividing the query's, and key "
                       "and value of one seq and heads")
    return q, k, v


def _window_keep(window_size, sq, sk, causal):
    """The [seq_q, seq_k] keep mask of sliding-window attention."""
    left, right = (window_size, window_size) if isinstance(window_size, int) \
        else tuple(window_size)
    rows, cols = np.arange(sq)[:, None], np.arange(sk)[None, :]
    keep = rows - cols <= left
    return keep & (cols <= rows if causal else cols - rows <= right)


def _startend_keep(startend_row_indices, causal, sizes):
    """The [batch, heads of the indices, seq_q, seq_k] keep mask of the row ranges."""
    b, sq, heads, sk, kv_heads = sizes
    ind = as_tensor(startend_row_indices, _FLASH)
    shape = list(ind._data.shape)
    if ind._data.dtype != np.int32:
        raise op_error(_FLASH, f"startend_row_indices must be int32, got "
                       f"{ind._data.dtype}", AssertedTypeError)
    if len(shape) != 4 or shape[0] != b or shape[2] != sk or shape[1] not in (1, kv_heads,
                                                                             heads):
        raise op_error(_FLASH, f"startend_row_indices must be [batch {b}, 1 or {kv_heads} or "
                       f"{heads} heads, seq_k {sk}, n], got {shape}", AssertedValueError)
    counts = (1, 2) if causal else (2, 4)
    if shape[3] not in counts:
        raise op_error(_FLASH, f"startend_row_indices' last dim must be {counts[0]} or "
                       f"{counts[1]} when causal is {bool(causal)}, got {shape[3]}")
    s = np.asarray(ind.numpy(), np.int64)[:, :, None, :, :]  # [b, h, 1, seq_k, n]
    rows = np.arange(sq)[:, None]
    if causal:
        masked = rows >= s[..., 0] if shape[3] == 1 else (rows >= s[..., 0]) & (rows < s[..., 1])
        masked = masked | (rows < np.arange(sk))
    elif shape[3] == 2:
        masked = (rows >= s[..., 0]) | (rows < s[..., 1])
    else:
        masked = ((rows >= s[..., 0]) & (rows < s[..., 1])) | ((rows >= s[..., 2])
                                                               & (rows < s[..., 3]))
    return ~masked


def _block_keep(block_mask, mask_heads, b, sq, sk, d):
    """block_mask's 128 x 128 blocks as a [batch, heads, seq_q, seq_k] keep mask."""
    blocks = as_tensor(block_mask, _FLASH)
    shape = list(blocks._data.shape)
    if blocks._data.dtype != np.int32:
        raise op_error(_FLASH, f"block_mask must be int32, got {blocks._data.dtype}",
                       AssertedTypeError)
    want = [b, mask_heads, -(-sq // _BLOCK), -(-sk // _BLOCK)]
    if shape != want or d != _BLOCK:
        raise op_error(_FLASH, f"block_mask must be {want} (blocks of {_BLOCK}) with "
                       f"head_dim {_BLOCK}, got {shape} and head_dim {d}", AssertedValueError)
    keep = np.asarray(blocks.numpy()) != 0
    keep = np.repeat(np.repeat(keep, _BLOCK, axis=2), _BLOCK, axis=3)
    return keep[:, :, :sq, :sk]


def _seed_offset(fixed_seed_offset, draws):
    """[seed, offset] of the dropout draws: fixed_seed_offset's, a new seed from the global
    generator when dropout draws, else [0, 0]."""
    if fixed_seed_offset is not None:
        pair = np.asarray(as_tensor(fixed_seed_offset, _FLASH).numpy()).ravel()
        if pair.size != 2 or pair.dtype.kind not in "iu":
            raise op_error(_FLASH, f"fixed_seed_offset must be an integer [seed, offset] "
                           f"pair, got {pair.dtype} of {pair.size} values")
        return [int(pair[0]), int(pair[1])]
    return [int(rng().integers(0, 2 ** 63 - 1)), 0] if draws else [0, 0]


def _seeded_dropout(weights, p, seed_offset):
    """weights with each one dropped with probability p (kept ones scaled by 1 / (1 - p)),
    drawn from a generator seeded with [seed, offset]."""
    draw = np.random.default_rng([abs(v) for v in seed_offset])
    keep = draw.random(weights._data.shape, dtype=np.float32) >= p
    scale = keep.astype(weights._data.dtype) * (0.0 if p == 1.0 else 1.0 / (1.0 - p))
    return apply(MaskScale(const(scale, weights)._data), weights)


def _softmax_lse(scores, seen):
    """log(sum(exp(scores))) per query, float32 [batch, heads, seq_q]; +inf where a query
    keeps no key."""
    if not scores._data.shape[-1]:
        return const(np.full(scores._data.shape[:-1], np.inf), scores, np.float32)
    lse = logsumexp(scores, axis=-1)
    if seen is not None:
        lse = where(const(seen[..., 0], lse, bool), lse, constant(np.inf, lse))
    return lse if lse._data.dtype == np.float32 else cast(lse, np.float32)
