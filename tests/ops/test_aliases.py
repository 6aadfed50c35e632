"""Paddle's other spellings of existing ops (dygraph/ops/aliases.py): cat, concatenate, clamp,
swapaxes, and softmax, conv1d and layer_norm at the top level give the ops' values."""

import numpy as np

import dygraph as D


def _t(values, dtype=None, grad=False):
    return D.to_tensor(np.asarray(values), dtype=dtype, stop_gradient=not grad)


X = np.arange(6.0).reshape(2, 3)


def test_aliases():
    x = _t(X)
    assert D.cat([x, x]).shape == [4, 3] and D.concatenate([x, x], 1).shape == [2, 6]
    assert x.clamp(1, 4).numpy().tolist() == [[1, 1, 2], [3, 4, 4]]
    assert D.swapaxes(x, [1, 0]).shape == [3, 2] and x.swapdims([1, 0]).shape == [3, 2]
    np.testing.assert_allclose(D.softmax(D.ones([2, 3, 4])).numpy().sum(0), 1)
    np.testing.assert_allclose(D.softmax(D.ones([2, 3])).numpy().sum(1), 1)
    np.testing.assert_allclose(x.softmax(0).numpy().sum(0), 1)
    w = D.ones([1, 1, 2])
    assert D.conv1d(D.ones([1, 1, 4]), w).numpy().tolist() == [[[2, 2, 2]]]
    assert D.layer_norm(x, 3).shape == [2, 3]
