"""Layer norm over x's trailing axes, on x seen as [rows, n]: Normalize's fast path
(dygraph/ops/normalization/normalize.py) for plain arrays, forward and gradient.

On the CPU the row sums are products with a vector (BLAS) and the sums of squares one
einsum, instead of reductions over short rows and their temporaries (figures:
docs/PERFORMANCE.md#normalization). On a GPU a layer norm is one kernel forward and one
back, a thread block per row (dygraph/kernels/cuda/layer_norm.py), and the weight's and
bias's gradients cuBLAS sums down the rows: on a GPU an eager step is bound by its
launches.

Example:
    >>> import numpy as np
    >>> y, xhat, rstd = forward(np, np.array([[1.0, 3.0]]), None, None, 2, 0.0)
    >>> y
    array([[-1.,  1.]])
"""

import numpy as np

from dygraph.backend import device_constant, dtype_name
from dygraph.backend.workspace import workspace
from dygraph.kernels.cuda import layer_norm as cuda_kernels
from dygraph.kernels.cuda.registry import ROW_TYPES

__all__ = ["forward", "backward"]


def _vector(xp, n, value, dtype):
    """A device (or host) vector of n times value, made once per size."""
    return device_constant(xp, ("layer_rows", n, value, np.dtype(dtype).str),
                           lambda: np.full(n, value, dtype))


def forward(xp, x, w, b, n, eps):
    """(y, xhat, rstd) of a layer norm of x over its trailing n elements; xhat [rows, n]
    and rstd [rows, 1] are what backward needs."""
    if xp is not np and _on_rows(x, w, b):  # the GPU: one kernel
        x = x if x.flags.c_contiguous else xp.ascontiguousarray(x)
        rows = x.size // n
        xhat, y, rstd = xp.empty((rows, n), x.dtype), xp.empty_like(x), xp.empty((rows, 1),
                                                                               x.dtype)
        cuda_kernels.layer_norm_rows(x, w, b, eps, y, xhat, rstd, n)
        return y, xhat, rstd
    x2 = x.reshape(-1, n)
    mean = xp.matmul(x2, _vector(xp, n, 1.0 / n, x.dtype))
    xhat = workspace.output(xp, x2.shape, x.dtype)
    y = workspace.output(xp, x.shape, x.dtype)
    rows = y.reshape(x2.shape)
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
    grads = [None] * len(edges)
    want_w = w is not None and edges[1] is not None
    if xp is not np and _on_rows(g, w, None) and xhat.dtype == g.dtype:
        return _backward_gpu(xp, g, xhat, rstd, w, edges, x_shape, b_shape, want_w, grads)
    g2 = g.reshape(-1, n)
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


def _on_rows(x, w, b):
    """Whether the row kernels take x (a CuPy array) with w and b: float32 or float64 data
    of one dtype, w and b C-ordered (x is made so)."""
    return (dtype_name(x.dtype) in ROW_TYPES and x.size > 0
            and all(a is None or (a.dtype == x.dtype and a.flags.c_contiguous)
                    for a in (w, b)))


def _backward_gpu(xp, g, xhat, rstd, w, edges, x_shape, b_shape, want_w, grads):
    """The same on the GPU: one kernel for dx and g * xhat, cuBLAS for the sums down the
    rows. The kernels index the arrays flat, so no shape is made for them."""
    g = g if g.flags.c_contiguous else xp.ascontiguousarray(g)  # e.g. a sum's broadcast
    ones_rows = _vector(xp, len(xhat), 1.0, g.dtype)
    if edges[0] is not None or want_w:
        out = xp.empty(x_shape, g.dtype) if edges[0] is not None else None
        gxw = xp.empty_like(xhat) if want_w else None
        cuda_kernels.layer_norm_rows_grad(g, xhat, w, rstd, out, gxw)
        grads[0] = out
        if want_w:
            dw = xp.matmul(ones_rows, gxw)
            grads[1] = dw if dw.shape == w.shape else dw.reshape(w.shape)
    if len(edges) > 2 and edges[2] is not None:
        db = xp.matmul(ones_rows, g.reshape(xhat.shape))
        grads[2] = db if db.shape == b_shape else db.reshape(b_shape)
    return tuple(grads)
