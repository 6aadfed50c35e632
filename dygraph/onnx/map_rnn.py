"""ONNX mappings of the recurrent sequence ops (SimpleRNN, LSTM, GRU over all steps), of
the whole-layer LSTM and GRU ops, of the fused LSTM/GRU cell steps, and of the zero initial states
of a free batch.

DyGraph's sequence ops take the input projection already made (x @ W_ih^T + biases, one
matmul before the op), so the ONNX RNN/LSTM/GRU node gets those gates as its input with
a 0/1 matrix as W that reorders them from Paddle's gate order (LSTM i, f, g, o; GRU r, z,
c) to ONNX's (LSTM i, o, f, c; GRU z, r, h); R is weight_hh with its gate blocks reordered.
The layer ops (ops/rnn/layer_op.py) carry their own projection: their ONNX node gets the input
itself, W as weight_ih reordered and B from the biases. Time stays free: the
runtime loops over the steps.

Example:
    >>> from dygraph.ops.rnn.sequence import LSTMSequence
    >>> from dygraph.onnx.graph import MAPPINGS
    >>> LSTMSequence in MAPPINGS
    True
"""

import numpy as np

from dygraph.onnx.graph import maps
from dygraph.ops.rnn.fused_gates import BatchFull, GRUPointwise, LSTMPointwise
from dygraph.ops.rnn.layer_op import GRULayer, LSTMLayer
from dygraph.ops.rnn.sequence import GRUSequence, LSTMSequence, SimpleRNNSequence

__all__ = []

# Paddle's gate block feeding each ONNX gate block, in ONNX order.
_LSTM_ORDER = (0, 3, 1, 2)
_GRU_ORDER = (1, 0, 2)


def _rows(order, size):
    return np.concatenate([np.arange(k * size, (k + 1) * size) for k in order])


def _reordered(g, name, rows):
    """The rows of `name` in order `rows`: an array when it is an initializer, else a
    Gather node's output name."""
    value = g.value(name)
    if value is not None:
        return value[rows]
    return g.add("Gather", [name, g.ints(rows)], axis=0)


def _sequence(g, op, kind, order, ins, outs, extra=None, **attrs):
    if op.masked:
        raise NotImplementedError(f"paddle.onnx.export: {type(op).__name__} with "
                                  "sequence_length has no ONNX mapping")
    gates, n_states = ins[0], op.n_states
    states, w_hh = ins[1:1 + n_states], ins[1 + n_states]
    width = g.shape(w_hh)[0]
    hidden = width // len(order)
    rows = _rows(order, hidden)
    dtype = g.dtype(gates)
    w = g.const(np.eye(width, dtype=dtype)[rows][None])
    r = _reordered(g, w_hh, rows)
    r = g.const(r[None]) if isinstance(r, np.ndarray) else g.axes_op("Unsqueeze", r, [0])
    inputs = [gates, w, r, extra or "", ""]
    inputs += [g.axes_op("Unsqueeze", s, [0]) for s in states]
    names = [g.fresh(kind.lower()) for _ in range(1 + n_states)]
    g.add(kind, inputs, names, hidden_size=hidden,
          direction="reverse" if op.reverse else "forward", **attrs)
    g.axes_op("Squeeze", names[0], [1], [outs[0]])  # [T, 1, B, H] -> [T, B, H]
    for name, out in zip(names[1:], outs[1:]):
        g.axes_op("Squeeze", name, [0], [out])
    return outs


@maps(LSTMSequence)
def _lstm(g, op, ins, outs):
    return _sequence(g, op, "LSTM", _LSTM_ORDER, ins, outs)


def _batch_rows(g, name, rows):
    """The reordered rows of weight `name` with a leading direction axis of 1."""
    r = _reordered(g, name, rows)
    return g.const(r[None]) if isinstance(r, np.ndarray) else g.axes_op("Unsqueeze", r, [0])


def _layer_bias(g, parts, width, dtype):
    """ONNX's B [1, 2G] from the (input, hidden) bias parts, each reordered rows or None."""
    if all(p is None or isinstance(p, np.ndarray) for p in parts):
        arrays = [np.zeros(width, dtype) if p is None else p for p in parts]
        return g.const(np.concatenate(arrays)[None])
    names = [g.const(np.zeros(width, dtype)) if p is None else
             g.const(p) if isinstance(p, np.ndarray) else p for p in parts]
    return g.axes_op("Unsqueeze", g.add("Concat", names, axis=0), [0])


def _layer_node(g, op, kind, x, weights, bias, states, outs, **attrs):
    """One ONNX RNN-family node for a layer op: the input transposed to time-major first
    unless it is, the outputs back to the input's layout, the states squeezed."""
    if not op.time_major:
        x = g.add("Transpose", [x], perm=[1, 0, 2])
    states = [g.axes_op("Unsqueeze", s, [0]) for s in states]
    names = [g.fresh(kind.lower()) for _ in outs]
    g.add(kind, [x, *weights, bias, "", *states], names,
          direction="reverse" if op.reverse else "forward", **attrs)
    if op.time_major:
        g.axes_op("Squeeze", names[0], [1], [outs[0]])  # [T, 1, B, H] -> [T, B, H]
    else:
        g.add("Transpose", [g.axes_op("Squeeze", names[0], [1])], [outs[0]], perm=[1, 0, 2])
    for name, out in zip(names[1:], outs[1:]):
        g.axes_op("Squeeze", name, [0], [out])
    return outs


