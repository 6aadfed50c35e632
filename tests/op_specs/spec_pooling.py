"""Spec entries for the pooling ops of dygraph.nn.functional.

The references loop over output positions and reduce each window, the definition itself.
Max-pool inputs are distinct values spaced well apart, so no window has a near tie that
central differences would straddle.
"""

import itertools

import numpy as np

import dygraph.nn.functional as F
from tests.op_specs import OpSpec


def _distinct(shape):
    return lambda rng: rng.permutation(int(np.prod(shape))).reshape(shape) * 0.1 - 1.0


def _windows(in_sizes, k, s, pads, ceil):
    """Per dim, the (start, end) of each window in unpadded coordinates (unclipped)."""
    out = []
    for n, kk, ss, (lo, hi) in zip(in_sizes, k, s, pads):
        span = n + lo + hi - kk
        count = (span + ss - 1) // ss + 1 if ceil else span // ss + 1
        out.append([(o * ss - lo, o * ss - lo + kk) for o in range(count)])
    return out


def pool_ref(x, k, s=None, pads=None, ceil=False, mode="max", exclusive=True):
    d = x.ndim - 2
    s = s or k
    pads = pads or [(0, 0)] * d
    wins = _windows(x.shape[2:], k, s, pads, ceil)
    y = np.zeros(x.shape[:2] + tuple(len(w) for w in wins))
    for idx in itertools.product(*(range(len(w)) for w in wins)):
        bounds = [w[i] for w, i in zip(wins, idx)]
        region = x[(Ellipsis,) + tuple(slice(max(a, 0), min(b, n)) for (a, b), n in
                                       zip(bounds, x.shape[2:]))]
        axes = tuple(range(2, 2 + d))
        if mode == "max":
            y[(Ellipsis,) + idx] = region.max(axis=axes)
        else:
            # Paddle counts padding but not the part of a ceil-mode window past the padding.
            count = region[0, 0].size if exclusive else np.prod(
                [min(b, n + lo) - a for (a, b), n, (lo, _) in zip(bounds, x.shape[2:], pads)])
            y[(Ellipsis,) + idx] = region.sum(axis=axes) / count
    return y


def adaptive_ref(x, out, mode):
    d = x.ndim - 2
    bins = [[(i * n // o, -(-(i + 1) * n // o)) for i in range(o)] for n, o in
            zip(x.shape[2:], out)]
    y = np.zeros(x.shape[:2] + tuple(out))
    for idx in itertools.product(*(range(o) for o in out)):
        region = x[(Ellipsis,) + tuple(slice(*b[i]) for b, i in zip(bins, idx))]
        reduce = np.max if mode == "max" else np.mean
        y[(Ellipsis,) + idx] = reduce(region, axis=tuple(range(2, 2 + d)))
    return y


SPECS = [
    OpSpec("nn.functional.max_pool1d", lambda x: F.max_pool1d(x, 3, 2, 1),
           lambda x: pool_ref(x, [3], [2], [(1, 1)]), [_distinct((2, 2, 7))]),
    OpSpec("nn.functional.max_pool2d", lambda x: F.max_pool2d(x, 2),
           lambda x: pool_ref(x, [2, 2]), [_distinct((2, 3, 4, 4))]),
    OpSpec("nn.functional.max_pool2d", lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True),
           lambda x: pool_ref(x, [3, 3], [2, 2], [(1, 1), (1, 1)], ceil=True),
           [_distinct((1, 2, 6, 5))], id="overlap-ceil"),
    OpSpec("nn.functional.max_pool2d", lambda x: F.max_pool2d(x, [2, 3], [1, 2],
                                                              data_format="NHWC"),
           lambda x: np.moveaxis(pool_ref(np.moveaxis(x, -1, 1), [2, 3], [1, 2]), 1, -1),
           [_distinct((1, 4, 5, 2))], id="nhwc"),
    OpSpec("nn.functional.max_pool2d", lambda x: F.max_pool2d(x, 2, data_format="NHWC"),
           lambda x: np.moveaxis(pool_ref(np.moveaxis(x, -1, 1), [2, 2]), 1, -1),
           [_distinct((2, 4, 6, 3))], id="max2x2-nhwc"),
    # 25 taps per window: the block path.
    OpSpec("nn.functional.max_pool2d", lambda x: F.max_pool2d(x, 5),
           lambda x: pool_ref(x, [5, 5]), [_distinct((1, 2, 5, 5))], id="blocks"),
    OpSpec("nn.functional.max_pool3d", lambda x: F.max_pool3d(x, 2, 1),
           lambda x: pool_ref(x, [2, 2, 2], [1, 1, 1]), [_distinct((1, 2, 3, 3, 2))]),
    OpSpec("nn.functional.avg_pool1d", lambda x: F.avg_pool1d(x, 3, 2, 1, exclusive=False),
           lambda x: pool_ref(x, [3], [2], [(1, 1)], mode="avg", exclusive=False),
           [(2, 2, 7)]),
    OpSpec("nn.functional.avg_pool2d", lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True),
           lambda x: pool_ref(x, [3, 3], [2, 2], [(1, 1), (1, 1)], True, "avg"),
           [(2, 2, 6, 5)]),
    OpSpec("nn.functional.avg_pool2d", lambda x: F.avg_pool2d(x, 5),
           lambda x: pool_ref(x, [5, 5], mode="avg"), [(1, 2, 5, 5)], id="blocks"),
    OpSpec("nn.functional.avg_pool3d", lambda x: F.avg_pool3d(x, 2),
           lambda x: pool_ref(x, [2, 2, 2], mode="avg"), [(1, 2, 4, 2, 2)]),
    OpSpec("nn.functional.adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 3),
           lambda x: adaptive_ref(x, [3], "avg"), [(2, 2, 7)]),
    OpSpec("nn.functional.adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, [3, 2]),
           lambda x: adaptive_ref(x, [3, 2], "avg"), [(2, 2, 5, 4)]),
    OpSpec("nn.functional.adaptive_avg_pool3d", lambda x: F.adaptive_avg_pool3d(x, [1, 2, 3]),
           lambda x: adaptive_ref(x, [1, 2, 3], "avg"), [(1, 2, 2, 3, 4)]),
    OpSpec("nn.functional.adaptive_max_pool1d", lambda x: F.adaptive_max_pool1d(x, 3),
           lambda x: adaptive_ref(x, [3], "max"), [_distinct((2, 2, 7))]),
    OpSpec("nn.functional.adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, [3, 2]),
           lambda x: adaptive_ref(x, [3, 2], "max"), [_distinct((2, 2, 5, 4))]),
    OpSpec("nn.functional.adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, 2),
           lambda x: adaptive_ref(x, [2, 2], "max"), [_distinct((1, 2, 4, 4))], id="even"),
    OpSpec("nn.functional.adaptive_max_pool3d", lambda x: F.adaptive_max_pool3d(x, [2, 1, 2]),
           lambda x: adaptive_ref(x, [2, 1, 2], "max"), [_distinct((1, 2, 3, 2, 3))]),
]
