"""GEMM with an accumulating output and strided operands, straight from NumPy's BLAS.

`numpy.matmul` always overwrites its output and copies operands whose rows are not evenly
spaced. Some kernels need what BLAS itself offers: C += A @ B (beta = 1), and operands that
are windows into a bigger buffer (a leading dimension larger than the row). The implicit-GEMM
convolution (ops/conv/implicit_gemm.py) adds one product per filter tap into the same output,
each reading the input at a shifted offset, so it needs no im2col copy at all.

The functions come from the OpenBLAS that NumPy loaded (found through the process's mapped
libraries), through ctypes, which releases the GIL during the call.
Where there is none (another BLAS, another system, CuPy arrays) `available` is False and
callers keep their NumPy path.
"""

import ctypes

import numpy as np

__all__ = ["available", "gemm", "gemm_loop"]

_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112
# (suffix of the ILP64 builds NumPy's wheels bundle, integer type): plain LP64 names last.
_VARIANTS = (("scipy_cblas_{}gemm64_", ctypes.c_int64), ("cblas_{}gemm64_", ctypes.c_int64),
             ("cblas_{}gemm", ctypes.c_int))
_funcs = None


def _openblas_paths():
    try:
        with open("/proc/self/maps") as maps:
            lines = maps.read().splitlines()
    except OSError:
        return []
    paths = {line.split()[-1] for line in lines if "openblas" in line.lower()}
    return sorted(p for p in paths if p.startswith("/"))


def _openblas_libraries():
    for path in _openblas_paths():  # NumPy, imported above, has loaded its BLAS
        try:
            yield ctypes.CDLL(path)
        except OSError:
            continue


def _bind(lib, pattern, int_type):
    found = {}
    for code, dtype, scalar in (("s", np.float32, ctypes.c_float),
                                ("d", np.float64, ctypes.c_double)):
        fn = getattr(lib, pattern.format(code), None)
        if fn is None:
            return None
        ptr = ctypes.c_void_p
        fn.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, int_type, int_type, int_type,
                       scalar, ptr, int_type, ptr, int_type, scalar, ptr, int_type]
        fn.restype = None
        found[np.dtype(dtype)] = fn
    return found


def _find():
    for lib in _openblas_libraries():
        for pattern, int_type in _VARIANTS:
            found = _bind(lib, pattern, int_type)
            if found:
                return found
    return {}


def available(xp, dtype):
    """True when `gemm` can run on `xp` arrays of `dtype` (NumPy float32/float64 with an
    OpenBLAS found).

    Example:
        >>> isinstance(available(np, np.float32), bool)
        True
    """
    global _funcs
    if xp is not np:
        return False
    if _funcs is None:
        _funcs = _find()
    return np.dtype(dtype) in _funcs


