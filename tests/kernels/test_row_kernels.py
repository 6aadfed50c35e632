"""The row kernels' CUDA C (dygraph/kernels/cuda/registry.define_rows: softmax and
log_softmax, forward and backward), checked without a GPU: the source is compiled as host
C++ (g++, no contraction of multiply-adds, as the kernels are compiled with --fmad=false)
and run as a GPU runs it, one thread block per row with one host thread per CUDA thread,
`__syncthreads()` a barrier and `__shared__` memory shared by the block's threads. So the
indexing, the strided loops and the tree reductions are what run here; only the math
library (exp, log) is the host's. Results are compared with the NumPy statements
(dygraph/kernels/cuda/references.py, which the CuPy stand-in runs) and with the ops'
own NumPy paths; and the source is compiled for the GPU by nvcc where it is installed."""

import ctypes
import re
import shutil
import subprocess

import numpy as np
import pytest

from dygraph.autograd.backward_math import ArrayMath
from dygraph.kernels.cuda import registry
from dygraph.kernels.cuda.references import KERNELS
from dygraph.ops.activation.softmax import LogSoftmax, Softmax

# What a CUDA thread block is made of, on host threads.
_EMULATION = """
#include <barrier>
#include <cmath>
#include <thread>
#include <vector>
using namespace std;
struct Dim { unsigned x; };
static thread_local Dim threadIdx;
static Dim blockIdx, blockDim;
static barrier<>* block_barrier;
#define __global__
#define __device__
#define __shared__ static
#define __syncthreads() block_barrier->arrive_and_wait()

template <class Body> static void run_blocks(int blocks, int threads, Body body) {
    blockDim.x = threads;
    for (int b = 0; b < blocks; ++b) {
        blockIdx.x = b;
        barrier<> sync(threads);
        block_barrier = &sync;
        vector<thread> pool;
        for (int t = 0; t < threads; ++t)
            pool.emplace_back([&body, t] { threadIdx.x = t; body(); });
        for (auto& one : pool) one.join();
    }
}
"""


