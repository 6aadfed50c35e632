"""Fused GPU kernels, written as CuPy ElementwiseKernels (CUDA C compiled by CuPy on first
use and cached on disk), for the places where a GPU step would otherwise launch a dozen
small kernels.

On the GPU an eager step is bound by launches: each CuPy call costs ~10 us of host time
whatever its size, and Adam's update is eleven of them per parameter. ResNet-18's step
spent 47 of its 85 ms (profiled on an H200) in Adam's per-parameter calls.

The kernels do the arithmetic of the NumPy paths they replace, in the same order, with the
scalar coefficients rounded to the array's dtype as NumPy rounds a Python float against an
array. CUDA may fuse a multiply and an add into one rounding, so results can differ from
the CPU's in the last bit (tests/gpu compares them).

Example:
    >>> from dygraph.backend import cuda_kernels
    >>> callable(cuda_kernels.adam_update)
    True
"""

import math

__all__ = ["adam_update"]

_KERNELS = {}

_ADAM = """
m = m * b1 + g * c1;
v = v * b2 + (g * g) * c2;
p -= (m / (sqrt(v) + eps)) * step;
"""


def _kernel(name, in_params, out_params, body):
    kernel = _KERNELS.get(name)
    if kernel is None:
        import cupy

        kernel = _KERNELS[name] = cupy.ElementwiseKernel(in_params, out_params, body,
                                                         f"dygraph_{name}")
    return kernel


def adam_update(param, grad, m, v, lr, beta1, beta2, epsilon, beta1_pow, beta2_pow):
    """One Adam step on CuPy arrays in place (param, and the moments m and v), in one
    kernel; beta1_pow and beta2_pow are the powers of the betas before this step (Python
    floats: they live on the host)."""
    t = param.dtype.type
    correction = math.sqrt(1.0 - beta2_pow)
    kernel = _kernel("adam", "T g, T b1, T c1, T b2, T c2, T eps, T step", "T p, T m, T v",
                     _ADAM)
    kernel(grad, t(beta1), t(1.0 - beta1), t(beta2), t(1.0 - beta2), t(epsilon * correction),
           t(lr * correction / (1.0 - beta1_pow)), param, m, v)
