"""An LSTM or GRU layer's whole sequence, hidden products included, as one GPU kernel each
way, for RNNs of at most FUSED_WIDTH hidden units (dygraph/ops/rnn/arrays.py calls each once
a layer and direction): row kernels (registry.define_rows) with a thread block per batch
row, which walks every time step, its state in shared memory. The rows of a batch never
meet in an RNN, so a block needs no other block's values, and one launch replaces a launch
or two per step (a cuBLAS product and an element-wise kernel, dygraph/kernels/cuda/
recurrent.py, which wider RNNs still take).

Each step does the element-wise arithmetic of recurrent.py's kernels, in the same order;
the products are sums in order over the units, another order than cuBLAS's. What the
per-step path does around the walk in launches of its own happens inside these kernels:
the initial cell state copied in and the final states written out, the walk back started
from zeros where the final states take no gradient, and the GRU's backward factors worked
out per step (GRUArrays._factors' ten passes); `hidden_weights` lays out and halves the
hidden weight in one launch for the array formula's two or three.

Example:
    >>> from dygraph.kernels.cuda.registry import ROW_KERNEL_SPECS
    >>> sorted(n for n in ROW_KERNEL_SPECS if n.endswith(("_sequence", "_sequence_grad")))
    ['gru_sequence', 'gru_sequence_grad', 'lstm_sequence', 'lstm_sequence_grad']
"""

import os

import numpy as np

from dygraph.kernels.cuda.registry import define, define_rows, kernel, launch_rows

__all__ = ["FUSED_WIDTH", "MAX_FUSED_WIDTH", "step_threads", "hidden_weights", "lstm_sequence",
           "lstm_sequence_grad", "gru_sequence", "gru_sequence_grad"]

# The most hidden units of an LSTM or GRU whose sequence runs as one kernel with its
# products: each block (a batch row) reads all of W ([H, 4H]) at each step, which stays in
# the L2 cache while it is small (H = 256: 1 MB in float32); past that cuBLAS's one product
# per step reads it once. The threshold is a guess awaiting a GPU's measurement
# (docs/PERFORMANCE.md); DYGRAPH_RNN_STEP_WIDTH lowers it (0: every step takes cuBLAS and
# the element-wise kernel), to measure one against the other. The kernels' shared rows
# hold MAX_FUSED_WIDTH units.
MAX_FUSED_WIDTH = 256
FUSED_WIDTH = min(int(os.environ.get("DYGRAPH_RNN_STEP_WIDTH", MAX_FUSED_WIDTH)),
                  MAX_FUSED_WIDTH)

