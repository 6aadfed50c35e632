"""What each CUDA kernel of dygraph/kernels/cuda computes, as NumPy statements.

One function per kernel, keyed by the kernel's name, taking the kernel's parameters in its
order (inputs, then outputs, written in place), with the arithmetic of the CUDA body in the
same order. tests/gpu compares each kernel with its statement; the CuPy stand-in
(tools/cupy_standin/) runs the statement where the kernel would run, so that the code
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


def momentum(g, mu, lr, nesterov, p, v):
    v[...] = v * mu + g
    p -= (v * mu + g) * lr if nesterov else v * lr


def _gates(z, k, width):
    return z[:, k * width:(k + 1) * width]


def lstm_forward(rows, prod, t, s, width, cells, c, act, tc, hs, size=None):
    t, s, width = int(t), int(s), int(width)
    z = rows[t] + prod
    half = z.dtype.type(0.5)
    gi = np.tanh(_gates(z, 0, width)) * half + half
    gf = np.tanh(_gates(z, 1, width)) * half + half
    gg = np.tanh(_gates(z, 2, width))
    go = np.tanh(_gates(z, 3, width)) * half + half
    act[s, 0], act[s, 1], act[s, 2], act[s, 3] = gi, gf, gg, go
    c[s + 1] = gf * c[s] + gi * gg
    tc[s] = np.tanh(c[s + 1])
    hs[t] = go * tc[s]


def lstm_backward(act, c, tc, g_out, t, s, width, cells, has_g, dh, dc, d_rows):
    t, s, width = int(t), int(s), int(width)
    one = dh.dtype.type(1)
    g = dh + g_out[t] if has_g else dh
    gi, gf, gg, go = act[s, 0], act[s, 1], act[s, 2], act[s, 3]
    th = tc[s]
    d = dc + g * ((one - th * th) * go)
    rows = d_rows[t]
    _gates(rows, 0, width)[...] = d * gg * (gi * (one - gi))
    _gates(rows, 1, width)[...] = d * c[s] * (gf * (one - gf))
    _gates(rows, 2, width)[...] = d * gi * (one - gg * gg)
    _gates(rows, 3, width)[...] = g * th * (go * (one - go))
    dc[...] = d * gf


def gru_forward(rows, h, bias, t, width, cells, has_bias, prod, act, hs):
    t, width = int(t), int(width)
    g, p, a = rows[t], prod[t], act[t]
    half = h.dtype.type(0.5)
    r = np.tanh(_gates(g, 0, width) + p[0]) * half + half
    z = np.tanh(_gates(g, 1, width) + p[1]) * half + half
    if has_bias:
        p[2] += bias
    n = np.tanh(_gates(g, 2, width) + r * p[2])
    a[0], a[1], a[2] = r, z, n
    hs[t] = (h - n) * z + n


def gru_backward(act, prod, z_in, g_out, t, width, cells, has_g, tmp, dhz, d_hid, d_n):
    t, width = int(t), int(width)
    d = dhz + tmp
    if has_g:
        d += g_out[t]
    dn = d * prod[t, 0]
    d_n[t] = dn
    rows = d_hid[t]
    _gates(rows, 0, width)[...] = dn * prod[t, 1]
    _gates(rows, 1, width)[...] = d * z_in[t]
    _gates(rows, 2, width)[...] = dn * act[t, 0]
    dhz[...] = d * act[t, 1]


def layer_norm_rows(x, w, b, y, xhat, rstd, n, eps, has_w, has_b):
    n = int(n)
    x2, t = x.reshape(-1, n), x.dtype.type
    mean = (x2 * t(1.0 / n)).sum(axis=1, keepdims=True)
    c = x2 - mean
    var = (c * c).sum(axis=1, keepdims=True) / t(n)
    r = t(1) / np.sqrt(var + eps)
    h = (x2 - mean) * r
    xhat[...] = h.reshape(xhat.shape)
    v = h * w.reshape(-1) if has_w else h
    if has_b:
        v = v + b.reshape(-1)
    y[...] = v.reshape(y.shape)
    rstd[...] = r.reshape(rstd.shape)


def layer_norm_rows_grad(g, xhat, w, rstd, dx, gxw, n, has_w, want_dx, want_gxw):
    n = int(n)
    g2, h, t = g.reshape(-1, n), xhat.reshape(-1, n), g.dtype.type
    if want_dx:
        gh = g2 * w.reshape(-1) if has_w else g2
        mean_g = (gh * t(1.0 / n)).sum(axis=1, keepdims=True)
        mean_gx = (gh * h).sum(axis=1, keepdims=True) / t(n)
        dx[...] = ((gh - (h * mean_gx + mean_g)) * rstd.reshape(-1, 1)).reshape(dx.shape)
    if want_gxw:
        gxw[...] = (g2 * h).reshape(gxw.shape)


def relu_grad(g, y, dx=None):
    out = g * (y > 0).astype(g.dtype)
    if dx is None:
        return out
    dx[...] = out


def relu6_grad(g, x, dx=None):
    out = g * ((x > 0) & (x < 6)).astype(g.dtype)
    if dx is None:
        return out
    dx[...] = out


def round_bfloat16(x, y=None):
    u = np.ascontiguousarray(x, np.float32).view(np.uint32)
    nan = ((u & np.uint32(0x7F800000)) == np.uint32(0x7F800000)) & (
        (u & np.uint32(0x007FFFFF)) != 0)
    rounded = (u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))) & np.uint32(
        0xFFFF0000)
    quiet = (u & np.uint32(0x80000000)) | np.uint32(0x7FC00000)
    out = np.where(nan, quiet, rounded).astype(np.uint32).view(np.float32).reshape(x.shape)
    if y is None:
        return out
    y[...] = out


def gate_inputs(g, b0, b1, s, width, split, y):
    columns = np.arange(int(width))
    bias = np.where(columns < int(split), b0 + b1, b0)
    y[...] = ((g.reshape(-1, int(width)) + bias) * s).reshape(y.shape)


def round_bfloat16_4(x0, x1, x2, x3, n0, n1, n2, y0, y1, y2, y3, size):
    counts = [int(n0), int(n1), int(n2)]
    counts.append(int(size) - sum(counts))
    for x, n, y in zip((x0, x1, x2, x3), counts, (y0, y1, y2, y3)):
        if n:
            y.reshape(-1)[:n] = round_bfloat16(np.ravel(x)[:n])


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


def _words(state, size):
    counters = state[1] + np.arange(size, dtype=np.uint64)
    key = np.uint64(state[0])
    zero = np.zeros_like(counters)
    return philox4x32(counters & _MASK32, counters >> np.uint64(32), zero, zero,
                      key & _MASK32, key >> np.uint64(32))


def _unit53(high, low):
    return ((high >> np.uint64(11)).astype(np.float64) * 4294967296.0
            + low.astype(np.float64)) * 2.0 ** -53


def uniform_draw(state, low, high, out):
    c0, c1, _, _ = _words(state, out.size)
    if out.dtype.itemsize == 8:
        u = _unit53(c0, c1)
        out[...] = (low + (high - low) * u).reshape(out.shape)
    else:
        u = (c0 >> np.uint64(8)).astype(np.float32) * np.float32(2.0 ** -24)
        out[...] = (low + (high - low) * u.astype(out.dtype)).reshape(out.shape)


def normal_draw(state, mean, std, out):
    c0, c1, c2, c3 = _words(state, out.size)
    if out.dtype.itemsize == 8:
        u1 = _unit53(c0, c1) + 2.0 ** -53
        u2 = _unit53(c2, c3)
        z = np.sqrt(-2.0 * np.log(u1)) * np.cos(6.283185307179586 * u2)
    else:
        t = np.float32
        u1 = ((c0 >> np.uint64(8)).astype(t) + t(1)) * t(2.0 ** -24)
        u2 = (c1 >> np.uint64(8)).astype(t) * t(2.0 ** -24)
        z = np.sqrt(t(-2) * np.log(u1)) * np.cos(t(6.2831855) * u2)
    out[...] = (mean + std * z.astype(out.dtype)).reshape(out.shape)


def dropout_mask(state, p, scale, keep):
    counters = state[1] + np.arange(keep.size, dtype=np.uint64)
    u = philox_uniform(state[0], counters).reshape(keep.shape)
    keep[...] = np.where(u >= p, scale, keep.dtype.type(0))


def batch_norm_inference(x, mean, var, w, b, eps, has_w, has_b, y=None):
    t = x.dtype.type
    r = t(1) / np.sqrt(var + eps)
    out = (x - mean) * r
    if has_w:
        out = out * w
    if has_b:
        out = out + b
    if y is None:
        return out
    y[...] = out


def batch_norm_running(old_mean, old_var, mean, rstd, momentum, rest, eps, new_mean=None,
                       new_var=None):
    t = old_mean.dtype.type
    var = t(1) / (rstd * rstd) - eps
    var = np.where(var < 0, t(0), var)
    mean_out = old_mean * momentum + rest * mean
    var_out = old_var * momentum + rest * var
    if new_mean is None:
        return mean_out, var_out
    new_mean[...], new_var[...] = mean_out, var_out


def _padded_2d(shape, h, w, oh, ow, kh, kw, sh, sw, ph, pw):
    """The padded (N, C, Hp, Wp) shape that every window of a 2-D pooling fits in."""
    return shape[:2] + (max(h + ph, (oh - 1) * sh + kh), max(w + pw, (ow - 1) * sw + kw))


def _tap_views(a, oh, ow, kh, kw, sh, sw):
    for i in range(kh):
        for j in range(kw):
            yield i * kw + j, a[:, :, i:i + sh * (oh - 1) + 1:sh, j:j + sw * (ow - 1) + 1:sw]


def max_pool2d(x, h, w, oh, ow, kh, kw, sh, sw, ph, pw, low, y, arg):
    src = np.full(_padded_2d(x.shape, h, w, oh, ow, kh, kw, sh, sw, ph, pw), low, x.dtype)
    src[:, :, ph:ph + h, pw:pw + w] = x
    best = winner = None
    for p, tap in _tap_views(src, oh, ow, kh, kw, sh, sw):
        if best is None:
            best, winner = tap.copy(), np.zeros(tap.shape, np.int32)
            continue
        winner = np.where(tap > best, np.int32(p), winner)
        best = np.maximum(best, tap)
    y[...], arg[...] = best, winner


def max_scatter2d(g, arg, h, w, oh, ow, kh, kw, sh, sw, ph, pw, dx):
    out = np.zeros(_padded_2d(g.shape, h, w, oh, ow, kh, kw, sh, sw, ph, pw), g.dtype)
    for p, view in _tap_views(out, oh, ow, kh, kw, sh, sw):
        view += g * (arg == p)
    dx[...] = out[:, :, ph:ph + h, pw:pw + w]


def softmax_rows(x, y, n, log_out):
    rows = x.reshape(-1, int(n))
    shifted = rows - rows.max(axis=1, keepdims=True)
    s = np.exp(shifted).sum(axis=1, keepdims=True)
    out = shifted - np.log(s) if log_out else np.exp(shifted) / s
    y[...] = out.reshape(y.shape)


def softmax_rows_grad(y, g, dx, n, log_out):
    y2, g2 = y.reshape(-1, int(n)), g.reshape(-1, int(n))
    if log_out:
        out = g2 - np.exp(y2) * g2.sum(axis=1, keepdims=True)
    else:
        gy = g2 * y2
        out = gy - y2 * gy.sum(axis=1, keepdims=True)
    dx[...] = out.reshape(dx.shape)


def _walk_times(steps, reverse):
    steps = int(steps)
    return [(s, steps - 1 - s if reverse else s) for s in range(steps)]


def lstm_sequence(rows, rows_t, rows_b, w_s, h0, c0, c, act, tc, hs, hs_t, hs_b, hn, cn,
                  steps, reverse, width, batch):
    h = h0
    c[0] = c0
    for s, t in _walk_times(steps, reverse):
        lstm_forward(rows, h @ w_s, t, s, width, int(width) * int(batch), c, act, tc, hs)
        h = hs[t]
    hn[...], cn[...] = h, c[int(steps)]


def _previous_states(h0, hs, hp, steps, reverse):
    """hp[t] = the state step t started from: h0 for the walk's first, else hs of the step
    before it in the walk."""
    for s, t in _walk_times(steps, reverse):
        hp[t] = h0 if s == 0 else hs[t + 1 if reverse else t - 1]


def lstm_sequence_grad(act, c, tc, g_out, go_t, go_b, has_g, w, g_h, has_gh, g_c, has_gc,
                       dh, dc, d_rows, dr_t, dr_b, h0, hs, hs_t, hs_b, hp, hp_t, hp_b, steps,
                       reverse, width, batch):
    _previous_states(h0, hs, hp, steps, reverse)
    dh[...] = g_h if has_gh else 0
    dc[...] = g_c if has_gc else 0
    for s, t in reversed(_walk_times(steps, reverse)):
        lstm_backward(act, c, tc, g_out, t, s, width, int(width) * int(batch), has_g, dh, dc,
                      d_rows)
        dh[...] = d_rows[t] @ w


def gru_sequence(rows, rows_t, rows_b, w_s, h0, bias, has_bias, prod, act, hs, hs_t, hs_b,
                 hn, steps, reverse, width, batch):
    h = h0
    for _, t in _walk_times(steps, reverse):
        prod[t] = np.matmul(h, w_s)
        gru_forward(rows, h, bias, t, width, int(width) * int(batch), has_bias, prod, act, hs)
        h = hs[t]
    hn[...] = h


def gru_sequence_grad(act, prod, h0, hs, hs_t, hs_b, hp, hp_t, hp_b, g_out, go_t, go_b, has_g,
                      w, g_h, has_gh, tmp, dhz, d_hid, dh_t, dh_b, d_n, dn_t, dn_b, steps,
                      reverse, width, batch):
    _previous_states(h0, hs, hp, steps, reverse)
    h_prev = hp
    # GRUArrays._factors' statements, on copies: the kernel leaves prod as it was.
    one = act.dtype.type(1)
    r, z, n = act[:, 0], act[:, 1], act[:, 2]
    rest = one - z
    factors = np.stack([(one - n * n) * rest, (one - r) * r * prod[:, 2]], axis=1)
    z_in = (h_prev - n) * z * rest
    dhz[...] = g_h if has_gh else 0
    tmp[...] = 0
    for _, t in reversed(_walk_times(steps, reverse)):
        gru_backward(act, factors, z_in, g_out, t, width, int(width) * int(batch), has_g, tmp,
                     dhz, d_hid, d_n)
        tmp[...] = d_hid[t] @ w
    dhz += tmp


def copy_into_flat_8(x0, x1, x2, x3, x4, x5, x6, x7, n0, n1, n2, n3, n4, n5, n6, start, y,
                     size):
    counts = [int(n) for n in (n0, n1, n2, n3, n4, n5, n6)]
    counts.append(int(size) - sum(counts))
    start = int(start)
    for x, n in zip((x0, x1, x2, x3, x4, x5, x6, x7), counts):
        y[start:start + n] = np.ravel(x)[:n]
        start += n


def hidden_weights(w, width, gates, per_gate, y):
    width, gates = int(width), int(gates)
    half = np.ones(gates, w.dtype)
    half[np.arange(gates) != 2] = 0.5
    by_gate = w.reshape(gates, width, width) * half[:, None, None]
    y[...] = by_gate.transpose(0, 2, 1) if per_gate else by_gate.reshape(-1, width).T


def cross_entropy_rows(x, label, prob, per, n):
    x2, lab = x.reshape(-1, int(n)), label.reshape(-1)
    m = x2.max(axis=1, keepdims=True)
    s = np.exp(x2 - m).sum(axis=1, keepdims=True)
    prob[...] = (np.exp(x2 - m) / s).reshape(prob.shape)
    rows = np.arange(len(x2))
    inside = (lab >= 0) & (lab < int(n))
    picked = x2[rows, np.where(inside, lab, 0)]
    loss = np.log(s[:, 0]) - (picked - m[:, 0])
    per[...] = np.where(inside, loss, np.nan).astype(per.dtype).reshape(per.shape)


def cross_entropy_rows_grad(prob, label, coef, dx, n, per_row):
    p2, lab = prob.reshape(-1, int(n)), label.reshape(-1)
    c = coef.reshape(-1, 1) if per_row else coef.reshape(-1)[:1].reshape(1, 1)
    out = p2 * c
    rows = np.arange(len(p2))
    out[rows, lab] = out[rows, lab] + (-c[:, 0] if per_row else -c[0, 0])
    dx[...] = out.reshape(dx.shape)


KERNELS = {"dygraph_batch_norm_inference": batch_norm_inference,
           "dygraph_batch_norm_running": batch_norm_running,
           "dygraph_max_pool2d": max_pool2d, "dygraph_max_scatter2d": max_scatter2d,
           "dygraph_adam": adam, "dygraph_momentum": momentum, "dygraph_dropout_mask": dropout_mask,
           "dygraph_uniform_draw": uniform_draw, "dygraph_normal_draw": normal_draw,
           "dygraph_lstm_forward": lstm_forward, "dygraph_lstm_backward": lstm_backward,
           "dygraph_gru_forward": gru_forward, "dygraph_gru_backward": gru_backward,
           "dygraph_relu_grad": relu_grad,
           "dygraph_relu6_grad": relu6_grad, "dygraph_round_bfloat16": round_bfloat16,
           "dygraph_round_bfloat16_4": round_bfloat16_4,
           "dygraph_gate_inputs": gate_inputs, "dygraph_hidden_weights": hidden_weights,
           "dygraph_copy_into_flat_8": copy_into_flat_8}
# The row kernels (registry.define_rows), compiled per dtype: dygraph_<name>_<dtype>.
KERNELS.update({f"dygraph_{name}_{dtype}": statement for dtype in ("float32", "float64")
                for name, statement in (("softmax_rows", softmax_rows),
                                        ("softmax_rows_grad", softmax_rows_grad),
                                        ("layer_norm_rows", layer_norm_rows),
                                        ("layer_norm_rows_grad", layer_norm_rows_grad),
                                        ("cross_entropy_rows", cross_entropy_rows),
                                        ("cross_entropy_rows_grad", cross_entropy_rows_grad),
                                        ("lstm_sequence", lstm_sequence),
                                        ("lstm_sequence_grad", lstm_sequence_grad),
                                        ("gru_sequence", gru_sequence),
                                        ("gru_sequence_grad", gru_sequence_grad))})
