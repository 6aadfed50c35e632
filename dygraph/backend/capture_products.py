"""Matrix products inside a CUDA graph capture, and those of bfloat16 auto_cast ops,
through cuBLAS called directly.

CuPy refuses every cuBLAS call while a stream is being captured ("calling cuBLAS API during
stream capture is currently unsupported"), although cuBLAS itself captures them. So while
dygraph/jit/cuda_graph.py captures (backend.CAPTURE.active), `cupy.matmul`, `cupy.dot`,
`cupy.tensordot` and two-operand `cupy.einsum` run here instead: operands made contiguous
(or read transposed, as cuBLAS can), batches flattened to one strided-batched GEMM
(cublasGemmStridedBatchedEx, on a handle of our own bound to the capturing stream, with a
workspace of its own so that nothing is allocated inside the graph). Outside a capture the
CuPy functions run untouched. Float32 products use cuBLAS's default math (no TF32, as
CuPy's), those of bfloat16 auto_cast ops bfloat16 Tensor Cores (backend/product_precision.py),
half precision accumulates in float32.

The library is the cuBLAS that CuPy loaded (found in the process's mapped libraries).

Example:
    >>> _einsum_plan("ij,ij->i", 2, 2)["batch"]
    ['i']
"""

import ctypes
import string
import threading

import numpy as np

from dygraph.backend import product_precision

__all__ = ["install", "prepare"]

_CUDA_TYPES = {np.dtype(np.float32): 0, np.dtype(np.float64): 1, np.dtype(np.float16): 2,
               np.dtype(np.complex64): 4, np.dtype(np.complex128): 5}
_COMPUTE = {0: 68, 1: 70, 2: 68, 4: 68, 5: 70}  # CUBLAS_COMPUTE_32F / _64F
_FAST_16BF = 75  # CUBLAS_COMPUTE_32F_FAST_16BF
_SCALAR = {0: np.float32, 1: np.float64, 2: np.float32, 4: np.complex64, 5: np.complex128}
_N, _T = 0, 1  # CUBLAS_OP_N, CUBLAS_OP_T
_WORKSPACE = 32 << 20  # cuBLAS's own default on Hopper
_local = threading.local()
_lib = None


def _cublas():
    """The cuBLAS library CuPy loaded (CuPy is made to load it first)."""
    global _lib
    if _lib is None:
        import cupy

        cupy.cuda.device.get_cublas_handle()
        with open("/proc/self/maps") as maps:
            paths = sorted({line.split()[-1] for line in maps if "libcublas.so" in line
                            and "libcublasLt" not in line})
        if not paths:
            raise NotImplementedError("cuBLAS is not loaded in this process")
        _lib = ctypes.CDLL(paths[0])
        _lib.cublasGemmStridedBatchedEx.restype = ctypes.c_int
    return _lib


def _handle(cupy):
    """This thread's cuBLAS handle on the current device, bound to the current stream."""
    lib = _cublas()
    device = cupy.cuda.runtime.getDevice()
    handles = _local.__dict__.setdefault("handles", {})
    entry = handles.get(device)
    if entry is None:
        handle = ctypes.c_void_p()
        _check(lib.cublasCreate_v2(ctypes.byref(handle)), "cublasCreate")
        workspace = cupy.empty(_WORKSPACE, np.uint8)
        if hasattr(lib, "cublasSetWorkspace_v2"):
            _check(lib.cublasSetWorkspace_v2(handle, ctypes.c_void_p(workspace.data.ptr),
                                             ctypes.c_size_t(_WORKSPACE)),
                   "cublasSetWorkspace")
        entry = handles[device] = (handle, workspace)
    stream = cupy.cuda.get_current_stream().ptr
    _check(lib.cublasSetStream_v2(entry[0], ctypes.c_void_p(stream)), "cublasSetStream")
    return entry[0]


def prepare(cupy):
    """Load cuBLAS and make this thread's handle and workspace now, before a capture
    starts (neither may be made inside one)."""
    _handle(cupy)


