"""The row kernels' CUDA C (dygraph/kernels/cuda/registry.define_rows: softmax,
log_softmax, layer norm, cross entropy and the LSTM and GRU sequences, forward and
backward), checked without a GPU:
the source is compiled as host C++ (g++, no contraction of multiply-adds, as the kernels
are compiled with --fmad=false) and run as a GPU runs it, one thread block per row with
one host thread per CUDA thread, `__syncthreads()` a barrier and `__shared__` memory
shared by the block's threads. So the indexing, the strided loops and the tree reductions
are what run here; only the math library (exp, log, sqrt) is the host's. Results are
compared with the NumPy statements (dygraph/kernels/cuda/references.py, which the CuPy
stand-in runs) and with the ops' own NumPy paths; and the source is compiled for the GPU
by nvcc where it is installed."""

import ctypes
import re
import shutil
import subprocess

import numpy as np
import pytest

from dygraph.autograd.backward_math import ArrayMath
from dygraph.kernels.cuda import recurrent_sequences, registry
from dygraph.kernels.cuda.references import KERNELS
from dygraph.ops.activation.softmax import LogSoftmax, Softmax
from dygraph.ops.loss.cross_entropy import SoftmaxCrossEntropy
from dygraph.ops.normalization import layer_rows
from dygraph.ops.rnn.arrays import previous_hidden
from tests.kernels.elementwise_c import host_library

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
    typed = re.sub(r"\bT\b", ctype, params)
    names = ", ".join(p.split()[-1] for p in params.split(","))
    return (f"namespace k_{function} {{\n{source}\n}}\n"
            f'extern "C" void launch_{function}(int blocks, int threads, {typed}) {{\n'
            f"    run_blocks(blocks, threads, [&] {{ k_{function}::{function}({names}); }});\n"
            f"}}\n")


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    text = _EMULATION + "".join(_launcher(name, dtype) for name in registry.ROW_KERNEL_SPECS
                                for dtype in registry.ROW_TYPES)
    return host_library(tmp_path_factory, "rows", text, ("-std=c++20", "-O1", "-pthread"))


def _launch(library, name, rows, n, args, threads=None):
    """Run row kernel `name` as launch_rows would: one block per row, row_threads(n)
    threads unless `threads` says."""
    dtype = next(a.dtype for a in args if isinstance(a, np.ndarray))
    function = getattr(library, f"launch_dygraph_{name}_{dtype}")
    converted = []
    for a in args:
        if isinstance(a, np.ndarray):
            converted.append(a.ctypes.data_as(ctypes.c_void_p))
        elif isinstance(a, np.int64):
            converted.append(ctypes.c_longlong(int(a)))
        elif isinstance(a, np.floating):
            converted.append((ctypes.c_float if a.dtype == np.float32 else ctypes.c_double)(a))
        else:
            converted.append(ctypes.c_int(int(a)))
    function(rows, threads or registry.row_threads(n), *converted)


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


def _close(got, want, dtype, what, terms=16):
    # The block's sums add in another order than NumPy's pairwise sum or BLAS's: up to a
    # unit in the last place per two terms summed, of the terms' scale (order one here);
    # the row kernels' reductions count as 16 terms.
    eps = np.finfo(dtype).eps
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=what)
    np.testing.assert_allclose(got, want, rtol=2 * terms * eps, atol=2 * terms * eps,
                               err_msg=what)


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


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_computes_what_the_cpu_path_computes(library, dtype, n, affine):
    """Forward (y, xhat, rstd) and backward (dx; g * xhat, whose sums down the rows are
    the weight's gradient), against the NumPy statements and the CPU's layer_rows."""
    rng = np.random.default_rng(n)
    x = (rng.standard_normal((5, n)) * 3 + 1).astype(dtype)
    w, b = (rng.standard_normal(n).astype(dtype) for _ in range(2))
    g = rng.standard_normal((5, n)).astype(dtype)
    w, b = (w, b) if affine else (None, None)
    t = np.dtype(dtype).type
    outs = [np.full_like(x, -7.0), np.full_like(x, -7.0), np.full(5, -7.0, dtype)]
    args = (x, x if w is None else w, x if b is None else b, *outs, np.int64(n), t(1e-5),
            np.int32(affine), np.int32(affine))
    _launch(library, "layer_norm_rows", 5, n, args)
    statement = [np.empty_like(o) for o in outs]
    KERNELS[f"dygraph_layer_norm_rows_{dtype}"](*args[:3], *statement, *args[6:])
    y, xhat, rstd = layer_rows.forward(np, x, w, b, n, 1e-5)
    for got, want, cpu in zip(outs, statement, (y, xhat, rstd.reshape(-1))):
        _close(got, want, dtype, "forward against the NumPy statement")
        _close(got, cpu, dtype, "forward against the CPU path")
    dx, gxw = np.full_like(x, -7.0), np.full_like(x, -7.0)
    args = (g, xhat, g if w is None else w, rstd.reshape(-1), dx, gxw, np.int64(n),
            np.int32(affine), np.int32(1), np.int32(1))
    _launch(library, "layer_norm_rows_grad", 5, n, args)
    want_dx, want_gxw = np.empty_like(x), np.empty_like(x)
    KERNELS[f"dygraph_layer_norm_rows_grad_{dtype}"](*args[:4], want_dx, want_gxw, *args[6:])
    grads = layer_rows.backward(np, g, xhat, rstd, w, (1, 1 if affine else None), x.shape,
                                (n,))
    _close(dx, want_dx, dtype, "dx against the NumPy statement")
    _close(dx, grads[0], dtype, "dx against the CPU path")
    _close(gxw, want_gxw, dtype, "g * xhat against the NumPy statement")
    if affine:
        _close(gxw.sum(axis=0), grads[1], dtype, "the weight's gradient")


