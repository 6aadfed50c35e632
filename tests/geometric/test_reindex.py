"""reindex_graph and reindex_heter_graph against a dictionary reference on random subgraphs,
the checks of count, and the sample -> reindex -> message passing pipeline."""

import numpy as np
import pytest

import dygraph
import dygraph.geometric as G


def _reference(x, neighbors, count):
    """Renumbering with a dict, edge by edge (see dygraph/ops/geometric/reindex.py)."""
    numbers = {int(v): i for i, v in enumerate(x)}
    out_nodes = list(x)
    for v in neighbors:
        if int(v) not in numbers:
            numbers[int(v)] = len(out_nodes)
            out_nodes.append(v)
    src = [numbers[int(v)] for v in neighbors]
    dst = [numbers[int(x[i % len(x)])] for i, c in enumerate(count) for _ in range(c)]
    return src, dst, out_nodes


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_matches_a_dictionary_reference(seed, dtype):
    rng = np.random.default_rng(seed)
    x = rng.choice(50, 7, replace=False)
    rounds = 1 + seed % 2  # one edge type, or two
    count = rng.integers(0, 5, 7 * rounds).astype(np.int32)
    neighbors = rng.integers(0, 50, int(count.sum()))
    got = G.reindex_graph(dygraph.to_tensor(x, dtype=dtype),
                          dygraph.to_tensor(neighbors, dtype=dtype), dygraph.to_tensor(count))
    for g, want in zip(got, _reference(x, neighbors, count)):
        assert g.numpy().dtype == np.dtype(dtype)
        assert g.numpy().tolist() == [int(v) for v in want]


@pytest.mark.parametrize("count", [[2, 3, 1], [2, 5], [2, 3, 2, 1], [2, -1, 6]])
def test_count_must_cover_the_neighbors_once_per_edge_type(count):
    """Paddle 3.3 fills the missing edges with 0, or reads past the end; DyGraph refuses."""
    with pytest.raises(ValueError, match="count holds"):
        G.reindex_graph(dygraph.to_tensor([0, 1, 2]), dygraph.to_tensor([8, 9, 0, 4, 7, 6, 7]),
                        dygraph.to_tensor(count, dtype="int32"))


def test_heter_lists_must_pair_up():
    x = dygraph.to_tensor([0, 1])
    with pytest.raises(ValueError, match="one of each per edge type"):
        G.reindex_heter_graph(x, [dygraph.to_tensor([5, 6])],
                              [dygraph.to_tensor([1, 1], dtype="int32")] * 2)


def test_sample_reindex_and_pass_messages():
    """One layer of neighbour-sampled message passing: sample, renumber, aggregate."""
    dygraph.seed(0)
    rng = np.random.default_rng(0)
    n_nodes = 30
    dst = np.repeat(np.arange(n_nodes), 4)
    src = rng.integers(0, n_nodes, dst.size)
    colptr = dygraph.to_tensor(np.arange(0, dst.size + 1, 4))
    features = dygraph.to_tensor(rng.standard_normal((n_nodes, 3)))
    batch = dygraph.to_tensor([3, 7, 11])
    neighbors, counts = G.sample_neighbors(dygraph.to_tensor(src), colptr, batch, 2)
    new_src, new_dst, nodes = G.reindex_graph(batch, neighbors, counts)
    out = G.send_u_recv(features[nodes], new_src, new_dst, "sum", out_size=3)
    picked = neighbors.numpy().reshape(3, 2)
    np.testing.assert_allclose(out.numpy(), features.numpy()[picked].sum(axis=1), rtol=1e-12)