def _check(status, what):
    if status != 0:
        raise RuntimeError(f"{what} failed with cuBLAS status {status}")


def _as_operand(cupy, a):
    """(array, transposed) with the last two axes readable by cuBLAS: row-major, or the
    transpose of a row-major matrix; a copy where neither."""
    item = a.itemsize
    rows, cols = a.shape[-2:]
    s_r, s_c = a.strides[-2:]
    batch_ok = a.ndim == 2 or _flat_batch_stride(a) is not None
    if batch_ok and (s_c == item or cols == 1) and (s_r == cols * item or rows == 1):
        return a, False
    if batch_ok and (s_r == item or rows == 1) and (s_c == rows * item or cols == 1):
        return a, True
    return cupy.ascontiguousarray(a), False


def _flat_batch_stride(a):
    """The one element stride between matrices when a's batch axes flatten to one axis
    (0 for a broadcast batch), or None."""
    batch = [(n, s) for n, s in zip(a.shape[:-2], a.strides[:-2]) if n != 1]
    if not batch:
        return 0
    if all(s == 0 for _, s in batch):
        return 0
    step = None
    expected = None
    for n, s in reversed(batch):
        if expected is None:
            step, expected = s, s * n
        elif s != expected:
            return None
        else:
            expected = s * n
    return step // a.itemsize


def _bmm(cupy, a, b, out_dtype):
    """a (..., m, k) @ b (..., k, n) with equal (or broadcast) batch shapes."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    m, k = a.shape[-2:]
    n = b.shape[-1]
    count = int(np.prod(batch, dtype=np.int64))
    out = cupy.empty(batch + (m, n), out_dtype)
    if out.size == 0:
        return out
    if k == 0:
        out[...] = 0
        return out
    a = cupy.broadcast_to(a, batch + (m, k))
    b = cupy.broadcast_to(b, batch + (k, n))
    a, ta = _as_operand(cupy, a)
    b, tb = _as_operand(cupy, b)
    sa, sb = _flat_batch_stride(a), _flat_batch_stride(b)
    if sa is None:
        a, ta, sa = cupy.ascontiguousarray(a), False, m * k
    if sb is None:
        b, tb, sb = cupy.ascontiguousarray(b), False, k * n
    kind = _CUDA_TYPES[np.dtype(out_dtype)]
    scalar = _SCALAR[kind]
    one, zero = np.ones(1, scalar), np.zeros(1, scalar)
    # Row-major C = A B is column-major C^T = B^T A^T: cuBLAS gets B first.
    lda = k if not ta else m
    ldb = n if not tb else k
    status = _cublas().cublasGemmStridedBatchedEx(
        _handle(cupy), _T if tb else _N, _T if ta else _N, n, m, k,
        ctypes.c_void_p(one.ctypes.data),
        ctypes.c_void_p(b.data.ptr), kind, ldb, ctypes.c_longlong(sb),
        ctypes.c_void_p(a.data.ptr), kind, lda, ctypes.c_longlong(sa),
        ctypes.c_void_p(zero.ctypes.data),
        ctypes.c_void_p(out.data.ptr), kind, n, ctypes.c_longlong(m * n),
        count, _compute_type(kind), -1)
    _check(status, "cublasGemmStridedBatchedEx")
    return out


def _compute_type(kind):
    """cuBLAS's compute type for data of CUDA type `kind`: float32 sums in float32, or for
    bfloat16 values (backend/product_precision.py) on bfloat16 Tensor Cores."""
    if kind == 0 and product_precision.active():
        return _FAST_16BF
    return _COMPUTE[kind]


def _float_pair(cupy, a, b, what):
    dtype = np.result_type(a.dtype, b.dtype)
    if dtype not in _CUDA_TYPES:
        raise NotImplementedError(f"{what} of {dtype} inside a CUDA graph capture")
    return a.astype(dtype, copy=False), b.astype(dtype, copy=False), dtype


def matmul(cupy, a, b, out=None):
    """cupy.matmul's result through _bmm (1-D operands as in NumPy)."""
    a, b, dtype = _float_pair(cupy, a, b, "matmul")
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: scalar operands are not allowed")
    squeeze = []
    if a.ndim == 1:
        a = a[None, :]
        squeeze.append(-2)
    if b.ndim == 1:
        b = b[:, None]
        squeeze.append(-1)
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"matmul: shapes {a.shape} and {b.shape} do not match")
    result = _bmm(cupy, a, b, dtype)
    for axis in sorted(squeeze):
        result = result.squeeze(axis if axis == -1 or len(squeeze) == 1 else -1)
    if out is not None:
        out[...] = result
        return out
    return result


