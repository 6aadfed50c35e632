"""An LSTM or GRU time step with its hidden product as one GPU kernel each way, for RNNs
of at most FUSED_WIDTH hidden units (dygraph/ops/rnn/arrays.py calls them once a step):
row kernels (registry.define_rows) with a thread block per batch row, the state in shared
memory. A step was a cuBLAS product and an element-wise kernel each way
(dygraph/kernels/cuda/recurrent.py, which wider RNNs still take); one launch a step instead
of two halves an RNN step's launches.

The element-wise arithmetic is that of recurrent.py's kernels, in the same order; the
products are sums in order over the units, another order than cuBLAS's.

Example:
    >>> from dygraph.kernels.cuda.registry import ROW_KERNEL_SPECS
    >>> sorted(n for n in ROW_KERNEL_SPECS if n.endswith(("_step", "_step_grad")))
    ['gru_step', 'gru_step_grad', 'lstm_step', 'lstm_step_grad']
"""

import os

import numpy as np

from dygraph.kernels.cuda.registry import define_rows, launch_rows

__all__ = ["FUSED_WIDTH", "MAX_FUSED_WIDTH", "step_threads", "lstm_step", "lstm_step_grad",
           "gru_step", "gru_step_grad"]

# The most hidden units of an LSTM or GRU whose steps run as one kernel with their
# product: each block (a batch row) reads all of W ([H, 4H]), which stays in the L2 cache
# while it is small (H = 256: 1 MB in float32); past that cuBLAS's one product reads it
# once. The threshold is a guess awaiting a GPU's measurement (docs/PERFORMANCE.md);
# DYGRAPH_RNN_STEP_WIDTH lowers it (0: every step takes cuBLAS and the element-wise
# kernel), to measure one against the other. The kernels' shared rows hold
# MAX_FUSED_WIDTH units.
MAX_FUSED_WIDTH = 256
FUSED_WIDTH = min(int(os.environ.get("DYGRAPH_RNN_STEP_WIDTH", MAX_FUSED_WIDTH)),
                  MAX_FUSED_WIDTH)

# One LSTM step with its hidden product, a block per batch row b: the row h[b] (at
# element h_at + b * h_b of h: h0, or the step before's outputs in hs) into shared memory,
# then per hidden unit j the four dot products with the pre-scaled W^T `w_s` [H, 4H]
# (C-ordered), added to the input gates rows[t, b] (strides rows_t, rows_b), and the
# element-wise step of recurrent._LSTM_FORWARD; hs[t, b] by strides.
_LSTM_STEP = """
extern "C" __global__ void KERNEL(const T* rows, long long rows_t, long long rows_b,
                                  const T* w_s, const T* h, long long h_at, long long h_b,
                                  T* c, T* act,
                                  T* tc, T* hs, long long hs_t, long long hs_b, long long t,
                                  long long s, long long width, long long batch) {
    __shared__ T hrow[256];
    const long long b = blockIdx.x, cells = batch * width;
    for (long long k = threadIdx.x; k < width; k += blockDim.x) hrow[k] = h[h_at + b * h_b + k];
    __syncthreads();
    const T half = 0.5;
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
        hs[t * hs_t + b * hs_b + j] = go * th;
    }
}
"""

