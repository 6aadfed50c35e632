"""Fused GPU kernels, written as CuPy ElementwiseKernels (CUDA C compiled by CuPy on first
use and cached on disk), for the places where a GPU step would otherwise launch a dozen
small kernels.

On the GPU an eager step is bound by launches: each CuPy call costs microseconds of host
time whatever its size, and Adam's update is eleven of them per parameter, which made
Adam's per-parameter calls over half of ResNet-18's step (figures:
docs/PERFORMANCE.md#gpu-kernels).

The kernels do the arithmetic of the NumPy paths they replace, in the same order, with the
scalar coefficients rounded to the array's dtype as NumPy rounds a Python float against an
array. CUDA may fuse a multiply and an add into one rounding, so results can differ from
the CPU's in the last bit (tests/gpu compares them).

Example:
    >>> from dygraph.kernels.cuda import elementwise as cuda_kernels
    >>> callable(cuda_kernels.adam_update)
    True
"""

import math

import numpy as np

__all__ = ["adam_update", "lstm_forward_step", "lstm_backward_step", "dropout_mask"]

_KERNELS = {}

_ADAM = """
m = m * b1 + g * c1;
v = v * b2 + (g * g) * c2;
p -= (m / (sqrt(v) + eps)) * step;
"""


# One LSTM step over its B * H cells, i = b * H + j (H is `width`). `pre` and `prod` are
# [B, 4H] (the step's input gates, pre-scaled so that tanh gives the sigmoids as
# (1 + tanh) / 2, and h @ W^T scaled alike); `act` is the step's [4, B, H] block of
# activations, gate-major.
_LSTM_FORWARD = """
const ptrdiff_t b = i / width, base = b * 4 * width + (i - b * width);
const T half = 0.5;
const T gi = tanh(pre[base] + prod[base]) * half + half;
const T gf = tanh(pre[base + width] + prod[base + width]) * half + half;
const T gg = tanh(pre[base + 2 * width] + prod[base + 2 * width]);
const T go = tanh(pre[base + 3 * width] + prod[base + 3 * width]) * half + half;
act[i] = gi;
act[cells + i] = gf;
act[2 * cells + i] = gg;
act[3 * cells + i] = go;
c_next = gf * c_prev + gi * gg;
tc = tanh(c_next);
h = go * tc;
"""

# Its backward: dc carries the cell's gradient in and out (times f for the step before);
# `drow` is the step's [B, 4H] row block of pre-activation gradients.
_LSTM_BACKWARD = """
const ptrdiff_t b = i / width, base = b * 4 * width + (i - b * width);
const T one = 1;
const T gi = act[i], gf = act[cells + i], gg = act[2 * cells + i], go = act[3 * cells + i];
const T d = dc + dh * ((one - tc * tc) * go);
drow[base] = d * gg * (gi * (one - gi));
drow[base + width] = d * c_prev * (gf * (one - gf));
drow[base + 2 * width] = d * gi * (one - gg * gg);
drow[base + 3 * width] = dh * tc * (go * (one - go));
dc = d * gf;
"""


# Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011) of
# the counter state[1] + i under the key state[0]; the first output word's top 24 bits make
# u, uniform on [0, 1) in steps of 2^-24, and the element is kept when u >= p.
_DROPOUT_MASK = """
const unsigned long long n = state[1] + (unsigned long long)i;
unsigned int c0 = (unsigned int)n, c1 = (unsigned int)(n >> 32), c2 = 0, c3 = 0;
unsigned int k0 = (unsigned int)state[0], k1 = (unsigned int)(state[0] >> 32);
for (int r = 0; r < 10; ++r) {
    const unsigned long long p0 = 0xD2511F53ull * c0, p1 = 0xCD9E8D57ull * c2;
    const unsigned int h0 = (unsigned int)(p0 >> 32), l0 = (unsigned int)p0;
    const unsigned int h1 = (unsigned int)(p1 >> 32), l1 = (unsigned int)p1;
    c0 = h1 ^ c1 ^ k0;
    c1 = l1;
    c2 = h0 ^ c3 ^ k1;
    c3 = l0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
}
const float u = (float)(c0 >> 8) * 5.9604644775390625e-08f;
keep = u >= p ? scale : (T)0;
"""


def _kernel(name, in_params, out_params, body):
    kernel = _KERNELS.get(name)
    if kernel is None:
        import cupy

        kernel = _KERNELS[name] = cupy.ElementwiseKernel(in_params, out_params, body,
                                                         f"dygraph_{name}")
    return kernel


