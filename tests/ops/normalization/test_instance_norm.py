"""instance_norm (dygraph/ops/normalization/norms.py) on inputs of few dims: a 2-D [N, C]
input has one value per channel and sample, so it normalizes to 0 (Paddle 3.3 does the
same); a spatial size of one takes the per-channel parameters, not the layer-norm path."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F


def test_2d_input_normalizes_to_the_bias():
    x = dygraph.to_tensor(np.random.default_rng(0).standard_normal((3, 4)).astype("float32"))
    x.stop_gradient = False
    w, b = dygraph.full([4], 3.0), dygraph.to_tensor([1.0, 2.0, 3.0, 4.0])
    y = F.instance_norm(x, weight=w, bias=b)
    assert y.shape == [3, 4]
    np.testing.assert_array_equal(y.numpy(), np.tile([1.0, 2.0, 3.0, 4.0], (3, 1)))
    (y * dygraph.arange(12, dtype="float32").reshape([3, 4])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((3, 4)))


@pytest.mark.parametrize("shape", [(0, 4), (3, 0)])
def test_2d_empty_input_stays_empty(shape):
    assert F.instance_norm(dygraph.zeros(shape)).shape == list(shape)


def test_spatial_size_one_with_parameters():
    x = dygraph.to_tensor(np.random.default_rng(1).standard_normal((3, 4, 1)))
    y = F.instance_norm(x, weight=dygraph.ones([4], "float64"), bias=dygraph.zeros([4], "float64"))
    np.testing.assert_array_equal(y.numpy(), np.zeros((3, 4, 1)))


def test_1d_input_is_refused():
    with pytest.raises(ValueError, match="at least 2 dims"):
        F.instance_norm(dygraph.ones([3]))