# An LSTM's steps, a block per batch row b, walking s = 0 .. steps - 1 over times t (from
# the last when `reverse`): the state h[b] in shared memory (h0's row first, then the step
# before's outputs: two buffers, one read while the other is written, a barrier a step),
# per hidden unit j the four dot products with the pre-scaled W^T `w_s` [H, 4H]
# (C-ordered), added to the input gates rows[t, b] (strides rows_t, rows_b), and the
# element-wise step of recurrent._LSTM_FORWARD; act, c and tc by walk index s, hs[t, b]
# by strides. c0 goes into c[0] first, and the final states into hn and cn last ([B, H]
# C-ordered each, as h0 and c0): copies that would each be a launch of their own. A thread
# keeps the same units throughout, so it reads back what it wrote without a barrier.
_LSTM_SEQUENCE = """
extern "C" __global__ void KERNEL(const T* rows, long long rows_t, long long rows_b,
                                  const T* w_s, const T* h0, const T* c0, T* c, T* act,
                                  T* tc, T* hs, long long hs_t, long long hs_b, T* hn,
                                  T* cn, long long steps, int reverse, long long width,
                                  long long batch) {
    __shared__ T hbuf[2 * 256];
    const long long b = blockIdx.x, cells = batch * width;
    for (long long k = threadIdx.x; k < width; k += blockDim.x) {
        hbuf[k] = h0[b * width + k];
        c[b * width + k] = c0[b * width + k];
    }
    __syncthreads();
    const T half = 0.5;
    for (long long s = 0; s < steps; ++s) {
        const long long t = reverse ? steps - 1 - s : s;
        const T* hrow = hbuf + (s % 2) * 256;
        T* hnext = hbuf + ((s + 1) % 2) * 256;
        for (long long j = threadIdx.x; j < width; j += blockDim.x) {
            T z0 = 0, z1 = 0, z2 = 0, z3 = 0;
            for (long long k = 0; k < width; ++k) {
                const T hk = hrow[k];
                const T* wk = w_s + k * 4 * width + j;
                z0 += hk * wk[0];
                z1 += hk * wk[width];
                z2 += hk * wk[2 * width];
                z3 += hk * wk[3 * width];
            }
            const T* rr = rows + t * rows_t + b * rows_b + j;
            const long long i = b * width + j, a = s * 4 * cells + i;
            const T gi = tanh(rr[0] + z0) * half + half;
            const T gf = tanh(rr[width] + z1) * half + half;
            const T gg = tanh(rr[2 * width] + z2);
            const T go = tanh(rr[3 * width] + z3) * half + half;
            act[a] = gi;
            act[a + cells] = gf;
            act[a + 2 * cells] = gg;
            act[a + 3 * cells] = go;
            const T cn = gf * c[s * cells + i] + gi * gg;
            c[(s + 1) * cells + i] = cn;
            const T th = tanh(cn);
            tc[s * cells + i] = th;
            const T h = go * th;
            hs[t * hs_t + b * hs_b + j] = h;
            hnext[j] = h;
        }
        __syncthreads();
    }
    for (long long k = threadIdx.x; k < width; k += blockDim.x) {
        hn[b * width + k] = hbuf[(steps % 2) * 256 + k];
        cn[b * width + k] = c[steps * cells + b * width + k];
    }
}
"""

# Its backward, a block per batch row b, walking the steps back: per step the element-wise
# step of recurrent._LSTM_BACKWARD (dh, dc [B, H] C-ordered; g_out and d_rows by strides),
# its four gate gradients kept in shared memory, then dh[b] = d_rows[t, b] @ W (W =
# weight_hh [4H, H], C-ordered) for the step before. dh and dc start as the final states'
# gradients g_h and g_c ([B, H] C-ordered), or zeros where has_gh or has_gc is 0, and end
# as the initial states'. Each thread reads and writes the same units of dh and dc
# throughout; the barriers keep the shared gradients whole while read. On the way it
# copies into hp [T, B, H] (by strides) the state each step started from, h0 or the
# outputs hs of the step before, for the weight's gradient: a copy that took two launches.
_LSTM_SEQUENCE_GRAD = """
extern "C" __global__ void KERNEL(const T* act, const T* c, const T* tc, const T* g_out,
                                  long long go_t, long long go_b, int has_g, const T* w,
                                  const T* g_h, int has_gh, const T* g_c, int has_gc,
                                  T* dh, T* dc, T* d_rows, long long dr_t, long long dr_b,
                                  const T* h0, const T* hs, long long hs_t, long long hs_b,
                                  T* hp, long long hp_t, long long hp_b, long long steps,
                                  int reverse, long long width, long long batch) {
    __shared__ T dz[4 * 256];
    const long long b = blockIdx.x, cells = batch * width;
    const T one = 1;
    for (long long j = threadIdx.x; j < width; j += blockDim.x) {
        dh[b * width + j] = has_gh ? g_h[b * width + j] : T(0);
        dc[b * width + j] = has_gc ? g_c[b * width + j] : T(0);
    }
    for (long long s = steps - 1; s >= 0; --s) {
        const long long t = reverse ? steps - 1 - s : s;
        T* dr = d_rows + t * dr_t + b * dr_b;
        for (long long j = threadIdx.x; j < width; j += blockDim.x) {
            const long long i = b * width + j, a = s * 4 * cells + i;
            T g = dh[i];
            if (has_g) g += g_out[t * go_t + b * go_b + j];
            const T gi = act[a], gf = act[a + cells], gg = act[a + 2 * cells];
            const T go = act[a + 3 * cells];
            const T th = tc[s * cells + i];
            hp[t * hp_t + b * hp_b + j] = s == 0 ? h0[i]
                : hs[(reverse ? t + 1 : t - 1) * hs_t + b * hs_b + j];
            const T d = dc[i] + g * ((one - th * th) * go);
            const T d0 = d * gg * (gi * (one - gi));
            const T d1 = d * c[s * cells + i] * (gf * (one - gf));
            const T d2 = d * gi * (one - gg * gg);
            const T d3 = g * th * (go * (one - go));
            dr[j] = d0;
            dr[width + j] = d1;
            dr[2 * width + j] = d2;
            dr[3 * width + j] = d3;
            dz[j] = d0;
            dz[width + j] = d1;
            dz[2 * width + j] = d2;
            dz[3 * width + j] = d3;
            dc[i] = d * gf;
        }
        __syncthreads();
        for (long long k = threadIdx.x; k < width; k += blockDim.x) {
            T sum = 0;
            for (long long col = 0; col < 4 * width; ++col) sum += dz[col] * w[col * width + k];
            dh[b * width + k] = sum;
        }
        __syncthreads();
    }
}
"""

