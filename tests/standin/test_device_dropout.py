"""Dropout on a GPU draws its masks on the device (dygraph/backend/device_random.py), run
here on the CuPy stand-in: no copy from the host, new masks at each call and at each
replay of a captured step, the same masks again after dygraph.seed, and the rate and
scale of dropout."""

import numpy as np

import dygraph
import dygraph.nn.functional as F
from dygraph.jit import cuda_graph
from tests.standin.conftest import no_host_copies


def test_masks_come_from_the_device_with_dropouts_rate_and_scale(standin_gpu):
    x = dygraph.ones([256, 64])
    F.dropout(x, 0.3)  # the first draw makes the device's state
    with no_host_copies(standin_gpu):
        first, second = F.dropout(x, 0.3), F.dropout(x, 0.3)
    a, b = first.numpy(), second.numpy()
    assert set(np.unique(a)) == {0.0, np.float32(1 / 0.7)}
    assert abs((a != 0).mean() - 0.7) < 4 * np.sqrt(0.21 / a.size)
    assert (a != b).mean() > 0.3  # the counter moved on


def test_seed_starts_the_device_stream_again_and_the_gradient_is_the_mask(standin_gpu):
    x = dygraph.ones([8, 8])
    x.stop_gradient = False
    dygraph.seed(5)
    y = F.dropout(x, 0.5)
    y.sum().backward()
    dygraph.seed(5)
    np.testing.assert_array_equal(F.dropout(x, 0.5).numpy(), y.numpy())
    np.testing.assert_array_equal(x.grad.numpy(), y.numpy())
    dygraph.seed(6)
    assert (F.dropout(x, 0.5).numpy() != y.numpy()).any()


def test_a_captured_step_draws_new_masks_at_each_replay_as_eager_does(standin_gpu):
    def noisy(x):
        return F.dropout(x, 0.5) * 3.0

    x = dygraph.ones([4, 32])
    dygraph.seed(1)
    eager = [noisy(x).numpy() for _ in range(4)]
    graphed = dygraph.jit.to_static(noisy)
    dygraph.seed(1)
    replays = cuda_graph.stats["replays"]
    static = [graphed(x).numpy() for _ in range(4)]
    assert cuda_graph.stats["replays"] - replays == 2
    for e, s in zip(eager, static):
        np.testing.assert_array_equal(s, e)
    assert (static[2] != static[3]).any()