def _launcher(name, dtype):
    """The kernel's source in a namespace of its own and a C function that runs it over
    `blocks` blocks of `threads` threads: launch_<function>(blocks, threads, params...)."""
    function = f"dygraph_{name}_{dtype}"
    source = registry.row_source(name, dtype)
    params = re.search(rf"{function}\(([^)]*)\)", source).group(1)
    ctype = registry.ROW_TYPES[dtype]
    typed = params.replace("T*", f"{ctype}*")
    names = ", ".join(p.split()[-1] for p in params.split(","))
    return (f"namespace k_{function} {{\n{source}\n}}\n"
            f'extern "C" void launch_{function}(int blocks, int threads, {typed}) {{\n'
            f"    run_blocks(blocks, threads, [&] {{ k_{function}::{function}({names}); }});\n"
            f"}}\n")


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    text = _EMULATION + "".join(_launcher(name, dtype) for name in registry.ROW_KERNEL_SPECS
                                for dtype in registry.ROW_TYPES)
    folder = tmp_path_factory.mktemp("rows")
    (folder / "rows.cpp").write_text(text)
    path = folder / "rows.so"
    done = subprocess.run(["g++", "-std=c++20", "-O1", "-ffp-contract=off", "-fno-fast-math",
                           "-shared", "-fPIC", "-pthread", str(folder / "rows.cpp"), "-o",
                           str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return ctypes.CDLL(str(path))


def _launch(library, name, rows, n, args):
    """Run row kernel `name` as launch_rows would: one block per row, row_threads(n)."""
    dtype = next(a.dtype for a in args if isinstance(a, np.ndarray))
    function = getattr(library, f"launch_dygraph_{name}_{dtype}")
    converted = []
    for a in args:
        if isinstance(a, np.ndarray):
            converted.append(a.ctypes.data_as(ctypes.c_void_p))
        elif isinstance(a, np.int64):
            converted.append(ctypes.c_longlong(int(a)))
        else:
            converted.append(ctypes.c_int(int(a)))
    function(rows, registry.row_threads(n), *converted)


def _rows(n, dtype, rows=6, seed=0):
    """Rows of random values over several scales; with special rows: a NaN, -inf
    throughout, a +inf, values near exp's overflow."""
    rng = np.random.default_rng(seed + n)
    x = rng.standard_normal((rows, n)) * 10.0 ** rng.integers(-2, 2, (rows, 1))
    if rows >= 6:
        x[1, n // 2] = np.nan
        x[2, :] = -np.inf
        x[3, n - 1] = np.inf
        x[4, :] += 700.0 if dtype == "float64" else 80.0
    return x.astype(dtype)


def _close(got, want, dtype, what):
    # The block's sums add in another order than NumPy's pairwise sum: a few units in the
    # last place of the sum, which softmax divides by (log_softmax subtracts its log).
    eps = np.finfo(dtype).eps
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=what)
    np.testing.assert_allclose(got, want, rtol=32 * eps, atol=32 * eps, err_msg=what)


# n across the thread counts: below a warp, a warp, a block's width and several per thread.
SIZES = [1, 5, 32, 37, 256, 300, 1000]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("log", [False, True])
def test_forward_computes_what_the_op_computes(library, dtype, n, log):
    x = _rows(n, dtype)
    y = np.full_like(x, -7.0)
    with np.errstate(invalid="ignore", over="ignore"):
        _launch(library, "softmax_rows", x.shape[0], n, (x, y, np.int64(n), np.int32(log)))
        statement = np.empty_like(x)
        KERNELS[f"dygraph_softmax_rows_{dtype}"](x, statement, np.int64(n), np.int32(log))
        op = (LogSoftmax if log else Softmax)(1).forward(np, x)
    _close(y, statement, dtype, "against the NumPy statement")
    _close(y, op, dtype, "against the op's NumPy forward")
    assert np.isnan(y[2]).all() and np.isnan(y[1]).all()  # -inf throughout; a NaN


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("log", [False, True])
def test_backward_computes_what_the_op_computes(library, dtype, n, log):
    rng = np.random.default_rng(n)
    x = _rows(n, dtype, rows=5)
    op = (LogSoftmax if log else Softmax)(1)
    y = op.forward(np, x)
    g = rng.standard_normal(x.shape).astype(dtype)
    dx = np.full_like(x, -7.0)
    _launch(library, "softmax_rows_grad", x.shape[0], n, (y, g, dx, np.int64(n), np.int32(log)))
    statement = np.empty_like(x)
    KERNELS[f"dygraph_softmax_rows_grad_{dtype}"](y, g, statement, np.int64(n), np.int32(log))
    op.out_data, op.out_dirty, op.packed_outputs = (y,), False, None
    (want,) = op.backward(ArrayMath(np), g)
    _close(dx, statement, dtype, "against the NumPy statement")
    _close(dx, want, dtype, "against the op's NumPy backward")


def test_a_block_of_threads_is_what_runs():
    """The block's width follows n: a warp for short rows, 256 threads at most."""
    assert [registry.row_threads(n) for n in SIZES] == [32, 32, 32, 64, 256, 256, 256]
    assert registry.MAX_ROW_THREADS == 256
    for name in registry.ROW_KERNEL_SPECS:  # the shared buffers hold a slot per thread
        assert "__shared__ T part[256];" in registry.ROW_KERNEL_SPECS[name]


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_the_row_kernels_compile_for_the_gpu(tmp_path):
    for name in registry.ROW_KERNEL_SPECS:
        for dtype in registry.ROW_TYPES:
            path = tmp_path / f"{name}_{dtype}.cu"
            path.write_text(registry.row_source(name, dtype))
            done = subprocess.run(["nvcc", "-ptx", "-arch=compute_90", "--fmad=false",
                                   str(path), "-o", str(tmp_path / f"{name}_{dtype}.ptx")],
                                  capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
