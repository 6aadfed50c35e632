"""F.flashmask_attention against a NumPy reference built from the dense mask that Paddle's
docstring defines for startend_row_indices (each key column masks ranges of query rows), in
float32 and float64; its gradients against finite differences, its softmax_lse, dropout
seeds and the errors of Paddle's checks.

Paddle 3.3 cannot run it on a CPU (flash_attn has no CPU kernel: RuntimeError; with a mask,
reading FLAGS_cudnn_deterministic fails: ValueError), so the numbers here come from the
reference, not from Paddle."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(0)


def _dense_keep(ind, sq, causal):
    """[b, h, sq, sk] keep mask from startend_row_indices [b, h, sk, n], column by column
    as Paddle's docstring describes it."""
    b, h, sk, n = ind.shape
    masked = np.zeros((b, h, sq, sk), bool)
    has_end = (causal and n == 2) or (not causal and n == 4)
    for bi in range(b):
        for hi in range(h):
            for j in range(sk):
                s = ind[bi, hi, j]
                if has_end:
                    masked[bi, hi, s[0]:s[1], j] = True
                else:
                    masked[bi, hi, s[0]:, j] = True
                if causal:
                    masked[bi, hi, :j, j] = True
                elif has_end:
                    masked[bi, hi, s[2]:s[3], j] = True
                else:
                    masked[bi, hi, :s[1], j] = True
    return ~masked


def _reference(q, k, v, keep=None, scale=None):
    """Attention in float64 with a [b, 1 or h, sq, sk] keep mask; a query that keeps no key
    gives zeros. Returns (out [b, sq, h, dv], lse [b, h, sq])."""
    q, k, v = (a.astype(np.float64).transpose(0, 2, 1, 3) for a in (q, k, v))
    group = q.shape[1] // k.shape[1]
    k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
    scale = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ k.transpose(0, 1, 3, 2) * scale
    if keep is None:
        keep = np.ones(s.shape, bool)
    keep = np.broadcast_to(keep, s.shape)
    s = np.where(keep, s, -np.inf)
    m = np.max(np.where(keep, s, -1e300), axis=-1, keepdims=True)
    e = np.where(keep, np.exp(s - m), 0.0)
    total = e.sum(-1, keepdims=True)
    w = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    with np.errstate(divide="ignore"):
        lse = np.where(total[..., 0] > 0, np.log(total[..., 0]) + m[..., 0], np.inf)
    return (w @ v).transpose(0, 2, 1, 3), lse


def _qkv(b=2, sq=5, sk=5, heads=2, kv_heads=2, d=4, dtype=np.float64):
    q = RNG.standard_normal((b, sq, heads, d)).astype(dtype)
    k = RNG.standard_normal((b, sk, kv_heads, d)).astype(dtype)
    v = RNG.standard_normal((b, sk, kv_heads, d)).astype(dtype)
    return q, k, v


def _indices(b, h, sk, n, sq, causal):
    """Random row ranges: for causal ones the lower triangle starts at or below the column
    (j + 1 ... sq), so each column keeps at least its diagonal row."""
    j = np.arange(sk)[None, None, :]
    start = RNG.integers(np.minimum(j + 1, sq), sq + 1, (b, h, sk)) if causal \
        else RNG.integers(0, sq + 1, (b, h, sk))
    cols = [start]
    if n >= 2:
        cols.append(RNG.integers(start, sq + 1) if causal or n == 4
                    else RNG.integers(0, sq + 1, (b, h, sk)))
    if n == 4:
        up = RNG.integers(0, sq + 1, (b, h, sk))
        cols += [up, RNG.integers(up, sq + 1)]
    return np.stack(cols, -1).astype(np.int32)


def _t(a, grad=False):
    return dygraph.to_tensor(a, stop_gradient=not grad)


@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-12), (np.float32, 2e-6)])
@pytest.mark.parametrize("causal,n", [(True, 1), (True, 2), (False, 2), (False, 4)])
def test_startend_row_indices_mask_as_paddle_documents(causal, n, dtype, tol):
    q, k, v = _qkv(dtype=dtype)
    ind = _indices(2, 2, 5, n, 5, causal)
    out, lse = F.flashmask_attention(_t(q), _t(k), _t(v), _t(ind), causal=causal,
                                     return_softmax_lse=True)
    want, want_lse = _reference(q, k, v, _dense_keep(ind, 5, causal))
    assert out.dtype == dygraph.to_tensor(q).dtype and out.shape == list(q.shape)
    np.testing.assert_allclose(out.numpy(), want, rtol=tol, atol=tol)
    assert lse.dtype == dygraph.float32 and lse.shape == [2, 2, 5]
    np.testing.assert_allclose(lse.numpy(), want_lse, rtol=2e-6, atol=1e-6)


