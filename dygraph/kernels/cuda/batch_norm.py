"""Batch norm's element-wise GPU kernels: batch norm on running statistics (inference,
`model.eval()`), and the update of the running statistics in training.

With its statistics fixed, batch norm is element-wise: per channel,
y = (x - mean) * rstd * w + b with rstd = 1 / sqrt(var + eps). The array formula
(dygraph/ops/normalization/norms.py) makes some fifteen CuPy calls per layer (the
statistics reshaped and cast, rstd, the centring, the scale, the weight, the bias); cuDNN
has no standalone graph for it. This kernel computes rstd per element from the variance
(a division and a square root, cheaper than the calls they replace) and the rest in the
formula's order.

In training, cuDNN gives the batch's mean and rstd (float32, per channel); the running
statistics then take running * momentum + (1 - momentum) * batch for the mean and the
biased variance, which cuDNN does not keep (dygraph/backend/cudnn/normalization.py: batch_variance).
As arrays those were fifteen CuPy calls a layer (four for the variance from rstd, three
casts, four for each update); `running_update` is one kernel for both, in that arithmetic
and order.

Example:
    >>> from dygraph.kernels.cuda.registry import KERNEL_SPECS
    >>> KERNEL_SPECS["batch_norm_inference"][1]
    'T y'
"""

import numpy as np

from dygraph.kernels.cuda.registry import define, kernel

__all__ = ["batch_norm_inference", "running_update"]

# As the array formula: rstd = 1 / (var + eps) ** 0.5 (NumPy takes ** 0.5 as sqrt), then
# ((x - mean) * rstd) * w + b.
define("batch_norm_inference", "T x, T mean, T var, T w, T b, T eps, bool has_w, bool has_b",
       "T y", """
const T one = 1;
const T r = one / sqrt(var + eps);
T v = (x - mean) * r;
if (has_w) v = v * w;
if (has_b) v = v + b;
y = v;
""")


def batch_norm_inference(x, mean, var, w, b, eps):
    """Batch norm of CuPy x on fixed statistics, one kernel: mean, var, w and b are
    shaped to broadcast against x (w, b may be None).

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> x = cupy.array([[1.0, 3.0]])  # doctest: +SKIP
        >>> one = cupy.ones((1, 2))  # doctest: +SKIP
        >>> batch_norm_inference(x, one, one * 4, None, None, 0.0)  # doctest: +SKIP
        array([[0., 1.]])
    """
    t = x.dtype.type
    return kernel("batch_norm_inference")(x, mean, var, x if w is None else w,
                                          x if b is None else b, t(eps), w is not None,
                                          b is not None)


# As the array formulas: var = maximum(1 / (rstd * rstd) - eps, 0) (NaN stays NaN), then
# running * momentum + rest * batch with rest = 1 - momentum rounded to T.
define("batch_norm_running",
       "T old_mean, T old_var, T mean, T rstd, T momentum, T rest, T eps",
       "T new_mean, T new_var", """
const T one = 1;
T var = one / (rstd * rstd) - eps;
if (var < 0) var = 0;
new_mean = old_mean * momentum + rest * mean;
new_var = old_var * momentum + rest * var;
""")


def running_update(old_mean, old_var, mean, rstd, momentum, eps, out=None):
    """The running statistics after a batch, from the batch's mean and rstd (CuPy arrays of
    one dtype and shape): (new mean, new variance), into `out` (a pair of arrays, which
    may be old_mean and old_var themselves) or new arrays.

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> one = cupy.ones(2, cupy.float32)  # doctest: +SKIP
        >>> running_update(one * 0, one, one, one * 0.5, 0.9, 0.0)[1]  # doctest: +SKIP
        array([1.3, 1.3], dtype=float32)
    """
    t = old_mean.dtype.type
    # eps as cudnn.batch_variance subtracts it: rounded to float32, cuDNN's statistics' type
    args = (old_mean, old_var, mean, rstd, t(momentum), t(1.0 - momentum),
            t(np.float32(eps)))
    return kernel("batch_norm_running")(*args, *(out or ()))
