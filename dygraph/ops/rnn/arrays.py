"""The unmasked LSTM and GRU recurrences on raw arrays: the fast path of ops/rnn/sequence.py
and of the one-op LSTM and GRU layers (ops/rnn/layer_op.py).

Plain forward and backward of an LSTM or GRU without `sequence_length` run here instead of
the generic per-step formula (which masks and create_graph still use). What makes them
fast is fewer NumPy calls per time step, each of which costs microseconds on a [32, 512]
block:

- The values of all steps live in bulk gate-major [T, gates, B, H] arrays, so a step
  writes into slices of them with `out=` and allocates nothing, and each gate of a step is
  one contiguous [B, H] block: an element-wise op on a column slice of a [B, G] row block
  costs several times more. The LSTM's hidden product is one [B, H] @ [H, 4H] product that BLAS
  adds into the step's rows of the input gates (backend/blas.gemm_loop, beta = 1), so no
  separate add reads it again; the GRU's runs per gate, one batched matmul call, as its c
  block is kept for backward. A step's gate gradients are written once into [B, G] rows,
  the layout of the input gates' gradient and of the one [B, G] @ [G, H] product for dh.
- One transcendental pass gives every gate of a step. The LSTM takes tanh over its whole
  gate block, the sigmoid gates' pre-activations halved once in the weights and the input
  gates: sigmoid(x) = (1 + tanh(x / 2)) / 2. NumPy's float32 tanh runs at twice the speed
  of its exp, so this beats 1 / (1 + exp(-x)), which also needs a divide. The GRU's r and
  z are one tanh the same way.
- Before the reverse walk, the activations' slopes (and the GRU's other per-step factors
  that do not depend on the incoming gradient) are computed for all steps at once; a step
  then multiplies the incoming gradients by them, writing each gate's gradient in place.
- With Numba (dygraph.kernels.numba.lstm_cell) an LSTM step's element-wise work between the
  tanh calls is one compiled call each way: forward 4 calls for 10, backward one call for
  nine plus the bulk slopes.
- The steps' products ([B, H] @ [H, G]) run on all of BLAS's threads: on a machine with
  cores to spare the other threads pay for their hand-offs (with another process busy on
  the cores, one thread can do better). The weight gradient, one product over all steps,
  runs after the walk.

Figures for these choices: docs/PERFORMANCE.md#rnn-kernels.

Both read their input gates and write their outputs and gate gradients through views
indexed by time ([T, B, ...] views of batch-first arrays work), so the fused layer ops
need no transposed copies; a reverse layer walks the time index backwards.
tests/ops/rnn/test_sequence.py checks both paths against the step-by-step cells.
"""

import numpy as np

from dygraph.backend import blas, compiled, device_constant
from dygraph.backend.workspace import workspace
from dygraph.kernels.cuda import recurrent as cuda_kernels
from dygraph.kernels.cuda import recurrent_sequences

__all__ = ["LSTMArrays", "GRUArrays", "lstm_gate_scale", "gru_gate_scale", "time_view",
           "previous_hidden"]


# tanh's argument per LSTM gate (i, f, g, o): x / 2 for the sigmoid gates, whose value is
# (1 + tanh(x / 2)) / 2, and x for the g gate.
_LSTM_SCALE = (0.5, 0.5, 1.0, 0.5)


def _blas_rows(a):
    """Whether BLAS can read each [B, n] time step of the [T, B, n] array `a` in place."""
    item = a.itemsize
    return (a.strides[2] == item and a.strides[1] >= a.shape[2] * item
            and a.strides[0] % item == 0 and a.strides[1] % item == 0)


def _fusable_steps(size, dtype, *arrays):
    """Whether a GPU LSTM's or GRU's steps run as one kernel a layer direction, their
    products inside (kernels/cuda/recurrent_sequences.py): at most FUSED_WIDTH units,
    float32 or float64, the [T, B, n] arrays (None skipped) with contiguous rows."""
    return (size <= recurrent_sequences.FUSED_WIDTH
            and np.dtype(dtype).name in ("float32", "float64")
            and all(a is None or a.strides[2] == a.itemsize for a in arrays))


def lstm_gate_scale(xp, size, dtype):
    """The [4H] factors that turn an LSTM's pre-activations into tanh's arguments.

    Example:
        >>> import numpy as np
        >>> lstm_gate_scale(np, 1, np.float32)
        array([0.5, 0.5, 1. , 0.5], dtype=float32)
    """
    return device_constant(xp, ("lstm_gate_scale", size, np.dtype(dtype).str),
                           lambda: np.repeat(np.asarray(_LSTM_SCALE, dtype), size))


