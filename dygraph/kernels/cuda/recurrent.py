"""The element-wise part of an LSTM or GRU time step as one GPU kernel each way
(dygraph/ops/rnn/arrays.py calls them once a step, between the steps' cuBLAS products,
for RNNs wider than recurrent_sequences.FUSED_WIDTH: narrower ones run their whole sequence
as one kernel, dygraph/kernels/cuda/recurrent_sequences.py).

Example:
    >>> from dygraph.kernels.cuda.registry import KERNEL_SPECS
    >>> sorted(n for n in KERNEL_SPECS if n.startswith(("lstm", "gru")))
    ['gru_backward', 'gru_forward', 'lstm_backward', 'lstm_forward']
"""

from dygraph.kernels.cuda.registry import define, kernel

__all__ = ["lstm_forward_step", "lstm_backward_step", "gru_forward_step", "gru_backward_step"]

# One LSTM step over its B * H cells, i = b * H + j (H is `width`, B * H `cells`), on the
# whole sequence's arrays (raw, indexed by logical position, so any strides): `rows`
# [T, B, 4H] the input gates (pre-scaled so that tanh gives the sigmoids as
# (1 + tanh) / 2) read at time t, `prod` [B, 4H] the step's h @ W^T scaled alike; the walk's
# s-th step writes its activations into `act` [T, 4, B, H] (gate-major), its cell state
# into c[s + 1] ([T + 1, B, H], c[s] the state before), tanh of it into tc[s] and h into
# hs[t] ([T, B, H]).
_LSTM_FORWARD = """
const ptrdiff_t b = i / width, base = b * 4 * width + (i - b * width);
const ptrdiff_t r = t * 4 * cells + base, a = s * 4 * cells + i;
const T half = 0.5;
const T gi = tanh(rows[r] + prod[base]) * half + half;
const T gf = tanh(rows[r + width] + prod[base + width]) * half + half;
const T gg = tanh(rows[r + 2 * width] + prod[base + 2 * width]);
const T go = tanh(rows[r + 3 * width] + prod[base + 3 * width]) * half + half;
act[a] = gi;
act[a + cells] = gf;
act[a + 2 * cells] = gg;
act[a + 3 * cells] = go;
const T cn = gf * c[s * cells + i] + gi * gg;
c[(s + 1) * cells + i] = cn;
const T th = tanh(cn);
tc[s * cells + i] = th;
hs[t * cells + i] = go * th;
"""

# Its backward: the gradient of h is dh (the later step's product) + g_out[t]; dc carries
# the cell's gradient in and out (times f for the step before); d_rows [T, B, 4H] gets the
# step's pre-activation gradients at time t.
_LSTM_BACKWARD = """
const ptrdiff_t b = i / width, base = b * 4 * width + (i - b * width);
const ptrdiff_t r = t * 4 * cells + base, a = s * 4 * cells + i;
const T one = 1;
T g = dh;
if (has_g) g += g_out[t * cells + i];
const T gi = act[a], gf = act[a + cells], gg = act[a + 2 * cells], go = act[a + 3 * cells];
const T th = tc[s * cells + i];
const T d = dc + g * ((one - th * th) * go);
d_rows[r] = d * gg * (gi * (one - gi));
d_rows[r + width] = d * c[s * cells + i] * (gf * (one - gf));
d_rows[r + 2 * width] = d * gi * (one - gg * gg);
d_rows[r + 3 * width] = g * th * (go * (one - go));
dc = d * gf;
"""

# One GRU step t over its B * H cells, i = b * H + j (H is `width`, B * H `cells`), on the
# whole sequence's arrays (raw, indexed by logical position, so any strides): `rows`
# [T, B, 3H] the input gates (r and z pre-scaled so that tanh gives the sigmoids as
# (1 + tanh) / 2), `prod` [T, 3, B, H] the hidden products (this step's written by the
# product before the kernel; its c block gets the hidden bias added, as backward reads
# it), `act` [T, 3, B, H] r, z, n, and `hs` [T, B, H] the outputs; h is the state before.
_GRU_FORWARD = """
const ptrdiff_t b = i / width, j = i - b * width;
const ptrdiff_t a = t * 3 * cells + i, g = t * 3 * cells + b * 3 * width + j;
const T half = 0.5;
const T r = tanh(rows[g] + prod[a]) * half + half;
const T z = tanh(rows[g + width] + prod[a + cells]) * half + half;
T hc = prod[a + 2 * cells];
if (has_bias) hc += bias[j];
prod[a + 2 * cells] = hc;
const T n = tanh(rows[g + 2 * width] + r * hc);
act[a] = r;
act[a + cells] = z;
act[a + 2 * cells] = n;
hs[t * cells + i] = (h - n) * z + n;
"""