# A GRU's steps, a block per batch row b (walk and state as in _LSTM_SEQUENCE): per unit j
# the three dot products with the per-gate, pre-scaled W^T `w_s` [3, H, H] (C-ordered)
# into prod[t] ([T, 3, B, H], kept for backward; the c block with the hidden bias added),
# and the element-wise step of recurrent._GRU_FORWARD; rows [T, B, 3H] and hs [T, B, H] by
# strides; the final state into hn [B, H] (C-ordered) last.
_GRU_SEQUENCE = """
extern "C" __global__ void KERNEL(const T* rows, long long rows_t, long long rows_b,
                                  const T* w_s, const T* h0, const T* bias, int has_bias,
                                  T* prod, T* act, T* hs, long long hs_t, long long hs_b,
                                  T* hn, long long steps, int reverse, long long width,
                                  long long batch) {
    __shared__ T hbuf[2 * 256];
    const long long b = blockIdx.x, cells = batch * width, square = width * width;
    for (long long k = threadIdx.x; k < width; k += blockDim.x) hbuf[k] = h0[b * width + k];
    __syncthreads();
    const T half = 0.5;
    for (long long s = 0; s < steps; ++s) {
        const long long t = reverse ? steps - 1 - s : s;
        const T* hrow = hbuf + (s % 2) * 256;
        T* hnext = hbuf + ((s + 1) % 2) * 256;
        for (long long j = threadIdx.x; j < width; j += blockDim.x) {
            T p0 = 0, p1 = 0, p2 = 0;
            for (long long k = 0; k < width; ++k) {
                const T hk = hrow[k];
                const T* wk = w_s + k * width + j;
                p0 += hk * wk[0];
                p1 += hk * wk[square];
                p2 += hk * wk[2 * square];
            }
            const T* rr = rows + t * rows_t + b * rows_b + j;
            const long long a = t * 3 * cells + b * width + j;
            prod[a] = p0;
            prod[a + cells] = p1;
            const T r = tanh(rr[0] + p0) * half + half;
            const T z = tanh(rr[width] + p1) * half + half;
            T hc = p2;
            if (has_bias) hc += bias[j];
            prod[a + 2 * cells] = hc;
            const T n = tanh(rr[2 * width] + r * hc);
            act[a] = r;
            act[a + cells] = z;
            act[a + 2 * cells] = n;
            const T h = (hrow[j] - n) * z + n;
            hs[t * hs_t + b * hs_b + j] = h;
            hnext[j] = h;
        }
        __syncthreads();
    }
    for (long long k = threadIdx.x; k < width; k += blockDim.x)
        hn[b * width + k] = hbuf[(steps % 2) * 256 + k];
}
"""

