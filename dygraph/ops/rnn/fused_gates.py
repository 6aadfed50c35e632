"""Fused elementwise parts of the LSTM and GRU steps: one op per step instead of a dozen
small ones (split, sigmoids, tanhs, products). The matmuls stay outside, as ordinary ops.

The backward formulas are written with the `m` namespace: in plain backward they reuse
the activations saved by the forward; under create_graph they recompute them from the
inputs with ops, so the step is differentiable twice like any composed op.
"""

import numpy as np

from dygraph.autograd.function import Op, apply


def _sigmoid(xp, x):
    # exp(-x) overflows to inf for very negative x; 1 / (1 + inf) = 0 is the right limit.
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + xp.exp(-x))


def _parts(a, n, size):
    return [a[:, k * size:(k + 1) * size] for k in range(n)]


class LSTMPointwise(Op):
    """(gates [B, 4H] in order i, f, g, o; c_prev [B, H]) -> (h, c) with
    c = sigmoid(f) * c_prev + sigmoid(i) * tanh(g) and h = sigmoid(o) * tanh(c)."""

    save_inputs = True

    def forward(self, xp, gates, c_prev):
        self.size = c_prev.shape[-1]
        i, f, g, o = _parts(gates, 4, self.size)
        i, f, o = _sigmoid(xp, i), _sigmoid(xp, f), _sigmoid(xp, o)
        g = xp.tanh(g)
        c = f * c_prev + i * g
        tc = xp.tanh(c)
        self.saved = (i, f, g, o, tc)
        return o * tc, c

    def _activations(self, m):
        if not m.tensor_mode:
            return self.saved
        gates, c_prev = self.x(0, m), self.x(1, m)
        i, f, g, o = _parts(gates, 4, self.size)
        i, f, o, g = m.sigmoid(i), m.sigmoid(f), m.sigmoid(o), m.tanh(g)
        return i, f, g, o, m.tanh(f * c_prev + i * g)

    def backward(self, m, gh, gc):
        i, f, g, o, tc = self._activations(m)
        c_prev = self.x(1, m)
        dc = gc
        if gh is not None:
            through = gh * o * (1.0 - tc * tc)
            dc = through if dc is None else dc + through
        if dc is None:
            dc = m.zeros_like(c_prev)
        do = gh * tc if gh is not None else m.zeros_like(c_prev)
        d_gates = m.concatenate([dc * g * i * (1.0 - i), dc * c_prev * f * (1.0 - f),
                                 dc * i * (1.0 - g * g), do * o * (1.0 - o)], axis=1)
        return d_gates, (dc * f if self.edges[1] is not None else None)


class GRUPointwise(Op):
    """(x_gates [B, 3H], h_gates [B, 3H], both in order r, z, c; h_prev [B, H]) -> h with
    r, z = sigmoid(x_r + h_r), sigmoid(x_z + h_z), n = tanh(x_c + r * h_c) and
    h = (h_prev - n) * z + n."""

    save_inputs = True

    def forward(self, xp, xg, hg, h_prev):
        self.size = h_prev.shape[-1]
        x_r, x_z, x_c = _parts(xg, 3, self.size)
        h_r, h_z, h_c = _parts(hg, 3, self.size)
        r, z = _sigmoid(xp, x_r + h_r), _sigmoid(xp, x_z + h_z)
        n = xp.tanh(x_c + r * h_c)
        self.saved = (r, z, n, h_c)
        return (h_prev - n) * z + n

    def _activations(self, m):
        if not m.tensor_mode:
            return self.saved
        x_r, x_z, x_c = _parts(self.x(0, m), 3, self.size)
        h_r, h_z, h_c = _parts(self.x(1, m), 3, self.size)
        r, z = m.sigmoid(x_r + h_r), m.sigmoid(x_z + h_z)
        return r, z, m.tanh(x_c + r * h_c), h_c

    def backward(self, m, gh):
        r, z, n, h_c = self._activations(m)
        h_prev = self.x(2, m)
        dn = gh * (1.0 - z) * (1.0 - n * n)
        dr = dn * h_c * r * (1.0 - r)
        dz = gh * (h_prev - n) * z * (1.0 - z)
        d_x = m.concatenate([dr, dz, dn], axis=1)
        d_h = m.concatenate([dr, dz, dn * r], axis=1)
        return d_x, d_h, (gh * z if self.edges[2] is not None else None)


class BatchFull(Op):
    """A [batch] + shape array of `value`, the batch taken from dim `batch_dim` of the
    input (Paddle's fill_constant_batch_size_like): zero initial states of a static
    program whose batch size is free."""

    attrs = ("batch_dim", "dtype", "shape", "value")

    differentiable = False

    def __init__(self, batch_dim, shape, value, dtype):
        self.batch_dim, self.shape, self.value, self.dtype = batch_dim, shape, value, dtype

    def forward(self, xp, ref):
        return xp.full([ref.shape[self.batch_dim]] + list(self.shape), self.value, self.dtype)

    def backward(self, m, g):
        return (None,)


def lstm_pointwise(gates, c_prev):
    """The fused LSTM update: (h, c) from the summed gates and the previous cell.

    Example:
        >>> import dygraph
        >>> h, c = lstm_pointwise(dygraph.zeros([1, 4]), dygraph.ones([1, 1]))
        >>> float(c), round(float(h), 4)
        (0.5, 0.2311)
    """
    return apply(LSTMPointwise(), gates, c_prev)


def gru_pointwise(x_gates, h_gates, h_prev):
    """The fused GRU update: h from the input and hidden gate projections.

    Example:
        >>> import dygraph
        >>> float(gru_pointwise(dygraph.zeros([1, 3]), dygraph.zeros([1, 3]),
        ...                     dygraph.ones([1, 1])))
        0.5
    """
    return apply(GRUPointwise(), x_gates, h_gates, h_prev)