def test_the_docstring_masks():
    """Causal document mask and the (non-causal) document mask of Paddle's docstring."""
    q, k, v = _qkv(b=1, sq=10, sk=10, heads=1, kv_heads=1)
    doc = np.array([4, 4, 4, 4, 7, 7, 7, 10, 10, 10], np.int32).reshape(1, 1, 10, 1)
    blocks = np.repeat([0, 1, 2], [4, 3, 3])
    same_doc = blocks[:, None] == blocks[None, :]
    tril = np.tril(np.ones((10, 10), bool))
    got = F.flashmask_attention(_t(q), _t(k), _t(v), _t(doc), causal=True).numpy()
    np.testing.assert_allclose(got, _reference(q, k, v, same_doc & tril)[0], atol=1e-12)
    ute = np.array([0, 0, 0, 0, 4, 4, 4, 7, 7, 7], np.int32).reshape(1, 1, 10, 1)
    both = np.concatenate([doc, ute], -1)
    got = F.flashmask_attention(_t(q), _t(k), _t(v), _t(both)).numpy()
    np.testing.assert_allclose(got, _reference(q, k, v, same_doc)[0], atol=1e-12)


def test_fully_masked_queries_give_zeros_and_finite_gradients():
    q, k, v = _qkv(b=1, sq=4, sk=4, heads=1, kv_heads=1)
    ind = np.array([2, 2, 2, 2], np.int32).reshape(1, 1, 4, 1)  # rows 2, 3 see nothing
    qt, kt, vt = _t(q, True), _t(k, True), _t(v, True)
    out, lse = F.flashmask_attention(qt, kt, vt, _t(ind), causal=True,
                                     return_softmax_lse=True)
    assert np.all(out.numpy()[0, 2:] == 0) and np.all(np.isinf(lse.numpy()[0, 0, 2:]))
    np.testing.assert_allclose(out.numpy(), _reference(q, k, v, _dense_keep(ind, 4, True))[0],
                               atol=1e-12)
    out.sum().backward()
    for t in (qt, kt, vt):
        assert np.isfinite(t.grad.numpy()).all()
    assert np.all(qt.grad.numpy()[0, 2:] == 0)


def test_no_mask_and_plain_causal_match_scaled_dot_product_attention():
    q, k, v = _qkv(sq=3, sk=6)
    for causal in (False, True):
        got = F.flashmask_attention(_t(q), _t(k), _t(v), causal=causal).numpy()
        want = F.scaled_dot_product_attention(_t(q), _t(k), _t(v), is_causal=causal).numpy()
        np.testing.assert_allclose(got, want, atol=1e-12)


@pytest.mark.parametrize("mask_heads", [1, 2, 4])
def test_grouped_query_heads_and_mask_heads(mask_heads):
    q, k, v = _qkv(heads=4, kv_heads=2)
    ind = _indices(2, mask_heads, 5, 2, 5, False)
    keep = _dense_keep(ind, 5, False)
    if mask_heads == 2:  # one mask per key/value head, shared by its query heads
        keep = np.repeat(keep, 2, axis=1)
    got = F.flashmask_attention(_t(q), _t(k), _t(v), _t(ind)).numpy()
    np.testing.assert_allclose(got, _reference(q, k, v, keep)[0], atol=1e-12)


def test_softmax_scale_and_value_head_dim():
    q, k, _ = _qkv()
    v = RNG.standard_normal((2, 5, 2, 3))
    got = F.flashmask_attention(_t(q), _t(k), _t(v), softmax_scale=0.3).numpy()
    np.testing.assert_allclose(got, _reference(q, k, v, scale=0.3)[0], atol=1e-12)


@pytest.mark.parametrize("causal", [True, False])
def test_window_size_is_the_startend_mask_paddle_builds(causal):
    q, k, v = _qkv(b=1, sq=6, sk=6)
    j = np.arange(6)
    lts = np.clip(j + 2 + 1, 0, 6)  # window (2, 1)
    ind = lts[:, None] if causal else np.stack([lts, np.clip(j - 1, 0, 6)], -1)
    ind = ind[None, None].astype(np.int32)
    got = F.flashmask_attention(_t(q), _t(k), _t(v), causal=causal, window_size=(2, 1))
    want = F.flashmask_attention(_t(q), _t(k), _t(v), _t(ind), causal=causal)
    np.testing.assert_allclose(got.numpy(), want.numpy(), atol=1e-12)
    square = F.flashmask_attention(_t(q), _t(k), _t(v), causal=causal, window_size=2)
    ref = _reference(q, k, v, _window_ref(6, 2, 2, causal))[0]
    np.testing.assert_allclose(square.numpy(), ref, atol=1e-12)


def _window_ref(s, left, right, causal):
    i, j = np.arange(s)[:, None], np.arange(s)[None, :]
    return (i - j <= left) & ((j <= i) if causal else (j - i <= right))


