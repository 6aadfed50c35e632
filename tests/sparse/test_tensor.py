"""Sparse tensors as Tensors: what they report, what dense ops do with them, printing,
copying, gradients through their values, conversions and their round trips."""

import copy
import pickle

import numpy as np
import pytest

import dygraph
from dygraph import sparse, static

RNG = np.random.default_rng(0)


def _random(shape, density=0.4, dtype="float32"):
    a = RNG.standard_normal(shape) * (RNG.random(shape) < density)
    return a.astype(dtype)


def test_sparse_tensors_are_tensors():
    x = sparse.sparse_coo_tensor([[0, 1], [1, 2]], [1.0, 2.0], [2, 3])
    c = x.to_sparse_csr()
    for t, fmt in ((x, "coo"), (c, "csr")):
        assert isinstance(t, dygraph.Tensor) and t.is_sparse()
        assert t.is_sparse_coo() == (fmt == "coo") and t.is_sparse_csr() == (fmt == "csr")
        assert (t.shape, t.dtype, t.ndim, t.dim(), t.size, t.numel(), len(t)) == (
            [2, 3], dygraph.float32, 2, 2, 6, 6, 2)
        assert str(t.place) == str(dygraph.CPUPlace()) and t.stop_gradient and t.is_leaf
    assert (x.nnz(), x.sparse_dim(), x.dense_dim()) == (2, 2, 0)
    assert (c.nnz(), c.sparse_dim(), c.dense_dim()) == (2, 2, 0)
    assert x.indices().dtype == dygraph.int64 and x.values().dtype == dygraph.float32
    assert c.crows().tolist() == [0, 1, 2] and c.cols().tolist() == [1, 2]
    with pytest.raises(TypeError, match="only sparse COO tensors"):
        c.is_coalesced()
    with pytest.raises(TypeError, match="a sparse CSR tensor .* only sparse COO"):
        c.indices()
    with pytest.raises(TypeError, match="a sparse COO tensor .* only sparse CSR"):
        x.crows()


@pytest.mark.parametrize("use", [
    lambda x: dygraph.sin(x), lambda x: x + 1, lambda x: x.numpy(), lambda x: x.sum(),
    lambda x: dygraph.to_tensor(x), lambda x: np.asarray(x), lambda x: x.reshape([6]),
    lambda x: dygraph.matmul(x, dygraph.ones([3, 2])), lambda x: x.set_tensor(x),
    lambda x: x.gradient(), lambda x: dygraph.grad([dygraph.ones([1])], [x])])
def test_dense_ops_refuse_sparse_tensors_clearly(use):
    x = sparse.sparse_coo_tensor([[0, 1], [1, 2]], [1.0, 2.0], [2, 3])
    with pytest.raises(TypeError, match=r"sparse COO tensor \(shape \[2, 3\], float32\).*"
                                        "to_dense"):
        use(x)


def test_repr_follows_paddle():
    x = sparse.sparse_coo_tensor([[0, 1], [1, 2]], [1.0, 2.0], [3, 3])
    assert repr(x) == (
        "Tensor(shape=[3, 3], dtype=dygraph.float32, place=CPUPlace, stop_gradient=True, \n"
        "       indices=[[0, 1],\n"
        "                [1, 2]], \n"
        "       values=[1., 2.])")
    assert str(x.to_sparse_csr()).endswith(
        "crows=[0, 1, 2, 2], \n       cols=[1, 2], \n       values=[1., 2.])")


@pytest.mark.parametrize("make", [lambda d: d.to_sparse_coo(2), lambda d: d.to_sparse_csr(),
                                  lambda d: d.to_sparse_coo(1)])
def test_pickle_and_deepcopy_keep_structure_and_values(make):
    x = make(dygraph.to_tensor(_random((4, 5))))
    x.stop_gradient = False
    for y in (pickle.loads(pickle.dumps(x)), copy.deepcopy(x)):
        assert type(y) is type(x) and y.shape == x.shape and not y.stop_gradient
        np.testing.assert_array_equal(y.to_dense().numpy(), x.to_dense().numpy())
        assert y.values() is not x.values()


