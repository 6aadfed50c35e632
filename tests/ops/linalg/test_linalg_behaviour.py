"""Linear algebra behaviour beyond the spec table: errors, layouts, modes and edge cases."""

import subprocess
import sys

import numpy as np
import pytest

import dygraph as D

L = D.linalg


def _t(a, sg=True, dtype="float64"):
    return D.to_tensor(np.asarray(a, dtype=dtype), stop_gradient=sg)


# -- shape errors name the shapes ----------------------------------------------------------

@pytest.mark.parametrize("call, shapes", [
    (lambda: D.bmm(D.ones([2, 3, 4]), D.ones([3, 4, 5])), ["[2, 3, 4]", "[3, 4, 5]"]),
    (lambda: D.bmm(D.ones([3, 4]), D.ones([4, 5])), ["[3, 4]", "[4, 5]"]),
    (lambda: D.mm(D.ones([2, 3]), D.ones([4, 5])), ["[2, 3]", "[4, 5]"]),
    (lambda: D.mv(D.ones([2, 3]), D.ones([2])), ["[2, 3]", "[2]"]),
    (lambda: D.dot(D.ones([3]), D.ones([4])), ["[3]", "[4]"]),
    (lambda: D.cross(D.ones([3, 2]), D.ones([3, 3])), ["[3, 2]", "[3, 3]"]),
    (lambda: D.cross(D.ones([2, 3]), D.ones([2, 3]), axis=0), ["[2, 3]"]),
    (lambda: D.t(D.ones([2, 3, 4])), ["[2, 3, 4]"]),
    (lambda: D.trace(D.ones([3])), ["[3]"]),
    (lambda: L.inv(D.ones([2, 3])), ["[2, 3]"]),
    (lambda: L.det(D.ones([4])), ["[4]"]),
    (lambda: L.solve(D.eye(3), D.ones([4, 2])), ["[3, 3]", "[4, 2]"]),
    (lambda: L.solve(D.ones([2, 3, 3]), D.ones([4, 3, 1])), ["[2, 3, 3]", "[4, 3, 1]"]),
    (lambda: L.svd(D.ones([3])), ["[3]"]),
    (lambda: L.multi_dot([D.ones([2, 3]), D.ones([4, 2])]), ["[2, 3]", "[4, 2]"]),
    (lambda: D.einsum("ij,jk->ik", D.ones([2, 3]), D.ones([4, 2])), ["[2, 3]", "[4, 2]"]),
])
def test_shape_errors_name_the_shapes_and_the_callers_line(call, shapes):
    with pytest.raises(ValueError) as info:
        call()
    message = str(info.value)
    for s in shapes:
        assert s in message
    assert "test_linalg_behaviour.py" in message


@pytest.mark.parametrize("fn, word", [(L.inv, "singular"), (lambda a: L.solve(a, D.ones([2])),
                                                            "singular")])
def test_singular_matrix_is_a_clear_error(fn, word):
    with pytest.raises(np.linalg.LinAlgError, match=word) as info:
        fn(_t([[1.0, 2.0], [2.0, 4.0]]))
    assert isinstance(info.value, ValueError)


def test_cholesky_of_an_indefinite_matrix_is_a_clear_error():
    with pytest.raises(ValueError, match="positive definite"):
        L.cholesky(_t([[1.0, 2.0], [2.0, 1.0]]))


# -- einsum ---------------------------------------------------------------------------------

@pytest.mark.parametrize("eq, shapes", [
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ba", [(2, 3)]),
    ("...i,...i", [(2, 3), (3,)]),
    ("i...->...", [(2, 3, 4)]),
    ("Ab,bA->", [(2, 3), (3, 2)]),
    ("iji->j", [(3, 2, 3)]),
])
def test_einsum_matches_numpy(eq, shapes):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in shapes]
    got = D.einsum(eq, *[_t(a) for a in arrays]).numpy()
    np.testing.assert_allclose(got, np.einsum(eq, *arrays), rtol=1e-12)


def test_einsum_on_the_optimised_path_gives_numpy_values_and_gradients():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((20, 30)), rng.standard_normal((30, 25))
    x, y = _t(a, sg=False), _t(b, sg=False)
    out = D.einsum("ij,jk->ik", x, y)
    np.testing.assert_allclose(out.numpy(), a @ b, rtol=1e-12)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.ones((20, 25)) @ b.T, rtol=1e-12)
    np.testing.assert_allclose(y.grad.numpy(), a.T @ np.ones((20, 25)), rtol=1e-12)


