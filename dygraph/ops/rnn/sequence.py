"""Whole-sequence recurrent ops: SimpleRNN, LSTM and GRU over all time steps as one op.

RNN runs the library cells through these instead of a Python loop of per-step ops: the
forward is one loop over time inside the op (one hidden-state product and a few ufuncs a
step), and the backward walks the steps in reverse, collecting the gate gradients, so each
weight gradient is ONE product over all steps ([T*B, G]^T @ [T*B, H]) instead of T small
ones summed by the engine. The input projection stays outside, as one matmul over the
sequence (rnn_cells.RNNCellBase.input_gates).

The step and its gradient are written once against the `m` namespace (backward_math): in
plain backward it is NumPy on the activations the forward saved; with create_graph=True
the activations are recomputed from the inputs with Tensor ops and the same reverse walk
records a graph, so double backward works as for any composed op.

`keep` ([T, B, 1], 1.0 while a sequence runs, 0.0 past its length) holds a finished
sequence's state and zeroes its outputs, as `sequence_length` asks.

Unmasked LSTM and GRU, in plain forward and backward, take the raw-array path of
ops/rnn/arrays.py instead (fewer NumPy calls per step).
"""

from dygraph.autograd.backward_math import array_math
from dygraph.autograd.function import Op, apply
from dygraph.ops.rnn.arrays import (
    GRUArrays,
    LSTMArrays,
    gru_gate_scale,
    lstm_gate_scale,
)
from dygraph.tensor.tensor import _new_tensor

__all__ = ["run_sequence"]


def _gate(a, k, size):
    return a[:, k * size:(k + 1) * size]


class _RecurrentSequence(Op):
    """Base: inputs (gates [T, B, G], initial states..., weight_hh [G, H], extras...).

    Subclasses give `n_states`, `cell(m, gates_t, states, w_t, extras)` -> (h, new_states,
    saved) with w_t = weight_hh^T, and `cell_grad(m, dstates, saved, w, extras)` ->
    (d_gates_t, d_hidden_t, d_states), where d_hidden_t is the gradient of the hidden
    product's output (the rows that multiply weight_hh) and d_states the gradients of the
    previous states.
    """

    attrs = ("masked", "reverse")

    save_inputs = True
    n_states = 1

    def __init__(self, reverse, masked):
        self.reverse, self.masked = reverse, masked

    def _order(self, steps):
        return range(steps - 1, -1, -1) if self.reverse else range(steps)

    def _unpack(self, inputs):
        ns = self.n_states
        gates, states, w = inputs[0], tuple(inputs[1:1 + ns]), inputs[1 + ns]
        rest = inputs[2 + ns:]
        keep = rest[-1] if self.masked else None
        extras = rest[:-1] if self.masked else rest
        return gates, states, w, extras, keep

    def _run(self, m, inputs):
        """The forward walk; returns (outputs per step, final states, saved per step)."""
        gates, states, w, extras, keep = self._unpack(inputs)
        steps = m.data(gates).shape[0]
        # The hidden product h @ W^T runs every step: a contiguous W^T makes it faster
        # (figures: docs/PERFORMANCE.md#rnn-kernels).
        w_t = m.swapaxes(w, 0, 1) if m.tensor_mode else m.ascontiguousarray(w.T)
        outs, saved = [None] * steps, [None] * steps
        for t in self._order(steps):
            h, new_states, saved[t] = self.cell(m, gates[t], states, w_t, extras)
            if keep is not None:
                k = keep[t]
                new_states = tuple(k * new + (1.0 - k) * old
                                   for new, old in zip(new_states, states))
                h = h * k
            states = new_states
            outs[t] = h
        return outs, states, saved

    def forward(self, xp, *arrays):
        m = array_math(xp)
        outs, states, self.saved = self._run(m, arrays)
        self.dtype = arrays[0].dtype
        return (xp.stack(outs),) + tuple(states)

    def backward(self, m, g_out, *g_states):
        inputs = tuple(self.x(i, m) for i in range(len(self.inputs)))
        gates, states0, w, extras, keep = self._unpack(inputs)
        saved = self._run(m, inputs)[2] if m.tensor_mode else self.saved
        steps = len(saved)
        zero = m.zeros_like(states0[0])
        dstates = tuple(zero if g is None else g for g in g_states)
        d_gates, d_hidden = [None] * steps, [None] * steps
        dstates = self._walk_back(m, g_out, dstates, keep, w, extras, saved, d_gates, d_hidden)
        return self._input_grads(m, d_gates, d_hidden, saved, dstates, extras)

    def _walk_back(self, m, g_out, dstates, keep, w, extras, saved, d_gates, d_hidden):
        """The reverse walk: fills d_gates/d_hidden, returns the initial states' grads."""
        for t in reversed(list(self._order(len(saved)))):
            k = keep[t] if keep is not None else None
            dh = dstates[0] if g_out is None else g_out[t] + dstates[0]
            carry = None
            if k is not None:
                carry = tuple(d * (1.0 - k) for d in dstates)
                dh = dh * k
                dstates = (dh,) + tuple(d * k for d in dstates[1:])
            else:
                dstates = (dh,) + dstates[1:]
            d_gates[t], d_hidden[t], dprev = self.cell_grad(m, dstates, saved[t], w, extras)
            if carry is not None:
                dprev = tuple(d + c for d, c in zip(dprev, carry))
            dstates = dprev
        return dstates

    def _input_grads(self, m, d_gates, d_hidden, saved, dstates, extras):
        d_gates_all = m.stack(d_gates)
        d_hidden_all = d_gates_all if d_hidden[0] is d_gates[0] else m.stack(d_hidden)
        size = m.data(d_hidden_all).shape[-1]
        h_prev = m.stack([s[0] for s in saved])
        hidden = m.data(h_prev).shape[-1]
        # One product over every step: dW = sum_t dHid_t^T h_prev_t.
        rows = m.reshape(d_hidden_all, (-1, size))
        d_w = m.matmul(m.swapaxes(rows, 0, 1), m.reshape(h_prev, (-1, hidden)))
        grads = [d_gates_all, *dstates, d_w]
        grads += [m.sum(rows, axis=0) for _ in extras]  # GRU's hidden bias
        if self.masked:
            grads.append(None)
        return tuple(grads)


