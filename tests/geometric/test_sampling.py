"""Neighbour sampling: dygraph.seed makes it repeatable, draws are without replacement,
uniform or in proportion to the weights, sample_size -1 keeps every neighbour, bad graphs are
refused, and static programs draw again at each run."""

import numpy as np
import pytest

import dygraph
import dygraph.geometric as G
from dygraph import static

# Node 0 has in-neighbours 10..13 (edges 0..3), node 1 has 20, node 2 none, node 3 has 30, 31.
ROW = dygraph.to_tensor([10, 11, 12, 13, 20, 30, 31])
COLPTR = dygraph.to_tensor([0, 4, 5, 5, 7])
WEIGHT = dygraph.to_tensor([1.0, 2.0, 3.0, 4.0, 1.0, 0.0, 5.0])


def _draws(sample_size, trials, weighted=False):
    """The neighbours of node 0 over `trials` calls, one row each."""
    nodes = dygraph.to_tensor([0])
    args = (ROW, COLPTR, WEIGHT, nodes) if weighted else (ROW, COLPTR, nodes)
    fn = G.weighted_sample_neighbors if weighted else G.sample_neighbors
    return np.stack([fn(*args, sample_size=sample_size)[0].numpy() for _ in range(trials)])


def test_seed_makes_draws_repeatable():
    nodes = dygraph.to_tensor([0, 3, 0, 1])
    dygraph.seed(5)
    first = [G.sample_neighbors(ROW, COLPTR, nodes, 1)[0].numpy() for _ in range(4)]
    dygraph.seed(5)
    again = [G.sample_neighbors(ROW, COLPTR, nodes, 1)[0].numpy() for _ in range(4)]
    assert all((a == b).all() for a, b in zip(first, again))
    assert len({tuple(a) for a in first}) > 1  # the stream moves on between calls


def test_uniform_draws_without_replacement():
    dygraph.seed(0)
    draws = _draws(2, 3000)
    assert (draws[:, 0] < draws[:, 1]).all()  # distinct, in CSC order
    frequency = np.array([(draws == v).any(axis=1).mean() for v in (10, 11, 12, 13)])
    np.testing.assert_allclose(frequency, 0.5, atol=0.04)


def test_weighted_draws_follow_the_weights():
    dygraph.seed(0)
    draws = _draws(1, 4000, weighted=True).ravel()
    frequency = np.array([(draws == v).mean() for v in (10, 11, 12, 13)])
    np.testing.assert_allclose(frequency, np.array([1, 2, 3, 4]) / 10, atol=0.03)


def test_zero_weight_edges_come_last():
    dygraph.seed(0)
    nodes = dygraph.to_tensor([3, 3, 3])
    picked, counts = G.weighted_sample_neighbors(ROW, COLPTR, WEIGHT, nodes, 1)
    assert picked.numpy().tolist() == [31, 31, 31] and counts.numpy().tolist() == [1, 1, 1]
    picked, _ = G.weighted_sample_neighbors(ROW, COLPTR, WEIGHT, nodes, 2)
    assert picked.numpy().tolist() == [30, 31] * 3


@pytest.mark.parametrize("weighted", [False, True])
def test_sample_size_minus_one_keeps_every_neighbour(weighted):
    """Paddle documents this; its 3.3 CPU kernels abort instead."""
    nodes = dygraph.to_tensor([3, 2, 0, 1])
    args = (ROW, COLPTR, WEIGHT, nodes) if weighted else (ROW, COLPTR, nodes)
    fn = G.weighted_sample_neighbors if weighted else G.sample_neighbors
    neighbors, counts, eids = fn(*args, eids=dygraph.arange(7) * 2, return_eids=True)
    assert neighbors.numpy().tolist() == [30, 31, 10, 11, 12, 13, 20]
    assert counts.numpy().tolist() == [2, 0, 4, 1]
    assert eids.numpy().tolist() == [10, 12, 0, 2, 4, 6, 8]


@pytest.mark.parametrize("call, kind, words", [
    (lambda: G.sample_neighbors(ROW, COLPTR, dygraph.to_tensor([4]), 2), IndexError,
     "out of range"),
    (lambda: G.sample_neighbors(ROW, dygraph.to_tensor([0, 4, 3, 7]), dygraph.to_tensor([0]),
                                2), ValueError, "non-decreasing"),
    (lambda: G.sample_neighbors(ROW, dygraph.to_tensor([0, 9]), dygraph.to_tensor([0]), 2),
     ValueError, "non-decreasing"),
    (lambda: G.sample_neighbors(ROW, COLPTR, dygraph.to_tensor([0]), 2,
                                eids=dygraph.arange(3), return_eids=True), ValueError,
     "one per edge"),
    (lambda: G.weighted_sample_neighbors(ROW, COLPTR, WEIGHT[:3], dygraph.to_tensor([0]), 2),
     ValueError, "one weight per edge"),
    (lambda: G.weighted_sample_neighbors(ROW, COLPTR, -WEIGHT, dygraph.to_tensor([0]), 2),
     ValueError, "non-negative"),
    (lambda: G.sample_neighbors(ROW.astype("float32"), COLPTR, dygraph.to_tensor([0]), 2),
     TypeError, "int32 or int64"),
])
def test_bad_graphs_are_refused(call, kind, words):
    with pytest.raises(kind, match=words):
        call()


def test_a_program_draws_again_at_each_run():
    dygraph.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
            row = static.data("row", [None], "int64")
            colptr = static.data("colptr", [None], "int64")
            nodes = static.data("nodes", [None], "int64")
            neighbors, counts = G.sample_neighbors(row, colptr, nodes, sample_size=2)
    finally:
        dygraph.disable_static()
    feed = {"row": ROW.numpy(), "colptr": COLPTR.numpy(), "nodes": np.zeros(6, np.int64)}
    dygraph.seed(1)
    runs = [static.Executor().run(main, feed=feed, fetch_list=[neighbors, counts])
            for _ in range(3)]
    dygraph.seed(1)
    eager = [G.sample_neighbors(ROW, COLPTR, dygraph.to_tensor(feed["nodes"]), 2)
             for _ in range(3)]
    for (got, got_counts), (want, want_counts) in zip(runs, eager):
        np.testing.assert_array_equal(got, want.numpy())
        np.testing.assert_array_equal(got_counts, want_counts.numpy())
    assert len({tuple(r[0]) for r in runs}) > 1
