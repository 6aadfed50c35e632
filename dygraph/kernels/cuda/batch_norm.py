"""Batch norm on running statistics (inference, `model.eval()`) as one GPU kernel.

With its statistics fixed, batch norm is element-wise: per channel,
y = (x - mean) * rstd * w + b with rstd = 1 / sqrt(var + eps). The array formula
(dygraph/ops/normalization/norms.py) makes some fifteen CuPy calls per layer (the
statistics reshaped and cast, rstd, the centring, the scale, the weight, the bias); cuDNN
has no standalone graph for it. This kernel computes rstd per element from the variance
(a division and a square root, cheaper than the calls they replace) and the rest in the
formula's order.

Example:
    >>> from dygraph.kernels.cuda.registry import KERNEL_SPECS
    >>> KERNEL_SPECS["batch_norm_inference"][1]
    'T y'
"""

from dygraph.kernels.cuda.registry import define, kernel

__all__ = ["batch_norm_inference"]

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
