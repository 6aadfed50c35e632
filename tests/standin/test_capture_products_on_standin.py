"""The products DyGraph makes through cuBLAS directly (dygraph/backend/capture_products.py:
every product inside a CUDA graph capture, and those of bfloat16 auto_cast ops), run on the
CuPy stand-in with a stand-in of the cuBLAS calls (tools/cupy_standin/cublas_library.py,
cuBLAS's column-major GEMM in NumPy): the operand layouts handed to cuBLAS (transposed
views, strided and broadcast batches, 1-D operands) against NumPy's products; and the
routing of CuPy's product functions to that path while capturing or for bfloat16 operands
only. A GPU run checks the same against real cuBLAS (tests/gpu/test_programs_on_gpu.py)."""

import types

import numpy as np
import pytest

from dygraph.backend import CAPTURE, capture_products, product_precision
from tools import cupy_standin
from tools.cupy_standin.cublas_library import Library


@pytest.fixture
def cublas(monkeypatch):
    """The stand-in as CuPy and the cuBLAS stand-in as the library capture_products loads;
    yields (the stand-in module, the library)."""
    library = Library()
    with cupy_standin.installed() as cp:
        monkeypatch.setattr(capture_products, "_lib", library)
        monkeypatch.setattr(capture_products, "_local", type(capture_products._local)())
        yield cp, library


# (a's shape, b's shape, a view of an operand): as the GPU test's, and a broadcast batch
LAYOUTS = [((3, 4), (4, 5), None), ((4, 3), (4, 5), "a.T"), ((3, 4), (5, 4), "b.T"),
           ((2, 3, 4), (4, 5), None), ((3, 4), (2, 4, 5), None),
           ((2, 1, 3, 4), (5, 4, 2), None), ((4,), (4, 5), None), ((3, 4), (4,), None),
           ((3, 8), (4, 5), "a[:, ::2]"), ((8, 3), (4, 5), "a[::2].T"),
           ((2, 3, 4), (2, 4, 5), "b batch-transposed")]


def _operands(cp, a_shape, b_shape, view, dtype):
    """(a, b) on the host and as device arrays with the view made on the device (a copy
    to the device would make a view C-ordered)."""
    rng = np.random.default_rng(0)
    ga = cp.asarray(rng.standard_normal(a_shape).astype(dtype))
    gb = cp.asarray(rng.standard_normal(b_shape).astype(dtype))
    if view == "a.T":
        ga = ga.T
    elif view == "b.T":
        gb = gb.T
    elif view == "a[:, ::2]":
        ga = ga[:, ::2]
    elif view == "a[::2].T":  # transposed, its rows strided: neither layout cuBLAS reads
        ga = ga[::2].T
    elif view == "b batch-transposed":
        gb = cp.ascontiguousarray(gb.transpose(1, 0, 2)).transpose(1, 0, 2)
    assert view is None or not (ga.flags.c_contiguous and gb.flags.c_contiguous)
    return ga.get(), gb.get(), ga, gb


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
@pytest.mark.parametrize("a_shape, b_shape, view", LAYOUTS)
def test_products_through_cublas_match_numpy(cublas, a_shape, b_shape, view, dtype):
    cp, library = cublas
    a, b, ga, gb = _operands(cp, a_shape, b_shape, view, dtype)
    tol = 1e-5 if dtype in ("float32", "complex64") else 1e-12
    want = np.matmul(a, b)
    got = capture_products.matmul(cp, ga, gb)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got.get(), want, rtol=tol, atol=tol)
    if a.ndim <= 2 and b.ndim <= 2:
        np.testing.assert_allclose(capture_products.dot(cp, ga, gb).get(), np.dot(a, b),
                                   rtol=tol, atol=tol)
    if a.ndim == b.ndim >= 2:
        got = capture_products.einsum(cp, "...ij,...jk->...ik", ga, gb)
        np.testing.assert_allclose(got.get(), np.einsum("...ij,...jk->...ik", a, b),
                                   rtol=tol, atol=tol)
    assert library.gemms and all(g[4] != "float32, bfloat16 inputs allowed"
                                 for g in library.gemms)


def test_tensordot_and_einsum_with_sums_and_outer_letters(cublas):
    cp, _ = cublas
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((4, 3, 5))
    got = capture_products.tensordot(cp, cp.asarray(a), cp.asarray(b), ([1, 2], [1, 0]))
    np.testing.assert_allclose(got.get(), np.tensordot(a, b, ([1, 2], [1, 0])), rtol=1e-12)
    for equation in ("bij,jk->bik", "bij,kjl->bkl", "ij,ij->i", "ij,kl->ijkl", "bij,bjk->bk"):
        left, right = equation.split("->")[0].split(",")
        x, y = rng.standard_normal([3] * len(left)), rng.standard_normal([3] * len(right))
        got = capture_products.einsum(cp, equation, cp.asarray(x), cp.asarray(y))
        np.testing.assert_allclose(got.get(), np.einsum(equation, x, y), rtol=1e-12,
                                   err_msg=equation)


def test_routing_takes_cublas_while_capturing_or_for_bfloat16_operands(cublas):
    """install()'s wrappers of CuPy's product functions: CuPy's own products otherwise;
    cuBLAS with the bfloat16 compute type for float32 operands in bfloat16_operands()."""
    cp, library = cublas
    names = ("matmul", "dot", "tensordot", "einsum", "empty", "broadcast_to",
             "ascontiguousarray", "cuda")
    module = types.SimpleNamespace(**{n: getattr(cp, n) for n in names})
    capture_products.install(module, CAPTURE)
    a, b = cp.ones((3, 4), np.float32), cp.ones((4, 2), np.float32)
    module.matmul(a, b)
    assert library.gemms == []  # CuPy's (the stand-in's) own product
    with product_precision.bfloat16_operands():
        module.matmul(a, b)
        module.matmul(a.astype(np.float64), b.astype(np.float64))  # not bfloat16 values
    assert [g[4] for g in library.gemms] == ["float32, bfloat16 inputs allowed"]
    CAPTURE.active = True
    try:
        module.dot(a, b)
    finally:
        CAPTURE.active = False
    assert [g[4] for g in library.gemms][1:] == ["float32"]