def test_einsum_accepts_a_list_and_promotes_dtypes():
    out = D.einsum("i,i->", [D.to_tensor([1, 2]), D.to_tensor([0.5, 0.25])])
    assert out.dtype == D.float32
    assert float(out) == 1.0


@pytest.mark.parametrize("eq, shape, message", [
    ("ij,jk->ik", [2, 3], "2 operand term"),
    ("...ij->ij", [4, 2, 3], "must name '...'"),
    ("ij->ii", [2, 3], "repeats"),
    ("ij->k", [2, 3], "appear in no operand"),
    ("i1", [2, 3], "letters"),
    ("i.j", [2, 3], "ellipsis"),
    ("ijk", [2, 3], "dimension"),
    ("ii", [2, 3], "different sizes"),
])
def test_einsum_rejects_bad_equations(eq, shape, message):
    with pytest.raises(ValueError, match=message):
        D.einsum(eq, D.ones(shape))


def test_einsum_is_not_a_tensor_method_but_the_products_are():
    x = _t([[1.0, 2.0], [3.0, 4.0]])
    assert not hasattr(x, "einsum")
    assert x.t().numpy().tolist() == [[1.0, 3.0], [2.0, 4.0]]
    assert float(x.trace()) == 5.0
    assert x.dot(x).numpy().tolist() == [5.0, 25.0]
    assert x.kron(x).shape == [4, 4]


# -- layouts, modes and dtypes --------------------------------------------------------------

def test_slogdet_stacks_sign_and_log_abs_det():
    a = np.array([[[1.0, 2.0], [3.0, 4.0]], [[2.0, 0.0], [0.0, 3.0]]])
    out = L.slogdet(_t(a)).numpy()
    assert out.shape == (2, 2)
    np.testing.assert_allclose(out[0], [-1.0, 1.0])
    np.testing.assert_allclose(out[1], np.log([2.0, 6.0]))


def test_solve_treats_y_of_shape_x_shape_minus_one_as_vectors():
    a = np.stack([np.eye(3) * 2, np.eye(3) * 4])
    b = np.ones((2, 3))
    assert L.solve(_t(a), _t(b)).numpy().tolist() == [[0.5] * 3, [0.25] * 3]
    assert L.solve(_t(a), _t(np.ones((3, 2)))).shape == [2, 3, 2]


def test_gradient_of_a_broadcast_solve_has_the_input_shape():
    a = _t(np.eye(3) * 2, sg=False)
    b = _t(np.ones((4, 3, 2)), sg=False)
    L.solve(a, b).sum().backward()
    assert a.grad.shape == [3, 3] and b.grad.shape == [4, 3, 2]
    np.testing.assert_allclose(b.grad.numpy(), np.full((4, 3, 2), 0.5))


@pytest.mark.parametrize("mode, shapes", [("reduced", ([4, 3], [3, 3])),
                                          ("complete", ([4, 4], [4, 3])),
                                          ("r", ([3, 3],))])
def test_qr_modes(mode, shapes):
    out = L.qr(D.rand([4, 3]), mode=mode)
    out = out if isinstance(out, tuple) else (out,)
    assert tuple(t.shape for t in out) == shapes


def test_undefined_decomposition_gradients_raise_instead_of_guessing():
    x = D.rand([4, 3], dtype="float64")
    x.stop_gradient = False
    q, _ = L.qr(x, mode="complete")
    with pytest.raises(RuntimeError, match="mode='reduced'"):
        q.sum().backward()
    u, _, _ = L.svd(x, full_matrices=True)
    with pytest.raises(RuntimeError, match="full_matrices=False"):
        u.sum().backward()
    with pytest.raises(ValueError, match="mode"):
        L.qr(x, mode="full")


def test_float32_stays_float32_and_integers_are_refused_as_paddle():
    x = D.to_tensor([[2.0, 1.0], [1.0, 3.0]])
    assert L.inv(x).dtype == D.float32
    assert all(t.dtype == D.float32 for t in L.svd(x))
    with pytest.raises(RuntimeError, match="det: .*int64"):  # Paddle 3.3 has no kernel
        L.det(D.to_tensor([[2, 0], [0, 3]]))


def test_cholesky_gradient_is_symmetric():
    a = _t([[4.0, 1.0], [1.0, 3.0]], sg=False)
    L.cholesky(a).sum().backward()
    g = a.grad.numpy()
    np.testing.assert_allclose(g, g.T)


