"""One LSTM or GRU layer over a whole sequence as one op: input projection, biases and
recurrence.

`nn.LSTM` and `nn.GRU` (and `RNN` of their cells) without `sequence_length` run each layer
and direction through `lstm_layer` / `gru_layer`. Composed of separate ops, a layer costs
a transposed copy of the input to time-major, the projection, a pass adding the biases, a
pass scaling the gates for the recurrence, and a transposed copy of the outputs back, each
repeated in backward. As one op, the projection is one product in the input's own layout
with the gate scaling folded into the (small) weights and the biases added once (on a GPU
the biases and scaling are one kernel after the product: kernels/cuda/gate_inputs.py), the
recurrence reads the gates and writes the outputs through time-indexed views
(ops/rnn/arrays.py), and backward makes the gate gradients once, in the input's layout, for
the weight and input gradients, each one 2-D product.

With create_graph=True the gradients are written with Tensor ops instead (the projection,
then the generic reverse walk of ops/rnn/sequence.py's LSTMSequence / GRUSequence), so double
backward works. tests/ops/rnn/test_layer_op.py checks the ops against the composed layers,
which stay the reference.
"""

import numpy as np

from dygraph.autograd.function import Op, apply
from dygraph.backend.workspace import workspace
from dygraph.kernels.cuda import gate_inputs as cuda_gates
from dygraph.ops.rnn.arrays import (
    GRUArrays,
    LSTMArrays,
    gru_gate_scale,
    lstm_gate_scale,
    time_view,
)
from dygraph.ops.rnn.sequence import GRUSequence, LSTMSequence

__all__ = ["LSTMLayer", "GRULayer", "lstm_layer", "gru_layer"]


def _project(xp, x, w):
    """x [B, T, I] (or [T, B, I]) times w^T [I, G] as [B*T, G] rows in x's layout, in a
    workspace scratch array (given back once the recurrence has read it)."""
    rows = x.reshape(-1, x.shape[2])
    return xp.matmul(rows, w.T, out=workspace.take(xp, (len(rows), w.shape[0]), x.dtype))


def _gates_kernel(xp, x):
    """Whether the input gates' biases and scale run as one GPU kernel
    (kernels/cuda/gate_inputs.py): CuPy float32/float64 data, where scaling by a power of
    two after the product gives the formula's bits (float16 reaches its subnormals, where
    it may not, far sooner)."""
    return xp is not np and x.dtype in (np.float32, np.float64)


def _input_grad(xp, rows, w, shape):
    """rows [N, G] @ w [G, I] as an array of `shape` from the workspace."""
    out = workspace.output(xp, shape, rows.dtype)
    xp.matmul(rows, w, out=out.reshape(len(rows), w.shape[1]))
    return out


def _graph_grads(m, seq, time_major, x, w_ih, input_biases, states0, w_hh, extras, g_out,
                 g_states):
    """create_graph gradients of a layer op as Tensor ops: x's projection (plus the input
    biases), then the generic reverse walk of the sequence op `seq` over it. Returns (dx,
    dw_ih, the gate gradients' rows [T*B, G], seq's other gradients: the initial states',
    weight_hh's, then the extras')."""
    xs = x if time_major else m.swapaxes(x, 0, 1)
    gates = m.matmul(xs, m.swapaxes(w_ih, 0, 1))
    for b in input_biases:
        gates = gates + b
    saved = seq._run(m, (gates, *states0, w_hh, *extras))[2]
    zero = m.zeros_like(states0[0])
    states = tuple(zero if g is None else g for g in g_states)
    g_seq = None
    if g_out is not None:
        g_seq = g_out if time_major else m.swapaxes(g_out, 0, 1)
    d_gates, d_hidden = [None] * len(saved), [None] * len(saved)
    states = seq._walk_back(m, g_seq, states, None, w_hh, extras, saved, d_gates, d_hidden)
    d_gates_all, *rest = seq._input_grads(m, d_gates, d_hidden, saved, states, extras)
    rows = m.reshape(d_gates_all, (-1, m.data(d_gates_all).shape[-1]))
    dxs = m.matmul(d_gates_all, w_ih)
    dx = dxs if time_major else m.swapaxes(dxs, 0, 1)
    d_w_ih = m.matmul(m.swapaxes(rows, 0, 1), m.reshape(xs, (-1, m.data(xs).shape[-1])))
    return dx, d_w_ih, rows, rest