# Its backward, a block per batch row b, walking the steps back: per step the element-wise
# step of recurrent._GRU_BACKWARD, with its factors (GRUArrays._factors: ten passes over
# [T, B, H] arrays on the per-step path) worked out in place, in the same order, from the
# gates act [T, 3, B, H], the c block of prod and the state the step started from (h0, or
# the outputs hs of the step before, by strides), which it also copies into hp [T, B, H]
# for the weight's gradient (as _LSTM_SEQUENCE_GRAD); the step's three hidden-product
# gradients kept in shared memory, then tmp[b] = d_hid[t, b] @ W (W = weight_hh [3H, H],
# C-ordered) for the step before. dhz starts as the final state's gradient g_h (zeros
# where has_gh is 0) and tmp as zeros ([B, H] C-ordered each); dhz ends as h0's gradient,
# dhz + tmp. g_out, d_hid and d_n go by strides. Each thread reads and writes the same
# units of tmp and dhz throughout.
_GRU_SEQUENCE_GRAD = """
extern "C" __global__ void KERNEL(const T* act, const T* prod, const T* h0, const T* hs,
                                  long long hs_t, long long hs_b, T* hp, long long hp_t,
                                  long long hp_b, const T* g_out,
                                  long long go_t, long long go_b, int has_g, const T* w,
                                  const T* g_h, int has_gh, T* tmp, T* dhz, T* d_hid,
                                  long long dh_t, long long dh_b, T* d_n, long long dn_t,
                                  long long dn_b, long long steps, int reverse,
                                  long long width, long long batch) {
    __shared__ T dz[3 * 256];
    const long long b = blockIdx.x, cells = batch * width;
    const T one = 1;
    for (long long j = threadIdx.x; j < width; j += blockDim.x) {
        dhz[b * width + j] = has_gh ? g_h[b * width + j] : T(0);
        tmp[b * width + j] = 0;
    }
    for (long long s = steps - 1; s >= 0; --s) {
        const long long t = reverse ? steps - 1 - s : s;
        T* dr = d_hid + t * dh_t + b * dh_b;
        for (long long j = threadIdx.x; j < width; j += blockDim.x) {
            const long long i = b * width + j, a = t * 3 * cells + i;
            T d = dhz[i] + tmp[i];
            if (has_g) d += g_out[t * go_t + b * go_b + j];
            const T r = act[a], z = act[a + cells], n = act[a + 2 * cells];
            const T rest = one - z;
            const T n_in = (one - n * n) * rest;
            const T r_in = (one - r) * r * prod[a + 2 * cells];
            const T prev = s == 0 ? h0[i]
                : hs[(reverse ? t + 1 : t - 1) * hs_t + b * hs_b + j];
            hp[t * hp_t + b * hp_b + j] = prev;
            const T z_in = (prev - n) * z * rest;
            const T dn = d * n_in;
            d_n[t * dn_t + b * dn_b + j] = dn;
            const T d0 = dn * r_in;
            const T d1 = d * z_in;
            const T d2 = dn * r;
            dr[j] = d0;
            dr[width + j] = d1;
            dr[2 * width + j] = d2;
            dz[j] = d0;
            dz[width + j] = d1;
            dz[2 * width + j] = d2;
            dhz[i] = d * z;
        }
        __syncthreads();
        for (long long k = threadIdx.x; k < width; k += blockDim.x) {
            T sum = 0;
            for (long long col = 0; col < 3 * width; ++col) sum += dz[col] * w[col * width + k];
            tmp[b * width + k] = sum;
        }
        __syncthreads();
    }
    for (long long j = threadIdx.x; j < width; j += blockDim.x)
        dhz[b * width + j] = dhz[b * width + j] + tmp[b * width + j];
}
"""

