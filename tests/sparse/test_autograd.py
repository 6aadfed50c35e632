"""Gradients of sparse functions through the stored values, against float64 central
differences (first and second order), and the structure of the gradients: a sparse
input's gradient has the input's own structure (COO indices or CSR offsets and columns).

Each function under test maps dense float64 tensors (the values of fixed sparse patterns,
or dense operands) to a dense result, so dygraph.autograd.gradcheck can probe it."""

import numpy as np
import pytest

import dygraph
from dygraph import sparse
from dygraph.autograd import gradcheck, gradgradcheck

F = sparse.nn.functional
RNG = np.random.default_rng(1)
IDX = np.array([[0, 0, 1, 2, 3, 3, 3], [1, 4, 2, 0, 0, 2, 4]])
OTHER = np.array([[0, 1, 2, 3, 3], [1, 1, 3, 2, 0]])
UNSORTED = np.array([[3, 0, 2, 0, 3], [4, 1, 0, 1, 0]])  # (0, 1) twice
POINTS = np.array([[0, 0, 0, 1, 1], [0, 1, 2, 0, 2], [1, 1, 0, 2, 2], [0, 2, 2, 1, 1]])


def _coo(v, idx=IDX, shape=(4, 5)):
    return sparse.sparse_coo_tensor(idx, v, list(shape), stop_gradient=False)


def _csr(v, idx=IDX, shape=(4, 5)):
    return _coo(v, idx, shape).to_sparse_csr()


def _points(v):
    return _coo(v, POINTS, (2, 3, 3, 3, v.shape[1]))


CASES = {
    "sin_csr": (lambda v: sparse.sin(_csr(v)).values(), [(7,)]),
    "pow": (lambda v: sparse.pow(_coo(v), 3).values(), [(7,)]),
    "add": (lambda a, b: sparse.add(_coo(a), _coo(b, OTHER)).values(), [(7,), (5,)]),
    "subtract_csr": (lambda a, b: sparse.subtract(_csr(a), _csr(b, OTHER)).values(),
                     [(7,), (5,)]),
    "multiply": (lambda a, b: sparse.multiply(_coo(a), _coo(b, OTHER)).values(),
                 [(7,), (5,)]),
    "divide": (lambda a, b: sparse.divide(_coo(a), _coo(b, IDX)).to_dense()[IDX[0], IDX[1]],
               [(7,), (7,)]),
    "transpose": (lambda v: sparse.transpose(_coo(v), [1, 0]).to_dense(), [(7,)]),
    "transpose_csr": (lambda v: sparse.transpose(_csr(v), [1, 0]).values(), [(7,)]),
    "reshape": (lambda v: sparse.reshape(_csr(v), [2, 10]).values(), [(7,)]),
    "slice": (lambda v: sparse.slice(_coo(v), [0, 1], [1, 1], [4, 5]).values(), [(7,)]),
    "sum": (lambda v: sparse.sum(_coo(v), axis=1).values(), [(7,)]),
    "sum_csr": (lambda v: sparse.sum(_csr(v), axis=-1).values(), [(7,)]),
    "coalesce": (lambda v: sparse.coalesce(_coo(v, UNSORTED)).values(), [(5,)]),
    "to_dense_repeats": (lambda v: _coo(v, UNSORTED).to_dense(), [(5,)]),
    "mask_as": (lambda x: sparse.mask_as(x, _coo(np.ones(7))).values(), [(4, 5)]),
    "to_sparse_coo": (lambda x: sparse.square(x.to_sparse_coo(1)).values(), [(4, 5)]),
    "softmax": (lambda v: F.softmax(_coo(v)).values(), [(7,)]),
    "softmax_axis0": (lambda v: F.softmax(_coo(v), axis=0).values(), [(7,)]),
    "softmax_csr": (lambda v: F.softmax(_csr(v)).values(), [(7,)]),
    "leaky_relu": (lambda v: F.leaky_relu(_coo(v), 0.1).values(), [(7,)]),
    "matmul_unsorted": (lambda v, d: sparse.matmul(_coo(v, UNSORTED), d), [(5,), (5, 3)]),
    "matmul_sparse": (lambda a, b: sparse.matmul(_csr(a), _csr(b, OTHER[::-1], (5, 4)))
                      .values(), [(7,), (5,)]),
    "masked_matmul_csr": (lambda x, y: sparse.masked_matmul(x, y, _csr(np.ones(7))).values(),
                          [(4, 3), (3, 5)]),
    "addmm_sparse": (lambda c, a, b: sparse.addmm(_coo(c, OTHER[:, :4], (4, 4)), _coo(a),
                                                  _coo(b, OTHER[::-1], (5, 4)), 2.0, 0.5)
                     .values(), [(4,), (7,), (5,)]),
    "conv3d": (lambda v, w, b: F.conv3d(_points(v), w, b, stride=[1, 2, 1], padding=1,
                                        dilation=[1, 1, 2]).values(),
               [(5, 2), (2, 3, 2, 2, 3), (3,)]),
    "subm_conv3d": (lambda v, w: F.subm_conv3d(_points(v), w).values(),
                    [(5, 2), (3, 3, 3, 2, 2)]),
    "conv2d": (lambda v, w: F.conv2d(_coo(v, POINTS[:3], (2, 3, 3, 2)), w, padding=1)
               .values(), [(5, 2), (3, 3, 2, 2)]),
    "max_pool3d": (lambda v: F.max_pool3d(_points(v), 2, 1).values(), [(5, 2)]),
}


def _inputs(shapes, seed):
    rng = np.random.default_rng(seed)
    return [dygraph.to_tensor(rng.uniform(0.5, 1.5, s) * rng.choice([-1, 1], s),
                              stop_gradient=False) for s in shapes]


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name):
    fn, shapes = CASES[name]
    assert gradcheck(fn, _inputs(shapes, 0), eps=1e-6, atol=1e-5, rtol=1e-3)


@pytest.mark.parametrize("name", [n for n in sorted(CASES) if n != "max_pool3d"])
def test_double_backward_matches_finite_differences(name):
    fn, shapes = CASES[name]
    assert gradgradcheck(fn, _inputs(shapes, 1), eps=1e-6, atol=1e-5, rtol=1e-3)


@pytest.mark.parametrize("make", [
    lambda v: sparse.sparse_coo_tensor(UNSORTED, v, [4, 5]),
    lambda v: sparse.sparse_coo_tensor(IDX, np.resize(v, 7), [4, 5]).to_sparse_csr()])
@pytest.mark.parametrize("use", [
    lambda x: sparse.slice(x, [0], [2], [4]), lambda x: sparse.transpose(x, [1, 0]),
    lambda x: sparse.coalesce(x) if x.is_sparse_coo() else sparse.sqrt(sparse.abs(x)),
    lambda x: sparse.sum(x, axis=-1), lambda x: sparse.reshape(x, [5, 4])])
def test_a_sparse_input_gets_a_gradient_of_its_own_structure(make, use):
    x = make(RNG.uniform(1.0, 2.0, 5))
    x.stop_gradient = False
    use(x).values().sum().backward()
    g = x.grad
    assert g.format == x.format and g.shape == x.shape and g.nnz() == x.nnz()
    for mine, its in zip(g._index_tensors(), x._index_tensors()):
        assert mine is its
    assert np.isfinite(g.values().numpy()).all()
