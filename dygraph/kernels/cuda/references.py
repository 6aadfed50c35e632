"""What each CUDA kernel of dygraph/kernels/cuda computes, as NumPy statements.

One function per kernel, keyed by the kernel's name, taking the kernel's parameters in its
order (inputs, then outputs, written in place), with the arithmetic of the CUDA body in the
same order. tests/gpu compares each kernel with its statement; the CuPy stand-in
(tools/cupy_standin.py) runs the statement where the kernel would run, so that the code
around a kernel is tested on machines without a GPU.

Example:
    >>> import numpy as np
    >>> p, g = np.ones(2, np.float32), np.ones(2, np.float32)
    >>> m, v = np.zeros(2, np.float32), np.zeros(2, np.float32)
    >>> t, correction = np.float32, 0.001 ** 0.5  # sqrt(1 - beta2 ** 1)
    >>> step = t(0.1 * correction / (1 - 0.9))  # lr 0.1, beta1 0.9, the first step
    >>> KERNELS["dygraph_adam"](g, t(0.9), t(0.1), t(0.999), t(0.001), t(1e-8), step, p, m, v)
    >>> p.round(6)  # the first step moves by the learning rate
    array([0.9, 0.9], dtype=float32)
"""

import numpy as np

__all__ = ["KERNELS"]


def adam(g, b1, c1, b2, c2, eps, step, p, m, v):
    m[...] = m * b1 + g * c1
    v[...] = v * b2 + (g * g) * c2
    p -= (m / (np.sqrt(v) + eps)) * step


def _gates(z, k, width):
    return z[:, k * width:(k + 1) * width]


def lstm_forward(pre, prod, c_prev, width, cells, act, c_next, tc, h):
    width = int(width)
    z = pre + prod
    half = z.dtype.type(0.5)
    gi = np.tanh(_gates(z, 0, width)) * half + half
    gf = np.tanh(_gates(z, 1, width)) * half + half
    gg = np.tanh(_gates(z, 2, width))
    go = np.tanh(_gates(z, 3, width)) * half + half
    act[0], act[1], act[2], act[3] = gi, gf, gg, go
    c_next[...] = gf * c_prev + gi * gg
    tc[...] = np.tanh(c_next)
    h[...] = go * tc


def lstm_backward(act, c_prev, tc, dh, width, cells, drow, dc):
    width = int(width)
    one = tc.dtype.type(1)
    gi, gf, gg, go = act[0], act[1], act[2], act[3]
    d = dc + dh * ((one - tc * tc) * go)
    _gates(drow, 0, width)[...] = d * gg * (gi * (one - gi))
    _gates(drow, 1, width)[...] = d * c_prev * (gf * (one - gf))
    _gates(drow, 2, width)[...] = d * gi * (one - gg * gg)
    _gates(drow, 3, width)[...] = dh * tc * (go * (one - go))
    dc[...] = d * gf


_MASK32 = np.uint64(0xFFFFFFFF)


def philox4x32(c0, c1, c2, c3, k0, k1):
    """Philox4x32-10 (Salmon et al., SC 2011) of counter words c0..c3 under key words
    k0, k1 (uint64 arrays or scalars holding 32-bit values): the four output words."""
    for _ in range(10):
        p0, p1 = np.uint64(0xD2511F53) * c0, np.uint64(0xCD9E8D57) * c2
        h0, l0 = p0 >> np.uint64(32), p0 & _MASK32
        h1, l1 = p1 >> np.uint64(32), p1 & _MASK32
        c0, c1, c2, c3 = h1 ^ c1 ^ k0, l1, h0 ^ c3 ^ k1, l0
        k0 = (k0 + np.uint64(0x9E3779B9)) & _MASK32
        k1 = (k1 + np.uint64(0xBB67AE85)) & _MASK32
    return c0, c1, c2, c3


def philox_uniform(key, counters):
    """u on [0, 1) as float32 from the first output word's top 24 bits of Philox4x32-10 of
    the uint64 `counters` (low word first, the other two words 0) under the uint64 `key`
    (low word first): the dropout kernel's draws."""
    key = np.uint64(key)
    zero = np.zeros_like(counters)
    word = philox4x32(counters & _MASK32, counters >> np.uint64(32), zero, zero,
                      key & _MASK32, key >> np.uint64(32))[0]
    return (word >> np.uint64(8)).astype(np.float32) * np.float32(2.0 ** -24)


def dropout_mask(state, p, scale, keep):
    counters = state[1] + np.arange(keep.size, dtype=np.uint64)
    u = philox_uniform(state[0], counters).reshape(keep.shape)
    keep[...] = np.where(u >= p, scale, keep.dtype.type(0))


KERNELS = {"dygraph_adam": adam, "dygraph_dropout_mask": dropout_mask,
           "dygraph_lstm_forward": lstm_forward, "dygraph_lstm_backward": lstm_backward}