class LSTMLayer(Op):
    """Inputs (x, h0, c0, weight_ih, weight_hh, biases...); outputs (out, h, c).

    x is [B, T, I] ([T, B, I] when time-major), out has x's layout with H features, the
    biases are bias_ih and bias_hh where the cell has them.
    """

    attrs = ("reverse", "time_major")

    save_inputs = True
    save_output = True

    def __init__(self, reverse, time_major):
        self.reverse, self.time_major = reverse, time_major

    def forward(self, xp, x, h0, c0, w_ih, w_hh, *biases):
        size = w_hh.shape[1]
        scale = lstm_gate_scale(xp, size, x.dtype)
        lead = x.shape[:2]
        if biases and _gates_kernel(xp, x):  # biases and scale in one kernel, same bits
            gates = cuda_gates.gate_inputs(_project(xp, x, w_ih), biases[0],
                                           biases[1] if len(biases) > 1 else None, scale,
                                           4 * size)
        else:
            gates = _project(xp, x, w_ih * scale[:, None])
            if biases:
                gates += sum(biases[1:], biases[0]) * scale
        out = workspace.output(xp, lead + (size,), x.dtype)
        self.bulk = LSTMArrays(xp, time_view(gates.reshape(lead + (-1,)), self.time_major),
                               w_hh, self.reverse)
        states = self.bulk.forward(h0, c0, time_view(out, self.time_major))
        workspace.give(gates)
        return (out,) + states

    def backward(self, m, g_out, g_h, g_c):
        if m.tensor_mode:
            return self._graph_backward(m, g_out, g_h, g_c)
        xp, tm = m.xp, self.time_major
        x, h0, _, w_ih, _ = (self.x(i, m) for i in range(5))
        out = self.y(m, 0)
        width, size = w_ih.shape[0], out.shape[2]
        d_pre = workspace.take(xp, x.shape[:2] + (width,), x.dtype)
        g_seq = None if g_out is None else time_view(g_out, tm)
        h_prev = workspace.take(xp, out.shape, out.dtype)
        dh, dc = self.bulk.backward(g_seq, g_h, g_c, time_view(d_pre, tm),
                                    (time_view(out, tm), h0, time_view(h_prev, tm)))
        rows = d_pre.reshape(-1, width)
        dx = None if self.edges[0] is None else _input_grad(xp, rows, w_ih, x.shape)
        grads = (dx, dh, dc, xp.matmul(rows.T, x.reshape(-1, x.shape[2])),
                 xp.matmul(rows.T, h_prev.reshape(-1, size)))
        n_bias = len(self.inputs) - 5
        if n_bias:
            d_b = rows.sum(axis=0)
            # One array per bias: the engine may take a gradient over as a leaf's .grad.
            grads += (d_b,) + tuple(d_b.copy() for _ in range(n_bias - 1))
        workspace.give(d_pre)
        workspace.give(h_prev)
        return grads

    def _graph_backward(self, m, g_out, g_h, g_c):
        """The gradients as Tensor ops: the projection, then LSTMSequence's reverse walk."""
        x, h0, c0, w_ih, w_hh, *biases = (self.x(i, m) for i in range(len(self.inputs)))
        dx, d_w_ih, rows, (dh, dc, d_w_hh) = _graph_grads(
            m, LSTMSequence(self.reverse, False), self.time_major, x, w_ih, biases,
            (h0, c0), w_hh, (), g_out, (g_h, g_c))
        return (dx, dh, dc, d_w_ih, d_w_hh) + tuple(m.sum(rows, axis=0) for _ in biases)