# Its backward, a block per batch row b: the element-wise step of
# recurrent._LSTM_BACKWARD (dh, dc [B, H] C-ordered; g_out and d_rows by strides), its
# four gate gradients kept in shared memory, then dh[b] = d_rows[t, b] @ W (W = weight_hh
# [4H, H], C-ordered) for the step before. Each thread reads and writes the same units of
# dh on both sides of the barrier.
_LSTM_STEP_GRAD = """
extern "C" __global__ void KERNEL(const T* act, const T* c, const T* tc, const T* g_out,
                                  long long go_t, long long go_b, int has_g, const T* w,
                                  T* dh, T* dc, T* d_rows, long long dr_t, long long dr_b,
                                  long long t, long long s, long long width,
                                  long long batch) {
    __shared__ T dz[4 * 256];
    const long long b = blockIdx.x, cells = batch * width;
    const T one = 1;
    T* dr = d_rows + t * dr_t + b * dr_b;
    for (long long j = threadIdx.x; j < width; j += blockDim.x) {
        const long long i = b * width + j, a = s * 4 * cells + i;
        T g = dh[i];
        if (has_g) g += g_out[t * go_t + b * go_b + j];
        const T gi = act[a], gf = act[a + cells], gg = act[a + 2 * cells];
        const T go = act[a + 3 * cells];
        const T th = tc[s * cells + i];
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
}
"""

# One GRU step with its hidden product, a block per batch row b: h[b] (at h_at + b * h_b,
# as in _LSTM_STEP) into shared memory, then per unit j the three dot products with the
# per-gate, pre-scaled W^T `w_s` [3, H, H] (C-ordered) into prod[t] ([T, 3, B, H], kept
# for backward; the c block with the hidden bias added), and the element-wise step of
# recurrent._GRU_FORWARD; rows [T, B, 3H] and hs [T, B, H] by strides.
_GRU_STEP = """
extern "C" __global__ void KERNEL(const T* rows, long long rows_t, long long rows_b,
                                  const T* w_s, const T* h, long long h_at, long long h_b,
                                  const T* bias, int has_bias, T* prod, T* act, T* hs,
                                  long long hs_t, long long hs_b, long long t,
                                  long long width, long long batch) {
    __shared__ T hrow[256];
    const long long b = blockIdx.x, cells = batch * width, square = width * width;
    for (long long k = threadIdx.x; k < width; k += blockDim.x) hrow[k] = h[h_at + b * h_b + k];
    __syncthreads();
    const T half = 0.5;
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
        hs[t * hs_t + b * hs_b + j] = (hrow[j] - n) * z + n;
    }
}
"""

# Its backward, a block per batch row b: the element-wise step of
# recurrent._GRU_BACKWARD (dhz and tmp [B, H] C-ordered; g_out, d_hid and d_n by strides),
# the step's three hidden-product gradients kept in shared memory, then tmp[b] =
# d_hid[t, b] @ W (W = weight_hh [3H, H], C-ordered) for the step before. Each thread
# reads and writes the same units of tmp on both sides of the barrier.
_GRU_STEP_GRAD = """
extern "C" __global__ void KERNEL(const T* act, const T* prod, const T* z_in,
                                  const T* g_out, long long go_t, long long go_b, int has_g,
                                  const T* w, T* tmp, T* dhz, T* d_hid, long long dh_t,
                                  long long dh_b, T* d_n, long long dn_t, long long dn_b,
                                  long long t, long long width, long long batch) {
    __shared__ T dz[3 * 256];
    const long long b = blockIdx.x, cells = batch * width;
    T* dr = d_hid + t * dh_t + b * dh_b;
    for (long long j = threadIdx.x; j < width; j += blockDim.x) {
        const long long i = b * width + j, a = t * 3 * cells + i;
        T d = dhz[i] + tmp[i];
        if (has_g) d += g_out[t * go_t + b * go_b + j];
        const T dn = d * prod[a];
        d_n[t * dn_t + b * dn_b + j] = dn;
        const T d0 = dn * prod[a + cells];
        const T d1 = d * z_in[t * cells + i];
        const T d2 = dn * act[a];
        dr[j] = d0;
        dr[width + j] = d1;
        dr[2 * width + j] = d2;
        dz[j] = d0;
        dz[width + j] = d1;
        dz[2 * width + j] = d2;
        dhz[i] = d * act[a + cells];
    }
    __syncthreads();
    for (long long k = threadIdx.x; k < width; k += blockDim.x) {
        T sum = 0;
        for (long long col = 0; col < 3 * width; ++col) sum += dz[col] * w[col * width + k];
        tmp[b * width + k] = sum;
    }
}
"""

