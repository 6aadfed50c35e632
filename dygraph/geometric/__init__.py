"""paddle.geometric: message passing, segment reductions, neighbour sampling and subgraph
renumbering for graph learning.

A graph's edges are two index tensors (src_index, dst_index); `send_u_recv`,
`send_ue_recv` and `send_uv` pass node (and edge) features along them, the `segment_*`
functions reduce rows by sorted ids, `sample_neighbors` / `weighted_sample_neighbors` draw
neighbours from a graph in CSC form with dygraph's generator, and `reindex_graph` /
`reindex_heter_graph` renumber a sampled subgraph. The code lives in dygraph/ops/geometric/.

Example:
    >>> import dygraph
    >>> from dygraph import geometric
    >>> x = dygraph.to_tensor([[1.0], [2.0], [4.0]], stop_gradient=False)
    >>> out = geometric.send_u_recv(x, dygraph.to_tensor([0, 1, 2]), dygraph.to_tensor([1, 1, 0]))
    >>> out.sum().backward()
    >>> out.numpy().ravel(), x.grad.numpy().ravel()
    (array([4., 3., 0.], dtype=float32), array([1., 1., 1.], dtype=float32))
"""

from dygraph.ops.geometric import (
    reindex_graph,
    reindex_heter_graph,
    sample_neighbors,
    segment_max,
    segment_mean,
    segment_min,
    segment_sum,
    send_u_recv,
    send_ue_recv,
    send_uv,
    weighted_sample_neighbors,
)

__all__ = ["send_u_recv", "send_ue_recv", "send_uv", "segment_sum", "segment_mean",
           "segment_min", "segment_max", "reindex_graph", "reindex_heter_graph",
           "sample_neighbors", "weighted_sample_neighbors"]
