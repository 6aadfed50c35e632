"""MultiHeadAttention and the Transformer layers against NumPy references, masks and
decoding caches, and float64 gradient checks of small instances."""

import numpy as np
import pytest

import dygraph
from dygraph import nn
from tests.nn.test_rnn import layer_gradcheck

RNG = np.random.default_rng(0)


def _t(a, grad=False):
    return dygraph.to_tensor(np.asarray(a), stop_gradient=not grad)


def _f32(a):
    return _t(np.asarray(a, np.float32))


def _linear(layer, x):
    return x @ layer.weight.numpy().astype(np.float64) + layer.bias.numpy()


def _softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _additive(mask):
    if mask is None:
        return 0.0
    mask = np.asarray(mask)
    return mask if mask.dtype.kind == "f" else (mask.astype(np.float64) - 1.0) * 1e9


def np_mha(mha, q, k, v, mask=None):
    """Reference attention; returns (output, weights)."""
    h, d = mha.num_heads, mha.head_dim

    def heads(x):
        return x.reshape(x.shape[0], x.shape[1], h, d).transpose(0, 2, 1, 3)

    qh, kh, vh = (heads(_linear(p, x)) for p, x in
                  ((mha.q_proj, q), (mha.k_proj, k), (mha.v_proj, v)))
    w = _softmax(qh @ kh.transpose(0, 1, 3, 2) / np.sqrt(d) + _additive(mask))
    out = (w @ vh).transpose(0, 2, 1, 3).reshape(q.shape[0], q.shape[1], h * d)
    return _linear(mha.out_proj, out), w


def _norm(layer, x):
    mu = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * layer.weight.numpy() + layer.bias.numpy()


def _block(layer, x, norm, fn):
    if layer.normalize_before:
        return x + fn(_norm(norm, x))
    return _norm(norm, x + fn(x))


def _ffn(layer, x):
    return _linear(layer.linear2, np.maximum(_linear(layer.linear1, x), 0))


def np_encoder_layer(layer, x, mask=None):
    x = _block(layer, x, layer.norm1, lambda y: np_mha(layer.self_attn, y, y, y, mask)[0])
    return _block(layer, x, layer.norm2, lambda y: _ffn(layer, y))


def np_decoder_layer(layer, x, memory, tgt_mask=None, memory_mask=None):
    x = _block(layer, x, layer.norm1, lambda y: np_mha(layer.self_attn, y, y, y, tgt_mask)[0])
    x = _block(layer, x, layer.norm2,
               lambda y: np_mha(layer.cross_attn, y, memory, memory, memory_mask)[0])
    return _block(layer, x, layer.norm3, lambda y: _ffn(layer, y))


def _causal(n):
    return np.triu(np.full((n, n), -np.inf), 1)


