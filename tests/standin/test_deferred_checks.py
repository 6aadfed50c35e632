"""Index checks inside a CUDA graph (on the CuPy stand-in): gather's and embedding's bounds
cannot be read on the host while captured, so the check becomes a device flag that raises
after the graph's run; the program is still captured, and a bad index still raises."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.jit import cuda_graph


def gathered(x, index):
    return dygraph.gather(x, index) * 2.0


def embedded(ids, weight):
    return F.embedding(ids, weight) + 1.0


@pytest.mark.parametrize("fn, make, bad", [
    (gathered, lambda: (dygraph.rand([5, 3]), dygraph.to_tensor([0, 4, 2])),
     lambda: dygraph.to_tensor([0, 5, 2])),
    (embedded, lambda: (dygraph.to_tensor([[1, 3]]), dygraph.rand([4, 2])),
     lambda: dygraph.to_tensor([[1, 4]])),
])
def test_a_bad_index_in_a_replayed_graph_raises_after_the_run(fn, make, bad, standin_gpu):
    first, second = make()
    static = dygraph.jit.to_static(fn)
    replays = cuda_graph.stats["replays"]
    for _ in range(3):  # a plain run, the capture, a replay
        np.testing.assert_allclose(static(first, second).numpy(), fn(first, second).numpy())
    assert cuda_graph.stats["replays"] - replays == 1
    args = (first, bad()) if fn is gathered else (bad(), second)
    with pytest.raises((IndexError, ValueError), match="out of range"):
        static(*args)