def tensordot(cupy, a, b, axes=2):
    if isinstance(axes, int):
        axes_a, axes_b = list(range(a.ndim - axes, a.ndim)), list(range(axes))
    else:
        axes_a, axes_b = ([axes[0]] if isinstance(axes[0], int) else list(axes[0]),
                          [axes[1]] if isinstance(axes[1], int) else list(axes[1]))
    axes_a = [x % a.ndim for x in axes_a]
    axes_b = [x % b.ndim for x in axes_b]
    free_a = [i for i in range(a.ndim) if i not in axes_a]
    free_b = [i for i in range(b.ndim) if i not in axes_b]
    k = int(np.prod([a.shape[i] for i in axes_a], dtype=np.int64))
    left = a.transpose(free_a + axes_a).reshape(-1, k)
    right = b.transpose(axes_b + free_b).reshape(k, -1)
    shape = tuple(a.shape[i] for i in free_a) + tuple(b.shape[i] for i in free_b)
    return matmul(cupy, left, right).reshape(shape)


def dot(cupy, a, b, out=None):
    if a.ndim == 0 or b.ndim == 0:
        result = a * b
    elif b.ndim == 1:
        result = tensordot(cupy, a, b, ([a.ndim - 1], [0]))
    else:
        result = tensordot(cupy, a, b, ([a.ndim - 1], [b.ndim - 2]))
    if out is not None:
        out[...] = result
        return out
    return result


def _einsum_plan(equation, ndim_a, ndim_b):
    """The index roles of a two-operand einsum: batch, contracted, left-only and right-only
    letters, the summed-away letters of each side and the output letters."""
    equation = equation.replace(" ", "")
    if "->" in equation:
        lhs, out = equation.split("->")
    else:
        lhs, out = equation, None
    terms = lhs.split(",")
    if len(terms) != 2:
        raise NotImplementedError("einsum of other than two operands inside a capture")
    spare = [c for c in string.ascii_letters if c not in equation]
    width = max(ndim_a - len(terms[0].replace("...", "")),
                ndim_b - len(terms[1].replace("...", "")), 0)
    ell = "".join(spare[:width])
    ia = terms[0].replace("...", ell[width - (ndim_a - len(terms[0].replace("...", ""))):])
    ib = terms[1].replace("...", ell[width - (ndim_b - len(terms[1].replace("...", ""))):])
    if out is None:
        counts = {c: (ia + ib).count(c) for c in ia + ib}
        out = ell + "".join(sorted(c for c in counts if counts[c] == 1 and c not in ell))
    else:
        out = out.replace("...", ell)
    if len(set(ia)) != len(ia) or len(set(ib)) != len(ib):
        raise NotImplementedError("einsum with a repeated index in one operand (a diagonal)")
    return {"a": ia, "b": ib, "out": out,
            "batch": [c for c in out if c in ia and c in ib],
            "contract": [c for c in ia if c in ib and c not in out],
            "left": [c for c in out if c in ia and c not in ib],
            "right": [c for c in out if c in ib and c not in ia],
            "sum_a": [c for c in ia if c not in ib and c not in out],
            "sum_b": [c for c in ib if c not in ia and c not in out]}