# Its backward at step t: the gradient of h is dhz (the later step's dh * z) + tmp (its
# [B, 3H] @ [3H, H] product) + g_out[t]; prod's r and z blocks hold the factors n_in and
# r_in, z_in [T, B, H] the third (GRUArrays._factors). Writes the step's gradients of the
# input c gate into d_n [T, B, H] and of the hidden product into d_hid [T, B, 3H], and
# dhz for the step before.
_GRU_BACKWARD = """
const ptrdiff_t b = i / width, j = i - b * width;
const ptrdiff_t a = t * 3 * cells + i, g = t * 3 * cells + b * 3 * width + j;
T d = dhz + tmp;
if (has_g) d += g_out[t * cells + i];
const T dn = d * prod[a];
d_n[t * cells + i] = dn;
d_hid[g] = dn * prod[a + cells];
d_hid[g + width] = d * z_in[t * cells + i];
d_hid[g + 2 * width] = dn * act[a];
dhz = d * act[a + cells];
"""

define("lstm_forward", "raw T rows, raw T prod, int64 t, int64 s, int64 width, int64 cells",
                     "raw T c, raw T act, raw T tc, raw T hs", _LSTM_FORWARD)
define("lstm_backward", "raw T act, raw T c, raw T tc, raw T g_out, int64 t, int64 s, "
                      "int64 width, int64 cells, bool has_g, T dh",
                      "T dc, raw T d_rows", _LSTM_BACKWARD)
define("gru_forward", "raw T rows, T h, raw T bias, int64 t, int64 width, int64 cells, "
                    "bool has_bias",
                    "raw T prod, raw T act, raw T hs", _GRU_FORWARD)
define("gru_backward", "raw T act, raw T prod, raw T z_in, raw T g_out, int64 t, int64 width, "
                     "int64 cells, bool has_g, T tmp",
                     "T dhz, raw T d_hid, raw T d_n", _GRU_BACKWARD)


def lstm_forward_step(rows, prod, t, s, c, act, tc, hs):
    """The element-wise part of the walk's s-th LSTM step (time t) on CuPy arrays in one
    kernel (see _LSTM_FORWARD): from the input gates `rows` [T, B, 4H] and the step's
    hidden product `prod` [B, 4H], the gates into act[s] ([T, 4, B, H]), the cell state
    into c[s + 1] ([T + 1, B, H]), tanh of it into tc[s] and h into hs[t] ([T, B, H]).
    `LSTMArrays.forward` (dygraph/ops/rnn/arrays.py) calls it once a step; the
    backward's counterpart is lstm_backward_step.

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> rows, prod = cupy.zeros((1, 2, 12)), cupy.zeros((2, 12))  # doctest: +SKIP
        >>> c, act = cupy.ones((2, 2, 3)), cupy.empty((1, 4, 2, 3))  # doctest: +SKIP
        >>> tc, hs = cupy.empty((1, 2, 3)), cupy.empty((1, 2, 3))  # doctest: +SKIP
        >>> lstm_forward_step(rows, prod, 0, 0, c, act, tc, hs)  # doctest: +SKIP
        >>> float(c[1, 0, 0])  # f = i = 0.5, g = 0: c1 = 0.5 * c0  # doctest: +SKIP
        0.5
    """
    run = kernel("lstm_forward")
    _, batch, size = tc.shape
    run(rows, prod, t, s, size, batch * size, c, act, tc, hs, size=batch * size)


