"""Transformer layers (Paddle 2.x): TransformerEncoderLayer/Encoder,
TransformerDecoderLayer/Decoder and Transformer, built on MultiHeadAttention
(attention.py, exported here too), Linear, Dropout and LayerNorm.

Each sublayer is residual: x + dropout(f(x)), with LayerNorm after it (post-norm) or,
with normalize_before=True, applied to f's input (pre-norm). attn_dropout and
act_dropout default to `dropout`. Masks: see attention.py.
"""

import numpy as np

from dygraph.framework.dtype import get_default_dtype
from dygraph.nn import functional as F
from dygraph.nn.layer.attention import MultiHeadAttention, attr_list, convert_attention_mask
from dygraph.nn.layer.common import Dropout, Linear
from dygraph.nn.layer.container import LayerList
from dygraph.nn.layer.layers import Layer
from dygraph.nn.layer.norm import LayerNorm
from dygraph.ops.creation import constructors as creation
from dygraph.ops.manipulation import diag as manipulation_diag

__all__ = ["MultiHeadAttention", "TransformerEncoderLayer", "TransformerEncoder",
           "TransformerDecoderLayer", "TransformerDecoder", "Transformer"]


def _config(d_model, nhead, dim_feedforward, dropout, activation, attn_dropout, act_dropout,
            normalize_before, weight_attr, bias_attr, layer_norm_eps):
    """A layer's constructor arguments, by name."""
    return dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward,
                dropout=dropout, activation=activation, attn_dropout=attn_dropout,
                act_dropout=act_dropout, normalize_before=normalize_before,
                weight_attr=weight_attr, bias_attr=bias_attr, layer_norm_eps=layer_norm_eps)


class _Block(Layer):
    """What encoder and decoder layers share: the feed-forward sublayer, the settings
    (kept in `_config` so that an Encoder/Decoder can build fresh copies) and the
    residual wrapper."""

    def _setup(self, config, n_attrs):
        self._config = config
        d_model, nhead = config["d_model"], config["nhead"]
        if d_model <= 0 or nhead <= 0 or config["dim_feedforward"] <= 0:
            raise ValueError(f"{type(self).__name__}: d_model, nhead and dim_feedforward "
                             f"must be positive, got {d_model}, {nhead}, "
                             f"{config['dim_feedforward']}")
        dropout = config["dropout"]
        attn_dropout = dropout if config["attn_dropout"] is None else config["attn_dropout"]
        act_dropout = dropout if config["act_dropout"] is None else config["act_dropout"]
        self.normalize_before = config["normalize_before"]
        weights = attr_list(config["weight_attr"], n_attrs, type(self).__name__)
        biases = attr_list(config["bias_attr"], n_attrs, type(self).__name__)
        activation = config["activation"]
        if not hasattr(F, activation):
            raise ValueError(f"{type(self).__name__}: unknown activation {activation!r}")
        self.activation = getattr(F, activation)
        self.linear1 = Linear(d_model, config["dim_feedforward"], weights[-1], biases[-1])
        self.dropout = Dropout(act_dropout)
        self.linear2 = Linear(config["dim_feedforward"], d_model, weights[-1], biases[-1])
        return attn_dropout, weights, biases

    def _residual(self, x, norm, dropout, fn):
        y = fn(norm(x) if self.normalize_before else x)
        out = x + dropout(y)
        return out if self.normalize_before else norm(out)

    @staticmethod
    def _attend(attn, x, kv, mask, caches, i):
        """attn(x, kv, kv, mask), updating caches[i] when there is a cache."""
        if caches[i] is None:
            return attn(x, kv, kv, mask)
        out, caches[i] = attn(x, kv, kv, mask, caches[i])
        return out

    def _feed_forward(self, x):
        return self.linear2(self.dropout(self.activation(self.linear1(x))))