class LSTMSequence(_RecurrentSequence):
    """Gates in Paddle's order i, f, g, o; both biases already in the input gates.

    Without a mask, plain forward and backward take the bulk array path
    (dygraph.ops.rnn.arrays.LSTMArrays); masks and create_graph use the generic formula below
    (tests/ops/rnn/test_sequence.py checks that both agree with the step-by-step cells).
    """

    n_states = 2
    save_output = True  # the array path's weight gradient reads the outputs

    def forward(self, xp, *arrays):
        if self.masked:
            self.bulk = None
            return super().forward(xp, *arrays)
        gates, h0, c0, w = arrays
        gate_in = gates * lstm_gate_scale(xp, w.shape[1], gates.dtype)
        self.bulk = LSTMArrays(xp, gate_in, w, self.reverse)
        out = xp.empty(gates.shape[:2] + (w.shape[1],), gates.dtype)
        return (out,) + self.bulk.forward(h0, c0, out)

    def backward(self, m, g_out, *g_states):
        if m.tensor_mode or self.bulk is None:
            return super().backward(m, g_out, *g_states)
        xp, out = m.xp, self.y(m, 0)
        d_pre = xp.empty(out.shape[:2] + (4 * out.shape[2],), out.dtype)
        h_prev = xp.empty_like(out)
        dh, dc = self.bulk.backward(g_out, *g_states, d_pre, (out, self.x(1, m), h_prev))
        d_w = xp.matmul(d_pre.reshape(-1, d_pre.shape[2]).T, h_prev.reshape(-1, out.shape[2]))
        return d_pre, dh, dc, d_w

    def cell(self, m, gates_t, states, w_t, extras):
        h_prev, c_prev = states
        size = m.data(h_prev).shape[-1]
        pre = gates_t + m.matmul(h_prev, w_t)
        s = m.sigmoid(pre)
        i, f, o = _gate(s, 0, size), _gate(s, 1, size), _gate(s, 3, size)
        g = m.tanh(_gate(pre, 2, size))
        c = f * c_prev + i * g
        tc = m.tanh(c)
        h = o * tc
        return h, (h, c), (h_prev, c_prev, i, f, g, o, tc)

    def cell_grad(self, m, dstates, saved, w, extras):
        dh, dc = dstates
        h_prev, c_prev, i, f, g, o, tc = saved
        dc = dc + dh * o * (1.0 - tc * tc)
        d_pre = m.concatenate([dc * g * i * (1.0 - i), dc * c_prev * f * (1.0 - f),
                               dc * i * (1.0 - g * g), dh * tc * o * (1.0 - o)], axis=1)
        return d_pre, d_pre, (m.matmul(d_pre, w), dc * f)