def einsum(cupy, equation, a, b, **kwargs):
    if kwargs:  # as CuPy's einsum, which takes no out= either
        raise TypeError(f"einsum() got unexpected keyword arguments {sorted(kwargs)}")
    a, b, dtype = _float_pair(cupy, a, b, "einsum")
    plan = _einsum_plan(equation, a.ndim, b.ndim)
    ia, ib = plan["a"], plan["b"]
    if plan["sum_a"]:
        a = a.sum(axis=tuple(ia.index(c) for c in plan["sum_a"]))
        ia = "".join(c for c in ia if c not in plan["sum_a"])
    if plan["sum_b"]:
        b = b.sum(axis=tuple(ib.index(c) for c in plan["sum_b"]))
        ib = "".join(c for c in ib if c not in plan["sum_b"])
    size = {}
    for c, n in list(zip(ia, a.shape)) + list(zip(ib, b.shape)):
        size[c] = max(size.get(c, 1), n)
    batch, contract = plan["batch"], plan["contract"]
    left, right = plan["left"], plan["right"]

    def span(letters):
        return int(np.prod([size[c] for c in letters], dtype=np.int64))

    def arrange(x, letters, order, shape):
        x = x.transpose([letters.index(c) for c in order])
        full = tuple(size[c] for c in order)
        return cupy.broadcast_to(x, full).reshape(shape) if x.shape != full else \
            x.reshape(shape)

    lhs = arrange(a, ia, batch + left + contract, (span(batch), span(left), span(contract)))
    rhs = arrange(b, ib, batch + contract + right, (span(batch), span(contract), span(right)))
    result = _bmm(cupy, lhs, rhs, dtype)
    order = batch + left + right
    result = result.reshape(tuple(size[c] for c in order))
    return result.transpose([order.index(c) for c in plan["out"]])


def install(cupy, capture):
    """Route CuPy's products through this module while `capture.active` is true, and
    while this thread's products have bfloat16 operands (backend/product_precision.py:
    cuBLAS's bfloat16 compute type on a handle of this thread's, where CuPy's compute type
    would be the whole process's)."""
    if getattr(cupy, "_dygraph_capture_products", False):
        return
    originals = {name: getattr(cupy, name) for name in ("matmul", "dot", "tensordot",
                                                         "einsum")}
    float32 = np.dtype(np.float32)

    def ours(*operands):
        """Whether this module makes the product: while capturing, or for float32
        operands holding bfloat16 values."""
        return capture.active or (product_precision.active() and all(
            getattr(a, "dtype", None) == float32 for a in operands))

    def _matmul(x1, x2, out=None, **kwargs):
        if ours(x1, x2) and not kwargs:
            return matmul(cupy, x1, x2, out)
        return originals["matmul"](x1, x2, out=out, **kwargs)

    def _dot(a, b, out=None):
        if ours(a, b):
            return dot(cupy, a, b, out)
        return originals["dot"](a, b, out=out)

    def _tensordot(a, b, axes=2):
        if ours(a, b):
            return tensordot(cupy, a, b, axes)
        return originals["tensordot"](a, b, axes=axes)

    def _einsum(*operands, **kwargs):
        if len(operands) == 3 and isinstance(operands[0], str) and ours(*operands[1:]):
            return einsum(cupy, *operands, **kwargs)
        if capture.active and len(operands) != 2:
            # One operand sums and transposes only (no cuBLAS); more are refused before
            # any kernel is captured, so the capture can be dropped cleanly.
            raise NotImplementedError("einsum of more than two operands inside a capture")
        return originals["einsum"](*operands, **kwargs)

    for name, fn in (("matmul", _matmul), ("dot", _dot), ("tensordot", _tensordot),
                     ("einsum", _einsum)):
        fn.__doc__ = originals[name].__doc__
        setattr(cupy, name, fn)
    cupy._dygraph_capture_products = True