class GRULayer(Op):
    """Inputs (x, h0, weight_ih, weight_hh, bias_ih, bias_hh), the biases where the cell
    has them (`has_bias` = (ih, hh)); outputs (out, h). x is [B, T, I] ([T, B, I] when
    time-major), out has x's layout with H features."""

    attrs = ("has_bias", "reverse", "time_major")

    save_inputs = True
    save_output = True

    def __init__(self, reverse, time_major, has_bias):
        self.reverse, self.time_major, self.has_bias = reverse, time_major, has_bias

    def _biases(self, arrays):
        it = iter(arrays)
        return tuple(next(it) if present else None for present in self.has_bias)

    def forward(self, xp, x, h0, w_ih, w_hh, *biases):
        b_ih, b_hh = self._biases(biases)
        size, width = w_hh.shape[1], w_ih.shape[0]
        scale = gru_gate_scale(xp, size, x.dtype)
        lead = x.shape[:2]
        if (b_ih is not None or b_hh is not None) and _gates_kernel(xp, x):
            # The GPU: biases and scale in one kernel, the same bits (the r and z parts of
            # the hidden bias add like input bias).
            b0 = xp.zeros(width, x.dtype) if b_ih is None else b_ih
            gates = cuda_gates.gate_inputs(_project(xp, x, w_ih), b0, b_hh, scale, 2 * size)
        else:
            gates = _project(xp, x, w_ih * scale[:, None])
            if b_ih is not None or b_hh is not None:
                bias = xp.zeros(width, x.dtype) if b_ih is None else b_ih.copy()
                if b_hh is not None:  # the r and z parts of the hidden bias add like input bias
                    bias[:2 * size] += b_hh[:2 * size]
                gates += bias * scale
        out = workspace.output(xp, lead + (size,), x.dtype)
        self.bulk = GRUArrays(xp, time_view(gates.reshape(lead + (-1,)), self.time_major),
                              w_hh, None if b_hh is None else b_hh[2 * size:], self.reverse)
        h = self.bulk.forward(h0, time_view(out, self.time_major))
        workspace.give(gates)
        return out, h

    def backward(self, m, g_out, g_h):
        if m.tensor_mode:
            return self._graph_backward(m, g_out, g_h)
        xp, tm = m.xp, self.time_major
        x, h0, w_ih = self.x(0, m), self.x(1, m), self.x(2, m)
        out = self.y(m, 0)
        size, features = out.shape[2], x.shape[2]
        h_prev = workspace.take(xp, out.shape, out.dtype)
        d_hid = workspace.take(xp, x.shape[:2] + (3 * size,), x.dtype)
        d_n = workspace.take(xp, out.shape, out.dtype)
        dh = self.bulk.backward(None if g_out is None else time_view(g_out, tm), g_h,
                                (time_view(out, tm), h0, time_view(h_prev, tm)),
                                time_view(d_hid, tm), time_view(d_n, tm))
        # The input gates' gradient is (dr, dz) of d_hid and d_n: each product runs on the
        # two parts instead of a concatenated copy.
        hid, n_rows = d_hid.reshape(-1, 3 * size), d_n.reshape(-1, size)
        rz = hid[:, :2 * size]
        x2 = x.reshape(-1, features)
        dx = None
        if self.edges[0] is not None:
            dx = _input_grad(xp, rz, w_ih[:2 * size], x.shape)
            dx += xp.matmul(n_rows, w_ih[2 * size:]).reshape(x.shape)
        d_w_ih = xp.concatenate([xp.matmul(rz.T, x2), xp.matmul(n_rows.T, x2)])
        grads = [dx, dh, d_w_ih, xp.matmul(hid.T, h_prev.reshape(-1, size))]
        if self.has_bias[0]:
            grads.append(xp.concatenate([rz.sum(axis=0), n_rows.sum(axis=0)]))
        if self.has_bias[1]:
            grads.append(hid.sum(axis=0))
        for scratch in (h_prev, d_hid, d_n):
            workspace.give(scratch)
        return tuple(grads)

    def _graph_backward(self, m, g_out, g_h):
        """The gradients as Tensor ops: the projection, then GRUSequence's reverse walk."""
        x, h0, w_ih, w_hh, *biases = (self.x(i, m) for i in range(len(self.inputs)))
        b_ih, b_hh = self._biases(biases)
        dx, d_w_ih, rows, (dh, d_w_hh, *d_b_hh) = _graph_grads(
            m, GRUSequence(self.reverse, False), self.time_major, x, w_ih,
            [] if b_ih is None else [b_ih], (h0,), w_hh, () if b_hh is None else (b_hh,),
            g_out, (g_h,))
        grads = [dx, dh, d_w_ih, d_w_hh]
        if b_ih is not None:
            grads.append(m.sum(rows, axis=0))
        return tuple(grads + d_b_hh)


def gru_layer(cell, inputs, h0, time_major=False, reverse=False):
    """Run GRUCell `cell` over `inputs` [B, T, I] ([T, B, I] if time_major) from h0 as one
    op; returns (outputs in the input's layout, h).

    Example:
        >>> import dygraph
        >>> from dygraph.nn import GRUCell
        >>> cell = GRUCell(2, 3)
        >>> out, h = gru_layer(cell, dygraph.randn([4, 5, 2]), dygraph.zeros([4, 3]))
        >>> out.shape, h.shape
        ([4, 5, 3], [4, 3])
    """
    has_bias = (cell.bias_ih is not None, cell.bias_hh is not None)
    biases = [b for b in (cell.bias_ih, cell.bias_hh) if b is not None]
    return apply(GRULayer(reverse, time_major, has_bias), inputs, h0, cell.weight_ih,
                 cell.weight_hh, *biases)


def lstm_layer(cell, inputs, h0, c0, time_major=False, reverse=False):
    """Run LSTMCell `cell` over `inputs` [B, T, I] ([T, B, I] if time_major) from (h0, c0)
    as one op; returns (outputs in the input's layout, (h, c)).

    Example:
        >>> import dygraph
        >>> from dygraph.nn import LSTMCell
        >>> cell = LSTMCell(2, 3)
        >>> h0, c0 = cell.get_initial_states(dygraph.zeros([4, 2]))
        >>> out, (h, c) = lstm_layer(cell, dygraph.randn([4, 5, 2]), h0, c0)
        >>> out.shape, h.shape
        ([4, 5, 3], [4, 3])
    """
    biases = [b for b in (cell.bias_ih, cell.bias_hh) if b is not None]
    out, h, c = apply(LSTMLayer(reverse, time_major), inputs, h0, c0, cell.weight_ih,
                      cell.weight_hh, *biases)
    return out, (h, c)