def _operand(a):
    """(transpose flag, leading dimension) of a 2-D operand whose elements are contiguous
    along one axis and evenly spaced (forward, in whole elements, rows not overlapping)
    along the other."""
    item = a.itemsize
    for unit, other, flag, width in ((1, 0, _NO_TRANS, a.shape[1]), (0, 1, _TRANS, a.shape[0])):
        step = a.strides[other]
        if a.shape[other] == 1:  # one row: its stride is never used
            step = width * item
        if ((a.strides[unit] == item or a.shape[unit] == 1) and step >= width * item
                and step % item == 0):
            return flag, max(step // item, 1)
    raise ValueError(f"gemm: an operand with strides {a.strides} is not a BLAS matrix")


def gemm(a, b, out, accumulate=False):
    """out = a @ b, or out += a @ b with `accumulate`, in one BLAS call.

    a (m, k), b (k, n) and out (m, n) are 2-D NumPy arrays of one float dtype; a and b may
    be transposed views, and every operand may be a window of a bigger buffer (rows evenly
    spaced, elements in a row contiguous); out's rows must be contiguous. Check
    `available` first.

    Example:
        >>> out = np.ones((2, 2), np.float32)
        >>> if available(np, np.float32):
        ...     _ = gemm(np.eye(2, dtype=np.float32), np.full((2, 2), 3, np.float32), out, True)
        ... else:
        ...     out += 3
        >>> out
        array([[4., 4.],
               [4., 4.]], dtype=float32)
    """
    (m, k), (k2, n) = a.shape, b.shape
    if k != k2 or out.shape != (m, n) or not (a.dtype == b.dtype == out.dtype):
        raise ValueError(f"gemm: shapes {a.shape} @ {b.shape} -> {out.shape}, dtypes "
                         f"{a.dtype}, {b.dtype}, {out.dtype}: need (m, k) @ (k, n) -> (m, n) "
                         "of one dtype")
    if not available(np, out.dtype):
        raise RuntimeError(f"gemm: no BLAS GEMM found for {out.dtype} (see blas.available)")
    if not out.flags.writeable:
        raise ValueError("gemm: the output is read-only")
    if m == 0 or n == 0:  # (empty arrays may carry any strides)
        return out
    if k == 0:
        if not accumulate:
            out[...] = 0
        return out
    trans_c, ldc = _operand(out)
    if trans_c != _NO_TRANS:
        raise ValueError(f"gemm: the output's rows must be contiguous (strides {out.strides})")
    trans_a, lda = _operand(a)
    trans_b, ldb = _operand(b)
    _funcs[out.dtype](_ROW_MAJOR, trans_a, trans_b, m, n, k, 1.0, a.ctypes.data, lda,
                      b.ctypes.data, ldb, 1.0 if accumulate else 0.0, out.ctypes.data, ldc)
    return out


def gemm_loop(b, rows, dtype, accumulate=False):
    """A product for a loop that multiplies many (rows, k) matrices by one fixed `b` (k, n),
    such as the hidden product of a recurrent layer's time steps: `run(a_address, lda,
    out_address, ldc)` computes out = a @ b (out += a @ b with `accumulate`), where a and
    out are given by the address of their first element and their row stride in elements
    (their elements contiguous along a row). Addresses are ints from ndarray.ctypes.data
    plus byte offsets: reading .ctypes.data costs about as much as the rest of the call, so
    a loop computes each step's addresses from one base (figures:
    docs/PERFORMANCE.md#blas-and-threads). The caller keeps the arrays alive and in bounds;
    `b` is kept by the returned function. Check `available` first.

    Example:
        >>> b = np.full((2, 3), 2.0, np.float32)
        >>> a, out = np.ones((4, 2), np.float32), np.ones((4, 3), np.float32)
        >>> if available(np, np.float32):
        ...     run = gemm_loop(b, 2, np.float32, accumulate=True)
        ...     run(a.ctypes.data, 2, out.ctypes.data + out.strides[0] * 2, 3)
        ... else:
        ...     out[2:] += a[:2] @ b
        >>> out[:, 0]
        array([1., 1., 5., 5.], dtype=float32)
    """
    dtype = np.dtype(dtype)
    if b.ndim != 2 or b.dtype != dtype:
        raise ValueError(f"gemm_loop: b must be a 2-D {dtype} matrix, got {b.ndim}-D {b.dtype}")
    if not available(np, dtype):
        raise RuntimeError(f"gemm_loop: no BLAS GEMM found for {dtype} (see blas.available)")
    k, n = b.shape
    trans_b, ldb = _operand(b)
    fn, address, beta = _funcs[dtype], b.ctypes.data, 1.0 if accumulate else 0.0

    def run(a_address, lda, out_address, ldc):
        fn(_ROW_MAJOR, _NO_TRANS, trans_b, rows, n, k, 1.0, a_address, lda, address, ldb,
           beta, out_address, ldc)

    run.b = b  # the matrix whose address the calls use lives as long as they can run
    return run
