"""Layer norm on a GPU as one kernel forward and one back (dygraph/ops/normalization/
layer_rows.py): a thread block per row of n elements sums the row, then writes it. The
weight's and bias's gradients, sums down the rows, stay cuBLAS products. Before, the row
sums were cuBLAS products too, with four element-wise kernels between them: eight
launches a layer norm forward and backward instead of two.

The kernels compute what the CPU path computes, in its order: mean = sum(x * (1/n)),
var = sum((x - mean)^2) / n, rstd = 1 / sqrt(var + eps), xhat = (x - mean) * rstd,
y = xhat * w + b; back, gh = g * w, dx = (gh - (xhat * (sum(gh * xhat) / n) +
sum(gh * (1/n)))) * rstd. The sums add in another order than the CPU's BLAS, so results
can differ from the CPU's in the last bits (tests/gpu compares them).

Example:
    >>> from dygraph.kernels.cuda.registry import ROW_KERNEL_SPECS
    >>> sorted(n for n in ROW_KERNEL_SPECS if n.startswith("layer_norm"))
    ['layer_norm_rows', 'layer_norm_rows_grad']
"""

import numpy as np

from dygraph.kernels.cuda.block_reductions import BLOCK_SUM
from dygraph.kernels.cuda.registry import define_rows, launch_rows

__all__ = ["layer_norm_rows", "layer_norm_rows_grad"]

# Forward over row blockIdx.x of x [rows, n]: y and xhat [rows, n], rstd [rows]. w and b
# ([n]) are read where has_w / has_b (another valid pointer is passed otherwise).
_FORWARD = BLOCK_SUM + """
extern "C" __global__ void KERNEL(const T* x, const T* w, const T* b, T* y, T* xhat,
                                  T* rstd, long long n, T eps, int has_w, int has_b) {
    __shared__ T part[256];
    const long long row = blockIdx.x;
    const T* xr = x + row * n;
    T* yr = y + row * n;
    T* hr = xhat + row * n;
    const T inv_n = (T)(1.0 / (double)n);
    T s = 0;
    for (long long j = threadIdx.x; j < n; j += blockDim.x) s += xr[j] * inv_n;
    const T mean = block_sum(s, part);
    T q = 0;
    for (long long j = threadIdx.x; j < n; j += blockDim.x) {
        const T c = xr[j] - mean;
        q += c * c;
    }
    const T var = block_sum(q, part) / (T)n;
    const T r = (T)1 / sqrt(var + eps);
    if (threadIdx.x == 0) rstd[row] = r;
    for (long long j = threadIdx.x; j < n; j += blockDim.x) {
        const T h = (xr[j] - mean) * r;
        hr[j] = h;
        T v = has_w ? h * w[j] : h;
        if (has_b) v += b[j];
        yr[j] = v;
    }
}
"""

# Backward over row blockIdx.x from the output's gradient g and the saved xhat [rows, n],
# rstd [rows]: dx where want_dx, and g * xhat (whose sums down the rows make the weight's
# gradient) into gxw where want_gxw.
_BACKWARD = BLOCK_SUM + """
extern "C" __global__ void KERNEL(const T* g, const T* xhat, const T* w, const T* rstd,
                                  T* dx, T* gxw, long long n, int has_w, int want_dx,
                                  int want_gxw) {
    __shared__ T part[256];
    const long long row = blockIdx.x;
    const T* gr = g + row * n;
    const T* hr = xhat + row * n;
    if (want_dx) {
        T* dr = dx + row * n;
        const T inv_n = (T)(1.0 / (double)n);
        T s = 0, sx = 0;
        for (long long j = threadIdx.x; j < n; j += blockDim.x) {
            const T gh = has_w ? gr[j] * w[j] : gr[j];
            s += gh * inv_n;
            sx += gh * hr[j];
        }
        const T mean_g = block_sum(s, part);
        const T mean_gx = block_sum(sx, part) / (T)n;
        const T r = rstd[row];
        for (long long j = threadIdx.x; j < n; j += blockDim.x) {
            const T gh = has_w ? gr[j] * w[j] : gr[j];
            dr[j] = (gh - (hr[j] * mean_gx + mean_g)) * r;
        }
    }
    if (want_gxw) {
        T* pr = gxw + row * n;
        for (long long j = threadIdx.x; j < n; j += blockDim.x) pr[j] = gr[j] * hr[j];
    }
}
"""

define_rows("layer_norm_rows", _FORWARD)
define_rows("layer_norm_rows_grad", _BACKWARD)


def layer_norm_rows(x, w, b, eps, y, xhat, rstd, n):
    """Layer norm of x over rows of its n trailing elements (C-ordered, float32 or float64)
    into y (x's size), xhat ([rows, n]) and rstd ([rows] or [rows, 1]); w and b: n
    elements or None. One kernel; the arrays are indexed flat, whatever their shapes.

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> x = cupy.array([[1.0, 3.0]])  # doctest: +SKIP
        >>> y, xhat, rstd = cupy.empty((1, 2)), cupy.empty((1, 2)), cupy.empty(1)  # doctest: +SKIP
        >>> layer_norm_rows(x, None, None, 0.0, y, xhat, rstd, 2); y  # doctest: +SKIP
        array([[-1.,  1.]])
    """
    t = x.dtype.type
    launch_rows("layer_norm_rows", x.size // n, n,
                (x, x if w is None else w, x if b is None else b, y, xhat, rstd, np.int64(n),
                 t(eps), np.int32(w is not None), np.int32(b is not None)))


def layer_norm_rows_grad(g, xhat, w, rstd, dx, gxw):
    """From the output's gradient g (C-ordered, xhat's size), xhat ([rows, n]) and rstd
    (rows elements): dx unless it is None, and g * xhat into gxw unless it is None. One
    kernel; the arrays are indexed flat.

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> g, xhat = cupy.ones((1, 2)), cupy.array([[-1.0, 1.0]])  # doctest: +SKIP
        >>> dx = cupy.empty((1, 2))  # doctest: +SKIP
        >>> layer_norm_rows_grad(g, xhat, None, cupy.ones(1), dx, None); dx  # doctest: +SKIP
        array([[0., 0.]])
    """
    rows, n = xhat.shape
    launch_rows("layer_norm_rows_grad", rows, n,
                (g, xhat, g if w is None else w, rstd, g if dx is None else dx,
                 g if gxw is None else gxw, np.int64(n), np.int32(w is not None),
                 np.int32(dx is not None), np.int32(gxw is not None)))
