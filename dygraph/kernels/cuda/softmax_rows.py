"""softmax and log_softmax along the last axis on a GPU, forward and backward, one kernel
each: a thread block per row finds the row's maximum, sums, then writes the row
(dygraph/ops/activation/softmax.py). The array formula is five CuPy calls forward (max,
subtract, exp, sum, divide), each a pass over the whole array, and four back; on a GPU each
call costs host time, and an attention layer's scores are the biggest arrays of a
Transformer step.

The kernels compute what the NumPy forward and backward compute, in their order:
softmax y = exp(x - max) / sum(exp(x - max)), log_softmax y = (x - max) - log(sum(...)),
and the gradients g*y - y*sum(g*y) and g - exp(y)*sum(g). A NaN in a row makes the
whole row NaN, as there. The sums add in another order than NumPy's pairwise
sum, so results can differ from the CPU's in the last bits (tests/gpu compares them).

Example:
    >>> from dygraph.kernels.cuda.registry import ROW_KERNEL_SPECS
    >>> sorted(n for n in ROW_KERNEL_SPECS if n.startswith("softmax"))
    ['softmax_rows', 'softmax_rows_grad']
"""

import numpy as np

from dygraph.backend import dtype_name
from dygraph.kernels.cuda.block_reductions import BLOCK_SUM, ROW_EXP_SUM
from dygraph.kernels.cuda.registry import ROW_TYPES, define_rows, launch_rows

__all__ = ["applies", "softmax_rows", "softmax_rows_grad"]

# Forward over row blockIdx.x of x [rows, n] into y; `log_out` chooses log_softmax.
_FORWARD = ROW_EXP_SUM + """
extern "C" __global__ void KERNEL(const T* x, T* y, long long n, int log_out) {
    __shared__ T part[256];
    const T* xr = x + (long long)blockIdx.x * n;
    T* yr = y + (long long)blockIdx.x * n;
    T m, s;
    row_exp_sum(xr, n, part, &m, &s);
    if (log_out) {
        const T log_s = log(s);
        for (long long j = threadIdx.x; j < n; j += blockDim.x) yr[j] = (xr[j] - m) - log_s;
    } else {
        for (long long j = threadIdx.x; j < n; j += blockDim.x) yr[j] = exp(xr[j] - m) / s;
    }
}
"""

# Backward from the output y and its gradient g (both [rows, n]) into dx.
_BACKWARD = BLOCK_SUM + """
extern "C" __global__ void KERNEL(const T* y, const T* g, T* dx, long long n, int log_out) {
    __shared__ T part[256];
    const long long start = (long long)blockIdx.x * n;
    const T* yr = y + start;
    const T* gr = g + start;
    T* dr = dx + start;
    T s = 0;
    if (log_out) {
        for (long long j = threadIdx.x; j < n; j += blockDim.x) s += gr[j];
    } else {
        for (long long j = threadIdx.x; j < n; j += blockDim.x) s += gr[j] * yr[j];
    }
    s = block_sum(s, part);
    if (log_out) {
        for (long long j = threadIdx.x; j < n; j += blockDim.x) dr[j] = gr[j] - exp(yr[j]) * s;
    } else {
        for (long long j = threadIdx.x; j < n; j += blockDim.x) {
            const T gy = gr[j] * yr[j];
            dr[j] = gy - yr[j] * s;
        }
    }
}
"""

define_rows("softmax_rows", _FORWARD)
define_rows("softmax_rows_grad", _BACKWARD)


def applies(x, axis):
    """Whether the row kernels take softmax of the CuPy array `x` along `axis`: its last
    axis, x C-ordered float32 or float64 with elements.

    Example:
        >>> applies(np.ones((2, 3), np.float32), 1), applies(np.ones((2, 3)), 0)
        (True, False)
    """
    return (axis == x.ndim - 1 and x.size > 0 and dtype_name(x.dtype) in ROW_TYPES
            and x.flags.c_contiguous)


def softmax_rows(xp, x, log=False):
    """softmax (log_softmax with `log`) of x along its last axis, one kernel (`applies(x,
    -1)` must hold).

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> softmax_rows(cupy, cupy.zeros((1, 2)))  # doctest: +SKIP
        array([[0.5, 0.5]])
    """
    y = xp.empty_like(x)
    n = x.shape[-1]
    launch_rows("softmax_rows", x.size // n, n, (x, y, np.int64(n), np.int32(log)))
    return y


def softmax_rows_grad(xp, y, g, log=False):
    """The gradient of softmax (log_softmax with `log`) along the last axis from its output
    y and output gradient g (of y's shape and dtype, C-ordered), one kernel; None where g
    does not qualify (the caller runs the array formula).

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> y = cupy.full((1, 2), 0.5)  # doctest: +SKIP
        >>> softmax_rows_grad(cupy, y, cupy.array([[1.0, 0.0]]))  # doctest: +SKIP
        array([[ 0.25, -0.25]])
    """
    if g.shape != y.shape or g.dtype != y.dtype or not g.flags.c_contiguous:
        return None
    dx = xp.empty_like(y)
    n = y.shape[-1]
    launch_rows("softmax_rows_grad", y.size // n, n, (y, g, dx, np.int64(n), np.int32(log)))
    return dx
