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
