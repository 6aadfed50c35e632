"""Layer norm over x's trailing axes, on x seen as [rows, n]: Normalize's fast path
(dygraph/ops/normalization/norms.py) for plain arrays, forward and gradient.

On the CPU the row sums are products with a vector (BLAS) and the sums of squares one
einsum, instead of reductions over short rows and their temporaries (figures:
docs/PERFORMANCE.md#normalization). On a GPU the same sums are cuBLAS products and the
element-wise work between them is four fused kernels (dygraph/kernels/cuda), so a layer
norm costs eight kernels forward and backward instead of twenty-five: on a GPU an eager
step is bound by its launches.

Example:
    >>> import numpy as np
    >>> y, xhat, rstd = forward(np, np.array([[1.0, 3.0]]), None, None, 2, 0.0)
    >>> y
    array([[-1.,  1.]])
"""

import numpy as np

from dygraph.backend import device_constant
from dygraph.backend.workspace import workspace
from dygraph.kernels.cuda import layer_norm as cuda_kernels

__all__ = ["forward", "backward"]


def _vector(xp, n, value, dtype):
    """A device (or host) vector of n times value, made once per size."""
    return device_constant(xp, ("layer_rows", n, value, np.dtype(dtype).str),
                           lambda: np.full(n, value, dtype))


def forward(xp, x, w, b, n, eps):
    """(y, xhat, rstd) of a layer norm of x over its trailing n elements; xhat [rows, n]
    and rstd [rows, 1] are what backward needs."""
    x2 = x.reshape(-1, n)
    mean = xp.matmul(x2, _vector(xp, n, 1.0 / n, x.dtype))
    xhat = workspace.output(xp, x2.shape, x.dtype)
    y = workspace.output(xp, x.shape, x.dtype)
    rows = y.reshape(x2.shape)
    if xp is not np:  # the GPU: cuBLAS sums and two fused kernels
        cuda_kernels.layer_norm_center(x2, mean, xhat, rows)  # rows: the squares, for now
        var = xp.matmul(rows, _vector(xp, n, 1.0, x.dtype))
        cuda_kernels.layer_norm_scale(var, w, b, eps, xhat, rows, mean)  # mean: rstd now
        return y, xhat, mean.reshape(-1, 1)
    xp.subtract(x2, mean[:, None], out=xhat)
    var = xp.einsum("ij,ij->i", xhat, xhat) / n
    rstd = (1.0 / xp.sqrt(var + eps)).astype(x.dtype, copy=False)[:, None]
    xhat *= rstd
    if w is not None:
        xp.multiply(xhat, w.reshape(-1), out=rows)
    else:
        rows[...] = xhat
    if b is not None:
        rows += b.reshape(-1)
    return y, xhat, rstd


def backward(xp, g, xhat, rstd, w, edges, x_shape, b_shape):
    """(dx, dw, db) of `forward` (None where `edges` has none) from the output's
    gradient g."""
    n = xhat.shape[1]
    g2 = g.reshape(-1, n)
    grads = [None] * len(edges)
    want_w = w is not None and edges[1] is not None
    if xp is not np:
        return _backward_gpu(xp, g2, xhat, rstd, w, edges, x_shape, b_shape, want_w, grads)
    if edges[0] is not None:
        gh = g2
        if w is not None:
            gh = xp.multiply(g2, w.reshape(-1), out=workspace.take(xp, g2.shape, g.dtype))
        mean_g = xp.matmul(gh, xp.full(n, 1.0 / n, g.dtype))
        mean_gx = xp.einsum("ij,ij->i", gh, xhat) / n
        out = workspace.output(xp, x_shape, g.dtype)
        dx = xp.multiply(xhat, mean_gx[:, None], out=out.reshape(g2.shape))
        dx += mean_g[:, None]
        xp.subtract(gh, dx, out=dx)
        dx *= rstd
        if gh is not g2:
            workspace.give(gh)
        grads[0] = out
    if want_w:
        grads[1] = xp.einsum("ij,ij->j", g2, xhat).reshape(w.shape)
    if len(edges) > 2 and edges[2] is not None:
        grads[2] = xp.matmul(xp.ones(len(g2), g.dtype), g2).reshape(b_shape)
    return tuple(grads)


def _backward_gpu(xp, g2, xhat, rstd, w, edges, x_shape, b_shape, want_w, grads):
    """The same on the GPU: one kernel for the products of g, cuBLAS for the sums, one
    kernel for dx."""
    n, dtype = xhat.shape[1], g2.dtype
    ones_rows = _vector(xp, len(g2), 1.0, dtype)
    if edges[0] is not None or want_w:
        gh, gx = xp.empty_like(xhat), xp.empty_like(xhat)
        gxw = xp.empty_like(xhat) if want_w and w is not None else gx
        cuda_kernels.layer_norm_products(g2, xhat, w, gh, gx, gxw)
        if edges[0] is not None:
            mean_g = xp.matmul(gh, _vector(xp, n, 1.0 / n, dtype))
            sum_gx = xp.matmul(gx, _vector(xp, n, 1.0, dtype))
            out = workspace.output(xp, x_shape, dtype)
            cuda_kernels.layer_norm_dx(gh, xhat, mean_g, sum_gx, rstd, out.reshape(g2.shape))
            grads[0] = out
        if want_w:
            grads[1] = xp.matmul(ones_rows, gxw).reshape(w.shape)
    if len(edges) > 2 and edges[2] is not None:
        grads[2] = xp.matmul(ones_rows, g2).reshape(b_shape)
    return tuple(grads)