# The hidden weight as the sequence kernels read it, from weight_hh w [G * H, H]: an
# LSTM's W^T [H, G * H], a GRU's per-gate W^T [G, H, H] (`per_gate`), both with every gate
# but the third halved for tanh(x / 2) (arrays.lstm_gate_scale, gru_gate_scale). One
# launch for the array formula's two or three (the scale, the transposed copy, and the
# GRU's slice written back); halving is the same multiply, so the same bits.
define("hidden_weights", "raw T w, int64 width, int64 gates, bool per_gate", "T y", """
long long g, src;
if (per_gate) {
    g = i / (width * width);
    const long long rest = i - g * width * width, k = rest / width, j = rest - k * width;
    src = (g * width + j) * width + k;
} else {
    const long long k = i / (gates * width), r = i - k * gates * width;
    g = r / width;
    src = r * width + k;
}
y = g == 2 ? w[src] : w[src] * (T)0.5;
""")

define_rows("lstm_sequence", _LSTM_SEQUENCE)
define_rows("lstm_sequence_grad", _LSTM_SEQUENCE_GRAD)
define_rows("gru_sequence", _GRU_SEQUENCE)
define_rows("gru_sequence_grad", _GRU_SEQUENCE_GRAD)


def _elements(a):
    """The strides of `a` in elements."""
    return [np.int64(st // a.itemsize) for st in a.strides]


def step_threads(width):
    """Threads per block of the sequence kernels: a thread per unit, in whole warps, at
    most MAX_FUSED_WIDTH.

    Example:
        >>> step_threads(3), step_threads(200)
        (32, 224)
    """
    return int(min(MAX_FUSED_WIDTH, -(-width // 32) * 32))


def _walk(steps, reverse):
    return np.int64(steps), np.int32(bool(reverse))


def _module(a):
    """The array module of `a` (CuPy here; NumPy where the kernels' host build runs)."""
    from dygraph.backend import get_array_module

    return get_array_module(a)


def _previous(xp, previous):
    """The kernel arguments of (hs, h0, into): h0 C-ordered, hs and into by strides."""
    hs, h0, into = previous
    return (xp.ascontiguousarray(h0), hs, *_elements(hs)[:2], into, *_elements(into)[:2])


def _given(xp, g, stand_in):
    """(g as a C-ordered array, 1), or (an array to point at, 0) where g is None: a final
    state's gradient that the kernel reads, or zeros it writes itself."""
    return (stand_in, np.int32(0)) if g is None else (xp.ascontiguousarray(g), np.int32(1))


def hidden_weights(w, per_gate):
    """weight_hh `w` [G * H, H] (C-ordered) as the sequence kernels read it, the sigmoid
    gates halved: W^T [H, G * H] (an LSTM's), or per gate [G, H, H] where `per_gate` (a
    GRU's).

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> hidden_weights(cupy.ones((4, 1)), False)  # doctest: +SKIP
        array([[0.5, 0.5, 1. , 0.5]])
    """
    xp = _module(w)
    rows, width = w.shape
    shape = (rows // width, width, width) if per_gate else (width, rows)
    out = xp.empty(shape, w.dtype)
    kernel("hidden_weights")(xp.ascontiguousarray(w), np.int64(width),
                             np.int64(rows // width), bool(per_gate), out)
    return out


def lstm_sequence(rows, w_s, h0, c0, c, act, tc, hs, reverse):
    """Every step of an LSTM layer's direction with its hidden products, one kernel: as
    recurrent.lstm_forward_step at each step of the walk (times from the last when
    `reverse`), with prod = h @ w_s computed inside (h0, c0: the [B, H] states before the
    first step, c0 copied into c[0]; w_s the C-ordered, pre-scaled W^T [H, 4H]
    (`hidden_weights`); at most FUSED_WIDTH units). Returns the final (h, c), new arrays.

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> rows, w_s = cupy.zeros((1, 2, 12)), cupy.zeros((3, 12))  # doctest: +SKIP
        >>> c, act = cupy.empty((2, 2, 3)), cupy.empty((1, 4, 2, 3))  # doctest: +SKIP
        >>> tc, hs = cupy.empty((1, 2, 3)), cupy.empty((1, 2, 3))  # doctest: +SKIP
        >>> h0 = c0 = cupy.ones((2, 3))  # doctest: +SKIP
        >>> h, c1 = lstm_sequence(rows, w_s, h0, c0, c, act, tc, hs, False)  # doctest: +SKIP
        >>> float(c1[0, 0])  # f = i = 0.5, g = 0: c1 = 0.5 * c0  # doctest: +SKIP
        0.5
    """
    xp = _module(rows)
    steps, batch, width = tc.shape
    rows_t, rows_b, _ = _elements(rows)
    hs_t, hs_b, _ = _elements(hs)
    hn, cn = xp.empty((batch, width), tc.dtype), xp.empty((batch, width), tc.dtype)
    launch_rows("lstm_sequence", batch, width,
                (rows, rows_t, rows_b, w_s, xp.ascontiguousarray(h0),
                 xp.ascontiguousarray(c0), c, act, tc, hs, hs_t, hs_b, hn, cn,
                 *_walk(steps, reverse), np.int64(width), np.int64(batch)),
                threads=step_threads(width))
    return hn, cn


def lstm_sequence_grad(act, c, tc, g_out, w, g_h, g_c, d_rows, previous, reverse):
    """The backward of lstm_sequence, one kernel: as recurrent.lstm_backward_step followed
    by dh = d_rows[t] @ w at each step walked back (w the C-ordered weight_hh [4H, H];
    g_h, g_c the final states' gradients [B, H], None for zeros). `previous` is (the
    outputs hs [T, B, H], h0 [B, H], `into` [T, B, H]): the kernel fills `into` with the
    state each step started from, as arrays.previous_hidden does. Returns the initial
    states' gradients (dh, dc), new arrays.

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> act = cupy.full((1, 4, 2, 3), 0.5)  # doctest: +SKIP
        >>> c, tc = cupy.ones((2, 2, 3)), cupy.zeros((1, 2, 3))  # doctest: +SKIP
        >>> d_rows, w = cupy.empty((1, 2, 12)), cupy.ones((12, 3))  # doctest: +SKIP
        >>> h0, hs, into = cupy.zeros((2, 3)), cupy.ones((1, 2, 3)), cupy.empty((1, 2, 3))
        ... # doctest: +SKIP
        >>> dh, dc = lstm_sequence_grad(act, c, tc, None, w, None, cupy.ones((2, 3)),
        ...                             d_rows, (hs, h0, into), False)  # doctest: +SKIP
        >>> float(dc[0, 0])  # dc * f  # doctest: +SKIP
        0.5
    """
    xp = _module(act)
    _, _, batch, width = act.shape
    dh, dc = xp.empty((batch, width), act.dtype), xp.empty((batch, width), act.dtype)
    go_t, go_b = _elements(g_out)[:2] if g_out is not None else (np.int64(0), np.int64(0))
    dr_t, dr_b, _ = _elements(d_rows)
    launch_rows("lstm_sequence_grad", batch, width,
                (act, c, tc, dh if g_out is None else g_out, go_t, go_b,
                 np.int32(g_out is not None), w, *_given(xp, g_h, dh), *_given(xp, g_c, dc),
                 dh, dc, d_rows, dr_t, dr_b, *_previous(xp, previous),
                 *_walk(len(tc), reverse), np.int64(width), np.int64(batch)),
                threads=step_threads(width))
    return dh, dc


def gru_sequence(rows, w_s, h0, bias, prod, act, hs, reverse):
    """Every step of a GRU layer's direction with its hidden products, one kernel: as
    recurrent.gru_forward_step at each step of the walk, with prod[t] = h @ w_s computed
    inside (h0: the [B, H] state before the first step; w_s the C-ordered, pre-scaled
    per-gate W^T [3, H, H] (`hidden_weights`); at most FUSED_WIDTH units). Returns the final
    h, a new array.

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> rows, w_s = cupy.zeros((1, 2, 3)), cupy.zeros((3, 1, 1))  # doctest: +SKIP
        >>> prod, act = cupy.zeros((1, 3, 2, 1)), cupy.empty((1, 3, 2, 1))  # doctest: +SKIP
        >>> hs = cupy.empty((1, 2, 1))  # doctest: +SKIP
        >>> h0 = cupy.ones((2, 1))  # doctest: +SKIP
        >>> h = gru_sequence(rows, w_s, h0, None, prod, act, hs, False)  # doctest: +SKIP
        >>> float(h[0, 0])  # z = 0.5, n = 0: h' = 0.5 h  # doctest: +SKIP
        0.5
    """
    xp = _module(rows)
    steps, _, batch, width = act.shape
    rows_t, rows_b, _ = _elements(rows)
    hs_t, hs_b, _ = _elements(hs)
    hn = xp.empty((batch, width), act.dtype)
    launch_rows("gru_sequence", batch, width,
                (rows, rows_t, rows_b, w_s, xp.ascontiguousarray(h0),
                 rows if bias is None else bias, np.int32(bias is not None), prod, act, hs,
                 hs_t, hs_b, hn, *_walk(steps, reverse), np.int64(width), np.int64(batch)),
                threads=step_threads(width))
    return hn


def gru_sequence_grad(act, prod, previous, g_out, w, g_h, d_hid, d_n, reverse):
    """The backward of gru_sequence, one kernel: as recurrent.gru_backward_step followed by
    tmp = d_hid[t] @ w at each step walked back, the step's factors (GRUArrays._factors)
    worked out inside from act, prod and the state each step started from, which `previous`
    gives and takes as in lstm_sequence_grad: (the outputs hs [T, B, H], h0 [B, H], `into`
    [T, B, H] to fill). w is the C-ordered weight_hh [3H, H]; g_h the final state's gradient
    [B, H], None for zeros. Returns h0's gradient, a new array.

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> act, prod = cupy.full((1, 3, 2, 1), 0.5), cupy.ones((1, 3, 2, 1))  # doctest: +SKIP
        >>> h0, w = cupy.ones((2, 1)), cupy.ones((3, 1))  # doctest: +SKIP
        >>> hs, into = cupy.empty((1, 2, 1)), cupy.empty((1, 2, 1))  # doctest: +SKIP
        >>> d_hid, d_n = cupy.empty((1, 2, 3)), cupy.empty((1, 2, 1))  # doctest: +SKIP
        >>> dh = gru_sequence_grad(act, prod, (hs, h0, into), None, w, cupy.ones((2, 1)),
        ...                        d_hid, d_n, False)  # doctest: +SKIP
        >>> float(dh[0, 0])  # dh * z + the product of the gates' gradients  # doctest: +SKIP
        0.90625
    """
    xp = _module(act)
    _, _, batch, width = act.shape
    tmp, dhz = xp.empty((batch, width), act.dtype), xp.empty((batch, width), act.dtype)
    go_t, go_b = _elements(g_out)[:2] if g_out is not None else (np.int64(0), np.int64(0))
    dh_t, dh_b, _ = _elements(d_hid)
    dn_t, dn_b, _ = _elements(d_n)
    launch_rows("gru_sequence_grad", batch, width,
                (act, prod, *_previous(xp, previous), tmp if g_out is None else g_out, go_t,
                 go_b,
                 np.int32(g_out is not None), w, *_given(xp, g_h, dhz), tmp, dhz, d_hid, dh_t,
                 dh_b, d_n, dn_t, dn_b, *_walk(len(act), reverse), np.int64(width),
                 np.int64(batch)),
                threads=step_threads(width))
    return dhz
