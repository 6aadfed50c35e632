"""Renumbering a sampled subgraph: reindex_graph, reindex_heter_graph (paddle.geometric).

Given input nodes x and, for each, its sampled neighbours (`neighbors`, with `count[i]`
of them for x[i], as sample_neighbors returns), the nodes are renumbered from 0: x keeps
its order (x[i] becomes i), and every neighbour not in x gets the next number in order of
first appearance. The results are the renumbered edges (reindex_src: the neighbour,
reindex_dst: the input node) and out_nodes, the original id of each new number.

count may hold several rounds of len(x) counts (one per edge type: reindex_heter_graph
concatenates them); round t gives the neighbours of x[0], x[1], ... again. As Paddle's,
x should hold distinct ids; a repeated id takes the number of its last place.

The output sizes depend on the values, so static programs record each call whole.
"""

import numpy as np

from dygraph.autograd.whole_call import captured_whole
from dygraph.backend import as_numpy, place_of, to_place
from dygraph.framework.errors import op_error
from dygraph.ops.common import as_tensor
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["reindex_graph", "reindex_heter_graph"]

_INDEX_DTYPES = ("int32", "int64")


def _ids(value, op, name, dtype=None):
    """The host array of an integer tensor, flattened; its dtype must be `dtype` if given."""
    data = as_tensor(value, op)._data
    if data.dtype.name not in _INDEX_DTYPES:
        raise op_error(op, f"{name} has dtype {data.dtype.name} (shape {list(data.shape)}); "
                       "expected int32 or int64", TypeError)
    if dtype is not None and data.dtype != dtype:
        raise op_error(op, f"{name} has dtype {data.dtype.name}; expected {dtype}")
    return as_numpy(data).reshape(-1)


def _renumber(x, neighbors, count):
    """(src, dst, out_nodes) as arrays; see the module docstring."""
    n_x = x.size
    values, first, inverse = np.unique(np.concatenate([x, neighbors]), return_index=True,
                                       return_inverse=True)
    numbers = np.empty(values.size, np.int64)
    in_x = first < n_x
    # np.unique sorts, so the values of x line up with those marked in_x; each takes the
    # number of its last place in x.
    _, last_from_end = np.unique(x[::-1], return_index=True)
    numbers[in_x] = n_x - 1 - last_from_end
    new_first = first[~in_x]
    order = np.argsort(new_first, kind="stable")
    rank = np.empty(order.size, np.int64)
    rank[order] = np.arange(order.size)
    numbers[~in_x] = n_x + rank
    src = numbers[inverse[n_x:]]
    x_numbers = numbers[inverse[:n_x]]
    rounds = count.size // n_x if n_x else 0
    dst = np.repeat(np.tile(x_numbers, rounds), count)
    out_nodes = np.concatenate([x, values[~in_x][order]])
    return src, dst, out_nodes


def _reindex(x, neighbors, count, op):
    like = as_tensor(x, op)._data
    xs = _ids(like, op, "x")
    neighbors = _ids(neighbors, op, "neighbors", like.dtype)
    count = _ids(count, op, "count", np.dtype(np.int32))
    if (count.size % xs.size if xs.size else count.size) or (count < 0).any() \
            or int(count.sum()) != neighbors.size:
        raise op_error(op, f"count holds {count.size} counts summing to {int(count.sum())} "
                       f"for {xs.size} input nodes and {neighbors.size} neighbors; expected "
                       "non-negative counts, len(x) of them per edge type, summing to "
                       "len(neighbors)")
    place = place_of(like)
    return tuple(_new_tensor(to_place(a.astype(like.dtype, copy=False), place), None, 0, True)
                 for a in _renumber(xs, neighbors, count))


@captured_whole(free_dims=(0,))
def reindex_graph(x, neighbors, count, value_buffer=None, index_buffer=None, name=None):
    """Renumber the input nodes x and their sampled neighbours from 0 (see the module
    docstring): returns (reindex_src, reindex_dst, out_nodes), in x's dtype.

    x, neighbors: int32 or int64, one dtype; count: int32, the number of neighbours of
    each input node (a multiple of len(x) of them for several edge types).
    value_buffer and index_buffer (Paddle's GPU hash table) are accepted and not needed.

    Example:
        >>> import dygraph
        >>> from dygraph import geometric
        >>> x = dygraph.to_tensor([0, 1, 2])
        >>> neighbors = dygraph.to_tensor([8, 9, 0, 4, 7, 6, 7])
        >>> count = dygraph.to_tensor([2, 3, 2], dtype="int32")
        >>> src, dst, nodes = geometric.reindex_graph(x, neighbors, count)
        >>> for t in (src, dst, nodes):
        ...     print(t.tolist())
        [3, 4, 0, 5, 6, 7, 6]
        [0, 0, 1, 1, 1, 2, 2]
        [0, 1, 2, 8, 9, 4, 7, 6]
    """
    return _reindex(x, neighbors, count, "reindex_graph")


@captured_whole(free_dims=(0,))
def reindex_heter_graph(x, neighbors, count, value_buffer=None, index_buffer=None,
                        name=None):
    """reindex_graph over several edge types: neighbors and count are lists with one
    tensor per edge type (as sample_neighbors gives for each graph), renumbered together.

    Example:
        >>> import dygraph
        >>> from dygraph import geometric
        >>> x = dygraph.to_tensor([0, 1, 2])
        >>> neighbors = [dygraph.to_tensor([8, 9, 0, 4, 7, 6, 7]),
        ...              dygraph.to_tensor([0, 2, 3, 5, 1])]
        >>> count = [dygraph.to_tensor([2, 3, 2], dtype="int32"),
        ...          dygraph.to_tensor([1, 3, 1], dtype="int32")]
        >>> src, dst, nodes = geometric.reindex_heter_graph(x, neighbors, count)
        >>> for t in (src, dst, nodes):
        ...     print(t.tolist())
        [3, 4, 0, 5, 6, 7, 6, 0, 2, 8, 9, 1]
        [0, 0, 1, 1, 1, 2, 2, 0, 1, 1, 1, 2]
        [0, 1, 2, 8, 9, 4, 7, 6, 3, 5]
    """
    op = "reindex_heter_graph"
    for arg, value in (("neighbors", neighbors), ("count", count)):
        if not isinstance(value, (list, tuple)) or not all(isinstance(t, Tensor)
                                                           for t in value):
            raise op_error(op, f"{arg} must be a list of Tensors, one per edge type, got "
                           f"{type(value).__name__}")
    if len(neighbors) != len(count) or not neighbors:
        raise op_error(op, f"got {len(neighbors)} neighbor tensors and {len(count)} count "
                       "tensors; expected one of each per edge type")
    like = as_tensor(x, op)._data
    joined = np.concatenate([_ids(t, op, "neighbors", like.dtype) for t in neighbors])
    counts = np.concatenate([_ids(t, op, "count", np.dtype(np.int32)) for t in count])
    return _reindex(x, joined, counts, op)