def test_mha_matches_numpy_with_kdim_vdim_and_weights():
    mha = nn.MultiHeadAttention(8, 2, kdim=5, vdim=3, need_weights=True)
    q, k, v = RNG.normal(size=(2, 4, 8)), RNG.normal(size=(2, 6, 5)), RNG.normal(size=(2, 6, 3))
    out, w = mha(_f32(q), _f32(k), _f32(v))
    want_out, want_w = np_mha(mha, q, k, v)
    np.testing.assert_allclose(out.numpy(), want_out, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(w.numpy(), want_w, rtol=1e-4, atol=1e-6)
    assert w.shape == [2, 2, 4, 6]
    assert [n for n, _ in mha.named_parameters()][:2] == ["q_proj.weight", "q_proj.bias"]


def test_mha_bool_int_and_float_masks():
    mha = nn.MultiHeadAttention(4, 2)
    x = RNG.normal(size=(2, 3, 4))
    keep = np.array([[True, True, False]] * 3)
    out_bool = mha(_f32(x), attn_mask=_t(keep))
    out_int = mha(_f32(x), attn_mask=_t(keep.astype(np.int64)))
    out_float = mha(_f32(x), attn_mask=_f32(np.where(keep, 0.0, -1e9)))
    np.testing.assert_allclose(out_bool.numpy(), np_mha(mha, x, x, x, keep)[0], rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(out_int.numpy(), out_bool.numpy())
    np.testing.assert_allclose(out_float.numpy(), out_bool.numpy(), rtol=1e-6)
    # Hiding the last key is the same as leaving it out.
    short = mha(_f32(x), _f32(x[:, :2]), _f32(x[:, :2]))
    np.testing.assert_allclose(out_bool.numpy(), short.numpy(), rtol=1e-5, atol=1e-6)


def test_mha_caches_match_full_attention():
    mha = nn.MultiHeadAttention(4, 2)
    x = RNG.normal(size=(2, 3, 4))
    full = mha(_f32(x), attn_mask=_f32(_causal(3))).numpy()
    cache = mha.gen_cache(_f32(x))
    assert cache.k.shape == [2, 2, 0, 2]
    for t in range(3):
        out, cache = mha(_f32(x[:, t:t + 1]), cache=cache)
        np.testing.assert_allclose(out.numpy()[:, 0], full[:, t], rtol=1e-5, atol=1e-6)
    assert cache.k.shape == [2, 2, 3, 2]
    memory = RNG.normal(size=(2, 5, 4))
    static = mha.gen_cache(_f32(memory), _f32(memory), type=mha.StaticCache)
    out, same = mha(_f32(x), cache=static)
    assert same is static
    np.testing.assert_allclose(out.numpy(), mha(_f32(x), _f32(memory), _f32(memory)).numpy(),
                               rtol=1e-6)


def test_mha_argument_errors():
    with pytest.raises(ValueError, match="multiple of num_heads"):
        nn.MultiHeadAttention(6, 4)
    with pytest.raises(ValueError, match=r"embed_dim=4"):
        nn.MultiHeadAttention(4, 2)(_f32(np.zeros((2, 3, 5))))


def test_mha_gradients_float64():
    mha = nn.MultiHeadAttention(4, 2).to(dtype="float64")
    q = _t(RNG.normal(size=(2, 3, 4)), grad=True)
    kv = _t(RNG.normal(size=(2, 2, 4)), grad=True)
    mask = _t(np.array([[True, False], [True, True], [False, True]]))
    assert layer_gradcheck(mha, [q, kv], lambda q, kv: mha(q, kv, kv, attn_mask=mask))


@pytest.mark.parametrize("normalize_before", [False, True])
def test_encoder_layer_matches_numpy(normalize_before):
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0,
                                       normalize_before=normalize_before)
    x = RNG.normal(size=(2, 5, 8))
    mask = RNG.uniform(size=(5, 5)) > 0.3
    np.fill_diagonal(mask, True)
    got = layer(_f32(x), src_mask=_t(mask))
    np.testing.assert_allclose(got.numpy(), np_encoder_layer(layer, x, mask), rtol=1e-4,
                               atol=1e-4)


def test_encoder_stacks_fresh_copies_and_final_norm():
    first = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation="relu")
    enc = nn.TransformerEncoder(first, 2, norm=nn.LayerNorm(8))
    assert enc.layers[0] is first
    assert enc.layers[1].linear1.weight is not first.linear1.weight
    assert not np.allclose(enc.layers[1].linear1.weight.numpy(), first.linear1.weight.numpy())
    x = RNG.normal(size=(2, 3, 8))
    want = _norm(enc.norm, np_encoder_layer(enc.layers[1], np_encoder_layer(first, x)))
    np.testing.assert_allclose(enc(_f32(x)).numpy(), want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("normalize_before", [False, True])
def test_decoder_layer_matches_numpy(normalize_before):
    layer = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0,
                                       normalize_before=normalize_before)
    tgt, memory = RNG.normal(size=(2, 4, 8)), RNG.normal(size=(2, 6, 8))
    memory_mask = np.array([True] * 5 + [False])
    got = layer(_f32(tgt), _f32(memory), tgt_mask=_f32(_causal(4)),
                memory_mask=_t(memory_mask))
    want = np_decoder_layer(layer, tgt, memory, _causal(4), memory_mask)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-4)


def test_decoder_incremental_decoding_matches_causal_decoding():
    dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 2)
    tgt, memory = RNG.normal(size=(2, 4, 8)), RNG.normal(size=(2, 5, 8))
    full = dec(_f32(tgt), _f32(memory), tgt_mask=_f32(_causal(4))).numpy()
    cache = dec.gen_cache(_f32(memory))
    for t in range(4):
        out, cache = dec(_f32(tgt[:, t:t + 1]), _f32(memory), cache=cache)
        np.testing.assert_allclose(out.numpy()[:, 0], full[:, t], rtol=1e-4, atol=1e-5)
    incremental, static = dec.gen_cache(_f32(memory), do_zip=True)
    assert len(incremental) == 2 and static[0].k.shape == [2, 2, 5, 4]


def test_transformer_matches_numpy_and_causal_mask():
    model = nn.Transformer(8, 2, 1, 1, 16, dropout=0.0)
    mask = model.generate_square_subsequent_mask(3)
    np.testing.assert_array_equal(mask.numpy(), _causal(3))
    src, tgt = RNG.normal(size=(2, 4, 8)), RNG.normal(size=(2, 3, 8))
    got = model(_f32(src), _f32(tgt), tgt_mask=mask)
    memory = _norm(model.encoder.norm, np_encoder_layer(model.encoder.layers[0], src))
    want = _norm(model.decoder.norm, np_decoder_layer(model.decoder.layers[0], tgt, memory,
                                                      _causal(3)))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-4)


def test_transformer_dropout_only_while_training():
    model = nn.Transformer(8, 2, 1, 1, 16, dropout=0.5)
    src, tgt = _f32(RNG.normal(size=(2, 4, 8))), _f32(RNG.normal(size=(2, 3, 8)))
    model.eval()
    np.testing.assert_array_equal(model(src, tgt).numpy(), model(src, tgt).numpy())
    model.train()
    assert not np.allclose(model(src, tgt).numpy(), model(src, tgt).numpy())


def test_transformer_argument_errors():
    with pytest.raises(ValueError, match="activation"):
        nn.TransformerEncoderLayer(8, 2, 16, activation="nonesuch")
    with pytest.raises(ValueError, match="1 or 2 attributes"):
        nn.TransformerEncoderLayer(8, 2, 16, weight_attr=[None, None, None])


def test_encoder_layer_gradients_float64():
    layer = nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, activation="gelu",
                                       normalize_before=True).to(dtype="float64")
    x = _t(RNG.normal(size=(2, 3, 4)), grad=True)
    assert layer_gradcheck(layer, [x])
