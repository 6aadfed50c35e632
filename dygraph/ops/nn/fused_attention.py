"""Scaled dot-product attention as one op, for eager float16 work on a GPU: cuDNN's fused
kernels (FlashAttention-2, dygraph/backend/cudnn/attention.py), where the composition of
ops/nn/attention.py writes the [batch, heads, seq_q, seq_k] scores and probabilities to
memory and makes a dozen launches each way.

scaled_dot_product_attention takes this op for float16 query, key and value on a GPU with
cuDNN, without attn_mask and without dropout while training, in eager mode; so does
nn.MultiHeadAttention, also without need_weights or a cache, where its projections come
out float16 (a float16 layer, or float16 auto_cast). A program being recorded (static
graph, to_static) records the composition, which every other mode (saved programs, ONNX)
knows. Where cuDNN declines a shape (head
dims that are not a multiple of 8, or above 128), the op computes the same formula on
arrays, in float32 like cuDNN. The backward is cuDNN's from the forward's per-row
log-sum-exp; with create_graph the gradient is written with Tensor ops (the probabilities
recomputed), so it is differentiated again.
On the CPU the op runs the array formula too (in the input's precision: tests compare it
with the composition in float64).

Numbers: the fused kernels compute scores, softmax and products in float32 and round the
output to float16 once; the composition rounds the scores, the probabilities and the output
to float16, so the two differ by float16 roundings (tests/standin/ and tests/gpu/ compare
both with a float64 reference).

Example:
    >>> import numpy as np
    >>> q = np.ones((1, 2, 1, 8), np.float16)
    >>> v = np.arange(16, dtype=np.float16).reshape(1, 2, 1, 8)
    >>> out, lse = attention_arrays(np, q, q, v, 0.5, True)
    >>> out[0, :, 0, 0].tolist()  # the first query sees key 0 only, the second both
    [0.0, 4.0]
"""

import numpy as np

from dygraph.autograd.function import Op, apply
from dygraph.autograd.grad_mode import state
from dygraph.autograd.interpreters import RECORD
from dygraph.backend import cudnn

__all__ = ["FusedAttention", "fused_attention", "takes", "half_on_gpu", "attention_arrays"]


def takes(q, k, v, attn_mask, dropout_p, training):
    """Whether scaled_dot_product_attention of these Tensors runs as one FusedAttention op
    (the module docstring says when).

    Example:
        >>> import dygraph
        >>> x = dygraph.ones([1, 2, 1, 8])
        >>> takes(x, x, x, None, 0.0, True)  # float32 data, on the CPU
        False
    """
    return (q._data.ndim == 4 and attn_mask is None and not (dropout_p and training)
            and half_on_gpu(q, k, v))


def half_on_gpu(*tensors):
    """Whether these Tensors are float16 on a GPU, in eager mode (no program being
    recorded), with cuDNN on: the condition of the fused op besides the call's options.

    Example:
        >>> import dygraph
        >>> half_on_gpu(dygraph.ones([2], dtype='float16'))  # on the CPU
        False
    """
    return (all(type(t._data) is not np.ndarray and t._data.dtype == np.float16
                for t in tensors)
            and not any(level == RECORD for level, _ in state.interpreters)
            and cudnn.enabled())


def fused_attention(q, k, v, scale, causal):
    """softmax(q k^T * scale) v per head of [batch, seq, heads, dim] Tensors as one op
    (key and value heads dividing the query's); `causal` hides the keys after each query.

    Example:
        >>> import dygraph
        >>> x = dygraph.ones([1, 2, 1, 8])
        >>> fused_attention(x, x, x, 0.5, False).shape
        [1, 2, 1, 8]
    """
    return apply(FusedAttention(scale, causal), q, k, v)


