"""Spec entries for the common nn.functional ops (dygraph/ops/nn_*.py).

The references are written independently of the implementations: loops over output
positions following Paddle's documented coordinate rules, dense interpolation matrices,
NumPy reshapes. Random ops (the dropout family) reseed the global generator inside the
callable, so every call (forward, finite differences) draws the same mask, and the
reference redraws it from the same seed.
"""

import math

import numpy as np

import dygraph as D
import dygraph.nn.functional as F
from dygraph.framework.random import rng
from tests.op_specs import OpSpec

SEED = 11
IDS = np.array([[1, 2, 1], [0, 3, 1]])


def _pos(shape, low=0.5, high=2.0):
    return lambda r: r.uniform(low, high, shape)


# -- dropout family ---------------------------------------------------------------------------
def _seeded(fn, *args, **kwargs):
    D.seed(SEED)
    return fn(*args, **kwargs)


def _keep(shape, p):
    D.seed(SEED)
    return rng().random(shape, dtype=np.float32) >= p


def _alpha_ref(x, p):
    alpha_p = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    keep = _keep(x.shape, p)
    return a * np.where(keep, x, alpha_p) - a * alpha_p * p


# -- interpolation: dense matrices built position by position ---------------------------------
def _cubic(t, a=-0.75):
    def near(s):
        return ((a + 2) * s - (a + 3)) * s * s + 1

    def far(s):
        return ((a * s - 5 * a) * s + 8 * a) * s - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _interp_matrix(n_in, n_out, mode, align_corners=False, align_mode=0):
    if n_out > 1 or (mode in ("linear", "trilinear") and not align_corners):
        ratio = ((n_in - 1) / (n_out - 1)) if align_corners else n_in / n_out
    else:
        ratio = 0.0
    ratio = float(np.float32(ratio))
    a = np.zeros((n_out, n_in))
    for k in range(n_out):
        if mode == "nearest":
            a[k, min(int(ratio * k + (0.5 if align_corners else 0.0)), n_in - 1)] = 1
        elif mode == "area":
            start, end = k * n_in // n_out, math.ceil((k + 1) * n_in / n_out)
            a[k, start:end] = 1.0 / (end - start)
        elif mode == "bicubic":
            src = ratio * k if align_corners else ratio * (k + 0.5) - 0.5
            low = math.floor(src)
            for j, w in zip(range(low - 1, low + 3), _cubic(src - low)):
                a[k, min(max(j, 0), n_in - 1)] += w
        else:
            half_pixel = align_mode == 0 and not align_corners
            src = max(ratio * (k + 0.5) - 0.5, 0.0) if half_pixel else ratio * k
            low = min(int(src), n_in - 1)
            a[k, low] += 1 - (src - low)
            a[k, min(low + 1, n_in - 1)] += src - low
    return a


def _interp_ref(sizes, mode, align_corners=False, align_mode=0, channels_last=False):
    def ref(x):
        first = 1 if channels_last else 2
        for d, n_out in enumerate(sizes):
            ax = first + d
            a = _interp_matrix(x.shape[ax], n_out, mode, align_corners, align_mode)
            x = np.moveaxis(np.tensordot(x, a, axes=([ax], [1])), -1, ax)
        return x

    return ref


def _interp(sizes, mode, **kwargs):
    return lambda x: F.interpolate(x, size=sizes, mode=mode, **kwargs)


# -- unfold / fold / pixel shuffle ------------------------------------------------------------
def _blocks(h, w, k, s, p, d):
    """(row, col) of every kernel tap for every block position, in the padded image."""
    oh = (h + p[0] + p[2] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + p[1] + p[3] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    return [[(bi * s[0] + i * d[0], bj * s[1] + j * d[1]) for bi in range(oh) for bj in range(ow)]
            for i in range(k[0]) for j in range(k[1])]


def _unfold_ref(x, k, s, p, d):
    n, c, h, w = x.shape
    padded = np.pad(x, ((0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])))
    taps = _blocks(h, w, k, s, p, d)
    out = np.array([[[padded[b, ch, r, q] for r, q in tap] for ch in range(c) for tap in taps]
                    for b in range(n)])
    return out.reshape(n, c * len(taps), -1)


def _fold_ref(cols, size, k, s, p, d):
    n = cols.shape[0]
    taps = _blocks(size[0], size[1], k, s, p, d)
    c = cols.shape[1] // len(taps)
    out = np.zeros((n, c, size[0] + p[0] + p[2], size[1] + p[1] + p[3]))
    for b in range(n):
        for ch in range(c):
            for t, tap in enumerate(taps):
                for pos, (r, q) in enumerate(tap):
                    out[b, ch, r, q] += cols[b, ch * len(taps) + t, pos]
    return out[:, :, p[0]:p[0] + size[0], p[1]:p[1] + size[1]]


