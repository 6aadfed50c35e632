"""Fractional max pooling and max unpooling (dygraph/ops/pool/lp_unpool_fractional.py): Paddle's
window rules of fractional pooling (values recorded from Paddle 3.3), the mask pointing at the
maxima, and unpooling as the inverse of max pooling."""

import numpy as np
import pytest

import dygraph
import dygraph.nn as nn
import dygraph.nn.functional as F
from dygraph.ops.pool.lp_unpool_fractional import _fractional_windows


@pytest.mark.parametrize("size, out, u, k, starts, ends", [
    (9, 4, 0.56, 2, [0, 2, 4, 7], [2, 4, 6, 9]),
    (10, 3, 0.3, 2, [0, 4, 8], [2, 6, 10]),
    (7, 3, 0.9, 3, [0, 2, 4], [3, 5, 7]),
    (7, 1, 0.5, 2, [0], [2]),
    (9, 4, 0.56, 0, [0, 2, 5, 7], [2, 5, 7, 9]),
    (7, 6, 0.95, 0, [0, 1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 7]),
    (7, 6, 0.5, 0, [0, 1, 2, 4, 5, 6], [1, 2, 4, 5, 6, 7]),
    (13, 5, 0.9, 0, [0, 2, 5, 8, 10], [2, 5, 8, 10, 13]),
])
def test_fractional_windows_follow_paddle(size, out, u, k, starts, ends):
    assert _fractional_windows(size, out, u, k) == (starts, ends)


def test_fractional_pool_mask_points_at_the_maxima():
    x = dygraph.to_tensor(np.random.default_rng(0).standard_normal((2, 3, 7, 6)))
    y, mask = F.fractional_max_pool2d(x, [3, 4], random_u=0.3, return_mask=True)
    flat = x.numpy().reshape(2, 3, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, mask.numpy().reshape(2, 3, -1), 2),
                                  y.numpy().reshape(2, 3, -1))
    assert mask.dtype == dygraph.int32  # as max_pool's masks and Paddle's
    with pytest.raises(ValueError, match="random_u"):
        F.fractional_max_pool2d(x, 3, random_u=1.5)


@pytest.mark.parametrize("shape", [(0, 3, 6, 6), (2, 0, 6, 6)])
def test_fractional_pool_of_an_empty_batch_is_empty(shape):
    x = dygraph.zeros(shape)
    x.stop_gradient = False
    y, mask = F.fractional_max_pool2d(x, 2, return_mask=True)
    assert y.shape == mask.shape == [*shape[:2], 2, 2]
    y.sum().backward()
    assert x.grad.shape == list(shape)
    assert F.fractional_max_pool3d(dygraph.zeros([0, 3, 4, 4, 4]), 2).shape == [0, 3, 2, 2, 2]


def test_max_unpool_inverts_max_pool():
    x = dygraph.to_tensor(np.random.default_rng(1).standard_normal((1, 2, 4, 4)))
    y, idx = F.max_pool2d(x, 2, return_mask=True)
    back = nn.MaxUnPool2D(2)(y, idx).numpy()
    assert back.shape == (1, 2, 4, 4)
    kept = back != 0
    np.testing.assert_array_equal(back[kept], x.numpy()[kept])
    assert kept.sum() == 8
    with pytest.raises(ValueError, match="indices"):
        F.max_unpool2d(y, idx * 10, 2)