def test_layer_norm_backward_writes_only_what_is_asked(library):
    g = np.ones((2, 40), np.float32)
    xhat = np.linspace(-1, 1, 80, dtype=np.float32).reshape(2, 40)
    for want_dx, want_gxw in ((1, 0), (0, 1)):
        dx, gxw = np.full_like(g, -7.0), np.full_like(g, -7.0)
        _launch(library, "layer_norm_rows_grad", 2, 40,
                (g, xhat, g, np.ones(2, np.float32), dx, gxw, np.int64(40), np.int32(0),
                 np.int32(want_dx), np.int32(want_gxw)))
        assert (dx == -7.0).all() != bool(want_dx) and (gxw == -7.0).all() != bool(want_gxw)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("per_row", [False, True])
def test_cross_entropy_computes_what_the_op_computes(library, dtype, n, per_row):
    """The softmax and the loss per row, then the gradient with one coefficient or one per
    row, against the NumPy statements and the op's CPU forward and backward."""
    rng = np.random.default_rng(n)
    x = (rng.standard_normal((6, n)) * 4).astype(dtype)
    label = rng.integers(0, n, (6, 1)).astype(np.int64)
    prob, per = np.full_like(x, -7.0), np.full((6, 1), -7.0, dtype)
    _launch(library, "cross_entropy_rows", 6, n, (x, label, prob, per, np.int64(n)))
    want_prob, want_per = np.empty_like(x), np.empty_like(per)
    KERNELS[f"dygraph_cross_entropy_rows_{dtype}"](x, label, want_prob, want_per, np.int64(n))
    op = SoftmaxCrossEntropy(1, label, None, None, 1.0, "none", (6, 1))
    cpu_per = op.forward(np, x)
    for got, want, cpu in ((prob, want_prob, op.prob), (per, want_per, cpu_per)):
        _close(got, want, dtype, "forward against the NumPy statement")
        _close(got, cpu, dtype, "forward against the op's forward")
    c = (rng.random((6, 1)) + 0.5).astype(dtype) if per_row else np.asarray(0.25, dtype)
    dx = np.full_like(x, -7.0)
    args = (prob, label, c, dx, np.int64(n), np.int32(per_row))
    _launch(library, "cross_entropy_rows_grad", 6, n, args)
    want_dx = np.empty_like(x)
    KERNELS[f"dygraph_cross_entropy_rows_grad_{dtype}"](prob, label, c, want_dx, *args[4:])
    cpu_dx = op.add_at_label(ArrayMath(np), op.prob * c, c, -1)
    _close(dx, want_dx, dtype, "backward against the NumPy statement")
    _close(dx, cpu_dx, dtype, "backward against the op's backward")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_label_outside_the_row_gives_nan_and_reads_nothing_outside(library, dtype):
    """Inside a CUDA graph labels are checked after the run: an out-of-range one must not
    make the kernels read or write outside its row. Row 1's label is past the row, row 3's
    negative; the rows beside them keep their losses and gradients."""
    n = 5
    rng = np.random.default_rng(9)
    x = (rng.standard_normal((4, n)) * 3).astype(dtype)
    label = np.array([[2], [n + 1000], [0], [-7]], np.int64)
    prob, per = np.empty_like(x), np.empty((4, 1), dtype)
    _launch(library, "cross_entropy_rows", 4, n, (x, label, prob, per, np.int64(n)))
    want_prob, want_per = np.empty_like(x), np.empty_like(per)
    KERNELS[f"dygraph_cross_entropy_rows_{dtype}"](x, label, want_prob, want_per, np.int64(n))
    assert np.isnan(per[[1, 3], 0]).all() and np.isnan(want_per[[1, 3], 0]).all()
    good = [0, 2]
    op = SoftmaxCrossEntropy(1, label[good], None, None, 1.0, "none", (2, 1))
    _close(per[good], op.forward(np, x[good]), dtype, "the valid rows' losses")
    _close(per[good], want_per[good], dtype, "the NumPy statement's")
    dx = np.empty_like(x)
    _launch(library, "cross_entropy_rows_grad", 4, n,
            (prob, label, np.asarray(1.0, dtype), dx, np.int64(n), np.int32(0)))
    _close(dx[[1, 3]], prob[[1, 3]], dtype, "no gradient at a label outside the row")