@maps(LSTMLayer)
def _lstm_layer(g, op, ins, outs):
    """One LSTM layer op as one ONNX LSTM node; B holds the sum of the two biases."""
    x, h0, c0, w_ih, w_hh, *biases = ins
    hidden = g.shape(w_hh)[1]
    rows = _rows(_LSTM_ORDER, hidden)
    bias = ""
    if biases:
        parts = [_reordered(g, b, rows) for b in biases]
        if len(parts) == 2 and all(isinstance(p, np.ndarray) for p in parts):
            parts = [parts[0] + parts[1]]
        bias = _layer_bias(g, parts + [None] * (2 - len(parts)), 4 * hidden, g.dtype(w_ih))
    weights = [_batch_rows(g, w_ih, rows), _batch_rows(g, w_hh, rows)]
    return _layer_node(g, op, "LSTM", x, weights, bias, (h0, c0), outs, hidden_size=hidden)


@maps(GRULayer)
def _gru_layer(g, op, ins, outs):
    """One GRU layer op as one ONNX GRU node with linear_before_reset=1 (Paddle's GRU
    applies the reset gate after the hidden product and its bias, as that mode does)."""
    x, h0, w_ih, w_hh, *biases = ins
    hidden = g.shape(w_hh)[1]
    rows = _rows(_GRU_ORDER, hidden)
    bias = ""
    if biases:
        it = iter(biases)
        parts = [_reordered(g, next(it), rows) if present else None
                 for present in op.has_bias]
        bias = _layer_bias(g, parts, 3 * hidden, g.dtype(w_ih))
    weights = [_batch_rows(g, w_ih, rows), _batch_rows(g, w_hh, rows)]
    return _layer_node(g, op, "GRU", x, weights, bias, (h0,), outs, hidden_size=hidden,
                       linear_before_reset=1)


@maps(GRUSequence)
def _gru(g, op, ins, outs):
    extra = None
    if len(ins) > 3 + op.masked:  # the hidden bias, applied before the reset gate
        hidden = g.shape(ins[3])[0] // 3
        recurrent = _reordered(g, ins[3], _rows(_GRU_ORDER, hidden))
        if isinstance(recurrent, np.ndarray):
            extra = g.const(np.concatenate([np.zeros_like(recurrent), recurrent])[None])
        else:
            zeros = g.const(np.zeros(3 * hidden, g.dtype(ins[0])))
            extra = g.axes_op("Unsqueeze", g.add("Concat", [zeros, recurrent], axis=0), [0])
    return _sequence(g, op, "GRU", _GRU_ORDER, ins, outs, extra, linear_before_reset=1)


@maps(SimpleRNNSequence)
def _simple(g, op, ins, outs):
    activation = "Tanh" if op.activation == "tanh" else "Relu"
    return _sequence(g, op, "RNN", (0,), ins, outs, activations=[activation])


def _split_gates(g, gates, n):
    """The n equal blocks of the last axis of `gates`."""
    size = g.shape(gates)[-1] // n
    return [g.add("Slice", [gates, g.ints([k * size]), g.ints([(k + 1) * size]), g.ints([-1])])
            for k in range(n)]


@maps(LSTMPointwise)
def _lstm_step(g, op, ins, outs):
    i, f, c, o = _split_gates(g, ins[0], 4)
    i, f, o = (g.add("Sigmoid", [v]) for v in (i, f, o))
    cell = g.add("Add", [g.add("Mul", [f, ins[1]]), g.add("Mul", [i, g.add("Tanh", [c])])],
                 [outs[1]])
    return g.add("Mul", [o, g.add("Tanh", [cell])], [outs[0]])


@maps(GRUPointwise)
def _gru_step(g, op, ins, outs):
    x_r, x_z, x_c = _split_gates(g, ins[0], 3)
    h_r, h_z, h_c = _split_gates(g, ins[1], 3)
    r = g.add("Sigmoid", [g.add("Add", [x_r, h_r])])
    z = g.add("Sigmoid", [g.add("Add", [x_z, h_z])])
    n = g.add("Tanh", [g.add("Add", [x_c, g.add("Mul", [r, h_c])])])
    return g.add("Add", [g.add("Mul", [g.add("Sub", [ins[2], n]), z]), n], outs)


@maps(BatchFull)
def _batch_full(g, op, ins, outs):
    batch = g.add("Slice", [g.add("Shape", ins), g.ints([op.batch_dim]),
                            g.ints([op.batch_dim + 1])])
    shape = g.add("Concat", [batch, g.ints(op.shape)], axis=0)
    value = g.helper.make_tensor("value", g.helper.np_dtype_to_tensor_dtype(np.dtype(op.dtype)),
                                 [1], [op.value])
    return g.add("ConstantOfShape", [shape], outs, value=value)
