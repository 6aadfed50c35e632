"""backend/blas.py: GEMM straight from NumPy's OpenBLAS, with an accumulating output and
windowed or transposed operands, against NumPy's own products; what BLAS cannot read is
refused, never read wrongly."""

import numpy as np
import pytest

from dygraph.backend import blas

needs_blas = pytest.mark.skipif(not blas.available(np, np.float32),
                                reason="NumPy's BLAS is not OpenBLAS")


def test_gemm_plain_accumulating_transposed_and_windowed():
    if not blas.available(np, np.float64):
        pytest.skip("NumPy's BLAS is not OpenBLAS")
    rng = np.random.default_rng(0)
    big = rng.standard_normal((12, 40))
    a, b = big[1:4, 3:9], big[2:8, 10:15]
    out = np.zeros((3, 5))
    np.testing.assert_allclose(blas.gemm(a, b, out), a @ b, rtol=1e-12)
    bt = big[0:5, 20:26].T  # a transposed window
    blas.gemm(a, bt, out, accumulate=True)
    np.testing.assert_allclose(out, a @ b + a @ bt, rtol=1e-12)
    spaced = np.zeros((6, 5))[::2]  # output rows 10 elements apart
    blas.gemm(a.T.copy().T, bt, spaced)
    np.testing.assert_allclose(spaced, a @ bt, rtol=1e-12)
    f32 = big.astype(np.float32)
    out32 = blas.gemm(f32[:2, :3], f32[3:6, :4], np.empty((2, 4), np.float32))
    np.testing.assert_allclose(out32, f32[:2, :3] @ f32[3:6, :4], rtol=1e-5)


@needs_blas
def test_gemm_refuses_what_blas_cannot_read():
    a = np.ones((3, 4), np.float32)
    with pytest.raises(ValueError, match="not a BLAS matrix"):
        blas.gemm(a[::-1], np.ones((4, 2), np.float32), np.empty((3, 2), np.float32))
    with pytest.raises(ValueError, match="one dtype"):
        blas.gemm(a, np.ones((4, 2)), np.empty((3, 2), np.float32))
    with pytest.raises(ValueError, match=r"\(m, k\) @ \(k, n\)"):
        blas.gemm(a, np.ones((3, 2), np.float32), np.empty((3, 2), np.float32))
    with pytest.raises(ValueError, match="rows must be contiguous"):
        blas.gemm(a, np.ones((4, 2), np.float32), np.empty((2, 3), np.float32).T)
    frozen = np.empty((3, 2), np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        blas.gemm(a, np.ones((4, 2), np.float32), frozen)
    with pytest.raises(RuntimeError, match="no BLAS GEMM"):
        blas.gemm(a.astype(np.float16), np.ones((4, 2), np.float16),
                  np.empty((3, 2), np.float16))


@needs_blas
def test_gemm_refuses_overlapping_rows():
    # A view whose rows overlap (a sliding window) has a row stride shorter than its row;
    # BLAS would read it as another matrix.
    flat = np.arange(10, dtype=np.float32)
    windows = np.lib.stride_tricks.as_strided(flat, (4, 3), (4, 4))
    with pytest.raises(ValueError, match="not a BLAS matrix"):
        blas.gemm(windows, np.ones((3, 2), np.float32), np.empty((4, 2), np.float32))
    one_row = np.lib.stride_tricks.as_strided(flat, (1, 3), (0, 4))  # stride never used
    out = blas.gemm(one_row, np.ones((3, 2), np.float32), np.empty((1, 2), np.float32))
    np.testing.assert_array_equal(out, [[3.0, 3.0]])


@needs_blas
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gemm_loop_walks_addresses_of_strided_rows(dtype):
    # The recurrent layers' use: a batch-first [B, T, G] buffer read one time step at a
    # time (rows T * G apart), each step's product added in place, walking backwards.
    rng = np.random.default_rng(1)
    batch, steps, k, n = 3, 5, 4, 6
    b = rng.standard_normal((n, k)).astype(dtype).T  # a transposed b
    a = rng.standard_normal((batch, steps, k)).astype(dtype)
    out = rng.standard_normal((batch, steps, n)).astype(dtype)
    expected = out + np.einsum("btk,kn->btn", a, b)
    run = blas.gemm_loop(b, batch, dtype, accumulate=True)
    item = np.dtype(dtype).itemsize
    for t in reversed(range(steps)):
        run(a.ctypes.data + t * k * item, steps * k, out.ctypes.data + t * n * item, steps * n)
    np.testing.assert_allclose(out, expected, rtol=1e-5)
    overwrite = blas.gemm_loop(b, batch, dtype)
    fresh = np.full((batch, n), np.nan, dtype)
    overwrite(a.ctypes.data, steps * k, fresh.ctypes.data, n)
    np.testing.assert_allclose(fresh, a[:, 0] @ b, rtol=1e-5)


@needs_blas
def test_gemm_loop_refuses_what_it_cannot_run():
    with pytest.raises(ValueError, match="2-D float32"):
        blas.gemm_loop(np.ones((2, 2, 2), np.float32), 2, np.float32)
    with pytest.raises(ValueError, match="not a BLAS matrix"):
        blas.gemm_loop(np.ones((4, 3), np.float32)[::-1], 2, np.float32)
    with pytest.raises(RuntimeError, match="no BLAS GEMM"):
        blas.gemm_loop(np.ones((2, 2), np.float16), 2, np.float16)
