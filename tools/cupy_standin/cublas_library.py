"""A stand-in for the part of the cuBLAS library that dygraph/backend/capture_products.py
calls through ctypes (a handle, its stream and workspace, cublasGemmStridedBatchedEx), for
the CuPy stand-in: the GEMM runs in NumPy on the host memory behind the pointers it is
given, with cuBLAS's column-major conventions (leading dimensions, transposes, strides
between the matrices of a batch); while a stream captures, the GEMM is recorded for the
graph's replays. So the operand layouts capture_products hands cuBLAS, the path of every
product inside a CUDA graph and of bfloat16 auto_cast's products, are checked without a
GPU (tests/standin, and tools.gpu_tests_on_standin routes the stand-in's products there).

Example:
    >>> import ctypes
    >>> handle = ctypes.c_void_p()
    >>> Library().cublasCreate_v2(ctypes.byref(handle)), handle.value
    (0, 1)
"""

import ctypes

import numpy as np

from tools.cupy_standin.arrays import POINTED
from tools.cupy_standin.state import _STATE, _capturing

__all__ = ["Library"]

# cudaDataType codes capture_products passes, and the compute types it may ask for.
_TYPES = {0: np.float32, 1: np.float64, 2: np.float16, 4: np.complex64, 5: np.complex128}
_COMPUTE = {68: "float32", 70: "float64", 75: "float32, bfloat16 inputs allowed"}


def _value(v):
    return v.value if isinstance(v, (ctypes.c_void_p, ctypes.c_longlong)) else v


def _matrices(ptr, dtype, rows, cols, ld, stride, count, transposed):
    """The `count` matrices op(X) (rows x cols) of a column-major batch at ptr: X is rows x
    cols with leading dimension ld, or (transposed) cols x rows."""
    item = np.dtype(dtype).itemsize
    inner = (cols, rows) if transposed else (rows, cols)
    span = 1 + (count - 1) * stride + (inner[0] - 1) + (inner[1] - 1) * ld
    flat = np.frombuffer((ctypes.c_char * (span * item)).from_address(ptr), dtype)
    stored = np.lib.stride_tricks.as_strided(
        flat, shape=(count,) + inner, strides=(stride * item, item, ld * item))
    return stored.transpose(0, 2, 1) if transposed else stored


class Library:
    """What capture_products calls of cuBLAS (the names of its C functions). `gemms`
    records each GEMM's (m, n, k, batch count, compute type)."""

    def __init__(self):
        self.gemms = []

    def cublasCreate_v2(self, handle_ref):  # noqa: N802 - cuBLAS's names
        handle_ref._obj.value = 1
        return 0

    def cublasSetWorkspace_v2(self, handle, pointer, size):  # noqa: N802
        return 0

    def cublasSetStream_v2(self, handle, stream):  # noqa: N802
        return 0

    def cublasGemmStridedBatchedEx(self, handle, transa, transb, m, n, k, alpha, a, a_type,  # noqa: N802
                                   lda, stride_a, b, b_type, ldb, stride_b, beta, c, c_type,
                                   ldc, stride_c, count, compute, algo):
        """C = alpha op(A) op(B) + beta C for each matrix of the batch (column-major)."""
        dtype = _TYPES[a_type]
        if not (a_type == b_type == c_type) or compute not in _COMPUTE:
            return 7  # CUBLAS_STATUS_INVALID_VALUE
        m, n, k, count = int(m), int(n), int(k), int(count)
        self.gemms.append((m, n, k, count, _COMPUTE[compute]))
        scalar = _TYPES[a_type if a_type in (0, 1, 4, 5) else 0]
        read = lambda p: np.frombuffer(  # noqa: E731
            (ctypes.c_char * np.dtype(scalar).itemsize).from_address(_value(p)), scalar)[0]
        op_a = _matrices(_value(a), dtype, m, k, int(lda), int(_value(stride_a)), count,
                         transa == 1)
        op_b = _matrices(_value(b), dtype, k, n, int(ldb), int(_value(stride_b)), count,
                         transb == 1)
        out = _matrices(_value(c), dtype, m, n, int(ldc), int(_value(stride_c)), count, False)
        factors = (read(alpha), read(beta))
        if _capturing():
            # A real capture runs nothing: undo the write at the capture's end, and run the
            # GEMM again at each replay, keeping the arrays behind the pointers alive.
            _STATE.saved.append((out, out.copy()))
            owners = tuple(POINTED[p] for p in map(_value, (a, b, c)) if p in POINTED)
            _STATE.capture.append((_gemm, (op_a, op_b, out, factors, owners), {}, None))
        _gemm(op_a, op_b, out, factors)
        return 0


def _gemm(op_a, op_b, out, factors, owners=()):
    # In the data's dtype, as cuBLAS and the stand-in's own products (NumPy's) compute:
    # a product in another precision would make captured steps differ from eager ones.
    product = np.matmul(op_a, op_b)
    if factors[0] != 1:
        product = product * factors[0]
    if factors[1] != 0:
        product = product + factors[1] * out
    out[...] = product
