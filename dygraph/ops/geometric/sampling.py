"""Neighbour sampling on a graph in CSC form: sample_neighbors, weighted_sample_neighbors
(paddle.geometric).

The graph is given as `row` and `colptr`: the in-neighbours of node v are
row[colptr[v]:colptr[v + 1]] (edge ids colptr[v] .. colptr[v + 1] - 1). For each input
node these functions return at most `sample_size` of its neighbours, drawn without
replacement: uniformly, or with probability growing with the edge weight (A-Res weighted
reservoir sampling: the k largest of u ** (1 / w), u uniform, which draws each next edge
in proportion to its weight among those not drawn yet). A node with no more neighbours
than sample_size keeps them all. The neighbours of each node come in CSC order.

The draws come from dygraph's generator, so `dygraph.seed(n)` makes them repeatable (Paddle
draws from its own engine, which paddle.seed does not reach). The output sizes depend on
the graph's values: static programs record each call whole, drawing again at each run.
"""

import numpy as np

from dygraph.autograd.whole_call import captured_whole
from dygraph.backend import as_numpy, place_of, to_place
from dygraph.framework.errors import op_error
from dygraph.framework.random import rng
from dygraph.ops.common import as_tensor
from dygraph.tensor.tensor import _new_tensor

__all__ = ["sample_neighbors", "weighted_sample_neighbors"]

_INDEX_DTYPES = ("int32", "int64")


def _graph_index(value, op, name, like=None):
    """The host array of an int32/int64 tensor of shape [N] or [N, 1] (any shape for the
    input nodes), in like's dtype when `like` is given."""
    data = as_tensor(value, op)._data
    if data.dtype.name not in _INDEX_DTYPES:
        raise op_error(op, f"{name} has dtype {data.dtype.name} (shape {list(data.shape)}); "
                       "expected int32 or int64", TypeError)
    if like is not None and data.dtype != like.dtype:
        raise op_error(op, f"{name} has dtype {data.dtype.name}, but row has "
                       f"{like.dtype.name}; expected the same dtype")
    if name != "input_nodes" and data.ndim == 2 and data.shape[1] == 1:
        data = data.reshape(-1)
    elif name != "input_nodes" and data.ndim != 1:
        raise op_error(op, f"{name} has shape {list(data.shape)}; expected [N] or [N, 1]")
    return as_numpy(data).reshape(-1)


def _check_graph(row, colptr, op):
    if colptr.size == 0:
        raise op_error(op, "colptr is empty; expected num_nodes + 1 offsets")
    if int(colptr[0]) < 0 or int(colptr[-1]) > row.size or bool((np.diff(colptr) < 0).any()):
        raise op_error(op, f"colptr must be non-decreasing offsets from 0 up to len(row) = "
                       f"{row.size}, got values from {int(colptr.min())} to "
                       f"{int(colptr.max())}")


def _candidates(colptr, nodes, op):
    """(edge positions of every input node's neighbours, node of each, offset of each node's
    first candidate, degrees)."""
    n_nodes = colptr.size - 1
    if nodes.size and (int(nodes.min()) < 0 or int(nodes.max()) >= n_nodes):
        bad = int(nodes.min()) if int(nodes.min()) < 0 else int(nodes.max())
        raise op_error(op, f"input node {bad} is out of range for a graph of {n_nodes} "
                       "nodes", IndexError)
    starts = colptr[nodes].astype(np.int64)
    degrees = colptr[nodes + 1].astype(np.int64) - starts
    offsets = np.cumsum(degrees) - degrees
    owner = np.repeat(np.arange(nodes.size), degrees)
    positions = starts[owner] + np.arange(owner.size) - offsets[owner]
    return positions, owner, offsets, degrees


def _sample(positions, owner, offsets, degrees, sample_size, weights):
    """The candidates kept: all of a node's when it has at most sample_size, else the
    sample_size with the largest keys (uniform draws, or A-Res keys log(u) / w), in CSC
    order."""
    if sample_size < 0 or not (degrees > sample_size).any():
        return positions, degrees
    draws = rng().random(positions.size)
    if weights is None:
        keys = draws
    else:
        with np.errstate(divide="ignore"):
            keys = np.log(draws) / weights[positions]
    # By node, then key descending; zero-weight edges (key -inf) tie, broken by the draw.
    order = np.lexsort((draws, -keys, owner))
    rank = np.arange(order.size) - offsets[owner[order]]
    chosen = np.sort(order[rank < sample_size])
    return positions[chosen], np.minimum(degrees, sample_size)