define_rows("lstm_step", _LSTM_STEP)
define_rows("lstm_step_grad", _LSTM_STEP_GRAD)
define_rows("gru_step", _GRU_STEP)
define_rows("gru_step_grad", _GRU_STEP_GRAD)


def _elements(a):
    """The strides of `a` in elements."""
    return [np.int64(st // a.itemsize) for st in a.strides]


def step_threads(width):
    """Threads per block of the step kernels: a thread per unit, in whole warps, at most
    MAX_FUSED_WIDTH.

    Example:
        >>> step_threads(3), step_threads(200)
        (32, 224)
    """
    return int(min(MAX_FUSED_WIDTH, -(-width // 32) * 32))


def lstm_step(rows, w_s, h, t, s, c, act, tc, hs):
    """The walk's s-th LSTM step (time t) with its hidden product, one kernel: as
    recurrent.lstm_forward_step with prod = h @ w_s computed inside (h: the state before, a
    C-ordered [B, H] array, or the time index in hs of the step before; w_s the C-ordered,
    pre-scaled W^T [H, 4H]; at most FUSED_WIDTH units).

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> rows, w_s = cupy.zeros((1, 2, 12)), cupy.zeros((3, 12))  # doctest: +SKIP
        >>> c, act = cupy.ones((2, 2, 3)), cupy.empty((1, 4, 2, 3))  # doctest: +SKIP
        >>> tc, hs = cupy.empty((1, 2, 3)), cupy.empty((1, 2, 3))  # doctest: +SKIP
        >>> lstm_step(rows, w_s, cupy.ones((2, 3)), 0, 0, c, act, tc, hs)  # doctest: +SKIP
        >>> float(c[1, 0, 0])  # f = i = 0.5, g = 0: c1 = 0.5 * c0  # doctest: +SKIP
        0.5
    """
    _, batch, width = tc.shape
    rows_t, rows_b, _ = _elements(rows)
    hs_t, hs_b, _ = _elements(hs)
    state, h_at, h_b = _state_before(h, hs, width)  # an int h: no view made of hs[h]
    launch_rows("lstm_step", batch, width,
                (rows, rows_t, rows_b, w_s, state, h_at, h_b, c, act, tc, hs, hs_t, hs_b,
                 np.int64(t), np.int64(s), np.int64(width), np.int64(batch)),
                threads=step_threads(width))


def lstm_step_grad(act, c, tc, g_out, w, t, s, dh, dc, d_rows):
    """The backward of the walk's s-th LSTM step (time t) with the product for the step
    before, one kernel: as recurrent.lstm_backward_step followed by dh = d_rows[t] @ w (w
    the C-ordered weight_hh [4H, H]; dh, dc C-ordered [B, H], updated in place).

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> act = cupy.full((1, 4, 2, 3), 0.5)  # doctest: +SKIP
        >>> c, tc = cupy.ones((2, 2, 3)), cupy.zeros((1, 2, 3))  # doctest: +SKIP
        >>> dh, dc = cupy.zeros((2, 3)), cupy.ones((2, 3))  # doctest: +SKIP
        >>> d_rows, w = cupy.empty((1, 2, 12)), cupy.ones((12, 3))  # doctest: +SKIP
        >>> lstm_step_grad(act, c, tc, None, w, 0, 0, dh, dc, d_rows)  # doctest: +SKIP
        >>> float(dc[0, 0])  # dc * f  # doctest: +SKIP
        0.5
    """
    batch, width = dh.shape
    go_t, go_b = _elements(g_out)[:2] if g_out is not None else (np.int64(0), np.int64(0))
    dr_t, dr_b, _ = _elements(d_rows)
    launch_rows("lstm_step_grad", batch, width,
                (act, c, tc, dh if g_out is None else g_out, go_t, go_b,
                 np.int32(g_out is not None), w, dh, dc, d_rows, dr_t, dr_b, np.int64(t),
                 np.int64(s), np.int64(width), np.int64(batch)),
                threads=step_threads(width))


def _state_before(h, hs, width):
    """(array, element offset, row stride) of the state a step starts from: h, a C-ordered
    [B, H] array, or the outputs in hs of time h (an int)."""
    if isinstance(h, int):
        hs_t, hs_b, _ = _elements(hs)
        return hs, np.int64(h * hs_t), hs_b
    return h, np.int64(0), np.int64(width)


def gru_step(rows, w_s, h, bias, t, prod, act, hs):
    """GRU step t with its hidden product, one kernel: as recurrent.gru_forward_step with
    prod[t] = h @ w_s computed inside (h: the state before, a C-ordered [B, H] array, or
    the time index in hs of the step before; w_s the C-ordered, pre-scaled per-gate W^T
    [3, H, H]; at most FUSED_WIDTH units).

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> rows, w_s = cupy.zeros((1, 2, 3)), cupy.zeros((3, 1, 1))  # doctest: +SKIP
        >>> prod, act = cupy.zeros((1, 3, 2, 1)), cupy.empty((1, 3, 2, 1))  # doctest: +SKIP
        >>> hs = cupy.empty((1, 2, 1))  # doctest: +SKIP
        >>> gru_step(rows, w_s, cupy.ones((2, 1)), None, 0, prod, act, hs)  # doctest: +SKIP
        >>> float(hs[0, 0, 0])  # z = 0.5, n = 0: h' = 0.5 h  # doctest: +SKIP
        0.5
    """
    _, _, batch, width = act.shape
    rows_t, rows_b, _ = _elements(rows)
    hs_t, hs_b, _ = _elements(hs)
    state, h_at, h_b = _state_before(h, hs, width)
    launch_rows("gru_step", batch, width,
                (rows, rows_t, rows_b, w_s, state, h_at, h_b, rows if bias is None else bias,
                 np.int32(bias is not None), prod, act, hs, hs_t, hs_b, np.int64(t),
                 np.int64(width), np.int64(batch)),
                threads=step_threads(width))


def gru_step_grad(act, prod, z_in, g_out, w, t, tmp, dhz, d_hid, d_n):
    """The backward of GRU step t with the product for the step before, one kernel: as
    recurrent.gru_backward_step followed by tmp = d_hid[t] @ w (w the C-ordered weight_hh
    [3H, H]; tmp, dhz C-ordered [B, H], updated in place).

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> act, prod = cupy.full((1, 3, 2, 1), 0.5), cupy.ones((1, 3, 2, 1))  # doctest: +SKIP
        >>> z_in, tmp = cupy.ones((1, 2, 1)), cupy.zeros((2, 1))  # doctest: +SKIP
        >>> dhz, w = cupy.ones((2, 1)), cupy.ones((3, 1))  # doctest: +SKIP
        >>> d_hid, d_n = cupy.empty((1, 2, 3)), cupy.empty((1, 2, 1))  # doctest: +SKIP
        >>> gru_step_grad(act, prod, z_in, None, w, 0, tmp, dhz, d_hid, d_n)  # doctest: +SKIP
        >>> float(dhz[0, 0])  # dh * z  # doctest: +SKIP
        0.5
    """
    batch, width = tmp.shape
    go_t, go_b = _elements(g_out)[:2] if g_out is not None else (np.int64(0), np.int64(0))
    dh_t, dh_b, _ = _elements(d_hid)
    dn_t, dn_b, _ = _elements(d_n)
    launch_rows("gru_step_grad", batch, width,
                (act, prod, z_in, tmp if g_out is None else g_out, go_t, go_b,
                 np.int32(g_out is not None), w, tmp, dhz, d_hid, dh_t, dh_b, d_n, dn_t, dn_b,
                 np.int64(t), np.int64(width), np.int64(batch)),
                threads=step_threads(width))