def test_block_mask_keeps_the_blocks_marked_one():
    q, k, v = _qkv(b=1, sq=130, sk=130, heads=1, kv_heads=1, d=128)
    ind = np.full((1, 1, 130, 2), [130, 0], np.int32)  # nothing masked by the rows
    blocks = np.array([[[[1, 0], [1, 1]]]], np.int32)
    got = F.flashmask_attention(_t(q), _t(k), _t(v), _t(ind), block_mask=_t(blocks))
    keep = np.ones((130, 130), bool)
    keep[:128, 128:] = False
    np.testing.assert_allclose(got.numpy(), _reference(q, k, v, keep)[0], atol=1e-10)


def test_gradients_match_finite_differences():
    q, k, v = _qkv(b=1, sq=4, sk=4, heads=2, kv_heads=1, d=3)
    ind = np.array([[[[3, 0], [4, 1], [2, 0], [4, 3]]]], np.int32)

    def f(a, b, c):
        return F.flashmask_attention(a, b, c, _t(ind))

    tensors = [_t(q, True), _t(k, True), _t(v, True)]
    assert gradcheck(f, tensors, eps=1e-6, atol=1e-5, rtol=1e-3)
    assert gradgradcheck(f, tensors, eps=1e-6, atol=1e-5, rtol=1e-3)


def test_dropout_draws_from_the_seed_offset():
    q, k, v = (_t(a) for a in _qkv())
    fixed = _t(np.array([7, 3], np.int64))
    a, pair = F.flashmask_attention(q, k, v, dropout=0.5, fixed_seed_offset=fixed,
                                    return_seed_offset=True)
    b = F.flashmask_attention(q, k, v, dropout=0.5, fixed_seed_offset=fixed)
    assert pair.numpy().tolist() == [7, 3] and pair.dtype == dygraph.int64
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    plain = F.flashmask_attention(q, k, v).numpy()
    assert not np.allclose(a.numpy(), plain)
    np.testing.assert_array_equal(
        F.flashmask_attention(q, k, v, dropout=0.5, training=False).numpy(), plain)
    assert np.all(F.flashmask_attention(q, k, v, dropout=1.0).numpy() == 0)
    _, drawn = F.flashmask_attention(q, k, v, dropout=0.1, return_seed_offset=True)
    assert drawn.shape == [2] and drawn.dtype == dygraph.int64


def test_empty_batch_and_keys():
    q, k, v = _qkv(b=0)
    assert F.flashmask_attention(_t(q), _t(k), _t(v)).shape == [0, 5, 2, 4]
    q, k, v = _qkv(sk=0)
    out, lse = F.flashmask_attention(_t(q), _t(k), _t(v), return_softmax_lse=True)
    assert np.all(out.numpy() == 0) and out.shape == [2, 5, 2, 4]
    assert lse.shape == [2, 2, 5]


def _error(call):
    with pytest.raises(Exception) as caught:
        call()
    return caught.value


def test_errors_as_paddle_raises_them():
    q, k, v = (_t(a.astype(np.float32)) for a in _qkv())
    ind = _t(np.full((2, 2, 5, 1), 5, np.int32))
    # Paddle's recorded cases (value given as 2.0, a 'abc' query): ValueError
    assert isinstance(_error(lambda: F.flashmask_attention(q, k, 2.0)), ValueError)
    assert isinstance(_error(lambda: F.flashmask_attention("abc", k, v)), ValueError)
    two_d = _t(np.ones((3, 4), np.float32))
    assert isinstance(_error(lambda: F.flashmask_attention(two_d, two_d, two_d)), ValueError)
    ints = _t(np.ones((1, 2, 1, 2), np.int32))
    assert isinstance(_error(lambda: F.flashmask_attention(ints, ints, ints)), TypeError)
    # Paddle's assertions on startend_row_indices and block_mask
    assert isinstance(_error(lambda: F.flashmask_attention(q, k, v, ind.astype("int64"),
                                                           causal=True)), AssertionError)
    assert isinstance(_error(lambda: F.flashmask_attention(q, k, v, ind[0], causal=True)),
                      AssertionError)
    assert isinstance(_error(lambda: F.flashmask_attention(q, k, v, ind[:1], causal=True)),
                      AssertionError)
    assert isinstance(_error(lambda: F.flashmask_attention(q, k, v, ind, window_size=1)),
                      AssertionError)
    blocks = _t(np.ones((2, 2, 1, 1), np.int32))
    assert isinstance(_error(lambda: F.flashmask_attention(q, k, v, block_mask=blocks)),
                      AssertionError)
    assert isinstance(_error(lambda: F.flashmask_attention(q, k, v, ind, causal=True,
                                                           block_mask=blocks)),
                      AssertionError)  # head_dim 4, not 128
    # the last dim of startend_row_indices must fit causal: ValueError
    err = _error(lambda: F.flashmask_attention(q, k, v, ind, causal=False))
    assert isinstance(err, ValueError) and str(err).startswith("flashmask_attention:")