def _shuffle_ref(x, r):
    n, c, h, w = x.shape
    out = np.zeros((n, c // (r * r), h * r, w * r))
    for ch in range(c):
        out[:, ch // (r * r), (ch % (r * r)) // r::r, ch % r::r] = x[:, ch]
    return out


def _unshuffle_ref(x, r):
    n, c, h, w = x.shape
    out = np.zeros((n, c * r * r, h // r, w // r))
    for ch in range(c * r * r):
        out[:, ch] = x[:, ch // (r * r), (ch % (r * r)) // r::r, ch % r::r]
    return out


# -- grid_sample: loops over output positions -------------------------------------------------
def _grid_ref(mode, padding_mode, align_corners):
    def unnormalize(g, size):
        pos = (g + 1) / 2 * (size - 1) if align_corners else ((g + 1) * size - 1) / 2
        return min(max(pos, 0), size - 1) if padding_mode == "border" else pos

    def ref(x, grid):
        n, c, h, w = x.shape
        out = np.zeros((n, c) + grid.shape[1:3])
        for b in range(n):
            for i in range(grid.shape[1]):
                for j in range(grid.shape[2]):
                    px = unnormalize(grid[b, i, j, 0], w)
                    py = unnormalize(grid[b, i, j, 1], h)
                    if mode == "nearest":
                        corners = [(round(py), round(px), 1.0)]
                    else:
                        x0, y0 = math.floor(px), math.floor(py)
                        fx, fy = px - x0, py - y0
                        corners = [(y0, x0, (1 - fy) * (1 - fx)), (y0, x0 + 1, (1 - fy) * fx),
                                   (y0 + 1, x0, fy * (1 - fx)), (y0 + 1, x0 + 1, fy * fx)]
                    for r, q, wt in corners:
                        if 0 <= r < h and 0 <= q < w:
                            out[b, :, i, j] += wt * x[b, :, r, q]
        return out

    return ref


def _grid(kwargs):
    return lambda x, g: F.grid_sample(x, g, **kwargs)


# -- attention ---------------------------------------------------------------------------------
def _attention_ref(q, k, v, mask=None, causal=False):
    qh, kh, vh = (np.swapaxes(t, 1, 2) for t in (q, k, v))
    scores = qh @ np.swapaxes(kh, -1, -2) / math.sqrt(q.shape[-1])
    if causal:
        scores = np.where(np.tril(np.ones(scores.shape[-2:], bool)), scores, -np.inf)
    if mask is not None:
        scores = scores + mask
    e = np.exp(scores - scores.max(-1, keepdims=True))
    return np.swapaxes((e / e.sum(-1, keepdims=True)) @ vh, 1, 2)


# startend_row_indices of the flashmask entries ([batch 1, heads 1, seq_k 4, n]): the
# non-causal one masks rows [s0, s1) and [s2, s3) of each key column (query 3 sees no key)
FLASH_BI = np.array([[[[3, 4, 0, 0], [3, 4, 0, 1], [1, 4, 0, 0], [3, 4, 0, 2]]]], np.int32)
FLASH_CAUSAL = np.array([[[[4], [3], [4], [4]]]], np.int32)


def _flashmask_ref(q, k, v, ind, causal):
    """Attention with the dense mask of startend_row_indices, column by column as Paddle's
    docstring defines it; a query that sees no key gives zeros."""
    sq, sk = q.shape[1], k.shape[1]
    masked = np.zeros((sq, sk), bool)
    for j in range(sk):
        s = ind[0, 0, j]
        if causal:
            masked[s[0]:, j] = True
            masked[:j, j] = True
        else:
            masked[s[0]:s[1], j] = True
            masked[s[2]:s[3], j] = True
    group = q.shape[2] // k.shape[2]
    qh = np.swapaxes(q, 1, 2)
    kh, vh = (np.repeat(np.swapaxes(t, 1, 2), group, axis=1) for t in (k, v))
    scores = np.where(masked, -np.inf, qh @ np.swapaxes(kh, -1, -2) / math.sqrt(q.shape[-1]))
    top = scores.max(-1, keepdims=True)
    e = np.where(masked, 0.0, np.exp(scores - np.where(np.isfinite(top), top, 0.0)))
    total = e.sum(-1, keepdims=True)
    return np.swapaxes(np.divide(e, total, out=np.zeros_like(e), where=total > 0) @ vh, 1, 2)


def _normalize_ref(x, p, axis):
    norm = (np.abs(x) ** p).sum(axis, keepdims=True) ** (1 / p)
    return x / np.maximum(norm, 1e-12)


def _cosine_ref(a, b, axis):
    num = (a * b).sum(axis)
    return num / np.sqrt(np.maximum((a * a).sum(axis) * (b * b).sum(axis), 1e-16))


def _embedding_ref(w):
    out = w[IDS]
    out[IDS == 1] = 0
    return out


X4 = (2, 3, 4, 5)
SPECS = [
    OpSpec("nn.functional.linear", F.linear, lambda x, w, b: x @ w + b,
           [(2, 3, 4), (4, 5), (5,)]),
    OpSpec("nn.functional.linear", F.linear, lambda x, w: x @ w, [(3, 4), (4, 2)],
           id="no-bias"),
    OpSpec("nn.functional.bilinear", F.bilinear,
           lambda a, b, w, c: np.einsum("ni,oij,nj->no", a, w, b) + c,
           [(3, 2), (3, 4), (5, 2, 4), (1, 5)]),
    OpSpec("nn.functional.embedding", lambda w: F.embedding(IDS, w, padding_idx=1),
           _embedding_ref, [(4, 3)]),
    OpSpec("nn.functional.label_smooth", lambda x: F.label_smooth(x, epsilon=0.2),
           lambda x: 0.8 * x + 0.05, [(2, 3, 4)]),
    OpSpec("nn.functional.label_smooth", lambda x, p: F.label_smooth(x, p, epsilon=0.3),
           lambda x, p: 0.7 * x + 0.3 * p, [(2, 3, 4), (1, 4)], id="prior"),
    OpSpec("nn.functional.dropout", lambda x: _seeded(F.dropout, x, 0.4),
           lambda x: x * _keep(x.shape, 0.4) / 0.6, [(4, 5)]),
    OpSpec("nn.functional.dropout", lambda x: _seeded(F.dropout, x, 0.3, axis=1,
                                                      mode="downscale_in_infer"),
           lambda x: x * _keep((1, 5), 0.3), [(4, 5)], id="axis-downscale"),
    OpSpec("nn.functional.dropout", lambda x: F.dropout(x, 0.3, training=False,
                                                        mode="downscale_in_infer"),
           lambda x: 0.7 * x, [(4, 5)], id="infer"),
    OpSpec("nn.functional.dropout2d", lambda x: _seeded(F.dropout2d, x, 0.5),
           lambda x: x * _keep((2, 3, 1, 1), 0.5) * 2, [(2, 3, 2, 2)]),
    OpSpec("nn.functional.dropout3d", lambda x: _seeded(F.dropout3d, x, 0.5,
                                                        data_format="NDHWC"),
           lambda x: x * _keep((2, 1, 1, 1, 3), 0.5) * 2, [(2, 2, 1, 2, 3)]),
    OpSpec("nn.functional.alpha_dropout", lambda x: _seeded(F.alpha_dropout, x, 0.3),
           lambda x: _alpha_ref(x, 0.3), [(4, 5)]),
    OpSpec("nn.functional.interpolate", _interp([7, 3], "nearest"),
           _interp_ref([7, 3], "nearest"), [X4], id="nearest"),
    OpSpec("nn.functional.interpolate", _interp([6, 9], "bilinear"),
           _interp_ref([6, 9], "bilinear"), [X4], id="bilinear"),
    OpSpec("nn.functional.interpolate", _interp([3, 7], "bilinear", align_corners=True),
           _interp_ref([3, 7], "bilinear", True), [X4], id="bilinear-corners"),
    OpSpec("nn.functional.interpolate", _interp([7, 2], "bilinear", align_mode=1),
           _interp_ref([7, 2], "bilinear", align_mode=1), [X4], id="bilinear-mode1"),
    OpSpec("nn.functional.interpolate", _interp([5, 6], "bilinear", data_format="NHWC"),
           _interp_ref([5, 6], "bilinear", channels_last=True), [(2, 3, 4, 2)], id="nhwc"),
    OpSpec("nn.functional.interpolate", _interp([6, 3], "bicubic"),
           _interp_ref([6, 3], "bicubic"), [X4], id="bicubic"),
    OpSpec("nn.functional.interpolate", _interp([6, 8], "bicubic", align_corners=True),
           _interp_ref([6, 8], "bicubic", True), [X4], id="bicubic-corners"),
    OpSpec("nn.functional.interpolate", _interp([9], "linear"),
           _interp_ref([9], "linear"), [(2, 3, 4)], id="linear"),
    OpSpec("nn.functional.interpolate", _interp([1, 5, 2], "trilinear"),
           _interp_ref([1, 5, 2], "trilinear"), [(1, 2, 3, 3, 4)], id="trilinear"),
    OpSpec("nn.functional.interpolate", _interp([3, 2], "area"),
           _interp_ref([3, 2], "area"), [X4], id="area"),
    OpSpec("nn.functional.upsample", lambda x: F.upsample(x, scale_factor=2, mode="bilinear"),
           _interp_ref([8, 10], "bilinear"), [X4]),
    OpSpec("nn.functional.normalize", F.normalize, lambda x: _normalize_ref(x, 2, 1),
           [(3, 4, 2)]),
    OpSpec("nn.functional.normalize", lambda x: F.normalize(x, p=1.5, axis=-1),
           lambda x: _normalize_ref(x, 1.5, -1), [(3, 4)], domain=(0.2, 1.0), id="p1.5"),
    OpSpec("nn.functional.cosine_similarity", F.cosine_similarity,
           lambda a, b: _cosine_ref(a, b, 1), [(3, 4), (3, 4)]),
    OpSpec("nn.functional.cosine_similarity", lambda a, b: F.cosine_similarity(a, b, axis=-1),
           lambda a, b: _cosine_ref(a, b, -1), [(2, 3, 4), (3, 4)], id="broadcast"),
    OpSpec("nn.functional.pixel_shuffle", lambda x: F.pixel_shuffle(x, 2),
           lambda x: _shuffle_ref(x, 2), [(2, 8, 2, 3)]),
    OpSpec("nn.functional.pixel_shuffle", lambda x: F.pixel_shuffle(x, 2, "NHWC"),
           lambda x: _shuffle_ref(x.transpose(0, 3, 1, 2), 2).transpose(0, 2, 3, 1),
           [(1, 2, 3, 4)], id="nhwc"),
    OpSpec("nn.functional.pixel_unshuffle", lambda x: F.pixel_unshuffle(x, 2),
           lambda x: _unshuffle_ref(x, 2), [(2, 2, 4, 6)]),
    OpSpec("nn.functional.pixel_unshuffle", lambda x: F.pixel_unshuffle(x, 2, "NHWC"),
           lambda x: _unshuffle_ref(x.transpose(0, 3, 1, 2), 2).transpose(0, 2, 3, 1),
           [(1, 4, 2, 3)], id="nhwc"),
    OpSpec("nn.functional.unfold", lambda x: F.unfold(x, [2, 3], [2, 1], [1, 0, 1, 2], [1, 2]),
           lambda x: _unfold_ref(x, (2, 3), (2, 1), (1, 0, 1, 2), (1, 2)), [(2, 2, 4, 5)]),
    OpSpec("nn.functional.fold", lambda x: F.fold(x, [4, 5], 2, 1, 1),
           lambda x: _fold_ref(x, (4, 5), (2, 2), (1, 1), (1, 1, 1, 1), (1, 1)),
           [(2, 8, 30)]),
    OpSpec("nn.functional.grid_sample", _grid({}), _grid_ref("bilinear", "zeros", True),
           [(2, 2, 3, 4), lambda r: r.uniform(-1.3, 1.3, (2, 3, 2, 2))]),
    OpSpec("nn.functional.grid_sample", _grid({"padding_mode": "border", "align_corners": False}),
           _grid_ref("bilinear", "border", False),
           [(1, 2, 4, 3), lambda r: r.uniform(-1.3, 1.3, (1, 2, 3, 2))], id="border"),
    OpSpec("nn.functional.grid_sample", _grid({"mode": "nearest"}),
           _grid_ref("nearest", "zeros", True),
           [(1, 2, 3, 4), lambda r: r.uniform(-1.2, 1.2, (1, 2, 2, 2))], grad_inputs=[0],
           id="nearest"),
    OpSpec("nn.functional.scaled_dot_product_attention", F.scaled_dot_product_attention,
           _attention_ref, [(2, 3, 2, 4), (2, 5, 2, 4), (2, 5, 2, 3)]),
    OpSpec("nn.functional.scaled_dot_product_attention",
           lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, m, is_causal=True),
           lambda q, k, v, m: _attention_ref(q, k, v, m, causal=True),
           [(1, 4, 2, 3), (1, 4, 2, 3), (1, 4, 2, 3), (1, 2, 4, 4)], id="causal-mask"),
    OpSpec("nn.functional.flashmask_attention",
           lambda q, k, v: F.flashmask_attention(q, k, v, D.to_tensor(FLASH_BI)),
           lambda q, k, v: _flashmask_ref(q, k, v, FLASH_BI, False),
           [(1, 4, 2, 3), (1, 4, 1, 3), (1, 4, 1, 3)], family="matmul"),
    OpSpec("nn.functional.flashmask_attention",
           lambda q, k, v: F.flashmask_attention(q, k, v, D.to_tensor(FLASH_CAUSAL),
                                                 causal=True),
           lambda q, k, v: _flashmask_ref(q, k, v, FLASH_CAUSAL, True),
           [(1, 4, 2, 3), (1, 4, 2, 3), (1, 4, 2, 3)], id="causal", family="matmul"),
]
