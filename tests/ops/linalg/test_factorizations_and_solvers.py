"""Behaviour of dygraph.linalg's factorizations and solvers beyond the spec table (LU with
and without pivoting, lstsq per driver, eig, the Cholesky and LU solves, Householder
products, matrix_exp, the low-rank SVD and cov/corrcoef): outputs that the spec cannot check
(pivots, infos, ranks, empty results), identities and errors."""

import numpy as np
import pytest

import dygraph as D

L = D.linalg


def test_lu_pivots_infos_and_unpack_reconstruct():
    rng = np.random.default_rng(0)
    for shape in ((4, 4), (2, 3, 5), (5, 3)):
        a = rng.standard_normal(shape)
        packed, pivots, infos = L.lu(D.to_tensor(a), get_infos=True)
        assert pivots.dtype == D.int32 and pivots.shape == list(shape[:-2]) + [min(shape[-2:])]
        assert not infos.numpy().any()
        p, low, up = L.lu_unpack(packed, pivots)
        np.testing.assert_allclose((p @ low @ up).numpy(), a, atol=1e-12)
    singular = D.to_tensor([[1.0, 2.0], [2.0, 4.0]])
    assert int(L.lu(singular, get_infos=True)[2]) == 2
    assert L.lu_unpack(*L.lu(singular), unpack_ludata=False)[1] is None


def test_lu_without_pivoting_swaps_no_rows():
    a = np.array([[2.0, 1.0, 0.5], [4.0, 3.0, 1.0]])
    packed, pivots = L.lu(D.to_tensor(a), pivot=False)
    np.testing.assert_array_equal(pivots.numpy(), [1, 2])
    np.testing.assert_allclose(packed.numpy(), [[2.0, 1.0, 0.5], [2.0, 1.0, 0.0]])


def test_lstsq_outputs_per_driver():
    rng = np.random.default_rng(1)
    a, b = D.to_tensor(rng.standard_normal((6, 3))), D.to_tensor(rng.standard_normal((6, 2)))
    sol, res, rank, sv = L.lstsq(a, b)  # gelsy
    np.testing.assert_allclose(sol.numpy(), np.linalg.lstsq(a.numpy(), b.numpy(), None)[0])
    assert res.shape == [0] and sv.shape == [0] and int(rank) == 3
    sol, res, rank, sv = L.lstsq(a, b, driver="gelsd")
    assert res.shape == [2] and sv.shape == [3]
    assert L.lstsq(a, b, driver="gels")[2].shape == [0]
    with pytest.raises(ValueError, match="driver"):
        L.lstsq(a, b, driver="lapack")
    with pytest.raises(ValueError, match="lstsq"):
        L.lstsq(a, D.ones([5, 2], dtype="float64"))


def test_matrix_exp_identities():
    np.testing.assert_allclose(L.matrix_exp(D.zeros([2, 3, 3])).numpy(),
                               np.broadcast_to(np.eye(3), (2, 3, 3)))
    d = np.diag([0.5, -1.0, 8.0])  # 8 needs scaling and squaring
    np.testing.assert_allclose(L.matrix_exp(D.to_tensor(d)).numpy(), np.diag(np.exp(
        np.diag(d))), rtol=1e-12)
    rot = D.to_tensor([[0.0, -np.pi / 2], [np.pi / 2, 0.0]])
    np.testing.assert_allclose(L.matrix_exp(rot).numpy(), [[0, -1], [1, 0]], atol=1e-12)


def test_eig_of_a_rotation_is_complex():
    w, v = L.eig(D.to_tensor([[0.0, -1.0], [1.0, 0.0]]))
    assert w.dtype == D.complex64 and v.dtype == D.complex64
    np.testing.assert_allclose(sorted(w.numpy().imag), [-1.0, 1.0], atol=1e-6)
    a = D.to_tensor([[2.0, 1.0], [0.0, 3.0]], stop_gradient=False)
    w, _ = L.eig(a)
    with pytest.raises(NotImplementedError, match="eig"):
        D.grad(D.real(w).sum(), a, create_graph=True)[0].sum().backward()


def test_solvers_agree_with_inverse():
    rng = np.random.default_rng(2)
    m = rng.standard_normal((3, 3))
    spd = m @ m.T + 3 * np.eye(3)
    factor = np.linalg.cholesky(spd)
    b = rng.standard_normal((3, 2))
    np.testing.assert_allclose(L.cholesky_solve(D.to_tensor(b), D.to_tensor(factor)).numpy(),
                               np.linalg.solve(spd, b))
    np.testing.assert_allclose(L.cholesky_inverse(D.to_tensor(factor)).numpy(),
                               np.linalg.inv(spd))
    packed, pivots = L.lu(D.to_tensor(spd))
    np.testing.assert_allclose(L.lu_solve(D.to_tensor(b), packed, pivots, trans="T").numpy(),
                               np.linalg.solve(spd.T, b))
    with pytest.raises(ValueError, match="triangular_solve"):
        L.triangular_solve(D.to_tensor(factor), D.ones([4, 1], dtype="float64"))
    with pytest.raises(ValueError, match="trans"):
        L.lu_solve(D.to_tensor(b), packed, pivots, trans="X")


def test_householder_product_is_geqrf_q():
    # Reflectors of a known QR: Q of x = [[3], [4]] from v = [1, 0.5], tau = 1.6.
    q = L.householder_product(D.to_tensor([[-5.0], [0.5]]), D.to_tensor([1.6]))
    np.testing.assert_allclose(q.numpy(), [[-0.6], [-0.8]], rtol=1e-6)
    with pytest.raises(ValueError, match="householder_product"):
        L.householder_product(D.ones([2, 3]), D.ones([2]))
    with pytest.raises(ValueError, match="ormqr"):
        L.ormqr(D.ones([3, 2]), D.ones([2]), D.ones([4, 1]))


def test_lowrank_and_statistics():
    rng = np.random.default_rng(3)
    low = rng.standard_normal((10, 2)) @ rng.standard_normal((2, 6))
    u, s, v = L.svd_lowrank(D.to_tensor(low), q=2)
    np.testing.assert_allclose((u * s) @ v.T, low, atol=1e-10)
    with pytest.raises(ValueError, match="q"):
        L.svd_lowrank(D.to_tensor(low), q=7)
    x = rng.standard_normal(5)
    assert L.cov(D.to_tensor(x)).shape == []
    np.testing.assert_allclose(float(L.cov(D.to_tensor(x))), np.cov(x))
    np.testing.assert_allclose(float(L.corrcoef(D.to_tensor(x))), 1.0)
    with pytest.raises(ValueError, match="fweights"):
        L.cov(D.ones([2, 3]), fweights=D.ones([2]))


def test_top_level_names_and_tensor_methods():
    a = D.to_tensor([[4.0, 1.0], [1.0, 3.0]])
    np.testing.assert_allclose(a.inverse().numpy(), np.linalg.inv(a.numpy()), rtol=1e-6)
    np.testing.assert_allclose(D.eigvalsh(a).numpy(), np.linalg.eigvalsh(a.numpy()), rtol=1e-6)
    assert D.matrix_transpose(D.ones([2, 3])).shape == [3, 2]
    np.testing.assert_allclose(D.vecdot(a, a).numpy(), [17.0, 10.0])
    assert a.cov().shape == [2, 2] and a.lu()[1].dtype == D.int32
    assert a.matrix_power(2).shape == [2, 2] and a.cholesky().shape == [2, 2]