def time_view(array, time_major):
    """A [T, B, ...] view of a [B, T, ...] array (the array itself when time-major).

    Example:
        >>> import numpy as np
        >>> time_view(np.zeros((2, 5, 3)), False).shape
        (5, 2, 3)
    """
    return array if time_major else array.swapaxes(0, 1)


def previous_hidden(out, h0, reverse, into):
    """Fill `into` [T, B, H] with the hidden state each step started from: h0, then the
    outputs `out` [T, B, H] shifted by one step in the direction of the walk.

    Example:
        >>> import numpy as np
        >>> into = np.empty((3, 1, 1)); out = np.arange(3.0).reshape(3, 1, 1)
        >>> previous_hidden(out, np.full((1, 1), 9.0), False, into); into.ravel()
        array([9., 0., 1.])
    """
    first, rest, source = (-1, slice(None, -1), out[1:]) if reverse else \
        (0, slice(1, None), out[:-1])
    into[first] = h0
    into[rest] = source


class _GateArrays:
    """What the LSTM and GRU walks share: the input gates seen gate-major per step
    ([T, gates, B, H] view of `gate_in` [T, B, gates * H]), and the time indices in the
    order of the walk."""

    def __init__(self, xp, gate_in, w, reverse, gates):
        self.xp, self.w, self.reverse = xp, w, reverse
        steps, batch, width = gate_in.shape
        self.size = width // gates
        self.rows = gate_in
        self.gate_in = gate_in.reshape(steps, batch, gates, self.size).transpose(0, 2, 1, 3)

    def _times(self):
        steps = len(self.act)
        return range(steps - 1, -1, -1) if self.reverse else range(steps)


