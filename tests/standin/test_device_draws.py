"""rand, randn, uniform, normal, the in-place fills, gumbel_softmax and rrelu on a GPU draw
on the device (dygraph/backend/device_random.py, the kernels of
dygraph/kernels/cuda/random_draws.py run as their NumPy statements on the CuPy stand-in):
no copy from the host, the distributions they name, float32 and float64, new values at
each call and at each replay of a captured program, the same values again after
dygraph.seed."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.jit import cuda_graph
from tests.standin.conftest import no_host_copies
from tools import cupy_standin

_N = 20000
_DRAWS = {  # name: (draw of _N values, mean, variance)
    "rand": (lambda d: dygraph.rand([_N], dtype=d), 0.5, 1 / 12),
    "randn": (lambda d: dygraph.randn([_N], dtype=d), 0.0, 1.0),
    "uniform": (lambda d: dygraph.uniform([_N], dtype=d, min=-2.0, max=4.0), 1.0, 3.0),
    "normal": (lambda d: dygraph.normal(3.0, 2.0, [_N]).astype(d), 3.0, 4.0),
    "rand_like": (lambda d: dygraph.rand_like(dygraph.zeros([_N], dtype=d)), 0.5, 1 / 12),
    "normal_": (lambda d: dygraph.zeros([_N], dtype=d).normal_(1.0, 0.5), 1.0, 0.25),
    "uniform_": (lambda d: dygraph.zeros([_N], dtype=d).uniform_(0.0, 2.0), 1.0, 1 / 3),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(_DRAWS))
def test_draws_are_made_on_the_device_with_their_distribution(name, dtype, standin_gpu):
    draw, mean, var = _DRAWS[name]
    draw(dtype)  # the first draw makes the device's counter
    with no_host_copies(standin_gpu):
        a, b = draw(dtype), draw(dtype)
    assert type(a._data) is cupy_standin.ndarray and a.dtype == getattr(dygraph, dtype)
    values = a.numpy().astype(np.float64)
    assert abs(values.mean() - mean) < 5 * np.sqrt(var / _N)
    assert abs(values.var() - var) < 0.05 * var
    assert not np.array_equal(a.numpy(), b.numpy())
    dygraph.seed(9)
    first = draw(dtype).numpy()
    dygraph.seed(9)
    np.testing.assert_array_equal(draw(dtype).numpy(), first)


def test_float64_draws_have_53_bits():
    from dygraph.kernels.cuda.references import uniform_draw

    out = np.empty(4096)
    uniform_draw(np.array([3, 0], np.uint64), 0.0, 1.0, out)
    assert np.any(out * 2.0 ** 24 != np.floor(out * 2.0 ** 24))  # finer than float32's grid


def noisy_layer(x):
    return F.gumbel_softmax(x) + F.rrelu(x - 1.0) + dygraph.randn([4, 4]) + dygraph.rand_like(x)


def test_a_captured_program_draws_new_values_at_each_replay_as_eager_does(standin_gpu):
    x = dygraph.full([4, 4], 0.5)
    dygraph.seed(2)
    eager = [noisy_layer(x).numpy() for _ in range(4)]
    graphed = dygraph.jit.to_static(noisy_layer)
    dygraph.seed(2)
    replays = cuda_graph.stats["replays"]
    static = [graphed(x).numpy() for _ in range(4)]
    assert cuda_graph.stats["replays"] - replays == 2
    for e, s in zip(eager, static):
        np.testing.assert_allclose(s, e, rtol=1e-6)
    assert not np.array_equal(static[2], static[3])


def test_the_gpu_streams_state_can_be_saved_and_restored(standin_gpu):
    dygraph.rand([3])  # the device's stream exists once it has drawn
    state = dygraph.get_cuda_rng_state()
    assert len(state) == 1
    first = dygraph.randn([5]).numpy()
    dygraph.set_cuda_rng_state(state)
    np.testing.assert_array_equal(dygraph.randn([5]).numpy(), first)
