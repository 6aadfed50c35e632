"""Products with sparse matrices (matmul, mv, addmm, masked_matmul, pca_lowrank) against
NumPy, on SciPy's kernels and on the NumPy path that runs without SciPy; the product op's
gradients in both; argument errors. Paddle 3.3's CPU build has none of these products,
so NumPy is the reference."""

import numpy as np
import pytest

import dygraph
from dygraph import sparse
from dygraph.autograd import gradcheck, gradgradcheck
from dygraph.sparse import dense_product

RNG = np.random.default_rng(2)


def _random(shape, density=0.3, dtype="float64"):
    return (RNG.standard_normal(shape) * (RNG.random(shape) < density)).astype(dtype)


@pytest.fixture(params=["scipy", "numpy"])
def kernel(request, monkeypatch):
    """Run a test on SciPy's kernels and again on the NumPy path (SciPy absent)."""
    pytest.importorskip("scipy")
    if request.param == "numpy":
        monkeypatch.setitem(dense_product._scipy_modules, "numpy", None)
    return request.param


def _formats(a):
    d = dygraph.to_tensor(a)
    return {"coo": d.to_sparse_coo(a.ndim), "csr": d.to_sparse_csr()}


@pytest.mark.parametrize("shape", [(6, 5, 3), (2, 4, 6, 3), (30, 1, 2), (1, 7, 4)])
@pytest.mark.parametrize("fmt", ["coo", "csr"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sparse_dense_matmul(kernel, shape, fmt, dtype):
    a = _random(shape[:-1], dtype=dtype)
    a.reshape(-1, a.shape[-1])[0] = 0  # an empty row
    b = RNG.standard_normal(shape[:-3] + shape[-2:]).astype(dtype)
    got = sparse.matmul(_formats(a)[fmt], dygraph.to_tensor(b))
    assert got.dtype.name == dtype
    np.testing.assert_allclose(got.numpy(), a @ b, rtol=1e-5, atol=1e-5)


def test_unsorted_coo_with_repeats_and_no_entries(kernel):
    idx = np.array([[2, 0, 2, 1, 0], [1, 3, 1, 0, 3]])
    v = RNG.standard_normal(5)
    x = sparse.sparse_coo_tensor(idx, v, [3, 4])
    d = RNG.standard_normal((4, 2))
    dense = np.zeros((3, 4))
    np.add.at(dense, tuple(idx), v)
    np.testing.assert_allclose(sparse.matmul(x, dygraph.to_tensor(d)).numpy(), dense @ d)
    empty = sparse.sparse_coo_tensor(np.zeros((2, 0), "int64"), np.zeros(0), [3, 4])
    np.testing.assert_array_equal(sparse.matmul(empty, dygraph.to_tensor(d)).numpy(),
                                  np.zeros((3, 2)))


@pytest.mark.parametrize("fmt", ["coo", "csr"])
def test_product_gradients(kernel, fmt):
    a = _random((5, 4), 0.5)
    x = _formats(a)[fmt]
    v = x.values().detach()
    v.stop_gradient = False
    d = dygraph.to_tensor(RNG.standard_normal((4, 3)), stop_gradient=False)

    def product(values, dense):
        return sparse.matmul(x._with_values(values), dense)

    assert gradcheck(product, [v, d])
    assert gradgradcheck(product, [v, d])


def test_float16_runs_the_numpy_path():
    a = _random((4, 3), 0.6, "float16")
    b = RNG.standard_normal((3, 2)).astype("float16")
    got = sparse.matmul(dygraph.to_tensor(a).to_sparse_csr(), dygraph.to_tensor(b))
    assert got.dtype == dygraph.float16
    np.testing.assert_allclose(got.numpy(), a.astype(np.float32) @ b, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("shape", [(4, 5, 3), (2, 3, 4, 5)])
@pytest.mark.parametrize("fmt", ["coo", "csr"])
def test_sparse_sparse_matmul(shape, fmt):
    a = _random(shape[:-1], 0.5)
    b = _random(shape[:-3] + shape[-2:], 0.5)
    got = sparse.matmul(_formats(a)[fmt], _formats(b)[fmt])
    assert got.format == fmt and got.shape == list((a @ b).shape)
    np.testing.assert_allclose(got.to_dense().numpy(), a @ b, atol=1e-12)


@pytest.mark.parametrize("fmt", ["coo", "csr"])
def test_masked_matmul_mv_addmm(fmt):
    x, y = RNG.standard_normal((4, 3)), RNG.standard_normal((3, 5))
    mask = _formats(_random((4, 5), 0.5))[fmt]
    got = sparse.masked_matmul(dygraph.to_tensor(x), dygraph.to_tensor(y), mask)
    keep = mask.to_dense().numpy() != 0
    assert got.format == fmt
    np.testing.assert_allclose(got.to_dense().numpy(), np.where(keep, x @ y, 0))
    a = _random((4, 5), 0.5)
    s = _formats(a)[fmt]
    vec = RNG.standard_normal(5)
    np.testing.assert_allclose(sparse.mv(s, dygraph.to_tensor(vec)).numpy(), a @ vec)
    c, d = RNG.standard_normal((4, 2)), RNG.standard_normal((5, 2))
    got = sparse.addmm(dygraph.to_tensor(c), s, dygraph.to_tensor(d), beta=0.5, alpha=3.0)
    np.testing.assert_allclose(got.numpy(), 0.5 * c + 3.0 * (a @ d))
    b = _random((5, 4), 0.5)
    got = sparse.addmm(_formats(a @ b)[fmt], s, _formats(b)[fmt], beta=2.0, alpha=-1.0)
    assert got.is_sparse()
    np.testing.assert_allclose(got.to_dense().numpy(), 2.0 * (a @ b) - (a @ b), atol=1e-12)


def test_batched_masked_matmul():
    x, y = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 4, 5))
    mask = _formats(_random((2, 3, 5), 0.5))["csr"]
    got = sparse.masked_matmul(dygraph.to_tensor(x), dygraph.to_tensor(y), mask)
    keep = mask.to_dense().numpy() != 0
    np.testing.assert_allclose(got.to_dense().numpy(), np.where(keep, x @ y, 0))


@pytest.mark.parametrize("call,error,match", [
    (lambda s, d: sparse.matmul(d, d), TypeError, "expected a sparse tensor"),
    (lambda s, d: sparse.matmul(s, dygraph.ones([4, 2], "float32")), TypeError,
     r"x \(float64\) and y \(float32\) must have the same dtype"),
    (lambda s, d: sparse.matmul(s, dygraph.ones([3, 2], "float64")), ValueError,
     r"y must be \[5, N\]"),
    (lambda s, d: sparse.mv(s, dygraph.ones([4], "float64")), ValueError, r"shape \[5\]"),
    (lambda s, d: sparse.masked_matmul(d, d, s), ValueError, "does not give the mask"),
    (lambda s, d: sparse.addmm(s, s, d), TypeError, "input must be a dense Tensor"),
    (lambda s, d: sparse.matmul(dygraph.ones([2, 5, 2], "float64").to_sparse_coo(1), d),
     ValueError, "without dense dims"),
])
def test_product_errors(call, error, match):
    s = dygraph.to_tensor(_random((4, 5), 0.5)).to_sparse_coo(2)
    with pytest.raises(error, match=match):
        call(s, dygraph.ones([5, 5], "float64"))


@pytest.mark.parametrize("fmt", ["coo", "csr"])
@pytest.mark.parametrize("center", [True, False])
def test_pca_lowrank_matches_the_svd(fmt, center):
    a = _random((12, 6), 0.5)
    dygraph.seed(3)
    u, s, v = sparse.pca_lowrank(_formats(a)[fmt], q=6, center=center, niter=3)
    c = a - a.mean(axis=0) if center else a
    want = np.linalg.svd(c, compute_uv=False)
    np.testing.assert_allclose(s.numpy(), want, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose((u.numpy() * s.numpy()) @ v.numpy().T, c, atol=1e-10)
    assert u.shape == [12, 6] and v.shape == [6, 6]
    with pytest.raises(ValueError, match=r"q must be in \[1, min\(N, M\) = 6\]"):
        sparse.pca_lowrank(_formats(a)[fmt], q=7)


def test_the_layout_is_made_once_per_structure():
    x = dygraph.to_tensor(_random((5, 4), 0.6)).to_sparse_coo(2)
    d = dygraph.ones([4, 2], "float64")
    sparse.matmul(x, d)
    layout = x._layout_cache
    assert layout is not None
    sparse.matmul(x, d)
    assert x._layout_cache is layout and sparse.sin(x)._layout_cache is layout
