"""2-D max pooling and its gradient as one GPU kernel each.

The array formula (dygraph/ops/pool/windows.py) visits a window one tap at a time: four
CuPy calls per tap forward (the running maximum, the comparison, the winner's index) and
three back. These kernels compute the same per element:

- forward, a thread per output: the taps in row-major order, a tap outside the input
  taking the dtype's lowest finite value (Paddle pads so); the maximum as NumPy's
  `maximum(best, tap)` computes it (NaN propagates; of equal values the tap, which tells
  -0.0 from 0.0), and the index of the last tap that beat the running maximum (the first
  maximum; none beats a NaN);
- backward, a thread per input element: the sum, over the windows that hold it in tap
  order, of g times (that window's winning tap is this one), added as the formula adds.

Both take C-ordered float32/float64 data; the index is int32.

Example:
    >>> from dygraph.kernels.cuda.registry import KERNEL_SPECS
    >>> KERNEL_SPECS["max_pool2d"][1]
    'T y, int32 arg'
"""

import numpy as np

from dygraph.kernels.cuda.registry import define, kernel

__all__ = ["max_pool2d", "max_scatter2d"]

_GEOMETRY = ("int32 H, int32 W, int32 OH, int32 OW, int32 KH, int32 KW, int32 SH, int32 SW, "
             "int32 PH, int32 PW")

define("max_pool2d", f"raw T x, {_GEOMETRY}, T low", "T y, int32 arg", """
const int ow = i % OW;
const int oh = (i / OW) % OH;
const long long plane = i / ((long long)OW * OH);
T best = low;
int winner = 0;
for (int kh = 0; kh < KH; kh++) {
  const int ih = oh * SH + kh - PH;
  for (int kw = 0; kw < KW; kw++) {
    const int iw = ow * SW + kw - PW;
    const T tap = (ih >= 0 && ih < H && iw >= 0 && iw < W)
        ? x[(plane * H + ih) * W + iw] : low;
    const int p = kh * KW + kw;
    if (p == 0) {
      best = tap;
    } else {
      if (tap > best) winner = p;
      if (best == best && !(tap < best)) best = tap;  // NumPy's maximum(best, tap)
    }
  }
}
y = best;
arg = winner;
""")

define("max_scatter2d", f"raw T g, raw int32 arg, {_GEOMETRY}", "T dx", """
const int iw = i % W;
const int ih = (i / W) % H;
const long long plane = i / ((long long)W * H);
T sum = 0;
for (int kh = 0; kh < KH; kh++) {
  const int th = ih + PH - kh;
  if (th < 0 || th % SH != 0 || th / SH >= OH) continue;
  for (int kw = 0; kw < KW; kw++) {
    const int tw = iw + PW - kw;
    if (tw < 0 || tw % SW != 0 || tw / SW >= OW) continue;
    const long long o = (plane * OH + th / SH) * OW + tw / SW;
    const T hit = arg[o] == kh * KW + kw;
    sum = sum + g[o] * hit;
  }
}
dx = sum;
""")


def _geometry(in_sizes, out_sizes, geo):
    (h, w), (oh, ow) = in_sizes, out_sizes
    return tuple(np.int32(v) for v in (h, w, oh, ow) + geo.ksize + geo.stride +
                 tuple(lo for lo, _ in geo.pads))


def takes(xp, a, geo):
    """Whether the kernels run this pooling: CuPy C-ordered float32/float64 (N, C, H, W)
    data, regular 2-D windows.

    Example:
        >>> import numpy as np
        >>> takes(np, np.ones((1, 1, 4, 4)), None)
        False
    """
    return (xp is not np and geo is not None and geo.ksize is not None
            and len(geo.ksize) == 2 and a.dtype in (np.float32, np.float64)
            and a.flags.c_contiguous and a.size > 0)


def max_pool2d(x, geo):
    """(max over each window, index of its first maximum tap as int32) of CuPy x.

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> from dygraph.ops.pool.windows import PoolGeometry
        >>> geo = PoolGeometry.regular((2, 2), (2, 2), (2, 2), ((0, 0), (0, 0)), False)
        >>> max_pool2d(cupy.arange(4.0).reshape(1, 1, 2, 2), geo)[1]  # doctest: +SKIP
        array([[[[3]]]], dtype=int32)
    """
    import cupy

    out_shape = x.shape[:2] + tuple(geo.out_sizes)
    y, arg = cupy.empty(out_shape, x.dtype), cupy.empty(out_shape, np.int32)
    low = x.dtype.type(np.finfo(x.dtype).min)
    kernel("max_pool2d")(x, *_geometry(x.shape[2:], geo.out_sizes, geo), low, y, arg)
    return y, arg


def max_scatter2d(g, arg, geo):
    """The gradient of max_pool2d: g (N, C, OH, OW) to the winning taps, (N, C, H, W).

    Example:
        >>> dx = max_scatter2d(g, arg, geo)  # doctest: +SKIP
    """
    import cupy

    dx = cupy.empty(g.shape[:2] + tuple(geo.in_sizes), g.dtype)
    kernel("max_scatter2d")(g, arg, *_geometry(geo.in_sizes, g.shape[2:], geo), dx)
    return dx
