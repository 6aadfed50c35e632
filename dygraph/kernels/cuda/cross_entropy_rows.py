"""Softmax cross entropy with class-index labels on a GPU, classes on the last axis: one
kernel forward, one back, a thread block per row (dygraph/ops/loss/cross_entropy.py).
Forward, the array formula is nine launches (max, subtract twice, exp, sum, log, divide,
and two for the pick at the labels) and back five (the product with the coefficient, then
an indexed read, add and write at the labels); every training step of a classifier runs
both.

The kernels compute what the CPU's formula computes, in its order: per row, with
m = max(x) and s = sum(exp(x - m)), the softmax p = exp(x - m) / s and the loss
log(s) - (x[label] - m); back, p * c, and p * c + (-c) at the label, with c the row's
coefficient (one for all rows, or one per row). Labels are the checked ones (ignored
entries already replaced by 0, int64); one outside the row (unchecked yet, inside a CUDA
graph) gives a NaN loss and no gradient at a label, never a read outside the row. The
sums add in another order than NumPy's.

Example:
    >>> from dygraph.kernels.cuda.registry import ROW_KERNEL_SPECS
    >>> sorted(n for n in ROW_KERNEL_SPECS if n.startswith("cross_entropy"))
    ['cross_entropy_rows', 'cross_entropy_rows_grad']
"""

import numpy as np

from dygraph.backend import dtype_name
from dygraph.kernels.cuda.block_reductions import ROW_EXP_SUM
from dygraph.kernels.cuda.registry import ROW_TYPES, define_rows, launch_rows

__all__ = ["applies", "cross_entropy_rows", "cross_entropy_rows_grad"]

# Forward over row blockIdx.x of x [rows, n]: the softmax into prob [rows, n] and the
# loss into per [rows].
_FORWARD = ROW_EXP_SUM + """
extern "C" __global__ void KERNEL(const T* x, const long long* label, T* prob, T* per,
                                  long long n) {
    __shared__ T part[256];
    const long long row = blockIdx.x;
    const T* xr = x + row * n;
    T* pr = prob + row * n;
    T m, s;
    row_exp_sum(xr, n, part, &m, &s);
    for (long long j = threadIdx.x; j < n; j += blockDim.x) pr[j] = exp(xr[j] - m) / s;
    if (threadIdx.x == 0) {
        // A label outside [0, n) gets a NaN loss and no read outside its row: inside a
        // CUDA graph the labels' check is a device flag read after the run.
        const long long at = label[row];
        per[row] = (at >= 0 && at < n) ? log(s) - (xr[at] - m) : (T)nan("");
    }
}
"""

# Backward over row blockIdx.x: dx = prob * c, plus -c at the label; c is coef[row] where
# per_row, else coef[0].
_BACKWARD = """
extern "C" __global__ void KERNEL(const T* prob, const long long* label, const T* coef,
                                  T* dx, long long n, int per_row) {
    const long long row = blockIdx.x;
    const T c = coef[per_row ? row : 0];
    const long long at = label[row];
    for (long long j = threadIdx.x; j < n; j += blockDim.x) {
        T v = prob[row * n + j] * c;
        if (j == at) v = v + (-c);
        dx[row * n + j] = v;
    }
}
"""

define_rows("cross_entropy_rows", _FORWARD)
define_rows("cross_entropy_rows_grad", _BACKWARD)


def applies(x, index, axis):
    """Whether the kernels take logits x (a CuPy array) with labels `index` (keepdim
    shape) along `axis`: the last axis of C-ordered float32 or float64 x with elements,
    int64 labels on the same device.

    Example:
        >>> x = np.ones((2, 3), np.float32)
        >>> applies(x, np.zeros((2, 1), np.int64), 1), applies(x, np.zeros((1, 3)), 0)
        (True, False)
    """
    return (axis == x.ndim - 1 and x.size > 0 and dtype_name(x.dtype) in ROW_TYPES
            and x.flags.c_contiguous and index.dtype == np.int64 and type(index) is type(x))


def _contiguous(xp, a):
    return a if a.flags.c_contiguous else xp.ascontiguousarray(a)


def cross_entropy_rows(xp, x, index):
    """(prob, per): the softmax of x along its last axis and each row's loss (x's shape
    with 1 for the classes), one kernel.

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> label = cupy.zeros((1, 1), 'int64')  # doctest: +SKIP
        >>> prob, per = cross_entropy_rows(cupy, cupy.zeros((1, 2)), label)  # doctest: +SKIP
        >>> float(per[0, 0])  # doctest: +SKIP
        0.6931471805599453
    """
    n = x.shape[-1]
    prob, per = xp.empty_like(x), xp.empty(x.shape[:-1] + (1,), x.dtype)
    launch_rows("cross_entropy_rows", x.size // n, n,
                (x, _contiguous(xp, index), prob, per, np.int64(n)))
    return prob, per


def cross_entropy_rows_grad(xp, prob, index, c):
    """prob * c with -c added at each row's label, one kernel; c one coefficient or one
    per row, of prob's dtype; None where c is neither (the caller runs the array
    formula).

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> p = cupy.full((1, 2), 0.5)  # doctest: +SKIP
        >>> label = cupy.zeros((1, 1), 'int64')  # doctest: +SKIP
        >>> cross_entropy_rows_grad(cupy, p, label, cupy.ones(()))  # doctest: +SKIP
        array([[-0.5,  0.5]])
    """
    n = prob.shape[-1]
    rows = prob.size // n
    if c.dtype != prob.dtype or c.size not in (1, rows) or type(c) is not type(prob):
        return None
    dx = xp.empty_like(prob)
    launch_rows("cross_entropy_rows_grad", rows, n,
                (prob, _contiguous(xp, index), _contiguous(xp, c), dx, np.int64(n),
                 np.int32(c.size != 1)))
    return dx
