"""Fused GPU kernels of DyGraph, written as CuPy ElementwiseKernels (CUDA C compiled by
CuPy on first use and cached on disk): each family module defines its kernels here by
name, with their parameters and body, and runs them through `kernel(name)`.

On the GPU an eager step is bound by launches: each CuPy call costs microseconds of host
time whatever its size (Adam's update was eleven of them per parameter, which made Adam's
per-parameter calls over half of ResNet-18's step; figures: docs/PERFORMANCE.md#gpu-kernels).
So where a step would launch a chain of small element-wise kernels, one kernel does the
chain.

The kernels do the arithmetic of the NumPy paths they replace, in the same order, with the
scalar coefficients rounded to the array's dtype as NumPy rounds a Python float against an
array. CUDA may fuse a multiply and an add into one rounding, so results can differ from
the CPU's in the last bit (tests/gpu compares them). Each kernel has its NumPy statement in
dygraph/kernels/cuda/references.py, which tests/gpu compares it with and the CuPy stand-in
(tools/cupy_standin/) runs; tests/kernels compiles every body with nvcc where installed.

Example:
    >>> import dygraph.kernels.cuda
    >>> sorted(KERNEL_SPECS)[:2]
    ['adam', 'batch_norm_inference']
"""

__all__ = ["KERNEL_SPECS", "define", "kernel"]

# name -> (input parameters, output parameters, body) of each ElementwiseKernel.
KERNEL_SPECS = {}
_KERNELS = {}  # name -> the compiled cupy.ElementwiseKernel


def define(name, in_params, out_params, body):
    """Define the kernel `name` (CuPy's ElementwiseKernel parameters and body).

    Example:
        >>> define("example_twice", "T x", "T y", "y = x + x;")
        >>> KERNEL_SPECS.pop("example_twice")[1]
        'T y'
    """
    KERNEL_SPECS[name] = (in_params, out_params, body)


def kernel(name):
    """The kernel `name`, compiled by CuPy at its first use.

    Example:
        >>> callable(kernel)
        True
    """
    compiled = _KERNELS.get(name)
    if compiled is None:
        import cupy

        in_params, out_params, body = KERNEL_SPECS[name]
        compiled = _KERNELS[name] = cupy.ElementwiseKernel(in_params, out_params, body,
                                                           f"dygraph_{name}")
    return compiled