def test_matrix_power_edge_cases():
    a = _t([[2.0, 1.0], [0.0, 1.0]])
    np.testing.assert_allclose(L.matrix_power(a, 0).numpy(), np.eye(2))
    np.testing.assert_allclose(L.matrix_power(a, -1).numpy(), np.linalg.inv(a.numpy()))
    with pytest.raises(TypeError, match="int"):
        L.matrix_power(a, 1.5)


def test_matrix_rank_is_int64_without_gradient():
    x = _t([[1.0, 2.0], [2.0, 4.0]], sg=False)
    r = L.matrix_rank(x)
    assert r.dtype == D.int64 and r.stop_gradient and int(r) == 1
    assert int(L.matrix_rank(x, tol=10.0)) == 0


@pytest.mark.parametrize("kwargs", [{"p": 0, "axis": 1}, {"p": "nuc"},
                                    {"p": float("inf"), "axis": 0}])
def test_norm_special_orders_match_numpy(kwargs):
    a = np.array([[0.0, 2.0, -1.0], [3.0, 0.0, 0.0]])
    got = L.norm(_t(a), **kwargs).numpy()
    ord_ = kwargs["p"]
    np.testing.assert_allclose(got, np.linalg.norm(a, ord_, axis=kwargs.get("axis")))


def test_norm_rejects_bad_orders_and_axes():
    x = D.ones([2, 3])
    with pytest.raises(ValueError, match="'nuc'"):
        L.norm(D.ones([2, 3, 4]), p="nuc")
    with pytest.raises(ValueError, match="unsupported"):
        L.norm(x, p="nuc", axis=1)
    with pytest.raises(ValueError, match="axis"):
        L.norm(D.ones([2, 3, 4]), axis=[0, 1, 2])


def test_norm_gradient_at_zero_is_zero_not_nan():
    x = _t(np.zeros(3), sg=False)
    L.norm(x).backward()
    assert x.grad.numpy().tolist() == [0.0, 0.0, 0.0]


def test_second_derivative_of_logdet_through_inv():
    # d/dA log det A = A^-T, so the Hessian-vector product is -A^-T V^T A^-T.
    a = np.array([[3.0, 1.0], [0.5, 2.0]])
    v = np.array([[1.0, -1.0], [0.5, 2.0]])
    x = _t(a, sg=False)
    (g,) = D.grad(L.slogdet(x)[1], x, create_graph=True)
    (hv,) = D.grad((g * _t(v)).sum(), x)
    ainv = np.linalg.inv(a)
    np.testing.assert_allclose(hv.numpy(), -(ainv.T @ v.T @ ainv.T), rtol=1e-10)


def test_linalg_loads_lazily():
    code = "import sys, dygraph; print('dygraph.linalg' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_matmul_promotes_a_float32_operand_beside_a_complex_one():
    """As Paddle 3.3: float32 @ complex64 is complex64 and the float32 input's gradient is
    the real part; other mixed dtypes are refused."""
    import dygraph

    x = dygraph.to_tensor([[1.0, 2.0]], stop_gradient=False)
    y = dygraph.to_tensor([[1 + 1j], [2 - 1j]], dtype="complex64", stop_gradient=False)
    z = dygraph.matmul(x, y)
    assert z.dtype == dygraph.complex64 and complex(z.numpy()[0, 0]) == 5 - 1j
    z.real().sum().backward()
    assert x.grad.dtype == dygraph.float32 and x.grad.numpy().tolist() == [[1.0, 2.0]]
    with pytest.raises(ValueError, match="matmul"):
        dygraph.matmul(dygraph.ones([2, 2], "float64"), dygraph.ones([2, 2], "complex64"))


def test_batched_matmul_over_an_empty_inner_dimension_is_zeros():
    a, b = np.zeros((2, 2, 5, 0), np.float32), np.zeros((2, 2, 0, 4), np.float32)
    out = D.matmul(D.to_tensor(a), D.to_tensor(b))
    np.testing.assert_array_equal(out.numpy(), np.matmul(a, b))
    assert out.shape == [2, 2, 5, 4]


def test_lstsq_of_an_empty_matrix_has_no_rank_as_in_paddle():
    # Paddle 3.3 returns an empty int64 rank for an empty x (every other x: int32)
    _, _, rank, _ = L.lstsq(D.zeros([0, 3]), D.zeros([0, 3]))
    assert rank.shape == [0] and rank.dtype == D.int64
    assert L.lstsq(D.eye(3), D.ones([3, 1]))[2].dtype == D.int32