def lstm_backward_step(act, c, tc, g_out, t, s, dh, dc, d_rows):
    """The element-wise part of the backward of the walk's s-th LSTM step (time t) in one
    kernel (see _LSTM_BACKWARD): from the step's activations, cell states and their tanh
    (the forward's act, c, tc), the gradient dh [B, H] of its h from the later step and
    g_out [T, B, H] (or None) from the outputs, and dc [B, H] of its cell (updated in place
    to the step before's), the gradients of its pre-activations into d_rows[t]
    ([T, B, 4H], any strides).

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> act = cupy.full((1, 4, 2, 3), 0.5)  # i = f = o = 0.5, g = 0.5  # doctest: +SKIP
        >>> c, tc = cupy.ones((2, 2, 3)), cupy.zeros((1, 2, 3))  # doctest: +SKIP
        >>> dh, dc = cupy.zeros((2, 3)), cupy.ones((2, 3))  # doctest: +SKIP
        >>> d_rows = cupy.empty((1, 2, 12))  # doctest: +SKIP
        >>> lstm_backward_step(act, c, tc, None, 0, 0, dh, dc, d_rows)  # doctest: +SKIP
        >>> float(dc[0, 0])  # dc * f  # doctest: +SKIP
        0.5
    """
    run = kernel("lstm_backward")
    batch, size = dh.shape
    run(act, c, tc, dh if g_out is None else g_out, t, s, size, batch * size,
           g_out is not None, dh, dc, d_rows)


def gru_forward_step(rows, h, bias, t, prod, act, hs):
    """The element-wise part of GRU step t on CuPy arrays in one kernel (see _GRU_FORWARD):
    from the input gates `rows` [T, B, 3H], the step's hidden product already in `prod`
    [T, 3, B, H] and the state h [B, H] before it (bias: the c part [H] of the hidden bias,
    or None), the gates into `act` [T, 3, B, H] and the new state into `hs[t]` ([T, B, H]).
    `GRUArrays.forward` (dygraph/ops/rnn/arrays.py) calls it once a step.

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> rows, h = cupy.zeros((1, 2, 3)), cupy.ones((2, 1))  # doctest: +SKIP
        >>> prod, act = cupy.zeros((1, 3, 2, 1)), cupy.empty((1, 3, 2, 1))  # doctest: +SKIP
        >>> hs = cupy.empty((1, 2, 1))  # doctest: +SKIP
        >>> gru_forward_step(rows, h, None, 0, prod, act, hs)  # doctest: +SKIP
        >>> float(hs[0, 0, 0])  # z = 0.5, n = 0: h' = 0.5 h  # doctest: +SKIP
        0.5
    """
    run = kernel("gru_forward")
    batch, size = h.shape
    run(rows, h, h if bias is None else bias, t, size, batch * size, bias is not None,
           prod, act, hs)


def gru_backward_step(act, prod, z_in, g_out, t, tmp, dhz, d_hid, d_n):
    """The element-wise part of GRU step t's backward in one kernel (see _GRU_BACKWARD):
    dhz and tmp [B, H] carry the gradient of the state after the step (dhz is updated in
    place for the step before; tmp is the product the caller computes next), g_out
    [T, B, H] or None the outputs' gradient.

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> act, prod = cupy.full((1, 3, 2, 1), 0.5), cupy.ones((1, 3, 2, 1))  # doctest: +SKIP
        >>> z_in, tmp = cupy.ones((1, 2, 1)), cupy.zeros((2, 1))  # doctest: +SKIP
        >>> dhz = cupy.ones((2, 1))  # doctest: +SKIP
        >>> d_hid, d_n = cupy.empty((1, 2, 3)), cupy.empty((1, 2, 1))  # doctest: +SKIP
        >>> gru_backward_step(act, prod, z_in, None, 0, tmp, dhz, d_hid, d_n)  # doctest: +SKIP
        >>> float(dhz[0, 0])  # dh * z  # doctest: +SKIP
        0.5
    """
    run = kernel("gru_backward")
    batch, size = tmp.shape
    run(act, prod, z_in, tmp if g_out is None else g_out, t, size, batch * size,
           g_out is not None, tmp, dhz, d_hid, d_n)