def adam_update(param, grad, m, v, lr, beta1, beta2, epsilon, beta1_pow, beta2_pow):
    """One Adam step on CuPy arrays in place (param, and the moments m and v), in one
    kernel; beta1_pow and beta2_pow are the powers of the betas before this step (Python
    floats: they live on the host).

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> p, g = cupy.ones(3, cupy.float32), cupy.ones(3, cupy.float32)  # doctest: +SKIP
        >>> m, v = cupy.zeros(3, cupy.float32), cupy.zeros(3, cupy.float32)  # doctest: +SKIP
        >>> adam_update(p, g, m, v, 0.1, 0.9, 0.999, 1e-8, 0.9, 0.999)  # doctest: +SKIP
        >>> p  # the first step moves by the learning rate  # doctest: +SKIP
        array([0.9, 0.9, 0.9], dtype=float32)
    """
    t = param.dtype.type
    correction = math.sqrt(1.0 - beta2_pow)
    kernel = _kernel("adam", "T g, T b1, T c1, T b2, T c2, T eps, T step", "T p, T m, T v",
                     _ADAM)
    kernel(grad, t(beta1), t(1.0 - beta1), t(beta2), t(1.0 - beta2), t(epsilon * correction),
           t(lr * correction / (1.0 - beta1_pow)), param, m, v)


def lstm_forward_step(pre, prod, c_prev, act, c_next, tc, h):
    """The element-wise part of an LSTM step on CuPy arrays in one kernel: the gates from
    the pre-activations `pre` + `prod` ([B, 4H] each, any strides) into `act` [4, B, H]
    (C-ordered), the new cell state into `c_next`, tanh of it into `tc` and h into `h`.
    `LSTMArrays.forward` (dygraph/ops/rnn/arrays.py) calls it once a step; the
    backward's counterpart is lstm_backward_step.

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> pre, prod = cupy.zeros((2, 12)), cupy.zeros((2, 12))  # doctest: +SKIP
        >>> c0, act = cupy.ones((2, 3)), cupy.empty((4, 2, 3))  # doctest: +SKIP
        >>> c1, tc, h = (cupy.empty((2, 3)) for _ in range(3))  # doctest: +SKIP
        >>> lstm_forward_step(pre, prod, c0, act, c1, tc, h)  # doctest: +SKIP
        >>> float(c1[0, 0])  # f = i = 0.5, g = 0: c1 = 0.5 * c0  # doctest: +SKIP
        0.5
    """
    kernel = _kernel("lstm_forward", "raw T pre, raw T prod, T c_prev, int64 width, int64 cells",
                     "raw T act, T c_next, T tc, T h", _LSTM_FORWARD)
    batch, size = c_prev.shape
    kernel(pre, prod, c_prev, size, batch * size, act, c_next, tc, h)


def lstm_backward_step(act, c_prev, tc, dh, dc, drow):
    """The element-wise part of an LSTM step's backward in one kernel: from the step's
    activations `act` [4, B, H], cell state before it, tanh of the one after, and the
    gradients dh (of h) and dc (of the cell, updated in place to the previous step's),
    the gradients of the step's pre-activations into `drow` [B, 4H] (any strides).

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> act = cupy.full((4, 2, 3), 0.5)  # i = f = o = 0.5, g = 0.5  # doctest: +SKIP
        >>> c0, tc, dh = cupy.ones((2, 3)), cupy.zeros((2, 3)), cupy.zeros((2, 3))  # doctest: +SKIP
        >>> dc, drow = cupy.ones((2, 3)), cupy.empty((2, 12))  # doctest: +SKIP
        >>> lstm_backward_step(act, c0, tc, dh, dc, drow)  # doctest: +SKIP
        >>> float(dc[0, 0])  # dc * f  # doctest: +SKIP
        0.5
    """
    kernel = _kernel("lstm_backward", "raw T act, T c_prev, T tc, T dh, int64 width, int64 cells",
                     "raw T drow, T dc", _LSTM_BACKWARD)
    batch, size = dh.shape
    kernel(act, c_prev, tc, dh, size, batch * size, drow, dc)


def dropout_mask(state, p, scale, keep):
    """Fill `keep` (a C-ordered CuPy array) with `scale` where the element's uniform draw
    is at least p and 0 elsewhere, one kernel; the draws are Philox4x32-10 of the counters
    state[1] + i (i the element's index) under the key state[0], `state` a uint64 CuPy
    array [key, counter] that the caller advances (dygraph/backend/device_random.py).

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> state = cupy.array([7, 0], cupy.uint64)  # doctest: +SKIP
        >>> keep = cupy.empty(1000, cupy.float32)  # doctest: +SKIP
        >>> dropout_mask(state, 0.5, 2.0, keep)  # doctest: +SKIP
        >>> 400 < int((keep == 2.0).sum()) < 600  # doctest: +SKIP
        True
    """
    kernel = _kernel("dropout_mask", "raw uint64 state, float32 p, T scale", "T keep",
                     _DROPOUT_MASK)
    kernel(state, np.float32(p), keep.dtype.type(scale), keep)