def test_gradients_live_on_the_values():
    x = sparse.sparse_coo_tensor([[0, 1], [1, 2]], [1.0, 2.0], [3, 3])
    x.stop_gradient = False
    assert x.values().stop_gradient is False and x.grad is None
    y = sparse.square(x)
    assert not y.is_leaf and not y.stop_gradient
    y.backward()  # ones at every stored value
    assert x.grad.is_sparse_coo() and x.grad.indices() is x.indices()
    np.testing.assert_allclose(x.grad.values().numpy(), [2.0, 4.0])
    sparse.square(x).backward(sparse.multiply(y, 0.5))  # a sparse seed: its values
    np.testing.assert_allclose(x.grad.values().numpy(), [3.0, 12.0])
    x.clear_grad()
    np.testing.assert_allclose(x.grad.values().numpy(), [0.0, 0.0])
    x.clear_gradient(False)
    assert x.grad is None
    d = x.detach()
    assert d.stop_gradient and d.indices() is x.indices()


def test_csr_gradient_has_the_csr_structure():
    c = dygraph.to_tensor(_random((3, 4), 0.5)).to_sparse_csr()
    c.stop_gradient = False
    sparse.sin(c).backward()
    assert c.grad.is_sparse_csr() and c.grad.crows() is c.crows()
    np.testing.assert_allclose(c.grad.values().numpy(), np.cos(c.values().numpy()), rtol=1e-6)


def test_values_given_as_a_tensor_keep_their_graph():
    v = dygraph.to_tensor([1.0, 2.0], stop_gradient=False)
    x = sparse.sparse_coo_tensor([[0, 2]], v, [3], stop_gradient=False)
    sparse.sin(x).values().sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), np.cos([1.0, 2.0]), rtol=1e-6)
    cut = sparse.sparse_coo_tensor([[0, 2]], v, [3])  # stop_gradient=True (the default)
    assert cut.stop_gradient and cut.values() is not v


@pytest.mark.parametrize("shape,sparse_dim", [((4, 5), 2), ((4, 5), 1), ((2, 3, 4), 3),
                                              ((2, 3, 4), 2), ((2, 3, 4), 1)])
def test_dense_coo_round_trip(shape, sparse_dim):
    a = _random(shape)
    a[0] = 0  # an empty row
    x = dygraph.to_tensor(a).to_sparse_coo(sparse_dim)
    assert x.sparse_dim() == sparse_dim and x.is_coalesced()
    kept = np.abs(a).reshape(a.shape[:sparse_dim] + (-1,)).max(-1) > 0
    assert x.nnz() == kept.sum()
    np.testing.assert_array_equal(x.to_dense().numpy(), a)


@pytest.mark.parametrize("shape", [(4, 5), (3, 4, 6), (1, 1), (5, 3)])
def test_csr_round_trips(shape):
    a = _random(shape)
    d = dygraph.to_tensor(a)
    c = d.to_sparse_csr()
    np.testing.assert_array_equal(c.to_dense().numpy(), a)
    np.testing.assert_array_equal(c.to_sparse_coo(len(shape)).to_dense().numpy(), a)
    np.testing.assert_array_equal(d.to_sparse_coo(len(shape)).to_sparse_csr().cols().numpy(),
                                  c.cols().numpy())
    mats = a.reshape((-1,) + a.shape[-2:])
    want = np.concatenate([np.concatenate([[0], np.cumsum((m != 0).sum(1))]) for m in mats])
    np.testing.assert_array_equal(c.crows().numpy(), want)


def test_all_zero_and_empty_tensors():
    z = dygraph.zeros([3, 4])
    for x in (z.to_sparse_coo(2), z.to_sparse_csr(),
              sparse.sparse_coo_tensor(np.zeros((2, 0), "int64"), np.zeros(0, "float32"),
                                       [3, 4])):
        assert x.nnz() == 0
        np.testing.assert_array_equal(x.to_dense().numpy(), np.zeros((3, 4)))
        np.testing.assert_array_equal(sparse.sin(x).to_dense().numpy(), np.zeros((3, 4)))


def test_to_dense_adds_repeated_entries():
    x = sparse.sparse_coo_tensor([[1, 0, 1], [0, 1, 0]], [1.0, 2.0, 3.0], [2, 2])
    assert not x.is_coalesced()
    np.testing.assert_array_equal(x.to_dense().numpy(), [[0.0, 2.0], [4.0, 0.0]])
    np.testing.assert_array_equal(x.to_sparse_csr().values().numpy(), [2.0, 4.0])


def test_dense_conversion_gradient():
    d = dygraph.to_tensor(_random((3, 4), 0.5, "float64"), stop_gradient=False)
    x = d.to_sparse_coo(2)
    (sparse.square(x).to_dense() * 3).sum().backward()
    np.testing.assert_allclose(d.grad.numpy(), 6 * d.numpy())