class GRUSequence(_RecurrentSequence):
    """Gates r, z, c; the reset gate applies after the hidden product (Paddle's GRU).
    Extras: the hidden bias [3H] when the cell has one. Without a mask, plain forward and
    backward take the bulk array path (dygraph.ops.rnn.arrays.GRUArrays)."""

    save_output = True  # the array path's weight gradient reads the outputs

    def forward(self, xp, *arrays):
        if self.masked:
            self.bulk = None
            return super().forward(xp, *arrays)
        gates, h0, w = arrays[:3]
        bias = arrays[3] if len(arrays) > 3 else None
        size = w.shape[1]
        scale = gru_gate_scale(xp, size, gates.dtype)
        gate_in = gates * scale
        if bias is not None:  # the r and z parts of the hidden bias add like input bias
            gate_in[..., :2 * size] += bias[:2 * size] * scale[:2 * size]
        self.bulk = GRUArrays(xp, gate_in, w, None if bias is None else bias[2 * size:],
                              self.reverse)
        out = xp.empty(gates.shape[:2] + (size,), gates.dtype)
        return out, self.bulk.forward(h0, out)

    def backward(self, m, g_out, *g_states):
        if m.tensor_mode or self.bulk is None:
            return super().backward(m, g_out, *g_states)
        xp, out = m.xp, self.y(m, 0)
        steps, batch, size = out.shape
        h_prev = xp.empty_like(out)
        d_hid = xp.empty((steps, batch, 3 * size), out.dtype)
        d_n = xp.empty_like(out)
        dh = self.bulk.backward(g_out, *g_states, (out, self.x(1, m), h_prev), d_hid, d_n)
        rows = d_hid.reshape(-1, 3 * size)
        grads = [xp.concatenate([d_hid[..., :2 * size], d_n], axis=2), dh,
                 xp.matmul(rows.T, h_prev.reshape(-1, size))]
        if len(self.inputs) > 3:
            grads.append(rows.sum(axis=0))
        return tuple(grads)

    def cell(self, m, gates_t, states, w_t, extras):
        (h_prev,) = states
        hg = m.matmul(h_prev, w_t)
        if extras:
            hg = hg + extras[0]
        size = m.data(h_prev).shape[-1]
        r = m.sigmoid(_gate(gates_t, 0, size) + _gate(hg, 0, size))
        z = m.sigmoid(_gate(gates_t, 1, size) + _gate(hg, 1, size))
        h_c = _gate(hg, 2, size)
        n = m.tanh(_gate(gates_t, 2, size) + r * h_c)
        h = (h_prev - n) * z + n
        return h, (h,), (h_prev, r, z, n, h_c)

    def cell_grad(self, m, dstates, saved, w, extras):
        (dh,) = dstates
        h_prev, r, z, n, h_c = saved
        dn = dh * (1.0 - z) * (1.0 - n * n)
        dr = dn * h_c * r * (1.0 - r)
        dz = dh * (h_prev - n) * z * (1.0 - z)
        d_hidden = m.concatenate([dr, dz, dn * r], axis=1)
        return (m.concatenate([dr, dz, dn], axis=1), d_hidden,
                (m.matmul(d_hidden, w) + dh * z,))


class SimpleRNNSequence(_RecurrentSequence):
    """h = act(gates + h_prev @ W^T), act tanh or relu; both biases in the input gates."""

    attrs = ("activation",)

    def __init__(self, reverse, masked, activation):
        super().__init__(reverse, masked)
        self.activation = activation

    def cell(self, m, gates_t, states, w_t, extras):
        (h_prev,) = states
        pre = gates_t + m.matmul(h_prev, w_t)
        if self.activation == "tanh":
            h = m.tanh(pre)
            slope = None
        else:
            # ReLU through its 0/1 slope, a constant: the second derivative is zero.
            slope = (m.data(pre) > 0).astype(m.data(pre).dtype)
            h = pre * slope
        return h, (h,), (h_prev, h, slope)

    def cell_grad(self, m, dstates, saved, w, extras):
        (dh,) = dstates
        _, h, slope = saved
        d_pre = dh * (1.0 - h * h) if slope is None else dh * slope
        return d_pre, d_pre, (m.matmul(d_pre, w),)


def run_sequence(cell, gates, states, keep=None, reverse=False):
    """Run a library cell over projected input `gates` [T, B, G] from `states`.

    Returns (outputs [T, B, H], final states in the cell's structure). `keep` is the
    [T, B, 1] running mask of `sequence_length`, or None.

    Example:
        >>> import dygraph
        >>> from dygraph.nn import LSTMCell
        >>> cell = LSTMCell(2, 3)
        >>> x = dygraph.randn([5, 4, 2])
        >>> out, (h, c) = run_sequence(cell, cell.input_gates(x),
        ...                            cell.get_initial_states(x, batch_dim_idx=1))
        >>> out.shape, h.shape
        ([5, 4, 3], [4, 3])
    """
    from dygraph.nn.layer.rnn_cells import GRUCell, LSTMCell

    masked = keep is not None
    tail = [keep] if masked else []
    if isinstance(cell, LSTMCell):
        h0, c0 = states
        out, h, c = apply(LSTMSequence(reverse, masked), gates, h0, c0, cell.weight_hh, *tail)
        return out, (h, c)
    if isinstance(cell, GRUCell):
        bias = [cell.bias_hh] if cell.bias_hh is not None else []
        out, h = apply(GRUSequence(reverse, masked), gates, states, cell.weight_hh,
                       *bias, *tail)
        return out, h
    out, h = apply(SimpleRNNSequence(reverse, masked, cell.activation), gates, states,
                   cell.weight_hh, *tail)
    return out, h


def keep_mask(running):
    """The float [T, B, 1] mask tensor for `run_sequence` from a bool array."""
    return _new_tensor(running, None, 0, True)