class LSTMArrays(_GateArrays):
    """Gates i, f, g, o (Paddle's order). `gate_in` [T, B, 4H] (any strides, indexed by
    time) holds each step's input gates, both biases in, already multiplied by
    `lstm_gate_scale`; `w` is weight_hh [4H, H].

    The per-step values are gate-major in walk order: act[s] of shape [4, B, H] holds
    sigmoid(i), sigmoid(f), tanh(g), sigmoid(o) of the s-th processed step (each gate one
    contiguous [B, H] block: a column slice of a [B, 4H] row block costs 3-5x more per
    element-wise op), c[s + 1] its cell state and tc[s] tanh(c[s + 1]).
    """

    def __init__(self, xp, gate_in, w, reverse):
        super().__init__(xp, gate_in, w, reverse, 4)

    def forward(self, h0, c0, out):
        """Run the steps, writing h of each step into `out` [T, B, H] (indexed by time);
        returns the final (h, c). Overwrites the input gates."""
        xp, size, gate_in, rows = self.xp, self.size, self.gate_in, self.rows
        steps, _, batch, _ = gate_in.shape
        dtype = gate_in.dtype
        # Kept for backward; their memory returns to the workspace with this object.
        act = self.act = workspace.output(xp, (steps, 4, batch, size), dtype)
        c = self.c = workspace.output(xp, (steps + 1, batch, size), dtype)
        tc = self.tc = workspace.output(xp, (steps, batch, size), dtype)
        if xp is not np and _fusable_steps(size, dtype, rows, out):
            # The GPU, a small LSTM: every step with its product in one kernel, which also
            # copies c0 in and the final states out.
            w_s = recurrent_sequences.hidden_weights(self.w, per_gate=False)
            states = recurrent_sequences.lstm_sequence(rows, w_s, h0, c0, c, act, tc, out,
                                                       self.reverse)
            self.gate_in = self.rows = None
            return states
        # A contiguous, pre-scaled W^T: one [B, H] @ [H, 4H] product adds tanh's argument.
        w_s = xp.ascontiguousarray((self.w * lstm_gate_scale(xp, size, dtype)[:, None]).T)
        h = xp.ascontiguousarray(h0)
        c[0] = c0
        tmp = xp.empty_like(c0)
        # The compiled element-wise step (dygraph.kernels.numba.lstm_cell), when Numba is there.
        fused = compiled.kernels("lstm_cell", xp, act)
        direct = blas.available(xp, dtype) and _blas_rows(rows) and _blas_rows(out)
        if direct:  # BLAS adds each product into the step's rows of the input gates
            add_product = blas.gemm_loop(w_s, batch, dtype, accumulate=True)
            item = dtype.itemsize  # strides in bytes, leading dimensions in elements
            rows_at, rows_step, rows_ld = rows.ctypes.data, rows.strides[0], rows.strides[1] // item
            out_at, out_step, out_ld = out.ctypes.data, out.strides[0], out.strides[1] // item
            h_at, h_ld = h.ctypes.data, size
        else:
            prod = xp.empty((batch, 4 * size), dtype)
        for s, t in enumerate(self._times()):
            if direct:
                add_product(h_at, h_ld, rows_at + t * rows_step, rows_ld)
                h_at, h_ld = out_at + t * out_step, out_ld
            elif xp is not np:  # the GPU: a product and one fused kernel per step
                xp.matmul(h, w_s, out=prod)
                cuda_kernels.lstm_forward_step(rows, prod, t, s, c, act, tc, out)
                h = out[t]
                continue
            else:
                xp.matmul(h, w_s, out=prod)
                rows[t] += prod
            a = act[s]
            xp.tanh(gate_in[t], out=a)
            if fused is not None:
                fused.gates_and_cell(a, c[s], c[s + 1])
                xp.tanh(c[s + 1], out=tc[s])
                h = out[t]
                xp.multiply(a[3], tc[s], out=h)
                continue
            sigmoids, gate_o = a[:2], a[3]  # (1 + tanh(x / 2)) / 2
            sigmoids *= 0.5
            sigmoids += 0.5
            gate_o *= 0.5
            gate_o += 0.5
            gate_i, gate_f, g = a[0], a[1], a[2]
            xp.multiply(gate_f, c[s], out=c[s + 1])
            xp.multiply(gate_i, g, out=tmp)
            c[s + 1] += tmp
            xp.tanh(c[s + 1], out=tc[s])
            h = out[t]
            xp.multiply(gate_o, tc[s], out=h)
        self.gate_in = self.rows = None  # act holds what backward needs
        return h.copy(), c[-1].copy()

    def backward(self, g_out, g_h, g_c, d_rows, previous):
        """Walk back from the gradients of the outputs (`g_out` [T, B, H] indexed by time,
        or None) and final states; fill `d_rows` [T, B, 4H] (indexed by time) with the
        gradient of the pre-activations; return those of the initial (h, c). `previous` is
        (the outputs [T, B, H], h0, `into` [T, B, H]): `into` is filled with the state each
        step started from (`previous_hidden`), for the weight's gradient."""
        xp, size, act, tc = self.xp, self.size, self.act, self.tc
        steps, _, batch, _ = act.shape
        if xp is not np and _fusable_steps(size, act.dtype, d_rows, g_out, *previous[::2]):
            # The GPU, a small LSTM: one kernel, which also fills `into`.
            w = xp.ascontiguousarray(self.w)
            return recurrent_sequences.lstm_sequence_grad(act, self.c, tc, g_out, w, g_h, g_c,
                                                          d_rows, previous, self.reverse)
        previous_hidden(*previous[:2], self.reverse, previous[2])
        dh = xp.zeros_like(tc[0]) if g_h is None else g_h.copy()
        dc = xp.zeros_like(dh) if g_c is None else g_c.copy()
        if xp is not np:  # the GPU: one fused kernel and a product per step
            for s, t in reversed(list(enumerate(self._times()))):
                cuda_kernels.lstm_backward_step(act, self.c, tc, g_out, t, s, dh, dc, d_rows)
                xp.matmul(d_rows[t], self.w, out=dh)
            return dh, dc
        fused = compiled.kernels("lstm_cell", xp, act)
        if fused is not None:
            scratch = xp.empty(dh.size, dh.dtype)
            # The kernel indexes the steps' rows itself, in the C-ordered array behind them.
            batch_first = not d_rows.flags.c_contiguous
            every = d_rows.swapaxes(0, 1) if batch_first else d_rows
            for s, t in reversed(list(enumerate(self._times()))):
                if g_out is not None:
                    dh += g_out[t]
                fused.gate_grads(act[s], self.c[s], tc[s], dh, dc, every, t, batch_first,
                                 scratch)
                xp.matmul(d_rows[t], self.w, out=dh)
            return dh, dc
        # Slopes of every step at once: sigmoid' = s (1 - s), tanh' = 1 - g^2 for the g
        # block, and the cell's path to h, o (1 - tanh(c)^2). Only these: each bulk pass
        # streams [T, 4, B, H] through memory, while a step's blocks stay in cache, so the
        # gate gradients' other factors are cheaper inside the step.
        slope = xp.subtract(1.0, act, out=workspace.take(xp, act.shape, act.dtype))
        slope *= act
        g, g_slope = act[:, 2], slope[:, 2]
        xp.multiply(g, g, out=g_slope)
        xp.subtract(1.0, g_slope, out=g_slope)
        through = xp.multiply(tc, tc, out=workspace.take(xp, tc.shape, tc.dtype))
        xp.subtract(1.0, through, out=through)
        through *= act[:, 3]
        # The gates' gradients, gate-major per step, then copied into the step's [B, 4H]
        # rows (the layout of the input gates, and a [B, 4H] @ [4H, H] product for dh).
        d = xp.empty_like(act[0])
        tmp = xp.empty_like(dh)
        for s, t in reversed(list(enumerate(self._times()))):
            if g_out is not None:
                dh += g_out[t]
            a = act[s]
            xp.multiply(dh, through[s], out=tmp)
            dc += tmp
            xp.multiply(dc, a[2], out=d[0])
            xp.multiply(dc, self.c[s], out=d[1])
            xp.multiply(dc, a[0], out=d[2])
            xp.multiply(dh, tc[s], out=d[3])
            rows = d_rows[t]
            xp.multiply(d, slope[s], out=rows.reshape(batch, 4, size).transpose(1, 0, 2))
            xp.matmul(rows, self.w, out=dh)
            dc *= a[1]
        workspace.give(slope)
        workspace.give(through)
        return dh, dc


