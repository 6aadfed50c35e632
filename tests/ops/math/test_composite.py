"""The composite math ops (dygraph/ops/math/composite.py) beyond the spec table: addmm, inner,
tensordot, the distances, diff, vander, renorm, reduce_as and combinations, against values
Paddle 3.3 gives, and their errors."""

import numpy as np
import pytest

import dygraph as D


def _t(values, dtype=None, grad=False):
    return D.to_tensor(np.asarray(values), dtype=dtype, stop_gradient=not grad)


def test_products_and_distances():
    x = _t([[1.0, 3, 6], [2, 2, 9]])
    out = D.addmm(D.ones([2, 2]), x, x.T, beta=0.5, alpha=2)
    assert out.numpy().tolist() == [[92.5, 124.5], [124.5, 178.5]]
    assert D.inner(_t(2.0), x).shape == [2, 3]
    assert D.tensordot(D.ones([2, 3]), D.ones([3, 2]), 1).shape == [2, 2]
    with pytest.raises(ValueError, match="tensordot: dim 1 of x"):
        D.tensordot(D.ones([2, 3, 4]), D.ones([2, 4, 3]), [1, 2])
    assert D.dist(x, x * 0, 0).item() == 6
    assert D.dist(x, x * 0, float("inf")).item() == 9
    assert D.cdist(D.ones([2, 3, 4]), D.zeros([2, 5, 4])).shape == [2, 3, 5]
    np.testing.assert_allclose(D.pdist(x).numpy(), [np.sqrt(11)])
    assert D.diff(_t([1, 4, 9])).numpy().tolist() == [3, 5]
    out = D.diff(x, n=2, axis=1, prepend=_t([[0.0], [0.0]]))
    assert out.numpy().tolist() == [[1, 1], [-2, 7]]
    assert D.vander(_t([1, 2]), increasing=True).numpy().tolist() == [[1, 1], [1, 2]]
    assert D.vander(_t([1, 2, 3]), 0).shape == [3, 0]
    np.testing.assert_allclose(D.renorm(x, 1, 1, 4).numpy(),
                               [[1, 2.4, 1.6], [2, 1.6, 2.4]], rtol=1e-6)
    assert D.reduce_as(D.ones([2, 3, 4]), D.ones([3, 1])).numpy().tolist() == [[8]] * 3
    assert D.combinations(_t([1, 2, 3]), 0).shape == [0]
    assert D.combinations(_t([1, 2]), 3).shape == [0, 3]


def test_tensordot_broadcasts_paired_dims_of_size_1_as_paddle():
    a, b = _t(np.arange(3.0).reshape(3, 1)), _t(np.arange(4.0).reshape(1, 4))
    assert D.tensordot(a, b).item() == 18.0  # (sum a) * (sum b)
    x, y = _t(np.ones((2, 1)), grad=True), _t(np.ones((3, 4)), grad=True)
    out = D.tensordot(x, y, axes=[[1], [0]])
    assert out.shape == [2, 4] and out.numpy().tolist() == [[3.0] * 4] * 2
    out.sum().backward()
    assert y.grad.numpy().tolist() == [[2.0] * 4] * 3
    assert D.tensordot(D.ones([0, 4]), D.ones([0, 4])).item() == 0.0
    assert D.tensordot(D.ones([2, 0]), D.ones([0, 3]), axes=1).shape == [2, 3]


def test_tensordot_error_types_as_paddle():
    # pairs are checked in order: an axis beyond the dims is an IndexError, sizes that
    # differ (neither being 1) an AssertionError
    cases = [((2, 3), (4, 3), [[0], [0]], AssertionError),
             ((2, 3), (3,), 2, AssertionError),
             ((2, 3), (2, 3), 3, AssertionError),
             ((), (), 2, IndexError),
             ((2, 3), (2, 3), [[5], [0]], IndexError),
             ((2, 3), (2, 3), -1, AssertionError)]
    for xs, ys, axes, error in cases:
        with pytest.raises(error, match="tensordot"):
            D.tensordot(D.ones(list(xs)), D.ones(list(ys)), axes)
        with pytest.raises(ValueError):
            D.tensordot(D.ones(list(xs)), D.ones(list(ys)), axes)


def test_distances_of_complex_inputs_are_real():
    x = _t(np.array([[3 + 4j, 1j], [1, 2j]], np.complex64), grad=True)
    out = D.cdist(x, x * 0.5)
    assert out.dtype == D.float32
    np.testing.assert_allclose(out.numpy()[0, 0], np.sqrt(6.25 + 0.25), rtol=1e-6)
    out.sum().backward()  # the gradient Paddle gives
    np.testing.assert_allclose(x.grad.numpy()[0], [0.92223126 + 1.63246286j, -0.19611613j],
                               rtol=1e-5)
    assert D.pdist(x.detach(), p=1.0).dtype == D.float32


def test_shape_errors_of_the_composites_have_paddle_types():
    with pytest.raises(AssertionError, match="cdist"):
        D.cdist(D.ones([3]), D.ones([3, 3]))
    with pytest.raises(AssertionError, match="pdist"):
        D.pdist(D.ones([2, 3, 4]))
    with pytest.raises(TypeError, match="combinations"):
        D.combinations(D.ones([2, 3]))
    with pytest.raises(IndexError, match="diff"):
        D.diff(_t(1.0))