class FusedAttention(Op):
    """Inputs q, k, v ([batch, seq, heads, dim]); output [batch, seq_q, heads, dim_v]. Kept
    from the forward for the backward: each query row's log-sum-exp of its scaled scores
    (float32 [batch, heads, seq_q, 1])."""

    attrs = ("scale", "causal")
    saveable = False  # eager only: a recorded program holds the composition instead

    save_inputs = True
    save_output = True

    def __init__(self, scale, causal):
        self.scale, self.causal = scale, causal

    def forward(self, xp, q, k, v):
        fused = None if xp is np else cudnn.attention(xp, q, k, v, self.scale, self.causal)
        if fused is None:
            fused = attention_arrays(xp, q, k, v, self.scale, self.causal)
        out, self.lse = fused
        return out

    def backward(self, m, g):
        q, k, v = (self.x(i, m) for i in range(3))
        if m.tensor_mode:
            return _gradients(m, q, k, v, g, self.scale, self.causal, None)
        if m.xp is not np:
            grads = cudnn.attention_grads(m.xp, q, k, v, self.y(m, 0), g, self.lse,
                                          self.scale, self.causal)
            if grads is not None:
                return grads
        return _gradients(m, q, k, v, g, self.scale, self.causal, self.lse)


def _heads_first(m, x, group=1):
    """[batch, seq, heads, dim] as (batch, heads * group, seq, dim), half precision in
    float32: each head repeated for the `group` query heads it serves."""
    if m.data(x).dtype.itemsize < 4:
        x = m.astype(x, "float32")
    x = m.swapaxes(x, 1, 2)
    if group == 1:
        return x
    b, h, s, d = m.data(x).shape
    return m.reshape(m.broadcast_to(m.reshape(x, (b, h, 1, s, d)), (b, h, group, s, d)),
                     (b, h * group, s, d))


def _scores(m, qh, kh, scale, causal):
    """The scaled scores (batch, heads, seq_q, seq_k), -inf after each query if causal."""
    s = m.matmul(qh, m.swapaxes(kh, 2, 3)) * scale
    if not causal:
        return s
    seq_q, seq_k = m.data(s).shape[2:]
    keep = np.tri(seq_q, seq_k, dtype=bool)
    if m.tensor_mode:
        from dygraph.ops.device_constants import const

        return m.where(const(keep, s, bool), s, const(-np.inf, s))
    return m.where(m.xp.asarray(keep), s, m.data(s).dtype.type(-np.inf))


def attention_arrays(xp, q, k, v, scale, causal):
    """The op's forward on arrays of any device, half precision in float32: (out in q's
    dtype, C-ordered, the log-sum-exp of each query row (batch, heads, seq_q, 1), float32 or
    float64).

    Example: see the module's text.
    """
    from dygraph.autograd.backward_math import array_math

    m = array_math(xp)
    group = q.shape[2] // k.shape[2]
    s = _scores(m, _heads_first(m, q), _heads_first(m, k, group), scale, causal)
    top = s.max(axis=3, keepdims=True)
    e = xp.exp(s - top)
    total = e.sum(axis=3, keepdims=True)
    out = xp.matmul(e / total, _heads_first(m, v, group))
    return (xp.ascontiguousarray(out.swapaxes(1, 2)).astype(q.dtype, copy=False),
            top + xp.log(total))


def _gradients(m, q, k, v, g, scale, causal, lse):
    """(dq, dk, dv) of the attention, in the inputs' dtypes, from the probabilities
    exp(s - lse) (arrays) or a softmax of the scores recomputed (Tensors, lse None)."""
    group = m.data(q).shape[2] // m.data(k).shape[2]
    qh, kh, vh = _heads_first(m, q), _heads_first(m, k, group), _heads_first(m, v, group)
    s = _scores(m, qh, kh, scale, causal)
    if lse is None:
        from dygraph.ops.activation.softmax import softmax

        p = softmax(s, axis=-1)
    else:
        p = m.exp(s - lse)
    gh = _heads_first(m, g)
    dp = m.matmul(gh, m.swapaxes(vh, 2, 3))
    ds = p * (dp - m.sum(dp * p, axis=3, keepdims=True)) * scale
    dq = m.matmul(ds, kh)
    dk = _group_sum(m, m.matmul(m.swapaxes(ds, 2, 3), qh), group)
    dv = _group_sum(m, m.matmul(m.swapaxes(p, 2, 3), gh), group)
    return tuple(m.astype(m.swapaxes(d, 1, 2), m.data(x).dtype)
                 for d, x in ((dq, q), (dk, k), (dv, v)))


def _group_sum(m, d, group):
    """(batch, heads * group, seq, dim) summed over each group: the kv heads' gradients."""
    if group == 1:
        return d
    b, h, s, e = m.data(d).shape
    return m.sum(m.reshape(d, (b, h // group, group, s, e)), axis=2)
