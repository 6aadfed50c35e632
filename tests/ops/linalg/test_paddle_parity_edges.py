"""Linear algebra edge cases where DyGraph follows Paddle 3.3 (issue 28): empty and 0-D
inputs, exception types, dtypes, and the functions Paddle defines in a way of its own."""

import numpy as np
import pytest

import dygraph as D
from dygraph.framework.errors import AssertedValueError, UnsupportedDTypeError

L = D.linalg


def test_empty_matrices_give_empty_or_zero_results():
    empty = D.zeros([0, 3])
    packed, pivots = L.lu(empty)
    assert packed.shape == [0, 3] and pivots.shape == [0] and pivots.dtype == D.int32
    assert L.lu(D.zeros([2, 0, 3]))[1].shape == [2, 0]
    assert [t.shape for t in L.lu_unpack(empty, D.zeros([0, 3]))] == [[0, 0], [0, 0], [0, 3]]
    rank = L.matrix_rank(D.zeros([2, 0, 3]))
    assert rank.dtype == D.int64 and rank.numpy().tolist() == [0, 0]
    assert L.cond(empty).numpy() == 0.0
    for fn in (L.svd_lowrank, L.pca_lowrank):
        assert [t.shape for t in fn(empty)] == [[0, 0], [0], [3, 0]]


def test_zero_d_inputs():
    x = D.to_tensor(2.0)
    np.testing.assert_allclose(L.matrix_exp(x).numpy(), np.exp(2.0), rtol=1e-6)
    assert float(L.vecdot(x, D.to_tensor(3.0))) == 6.0
    with pytest.raises(ValueError, match="axis of 0-D"):
        L.vecdot(x, x, axis=1)
    for fn in (L.cov, L.corrcoef):
        with pytest.raises(ValueError, match="1-D or 2-D"):
            fn(x)
    with pytest.raises(IndexError, match="at least 2 dims"):
        D.trace(x)
    with pytest.raises(RuntimeError, match="1-D or two 2-D"):
        D.dot(x, x)
    with pytest.raises(AssertionError, match="square"):
        L.cholesky(D.zeros([0, 3]))


def test_cholesky_inverse_uses_the_whole_factor():
    x = np.array([[2.0, 0.5, 0.1], [0.3, 3.0, 0.2], [0.4, 0.6, 4.0]])
    np.testing.assert_allclose(L.cholesky_inverse(D.to_tensor(x)).numpy(),
                               np.linalg.inv(x @ x.T), rtol=1e-10)
    np.testing.assert_allclose(L.cholesky_inverse(D.to_tensor(x), upper=True).numpy(),
                               np.linalg.inv(x.T @ x), rtol=1e-10)


def test_lu_unpack_refuses_float_pivots():
    packed = L.lu(D.to_tensor([[1.0, 2.0], [3.0, 4.0]]))[0]
    with pytest.raises(ValueError, match="pivots must be integers"):
        L.lu_unpack(packed, D.to_tensor([2.0, 2.0]))


def test_argument_types():
    with pytest.raises(TypeError, match="list or tuple of two ints"):
        L.matrix_norm(D.ones([3, 3]), axis=-1)
    for bad in (D.ones([3, 3]), "abc"):
        with pytest.raises(ValueError, match="list or tuple of Tensors") as caught:
            L.multi_dot(bad)
        assert isinstance(caught.value, TypeError)
    with pytest.raises(UnsupportedDTypeError, match="bool"):
        D.cross(D.ones([3], dtype="bool"), D.ones([3], dtype="bool"))


def test_trace_keeps_int32_and_norms_of_complex_are_real():
    assert D.trace(D.ones([3, 3], dtype="int32")).dtype == D.int32
    z = D.to_tensor(np.array([3 + 4j, 0j], dtype=np.complex64))
    for out in (L.norm(z), L.vector_norm(z)):
        assert out.dtype == D.float32 and float(out) == pytest.approx(5.0)


def test_fp8_gemm_is_refused_as_paddle_cpu_does():
    x = D.ones([2, 2])
    with pytest.raises(RuntimeError, match="float8_e4m3fn"):
        L.fp8_fp8_half_gemm_fused(x, x)
    with pytest.raises(ValueError, match="expected a Tensor"):
        L.fp8_fp8_half_gemm_fused("abc", x)


def test_asserted_shape_error_is_both_kinds():
    with pytest.raises(AssertedValueError):
        L.cholesky(D.to_tensor(1.0))