def gru_gate_scale(xp, size, dtype):
    """The [3H] factors that turn a GRU's r and z pre-activations into tanh's arguments,
    x / 2 for sigmoid(x) = (1 + tanh(x / 2)) / 2 (the c block stays).

    Example:
        >>> import numpy as np
        >>> gru_gate_scale(np, 1, np.float32)
        array([0.5, 0.5, 1. ], dtype=float32)
    """
    return device_constant(xp, ("gru_gate_scale", size, np.dtype(dtype).str),
                           lambda: np.repeat(np.asarray([0.5, 0.5, 1.0], dtype), size))


class GRUArrays(_GateArrays):
    """Gates r, z, c (Paddle's order). `gate_in` [T, B, 3H] (any strides, indexed by time)
    holds each step's input gates with the input bias and the r and z parts of the hidden
    bias in, multiplied by `gru_gate_scale`; `w` is weight_hh [3H, H] and `bias_c` the c
    part [H] of the hidden bias or None, which the reset gate multiplies with the hidden
    product: n = tanh(x_c + r * (h W_c^T + b_c)), h' = (h - n) z + n.

    Gate-major per step and indexed by time, as in LSTMArrays: act[t] [3, B, H] holds r, z,
    n of step t and prod[t] the hidden product (its c block is hc, bias included).
    """

    def __init__(self, xp, gate_in, w, bias_c, reverse):
        super().__init__(xp, gate_in, w, reverse, 3)
        self.bias_c = bias_c

    def forward(self, h0, out):
        """Run the steps, writing h of each step into `out` [T, B, H] (indexed by time);
        returns the final h."""
        xp, size, gate_in = self.xp, self.size, self.gate_in
        steps, _, batch, _ = gate_in.shape
        act = self.act = workspace.output(xp, (steps, 3, batch, size), gate_in.dtype)
        prod = self.prod = workspace.output(xp, act.shape, act.dtype)
        if xp is not np and _fusable_steps(size, act.dtype, self.rows, out):
            # The GPU, a small GRU: one kernel, which also writes the final state.
            w_s = recurrent_sequences.hidden_weights(self.w, per_gate=True)
            self.gate_in = None
            return recurrent_sequences.gru_sequence(self.rows, w_s, h0, self.bias_c, prod, act,
                                                    out, self.reverse)
        w_s = xp.ascontiguousarray(self.w.reshape(3, size, size).transpose(0, 2, 1))
        w_s[:2] *= 0.5  # tanh(x / 2) for the sigmoid gates
        h, tmp = h0, xp.empty_like(h0)
        if xp is not np:  # the GPU: a product and one fused kernel per step
            for t in self._times():
                xp.matmul(h, w_s, out=prod[t])
                cuda_kernels.gru_forward_step(self.rows, h, self.bias_c, t, prod, act, out)
                h = out[t]
            self.gate_in = None
            return h.copy()
        for t in self._times():
            a, p, g_in = act[t], prod[t], gate_in[t]
            xp.matmul(h, w_s, out=p)
            rz = a[:2]
            xp.add(g_in[:2], p[:2], out=rz)
            xp.tanh(rz, out=rz)
            rz *= 0.5
            rz += 0.5
            hc, n = p[2], a[2]
            if self.bias_c is not None:
                hc += self.bias_c
            xp.multiply(a[0], hc, out=tmp)
            xp.add(g_in[2], tmp, out=n)
            xp.tanh(n, out=n)
            xp.subtract(h, n, out=tmp)
            tmp *= a[1]
            h = out[t]
            xp.add(tmp, n, out=h)
        self.gate_in = None  # act holds what backward needs
        return h.copy()

    def _factors(self, h_prev):
        """dn = dh * n_in, dr = dn * r_in, dz = dh * z_in for every step at once. n_in and
        r_in go to the r and z blocks of prod, dead since the forward (a fresh [T, B, H]
        array costs its page faults again, as much as a few passes over it)."""
        xp, act, prod = self.xp, self.act, self.prod
        r, z, n = act[:, 0], act[:, 1], act[:, 2]
        n_in, r_in = prod[:, 0], prod[:, 1]
        xp.subtract(1.0, z, out=r_in)  # 1 - z, for now
        xp.multiply(n, n, out=n_in)
        xp.subtract(1.0, n_in, out=n_in)
        n_in *= r_in  # (1 - z)(1 - n^2)
        z_in = xp.subtract(h_prev, n, out=workspace.take(xp, n.shape, n.dtype))
        z_in *= z
        z_in *= r_in  # z'(.) * (h_prev - n)
        xp.subtract(1.0, r, out=r_in)
        r_in *= r
        r_in *= prod[:, 2]  # r'(.) * hc
        return n_in, r_in, z_in

    def backward(self, g_out, g_h, previous, d_hid, d_n):
        """Walk back from the gradients of the outputs (`g_out` [T, B, H] indexed by time,
        or None) and of the final h. `previous` is (the outputs [T, B, H], h0, `into`
        [T, B, H]): `into` is filled with the state each step started from
        (`previous_hidden`), which the walk reads and the weight's gradient takes. Fills
        `d_hid` [T, B, 3H] with the gradient of the hidden product (dr, dz, dn * r) and
        `d_n` [T, B, H] with that of the input c gate; returns that of h0."""
        xp, size, act = self.xp, self.size, self.act
        batch = act.shape[2]
        if xp is not np and _fusable_steps(size, act.dtype, g_out, d_hid, d_n,
                                           *previous[::2]):
            # The GPU, a small GRU: one kernel, which works out the factors and fills `into`.
            w = xp.ascontiguousarray(self.w)
            return recurrent_sequences.gru_sequence_grad(act, self.prod, previous, g_out, w,
                                                         g_h, d_hid, d_n, self.reverse)
        h_prev = previous[2]
        previous_hidden(*previous[:2], self.reverse, h_prev)
        n_in, r_in, z_in = self._factors(h_prev)
        if xp is not np:  # the GPU: one fused kernel and a product per step
            dhz = xp.zeros_like(act[0, 0]) if g_h is None else g_h.copy()
            tmp = xp.zeros_like(dhz)
            for t in reversed(self._times()):
                cuda_kernels.gru_backward_step(act, self.prod, z_in, g_out, t, tmp, dhz,
                                               d_hid, d_n)
                xp.matmul(d_hid[t], self.w, out=tmp)
            workspace.give(z_in)
            return dhz + tmp
        r, z = act[:, 0], act[:, 1]
        dh = xp.zeros_like(act[0, 0]) if g_h is None else g_h.copy()
        tmp = xp.empty_like(dh)
        for t in reversed(self._times()):
            if g_out is not None:
                dh += g_out[t]
            dn = d_n[t]
            xp.multiply(dh, n_in[t], out=dn)
            rows = d_hid[t]
            by_gate = rows.reshape(batch, 3, size).transpose(1, 0, 2)
            xp.multiply(dn, r_in[t], out=by_gate[0])
            xp.multiply(dh, z_in[t], out=by_gate[1])
            xp.multiply(dn, r[t], out=by_gate[2])
            xp.matmul(rows, self.w, out=tmp)
            dh *= z[t]
            dh += tmp
        workspace.give(z_in)
        return dh
