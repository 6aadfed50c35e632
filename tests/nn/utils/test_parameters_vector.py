"""parameters_to_vector / vector_to_parameters."""

import numpy as np
import pytest

import dygraph
from dygraph.nn.utils import parameters_to_vector, vector_to_parameters


def test_round_trip_keeps_identity_and_shapes():
    layer = dygraph.nn.Linear(2, 3)
    weight = layer.weight
    vec = parameters_to_vector(layer.parameters())
    assert vec.shape == [9] and not vec.stop_gradient
    np.testing.assert_array_equal(vec.numpy()[:6], layer.weight.numpy().ravel())
    vector_to_parameters(dygraph.arange(9, dtype="float32"), layer.parameters())
    assert layer.weight is weight and layer.weight.shape == [2, 3]
    np.testing.assert_array_equal(layer.weight.numpy(), np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(layer.bias.numpy(), [6, 7, 8])
    assert not layer.weight.stop_gradient


def test_vector_is_a_leaf_and_longer_vectors_are_cut():
    layer = dygraph.nn.Linear(2, 3)
    vec = parameters_to_vector(layer.parameters())
    (vec * 2).sum().backward()
    assert layer.weight.grad is None
    np.testing.assert_array_equal(vec.grad.numpy(), np.full(9, 2.0))
    vector_to_parameters(dygraph.arange(12, dtype="float32"), layer.parameters())
    np.testing.assert_array_equal(layer.bias.numpy(), [6, 7, 8])


def test_errors():
    layer = dygraph.nn.Linear(2, 3)
    with pytest.raises(ValueError):
        vector_to_parameters(dygraph.zeros([3]), layer.parameters())
    with pytest.raises(AssertionError):
        vector_to_parameters(dygraph.zeros([3, 3]), layer.parameters())
