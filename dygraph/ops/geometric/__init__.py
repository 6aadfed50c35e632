"""The graph ops of paddle.geometric, by concept: message passing (message_passing.py, on
the two ops of send_recv.py, whose row reductions are in scatter_rows.py), segment
reductions (segment.py), neighbour sampling (sampling.py) and subgraph renumbering
(reindex.py). dygraph.geometric is their facade.

Example:
    >>> import dygraph
    >>> from dygraph.ops.geometric import segment_sum
    >>> segment_sum(dygraph.to_tensor([1.0, 2.0, 4.0]), dygraph.to_tensor([0, 0, 1])).numpy()
    array([3., 4.], dtype=float32)
"""

from dygraph.ops.geometric.message_passing import send_u_recv, send_ue_recv, send_uv
from dygraph.ops.geometric.reindex import reindex_graph, reindex_heter_graph
from dygraph.ops.geometric.sampling import sample_neighbors, weighted_sample_neighbors
from dygraph.ops.geometric.segment import segment_max, segment_mean, segment_min, segment_sum

__all__ = ["send_u_recv", "send_ue_recv", "send_uv", "segment_sum", "segment_mean",
           "segment_min", "segment_max", "reindex_graph", "reindex_heter_graph",
           "sample_neighbors", "weighted_sample_neighbors"]