def test_dense_tensor_methods_and_set_tensor():
    x = dygraph.ones([2, 3])
    assert (x.is_sparse(), x.is_sparse_coo(), x.is_sparse_csr()) == (False, False, False)
    x.stop_gradient = False
    x.set_tensor(dygraph.to_tensor([1.5, 2.5], dtype="float64"))
    assert x.shape == [2] and x.dtype == dygraph.float64 and not x.stop_gradient
    x.set_tensor(dygraph.to_tensor([1, 2, 3]))
    assert x.tolist() == [1, 2, 3] and x.stop_gradient  # integer tensors take no gradient
    y = dygraph.zeros([2])
    x.set_tensor(y)
    y[0] = 5.0
    assert x.tolist() == [0.0, 0.0]  # a copy
    for bad in (3, sparse.sparse_coo_tensor([[0]], [1.0], [2])):
        with pytest.raises(TypeError, match="set_tensor: value must be a dense Tensor"):
            x.set_tensor(bad)
    with pytest.raises(ValueError, match=r"sparse_dim must be in \[1, 2\]"):
        dygraph.ones([2, 2]).to_sparse_coo(3)
    with pytest.raises(ValueError, match="CSR holds 2-D or 3-D"):
        dygraph.ones([2]).to_sparse_csr()


@pytest.mark.parametrize("call,error,match", [
    (lambda: sparse.sparse_coo_tensor([[0, -1]], [1.0, 2.0], [3]), ValueError,
     "non-negative"),
    (lambda: sparse.sparse_coo_tensor([[0.5, 1]], [1.0, 2.0], [3]), TypeError, "integers"),
    (lambda: sparse.sparse_coo_tensor([[0, 1]], 1.0, [3]), ValueError, "at least 1-D"),
    (lambda: sparse.sparse_coo_tensor([[0, 1]], [[1.0, 2.0]], [3]), ValueError,
     "same number of entries"),
    (lambda: sparse.sparse_coo_tensor([[0, 1]], [[1.0, 2.0], [3.0, 4.0]], [3, 3]),
     ValueError, "cannot hold"),
    (lambda: sparse.sparse_csr_tensor([0, 2, 1], [0, 1], [1.0, 2.0], [2, 2]), ValueError,
     "never decrease"),
    (lambda: sparse.sparse_csr_tensor([0, 1, 2], [0, 2], [1.0, 2.0], [2, 2]), ValueError,
     r"cols must be in \[0, 2\)"),
    (lambda: sparse.sparse_csr_tensor([0, 1, 2], [[0, 1]], [1.0, 2.0], [2, 2]), ValueError,
     "cols must be 1-D"),
])
def test_creation_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_creation_dtypes_and_defaults():
    x = sparse.sparse_coo_tensor(np.array([[0, 2]], "int32"), [1, 2], [3])
    assert x.indices().dtype == dygraph.int32 and x.dtype == dygraph.int64
    assert sparse.sparse_coo_tensor([[0, 2]], [1, 2], dtype="float64").dtype == dygraph.float64
    assert sparse.sparse_coo_tensor([[0, 2]], np.array([1.0, 2.0])).dtype == dygraph.float64
    assert sparse.sparse_coo_tensor([[0, 2]], [1.0, 2.0]).shape == [3]
    c = sparse.sparse_csr_tensor([0, 1, 1, 2], [3, 0], [1.0, 2.0])
    assert c.shape == [3, 4] and c.nnz() == 2


def test_static_programs_take_sparse_tensors_from_constant_indices():
    dygraph.enable_static()
    try:
        with static.program_guard(static.Program(), static.Program()):
            v = static.data("v", [2], "float32")
            x = sparse.sparse_coo_tensor([[0, 1], [1, 0]], v, [2, 2], stop_gradient=False)
            out = sparse.matmul(x, dygraph.ones([2, 2])) * 2
            main = static.default_main_program()
            with pytest.raises(NotImplementedError, match="pattern must be known"):
                static.data("d", [2, 2], "float32").to_sparse_coo(2)
            with pytest.raises(NotImplementedError, match="pattern must be known"):
                sparse.sparse_coo_tensor(static.data("i", [2, 2], "int64"), v, [2, 2])
    finally:
        dygraph.disable_static()
    got, = static.Executor().run(main, feed={"v": np.array([3.0, 4.0], "float32")},
                                 fetch_list=[out])
    np.testing.assert_allclose(got, [[6.0, 6.0], [8.0, 8.0]])
