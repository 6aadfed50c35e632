"""The element-wise part of an LSTM time step, compiled by Numba: one call where NumPy
needs about ten.

A step of dygraph.ops.rnn.arrays.LSTMArrays works on [B, H] blocks of a few thousand
values, where each NumPy call costs about a microsecond of overhead for well under a
microsecond of work. The transcendental functions stay NumPy's: its tanh is SIMD, while
Numba's (without Intel's SVML, which pip's llvmlite lacks) calls the scalar libm one, 10x
slower. So a forward step is tanh over the gate block (NumPy), `gates_and_cell` (the
sigmoid gates from their tanh, the new cell state), tanh of the cell and the product
for h (NumPy): 4 calls for 10. A backward step is one `gate_grads` call and the product
for dh, and the slopes need no pass over all steps beforehand.

Example:
    >>> import numpy as np
    >>> act = np.zeros((4, 1, 1)); c = np.ones((1, 1)); c_next = np.empty((1, 1))
    >>> gates_and_cell(act, c, c_next); act.ravel(), c_next
    (array([0.5, 0.5, 0. , 0.5]), array([[0.5]]))
"""

import numpy as np
from numba import njit

# Constants as float32: a float32 step then computes in float32, as NumPy's does, and a
# float64 one widens them exactly (Python float literals would make every float32 value
# float64 and back).
_HALF, _ONE = np.float32(0.5), np.float32(1)

__all__ = ["gates_and_cell", "gate_grads"]


@njit(nogil=True, cache=True)
def gates_and_cell(act, c_prev, c_next):
    """act [4, B, H] holds tanh of the scaled pre-activations (i and f and o halved): turn
    i, f, o into their sigmoids, (1 + tanh(x / 2)) / 2, in place, and write the new cell
    state c_next = f * c_prev + i * g.

    Example:
        >>> import numpy as np
        >>> act = np.zeros((4, 1, 2)); c_next = np.empty((1, 2))
        >>> gates_and_cell(act, np.full((1, 2), 4.0), c_next); c_next
        array([[2., 2.]])
    """
    batch, size = c_prev.shape
    for b in range(batch):
        i, f, g, o = act[0, b], act[1, b], act[2, b], act[3, b]
        prev, new = c_prev[b], c_next[b]
        for j in range(size):
            gi = _HALF * i[j] + _HALF
            gf = _HALF * f[j] + _HALF
            i[j] = gi
            f[j] = gf
            o[j] = _HALF * o[j] + _HALF
            new[j] = gf * prev[j] + gi * g[j]


@njit(nogil=True, cache=True)
def gate_grads(act, c_prev, tc, dh, dc, rows, t, batch_first, scratch):
    """One step back: from dh (this step's output gradient already added) and dc, write the
    gradients of the four pre-activations into the step's rows [B, 4H] (gates i, f, g, o
    side by side) and leave in dc the gradient of c_prev. dh itself is left for the
    caller's product rows @ W; scratch is [B * H] of the dtype, for the cell's total
    gradient.

    `rows` holds every step's rows, [B, T, 4H] when batch_first else [T, B, 4H], and t
    picks the step: each row is then a contiguous slice to the compiler. A strided [B, 4H]
    view of a step would be compiled for any strides, without SIMD, and run about half as
    fast.

    The slopes: sigmoid' = s (1 - s), tanh' = 1 - t^2; the cell reaches h through
    o (1 - tanh(c)^2). Each loop reads and writes few arrays: with all of them in one loop
    the compiler cannot prove they do not overlap and runs it without SIMD (figures:
    docs/PERFORMANCE.md#rnn-kernels).

    Example:
        >>> import numpy as np
        >>> act = np.full((4, 1, 1), 0.5); rows = np.empty((1, 1, 4)); dc = np.zeros((1, 1))
        >>> gate_grads(act, np.ones((1, 1)), np.zeros((1, 1)), np.ones((1, 1)), dc, rows, 0,
        ...            False, np.empty(1))
        >>> rows[0], dc
        (array([[0.0625, 0.125 , 0.1875, 0.    ]]), array([[0.25]]))
    """
    batch, size = tc.shape
    n = batch * size
    gates = act.reshape(4, n)
    i, f, g, o = gates[0], gates[1], gates[2], gates[3]
    th, h_grad, c_grad, prev = tc.reshape(n), dh.reshape(n), dc.reshape(n), c_prev.reshape(n)
    d = scratch
    for k in range(n):
        d[k] = c_grad[k] + h_grad[k] * o[k] * (_ONE - th[k] * th[k])
    for b in range(batch):
        lo = b * size
        out = rows[b, t] if batch_first else rows[t, b]
        out_i = out[:size]
        for j in range(size):
            out_i[j] = d[lo + j] * g[lo + j] * i[lo + j] * (_ONE - i[lo + j])
        out_f = out[size:2 * size]
        for j in range(size):
            out_f[j] = d[lo + j] * prev[lo + j] * f[lo + j] * (_ONE - f[lo + j])
        out_g = out[2 * size:3 * size]
        for j in range(size):
            out_g[j] = d[lo + j] * i[lo + j] * (_ONE - g[lo + j] * g[lo + j])
        out_o = out[3 * size:]
        for j in range(size):
            out_o[j] = h_grad[lo + j] * th[lo + j] * o[lo + j] * (_ONE - o[lo + j])
    for k in range(n):
        c_grad[k] = d[k] * f[k]
