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
array, compiled with `--fmad=false` (no multiply and add fused into one rounding), so
arithmetic rounds as the CPU's does; math functions (sqrt aside) are CUDA's and may differ
in the last bits (tests/gpu compares them). Each kernel has its NumPy statement in
dygraph/kernels/cuda/references.py, which tests/gpu compares it with and the CuPy stand-in
(tools/cupy_standin/) runs; tests/kernels compiles every body with nvcc where installed.

Work along rows (a softmax: a maximum, a sum, then the elements) is a raw kernel instead,
one thread block per row (`define_rows`, `row_kernel`): written once in a type `T` and
compiled for float and double, its NumPy statement in references.py as well.

Example:
    >>> import dygraph.kernels.cuda
    >>> sorted(KERNEL_SPECS)[:2]
    ['adam', 'batch_norm_inference']
"""

from dygraph.backend import dtype_name

__all__ = ["KERNEL_SPECS", "ROW_KERNEL_SPECS", "define", "kernel", "define_rows",
           "row_kernel", "row_source", "row_threads", "launch_rows"]

# name -> (input parameters, output parameters, body) of each ElementwiseKernel.
KERNEL_SPECS = {}
_KERNELS = {}  # name -> the compiled cupy.ElementwiseKernel
# name -> CUDA C of a __global__ function named KERNEL over the type T (see define_rows).
ROW_KERNEL_SPECS = {}
_ROW_KERNELS = {}  # (name, dtype name) -> the compiled cupy.RawKernel
ROW_TYPES = {"float32": "float", "float64": "double"}
# Threads per block of a row kernel: a power of two (the kernels' tree reductions halve
# it), at most the 256 their shared buffers hold; 32 (a warp) at the least.
MAX_ROW_THREADS = 256


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
        compiled = _KERNELS[name] = cupy.ElementwiseKernel(
            in_params, out_params, body, f"dygraph_{name}", options=("--fmad=false",))
    return compiled


def define_rows(name, source):
    """Define the row kernel `name`: CUDA C of `extern "C" __global__ void KERNEL(...)`
    over the type T, launched with one thread block per row (`launch_rows`).

    Example:
        >>> define_rows("example_rows", 'extern "C" __global__ void KERNEL(T* y) {}')
        >>> "example_rows" in ROW_KERNEL_SPECS and bool(ROW_KERNEL_SPECS.pop("example_rows"))
        True
    """
    ROW_KERNEL_SPECS[name] = source


def row_source(name, dtype):
    """The CUDA C of row kernel `name` for `dtype` (float32 or float64), its function named
    dygraph_<name>_<dtype>.

    Example:
        >>> import dygraph.kernels.cuda
        >>> row_source("softmax_rows", "float64").splitlines()[0]
        'typedef double T;'
    """
    return (f"typedef {ROW_TYPES[str(dtype)]} T;\n"
            + ROW_KERNEL_SPECS[name].replace("KERNEL", f"dygraph_{name}_{dtype}"))


def row_kernel(name, dtype):
    """The row kernel `name` for `dtype`, compiled by CuPy at its first use (without
    contracted multiply-adds, so that products and sums round as the NumPy paths do).

    Example:
        >>> callable(row_kernel)
        True
    """
    key = (name, dtype_name(dtype))
    compiled = _ROW_KERNELS.get(key)
    if compiled is None:
        import cupy

        compiled = _ROW_KERNELS[key] = cupy.RawKernel(
            row_source(name, key[1]), f"dygraph_{name}_{key[1]}", options=("--fmad=false",))
    return compiled


def row_threads(n):
    """Threads per block for rows of n elements: the power of two at or above n, between
    32 (a warp) and MAX_ROW_THREADS (each thread then loops over several elements).

    Example:
        >>> row_threads(10), row_threads(100), row_threads(5000)
        (32, 128, 256)
    """
    threads = 32
    while threads < n and threads < MAX_ROW_THREADS:
        threads *= 2
    return threads


def launch_rows(name, rows, n, args, threads=None):
    """Run row kernel `name` over `rows` rows of `n` elements, one block per row
    (`row_threads(n)` threads unless `threads` says). `args` are the kernel's arguments
    (CuPy arrays, NumPy scalars); the first, an array of T, sets the dtype.

    Example:
        >>> callable(launch_rows)
        True
    """
    row_kernel(name, args[0].dtype)((rows,), (threads or row_threads(n),), args)