class TransformerEncoderLayer(_Block):
    """Self attention then a feed-forward network, each residual with LayerNorm.

    Example:
        >>> import dygraph
        >>> layer = TransformerEncoderLayer(8, 2, 16, dropout=0.0)
        >>> layer(dygraph.randn([2, 5, 8])).shape
        [2, 5, 8]
    """

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu",
                 attn_dropout=None, act_dropout=None, normalize_before=False, weight_attr=None,
                 bias_attr=None, layer_norm_eps=1e-5):
        super().__init__()
        attn_dropout, weights, biases = self._setup(_config(
            d_model, nhead, dim_feedforward, dropout, activation, attn_dropout, act_dropout,
            normalize_before, weight_attr, bias_attr, layer_norm_eps), 2)
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout,
                                            weight_attr=weights[0], bias_attr=biases[0])
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)

    def forward(self, src, src_mask=None, cache=None):
        mask = convert_attention_mask(src_mask, src.dtype)
        caches = [cache]
        src = self._residual(src, self.norm1, self.dropout1,
                             lambda x: self._attend(self.self_attn, x, x, mask, caches, 0))
        src = self._residual(src, self.norm2, self.dropout2, self._feed_forward)
        return src if cache is None else (src, caches[0])

    def gen_cache(self, src):
        """An empty incremental Cache for the self attention."""
        return self.self_attn.gen_cache(src, type=MultiHeadAttention.Cache)


class TransformerEncoder(Layer):
    """`num_layers` encoder layers: the given one first, then fresh copies of it (same
    settings, new parameters); `norm` (a LayerNorm) is applied to the output.

    Example:
        >>> import dygraph
        >>> enc = TransformerEncoder(TransformerEncoderLayer(8, 2, 16), 2)
        >>> enc(dygraph.randn([2, 5, 8])).shape
        [2, 5, 8]
    """

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = LayerList([encoder_layer if i == 0 else
                                 type(encoder_layer)(**encoder_layer._config)
                                 for i in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def forward(self, src, src_mask=None, cache=None):
        mask = convert_attention_mask(src_mask, src.dtype)
        out, new_caches = src, []
        for i, layer in enumerate(self.layers):
            if cache is None:
                out = layer(out, src_mask=mask)
            else:
                out, layer_cache = layer(out, src_mask=mask, cache=cache[i])
                new_caches.append(layer_cache)
        if self.norm is not None:
            out = self.norm(out)
        return out if cache is None else (out, new_caches)

    def gen_cache(self, src):
        """One incremental Cache per layer."""
        return [layer.gen_cache(src) for layer in self.layers]


class TransformerDecoderLayer(_Block):
    """Self attention, cross attention over `memory`, then a feed-forward network, each
    residual with LayerNorm.

    Example:
        >>> import dygraph
        >>> layer = TransformerDecoderLayer(8, 2, 16)
        >>> layer(dygraph.randn([2, 4, 8]), dygraph.randn([2, 6, 8])).shape
        [2, 4, 8]
    """

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu",
                 attn_dropout=None, act_dropout=None, normalize_before=False, weight_attr=None,
                 bias_attr=None, layer_norm_eps=1e-5):
        super().__init__()
        attn_dropout, weights, biases = self._setup(_config(
            d_model, nhead, dim_feedforward, dropout, activation, attn_dropout, act_dropout,
            normalize_before, weight_attr, bias_attr, layer_norm_eps), 3)
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout,
                                            weight_attr=weights[0], bias_attr=biases[0])
        self.cross_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout,
                                             weight_attr=weights[1], bias_attr=biases[1])
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.norm3 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        tgt_mask = convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = convert_attention_mask(memory_mask, memory.dtype)
        caches = [None, None] if cache is None else list(cache)
        tgt = self._residual(tgt, self.norm1, self.dropout1, lambda x: self._attend(
            self.self_attn, x, x, tgt_mask, caches, 0))
        tgt = self._residual(tgt, self.norm2, self.dropout2, lambda x: self._attend(
            self.cross_attn, x, memory, memory_mask, caches, 1))
        tgt = self._residual(tgt, self.norm3, self.dropout3, self._feed_forward)
        return tgt if cache is None else (tgt, tuple(caches))

    def gen_cache(self, memory):
        """(incremental Cache for the self attention, StaticCache of the memory's keys
        and values for the cross attention)."""
        return (self.self_attn.gen_cache(memory, type=MultiHeadAttention.Cache),
                self.cross_attn.gen_cache(memory, memory, type=MultiHeadAttention.StaticCache))