def _neighbors(op, row, colptr, input_nodes, sample_size, eids, return_eids, edge_weight):
    if return_eids and eids is None:
        raise op_error(op, "`eids` should not be None if `return_eids` is True.")
    row_tensor = as_tensor(row, op)
    rows = _graph_index(row_tensor, op, "row")
    like = row_tensor._data
    colptr = _graph_index(colptr, op, "colptr", like)
    nodes = _graph_index(input_nodes, op, "input_nodes", like)
    _check_graph(rows, colptr, op)
    weights = None
    if edge_weight is not None:
        weight = as_tensor(edge_weight, op)._data
        if weight.dtype != np.float32 or weight.size != rows.size:
            raise op_error(op, f"edge_weight has shape {list(weight.shape)} and dtype "
                           f"{weight.dtype.name}; expected float32, one weight per edge "
                           f"({rows.size})")
        weights = as_numpy(weight).reshape(-1).astype(np.float64)
        if not (np.isfinite(weights) & (weights >= 0)).all():
            raise op_error(op, "edge_weight must be finite and non-negative")
    edge_ids = None
    if return_eids:
        edge_ids = _graph_index(eids, op, "eids", like)
        if edge_ids.size != rows.size:
            raise op_error(op, f"eids has {edge_ids.size} ids for {rows.size} edges; "
                           "expected one per edge")
    positions, owner, offsets, degrees = _candidates(colptr, nodes, op)
    kept, counts = _sample(positions, owner, offsets, degrees, int(sample_size), weights)
    place = place_of(like)
    out = [rows[kept], counts.astype(np.int32)]
    if return_eids:
        out.append(edge_ids[kept])
    return tuple(_new_tensor(to_place(np.ascontiguousarray(a), place), None, 0, True)
                 for a in out)


@captured_whole(free_dims=(0,))
def sample_neighbors(row, colptr, input_nodes, sample_size=-1, eids=None, return_eids=False,
                     perm_buffer=None, name=None):
    """Uniformly sample up to sample_size in-neighbours of each input node, without
    replacement, from a graph in CSC form (row, colptr); sample_size -1 keeps them all.

    Returns (neighbours, counts) or, with return_eids, (neighbours, counts, edge ids from
    `eids`): the neighbours of every input node in turn (row's dtype), and how many each
    has (int32). row, colptr, input_nodes and eids: int32 or int64, one dtype.
    perm_buffer (Paddle's GPU Fisher-Yates buffer) is accepted and not needed.

    Example:
        >>> import dygraph
        >>> from dygraph import geometric
        >>> row = dygraph.to_tensor([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7])
        >>> colptr = dygraph.to_tensor([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13])
        >>> nodes = dygraph.to_tensor([0, 8, 1, 2])
        >>> neighbors, counts = geometric.sample_neighbors(row, colptr, nodes, sample_size=2)
        >>> neighbors.numpy(), counts.numpy()
        (array([3, 7, 9, 7, 0, 9, 1]), array([2, 2, 2, 1], dtype=int32))
    """
    return _neighbors("sample_neighbors", row, colptr, input_nodes, sample_size, eids,
                      return_eids, None)


@captured_whole(free_dims=(0,))
def weighted_sample_neighbors(row, colptr, edge_weight, input_nodes, sample_size=-1,
                              eids=None, return_eids=False, name=None):
    """Sample up to sample_size in-neighbours of each input node without replacement, an
    edge's chance growing with its weight (edge_weight: float32, one non-negative weight
    per edge, in CSC order); sample_size -1 keeps them all. Arguments and results as
    sample_neighbors.

    Example:
        >>> import dygraph
        >>> from dygraph import geometric
        >>> row = dygraph.to_tensor([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7])
        >>> colptr = dygraph.to_tensor([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13])
        >>> weight = dygraph.to_tensor([1.0, 0.0, 0.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
        ...                             1.0, 1.0, 1.0])
        >>> neighbors, counts = geometric.weighted_sample_neighbors(
        ...     row, colptr, weight, dygraph.to_tensor([0, 1]), sample_size=1)
        >>> neighbors.numpy(), counts.numpy()
        (array([3, 9]), array([1, 1], dtype=int32))
    """
    return _neighbors("weighted_sample_neighbors", row, colptr, input_nodes, sample_size,
                      eids, return_eids, edge_weight)