def _lstm_arrays(steps, batch, width, dtype, seed=0):
    """An LSTM walk's arrays as the layer op makes them: the input gates and the outputs
    as time views of batch-first arrays (strided), the rest C-ordered; what the kernel
    must write (c[0] and the final states included) starts as NaN."""
    rng = np.random.default_rng(seed)
    rows = rng.standard_normal((batch, steps, 4 * width)).astype(dtype).swapaxes(0, 1)
    w_s = (rng.standard_normal((width, 4 * width)) / np.sqrt(width)).astype(dtype)
    h0, c0 = (rng.standard_normal((batch, width)).astype(dtype) for _ in range(2))
    c = np.full((steps + 1, batch, width), np.nan, dtype)
    act = np.full((steps, 4, batch, width), np.nan, dtype)
    tc = np.full((steps, batch, width), np.nan, dtype)
    hs = np.full((batch, steps, width), np.nan, dtype).swapaxes(0, 1)
    hn, cn = np.full((batch, width), np.nan, dtype), np.full((batch, width), np.nan, dtype)
    return rows, w_s, h0, c0, c, act, tc, hs, hn, cn


def _strides(a):
    return [np.int64(st // a.itemsize) for st in a.strides]


# Sequences: one step, several (from h0, then the outputs before, strided), each way.
WALKS = [(1, False), (5, False), (5, True)]


def _final_grads(rng, batch, width, dtype, given):
    """The final states' gradients and their flags: random ones, or none (the kernel then
    starts from zeros)."""
    if not given:
        return [np.zeros((batch, width), dtype), np.int32(0)]
    return [rng.standard_normal((batch, width)).astype(dtype), np.int32(1)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("width", [3, 37, 256])
@pytest.mark.parametrize("steps, reverse", WALKS)
def test_the_lstm_sequence_computes_what_its_statement_computes(library, dtype, width, steps,
                                                               reverse):
    """A walk forward and back (with the outputs' gradient, strided; the final states'
    gradients given, then not), against the NumPy statements."""
    batch = 3
    threads = recurrent_sequences.step_threads(width)
    walk = (np.int64(steps), np.int32(reverse), np.int64(width), np.int64(batch))
    runs = {"kernel": _lstm_arrays(steps, batch, width, dtype),
            "statement": _lstm_arrays(steps, batch, width, dtype)}
    for run, (rows, w_s, h0, c0, c, act, tc, hs, hn, cn) in runs.items():
        args = (rows, *_strides(rows)[:2], w_s, h0, c0, c, act, tc, hs, *_strides(hs)[:2],
                hn, cn, *walk)
        if run == "kernel":
            _launch(library, "lstm_sequence", batch, width, args, threads)
        else:
            KERNELS[f"dygraph_lstm_sequence_{dtype}"](*args)
    for g, w in zip(runs["kernel"][4:], runs["statement"][4:]):
        _close(g, w, dtype, "the LSTM's forward", terms=width * steps)
    _, _, h0, c0, c, act, tc, hs, hn, cn = runs["kernel"]
    np.testing.assert_array_equal(c[0], c0)
    np.testing.assert_array_equal(hn, hs[0 if reverse else steps - 1])
    np.testing.assert_array_equal(cn, c[steps])
    rng = np.random.default_rng(1)
    w = (rng.standard_normal((4 * width, width)) / np.sqrt(width)).astype(dtype)
    g_out = rng.standard_normal((batch, steps, width)).astype(dtype).swapaxes(0, 1)
    for given in (True, False):
        finals = (_final_grads(rng, batch, width, dtype, given)
                  + _final_grads(rng, batch, width, dtype, given))
        results = []
        for run in ("kernel", "statement"):
            dh, dc = (np.full((batch, width), np.nan, dtype) for _ in range(2))
            d_rows = np.zeros((batch, steps, 4 * width), dtype).swapaxes(0, 1)
            hp = _nan_time_view(steps, batch, width, dtype)
            args = (act, c, tc, g_out, *_strides(g_out)[:2], np.int32(1), w, *finals, dh, dc,
                    d_rows, *_strides(d_rows)[:2], h0, hs, *_strides(hs)[:2], hp,
                    *_strides(hp)[:2], *walk)
            if run == "kernel":
                _launch(library, "lstm_sequence_grad", batch, width, args, threads)
            else:
                KERNELS[f"dygraph_lstm_sequence_grad_{dtype}"](*args)
            results.append((dh, dc, d_rows, hp))
        for g, w_ in zip(*results):
            _close(g, w_, dtype, f"the LSTM's backward, final gradients given: {given}",
                   terms=4 * width * steps)
        _expect_previous(results[0][3], hs, h0, reverse)


def _nan_time_view(steps, batch, width, dtype):
    """A [T, B, H] time view of a batch-first array of NaN (what a kernel must fill)."""
    return np.full((batch, steps, width), np.nan, dtype).swapaxes(0, 1)


def _expect_previous(hp, hs, h0, reverse):
    """hp holds the state each step started from, as arrays.previous_hidden makes it."""
    want = np.empty_like(hp)
    previous_hidden(hs, h0, reverse, want)
    np.testing.assert_array_equal(hp, want)


def _gru_arrays(steps, batch, width, dtype):
    rng = np.random.default_rng(3)
    rows = rng.standard_normal((batch, steps, 3 * width)).astype(dtype).swapaxes(0, 1)
    w_s = (rng.standard_normal((3, width, width)) / np.sqrt(width)).astype(dtype)
    h0 = rng.standard_normal((batch, width)).astype(dtype)
    bias = rng.standard_normal(width).astype(dtype)
    prod = np.full((steps, 3, batch, width), np.nan, dtype)
    act = np.full_like(prod, np.nan)
    hs = np.full((batch, steps, width), np.nan, dtype).swapaxes(0, 1)
    hn = np.full((batch, width), np.nan, dtype)
    return rows, w_s, h0, bias, prod, act, hs, hn


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("width", [3, 37, 256])
@pytest.mark.parametrize("steps, reverse", WALKS)
def test_the_gru_sequence_computes_what_its_statement_computes(library, dtype, width, steps,
                                                              reverse):
    """A walk forward and back, as for the LSTM, against the NumPy statements; the
    backward from the states each step started from, strided."""
    batch = 3
    threads = recurrent_sequences.step_threads(width)
    walk = (np.int64(steps), np.int32(reverse), np.int64(width), np.int64(batch))
    runs = {"kernel": _gru_arrays(steps, batch, width, dtype),
            "statement": _gru_arrays(steps, batch, width, dtype)}
    for run, (rows, w_s, h0, bias, prod, act, hs, hn) in runs.items():
        args = (rows, *_strides(rows)[:2], w_s, h0, bias, np.int32(1), prod, act, hs,
                *_strides(hs)[:2], hn, *walk)
        if run == "kernel":
            _launch(library, "gru_sequence", batch, width, args, threads)
        else:
            KERNELS[f"dygraph_gru_sequence_{dtype}"](*args)
    for g, w in zip(runs["kernel"][4:], runs["statement"][4:]):
        _close(g, w, dtype, "the GRU's forward", terms=width * steps)
    _, _, h0, _, prod, act, hs, hn = runs["kernel"]
    np.testing.assert_array_equal(hn, hs[0 if reverse else steps - 1])
    rng = np.random.default_rng(4)
    w = (rng.standard_normal((3 * width, width)) / np.sqrt(width)).astype(dtype)
    g_out = rng.standard_normal((batch, steps, width)).astype(dtype).swapaxes(0, 1)
    for given in (True, False):
        final = _final_grads(rng, batch, width, dtype, given)
        results = []
        for run in ("kernel", "statement"):
            tmp, dhz = (np.full((batch, width), np.nan, dtype) for _ in range(2))
            d_hid = np.zeros((batch, steps, 3 * width), dtype).swapaxes(0, 1)
            d_n = np.zeros((batch, steps, width), dtype).swapaxes(0, 1)
            hp = _nan_time_view(steps, batch, width, dtype)
            args = (act, prod, h0, hs, *_strides(hs)[:2], hp, *_strides(hp)[:2], g_out,
                    *_strides(g_out)[:2], np.int32(1), w, *final, tmp, dhz, d_hid,
                    *_strides(d_hid)[:2], d_n, *_strides(d_n)[:2], *walk)
            if run == "kernel":
                _launch(library, "gru_sequence_grad", batch, width, args, threads)
            else:
                KERNELS[f"dygraph_gru_sequence_grad_{dtype}"](*args)
            results.append((dhz, d_hid, d_n, hp))
        for g, w_ in zip(*results):
            _close(g, w_, dtype, f"the GRU's backward, final gradient given: {given}",
                   terms=3 * width * steps)
        _expect_previous(results[0][3], hs, h0, reverse)


def test_a_block_of_threads_is_what_runs():
    """The block's width follows n: a warp for short rows, 256 threads at most."""
    assert [registry.row_threads(n) for n in SIZES] == [32, 32, 32, 64, 256, 256, 256]
    assert registry.MAX_ROW_THREADS == 256
    for source in registry.ROW_KERNEL_SPECS.values():  # a shared slot per thread
        if "part)" in source.split("KERNEL")[-1] or "part, " in source.split("KERNEL")[-1]:
            assert "__shared__ T part[256];" in source


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


@pytest.fixture
def host_launches(library, monkeypatch):
    """The kernel modules' launch_rows running the host build: their Python wrappers (which
    work out strides, offsets and flags) then drive the kernels as on a GPU."""
    from dygraph.kernels.cuda import (
        cross_entropy_rows,
        layer_norm,
        recurrent_sequences,
        softmax_rows,
    )

    def launch(name, rows, n, args, threads=None):
        _launch(library, name, rows, n, args, threads)

    for module in (cross_entropy_rows, layer_norm, recurrent_sequences, softmax_rows):
        monkeypatch.setattr(module, "launch_rows", launch)


@pytest.mark.parametrize("reverse", [False, True])
def test_the_sequence_wrappers_marshal_their_arguments(host_launches, reverse):
    """recurrent_sequences' wrappers on time views of batch-first arrays (strided), against
    the NumPy statements run on the same arrays: a stride, offset or flag passed wrong
    shows."""
    from dygraph.kernels.cuda import recurrent_sequences as seq

    steps, batch, width, dtype = 4, 3, 37, "float64"
    walk = (np.int64(steps), np.int32(reverse), np.int64(width), np.int64(batch))
    lstm = {run: _lstm_arrays(steps, batch, width, dtype) for run in ("kernel", "statement")}
    rng = np.random.default_rng(5)
    g_out = rng.standard_normal((batch, steps, width)).swapaxes(0, 1)
    w = rng.standard_normal((4 * width, width)) / np.sqrt(width)
    g_c = rng.standard_normal((batch, width))
    for run, (rows, w_s, h0, c0, c, act, tc, hs, hn, cn) in lstm.items():
        d_rows = np.zeros((batch, steps, 4 * width)).swapaxes(0, 1)
        hp = _nan_time_view(steps, batch, width, dtype)
        if run == "kernel":
            hn, cn = seq.lstm_sequence(rows, w_s, h0, c0, c, act, tc, hs, reverse)
            dh, dc = seq.lstm_sequence_grad(act, c, tc, g_out, w, None, g_c, d_rows,
                                            (hs, h0, hp), reverse)
        else:
            KERNELS[f"dygraph_lstm_sequence_{dtype}"](rows, 0, 0, w_s, h0, c0, c, act, tc, hs,
                                                      0, 0, hn, cn, *walk)
            dh, dc = np.empty_like(hn), np.empty_like(cn)
            KERNELS[f"dygraph_lstm_sequence_grad_{dtype}"](
                act, c, tc, g_out, 0, 0, np.int32(1), w, g_c, np.int32(0), g_c, np.int32(1),
                dh, dc, d_rows, 0, 0, h0, hs, 0, 0, hp, 0, 0, *walk)
        lstm[run] = (hs, c, act, hn, cn, dh, dc, d_rows, hp)
    for g, want in zip(lstm["kernel"], lstm["statement"]):
        _close(g, want, dtype, "LSTM through its wrappers", terms=4 * width * steps)

    gru = {run: _gru_arrays(steps, batch, width, dtype) for run in ("kernel", "statement")}
    w = rng.standard_normal((3 * width, width)) / np.sqrt(width)
    g_h = rng.standard_normal((batch, width))
    for run, (rows, w_s, h0, bias, prod, act, hs, hn) in gru.items():
        d_hid = np.zeros((batch, steps, 3 * width)).swapaxes(0, 1)
        d_n = np.zeros((batch, steps, width)).swapaxes(0, 1)
        hp = _nan_time_view(steps, batch, width, dtype)
        if run == "kernel":
            hn = seq.gru_sequence(rows, w_s, h0, bias, prod, act, hs, reverse)
            dh = seq.gru_sequence_grad(act, prod, (hs, h0, hp), None, w, g_h, d_hid, d_n,
                                       reverse)
        else:
            KERNELS[f"dygraph_gru_sequence_{dtype}"](rows, 0, 0, w_s, h0, bias, np.int32(1),
                                                     prod, act, hs, 0, 0, hn, *walk)
            dh = np.empty_like(hn)
            KERNELS[f"dygraph_gru_sequence_grad_{dtype}"](
                act, prod, h0, hs, 0, 0, hp, 0, 0, g_h, 0, 0, np.int32(0), w, g_h,
                np.int32(1), np.empty_like(hn), dh, d_hid, 0, 0, d_n, 0, 0, *walk)
        gru[run] = (hs, prod, act, hn, dh, d_hid, d_n, hp)
    for g, want in zip(gru["kernel"], gru["statement"]):
        _close(g, want, dtype, "GRU through its wrappers", terms=3 * width * steps)


def test_the_row_wrappers_marshal_their_arguments(host_launches):
    """softmax, layer norm and cross entropy through their wrappers (flags, n, eps, the
    coefficient's form), against the CPU's op paths."""
    from dygraph.kernels.cuda import cross_entropy_rows as ce
    from dygraph.kernels.cuda import layer_norm as ln
    from dygraph.kernels.cuda import softmax_rows as sm

    x = _rows(37, "float64")[[0, 5]]
    for log in (False, True):
        op = LogSoftmax(-1) if log else Softmax(-1)
        y = sm.softmax_rows(np, x, log)
        _close(y, op.forward(np, x), "float64", "softmax through its wrapper")
        g = np.cos(x)
        op.out_data = (y,)
        _close(sm.softmax_rows_grad(np, y, g, log), op.backward(ArrayMath(np), g)[0],
               "float64", "softmax's gradient through its wrapper")
    weight, bias = np.linspace(0.5, 1.5, 37), np.linspace(-1, 1, 37)
    for w, b in ((weight, bias), (weight, None), (None, bias)):
        y, xhat, rstd = np.empty_like(x), np.empty_like(x), np.empty(2)
        ln.layer_norm_rows(x, w, b, 1e-5, y, xhat, rstd, 37)
        want_y, want_xhat, want_rstd = layer_rows.forward(np, x, w, b, 37, 1e-5)
        for got, want in ((y, want_y), (xhat, want_xhat), (rstd, want_rstd)):
            _close(got, np.asarray(want).reshape(got.shape), "float64",
                   f"layer norm's wrapper, weight {w is not None}, bias {b is not None}")
    label = np.array([[3], [30]], np.int64)
    prob, per = ce.cross_entropy_rows(np, x, label)
    op = SoftmaxCrossEntropy(1, label, None, None, 1.0, "none", (2, 1))
    _close(per, op.forward(np, x), "float64", "cross entropy's wrapper")
    coef = np.array([[0.5], [2.0]])
    dx = ce.cross_entropy_rows_grad(np, prob, label, coef)
    _close(dx, op.add_at_label(ArrayMath(np), op.prob * coef, coef, -1), "float64",
           "cross entropy's gradient wrapper")