class TransformerDecoder(Layer):
    """`num_layers` decoder layers (the given one, then fresh copies) and an optional
    final `norm`.

    Example:
        >>> import dygraph
        >>> dec = TransformerDecoder(TransformerDecoderLayer(8, 2, 16), 2)
        >>> dec(dygraph.randn([2, 4, 8]), dygraph.randn([2, 6, 8])).shape
        [2, 4, 8]
    """

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = LayerList([decoder_layer if i == 0 else
                                 type(decoder_layer)(**decoder_layer._config)
                                 for i in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        tgt_mask = convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = convert_attention_mask(memory_mask, memory.dtype)
        out, new_caches = tgt, []
        for i, layer in enumerate(self.layers):
            if cache is None:
                out = layer(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask)
            else:
                out, layer_cache = layer(out, memory, tgt_mask=tgt_mask,
                                         memory_mask=memory_mask, cache=cache[i])
                new_caches.append(layer_cache)
        if self.norm is not None:
            out = self.norm(out)
        return out if cache is None else (out, new_caches)

    def gen_cache(self, memory, do_zip=False):
        """Per layer (incremental Cache, StaticCache); with do_zip, the two lists."""
        cache = [layer.gen_cache(memory) for layer in self.layers]
        return list(zip(*cache)) if do_zip else cache


def _split_attrs(attr):
    """Transformer's weight_attr/bias_attr: one for all, or lists of 1, 2 or 3 entries
    (Paddle's rule for sharing them between encoder and decoder layers)."""
    if not isinstance(attr, (list, tuple)):
        return attr, attr
    if len(attr) == 1:
        return [attr[0]] * 2, [attr[0]] * 3
    if len(attr) == 2:
        return list(attr), [attr[0], attr[0], attr[-1]]
    if len(attr) == 3:
        return [attr[0], attr[-1]], list(attr)
    raise ValueError(f"Transformer: expected 1, 2 or 3 attributes, got {len(attr)}")


class Transformer(Layer):
    """Encoder-decoder Transformer ("Attention Is All You Need"): src [B, S, d_model]
    and tgt [B, T, d_model] give [B, T, d_model]. The encoder and decoder end in a
    LayerNorm; custom_encoder / custom_decoder replace them.

    Example:
        >>> import dygraph
        >>> model = Transformer(8, 2, 1, 1, 16)
        >>> mask = model.generate_square_subsequent_mask(4)
        >>> model(dygraph.randn([2, 6, 8]), dygraph.randn([2, 4, 8]), tgt_mask=mask).shape
        [2, 4, 8]
    """

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation="relu", attn_dropout=None,
                 act_dropout=None, normalize_before=False, weight_attr=None, bias_attr=None,
                 custom_encoder=None, custom_decoder=None):
        super().__init__()
        enc_w, dec_w = _split_attrs(weight_attr)
        enc_b, dec_b = _split_attrs(bias_attr)
        shared = dict(dropout=dropout, activation=activation, attn_dropout=attn_dropout,
                      act_dropout=act_dropout, normalize_before=normalize_before)
        self.encoder = custom_encoder if custom_encoder is not None else TransformerEncoder(
            TransformerEncoderLayer(d_model, nhead, dim_feedforward, weight_attr=enc_w,
                                    bias_attr=enc_b, **shared),
            num_encoder_layers, LayerNorm(d_model))
        self.decoder = custom_decoder if custom_decoder is not None else TransformerDecoder(
            TransformerDecoderLayer(d_model, nhead, dim_feedforward, weight_attr=dec_w,
                                    bias_attr=dec_b, **shared),
            num_decoder_layers, LayerNorm(d_model))
        self.d_model, self.nhead = d_model, nhead

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None):
        memory = self.encoder(src, src_mask=convert_attention_mask(src_mask, src.dtype))
        return self.decoder(tgt, memory, tgt_mask=convert_attention_mask(tgt_mask, tgt.dtype),
                            memory_mask=convert_attention_mask(memory_mask, memory.dtype))

    def generate_square_subsequent_mask(self, length):
        """The causal mask [length, length]: 0 where key <= query, -inf after.

        Example:
            >>> Transformer(4, 1, 1, 1, 4).generate_square_subsequent_mask(2).numpy()
            array([[  0., -inf],
                   [  0.,   0.]], dtype=float32)
        """
        full = creation.full([length, length], -np.inf, get_default_dtype())
        return manipulation_diag.triu(full, 1)
