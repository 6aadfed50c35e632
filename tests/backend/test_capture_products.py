"""The products used inside CUDA graph captures (dygraph/backend/capture_products.py): their
reduction of matmul, dot, tensordot and two-operand einsum to one batched GEMM, checked
against NumPy with NumPy arrays and NumPy's matmul standing in for the GEMM (the cuBLAS
call itself is checked on a GPU: tests/gpu/test_programs_on_gpu.py)."""

import numpy as np
import pytest

from dygraph.backend import capture_products as cpx

RNG = np.random.default_rng(0)


@pytest.fixture
def numpy_gemm(monkeypatch):
    def bmm(xp, a, b, dtype):
        assert a.shape[:-2] == b.shape[:-2] or not a.shape[:-2] or not b.shape[:-2] or \
            np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        return np.matmul(a, b).astype(dtype)
    monkeypatch.setattr(cpx, "_bmm", bmm)


def _r(*shape):
    return RNG.standard_normal(shape)


@pytest.mark.parametrize("a, b", [((3, 4), (4, 5)), ((4,), (4, 5)), ((3, 4), (4,)),
                                  ((4,), (4,)), ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)),
                                  ((2, 1, 3, 4), (5, 4, 2)), ((7, 2, 3, 4), (7, 2, 4, 1))])
def test_matmul_matches_numpy(numpy_gemm, a, b):
    x, y = _r(*a), _r(*b)
    np.testing.assert_allclose(cpx.matmul(np, x, y), np.matmul(x, y), rtol=1e-12)


@pytest.mark.parametrize("a, b, axes", [((2, 3, 4), (3, 4, 5), 2), ((2, 3), (3, 5), 1),
                                        ((2, 3, 4), (4, 2, 5), ([0, 2], [1, 0])),
                                        ((3, 4), (4, 3), ([1], [0]))])
def test_tensordot_matches_numpy(numpy_gemm, a, b, axes):
    x, y = _r(*a), _r(*b)
    np.testing.assert_allclose(cpx.tensordot(np, x, y, axes), np.tensordot(x, y, axes),
                               rtol=1e-12)


@pytest.mark.parametrize("a, b", [((3,), (3,)), ((2, 3), (3,)), ((2, 3), (3, 4)),
                                  ((2, 3, 4), (5, 4, 6)), ((), (3,))])
def test_dot_matches_numpy(numpy_gemm, a, b):
    x, y = _r(*a), _r(*b)
    np.testing.assert_allclose(cpx.dot(np, x, y), np.dot(x, y), rtol=1e-12)


@pytest.mark.parametrize("equation, a, b", [
    ("ij,ij->i", (3, 4), (3, 4)), ("ij,ij->j", (3, 4), (3, 4)), ("ij,jk->ik", (3, 4), (4, 5)),
    ("bij,bjk->bik", (2, 3, 4), (2, 4, 5)), ("bhqd,bhkd->bhqk", (2, 3, 4, 5), (2, 3, 6, 5)),
    ("...i,...i->...", (2, 3, 4), (2, 3, 4)), ("ij,kj", (3, 4), (5, 4)),
    ("ijk,jl->il", (3, 4, 5), (4, 6)), ("i,j->ij", (3,), (4,)), ("ij,j->i", (3, 4), (1,)),
    ("nc,nchw->chw", (2, 3), (2, 3, 4, 5))])
def test_einsum_matches_numpy(numpy_gemm, equation, a, b):
    x, y = _r(*a), _r(*b)
    np.testing.assert_allclose(cpx.einsum(np, equation, x, y), np.einsum(equation, x, y),
                               rtol=1e-12, atol=1e-12)


def test_einsum_refuses_what_it_does_not_reduce():
    with pytest.raises(NotImplementedError, match="diagonal"):
        cpx._einsum_plan("ii,i->i", 2, 1)
    with pytest.raises(NotImplementedError, match="two operands"):
        cpx._einsum_plan("i,i,i->i", 1, 1)


def test_operands_are_read_in_place_or_transposed():
    a = np.zeros((4, 3))
    assert cpx._as_operand(np, a)[1] is False and cpx._as_operand(np, a)[0] is a
    t = a.T
    assert cpx._as_operand(np, t)[1] is True and cpx._as_operand(np, t)[0] is t
    strided = np.zeros((4, 6))[:, ::2]
    got, transposed = cpx._as_operand(np, strided)
    assert got.flags.c_contiguous and not transposed


def test_batch_strides_flatten_or_not():
    a = np.zeros((2, 3, 4, 5))
    assert cpx._flat_batch_stride(a) == 20
    assert cpx._flat_batch_stride(np.broadcast_to(np.zeros((4, 5)), (6, 4, 5))) == 0
    assert cpx._flat_batch_stride(a[:, ::2]) is None
