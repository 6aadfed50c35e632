"""Losses over a class hierarchy: hsigmoid_loss (hierarchical sigmoid along a binary-tree
path) and adaptive_log_softmax_with_loss (a head softmax over frequent classes and clusters,
and a softmax per cluster). Both gather the rows they need and are composed of
differentiable ops; the paths and clusters are integer bookkeeping on the host.
"""

import numpy as np

from dygraph import ops as P
from dygraph.framework.errors import op_error
from dygraph.ops.activation.piecewise import log_softmax, softplus
from dygraph.ops.common import as_tensor, float_operand
from dygraph.ops.device_constants import const, index
from dygraph.ops.nn.linear import linear

__all__ = ["hsigmoid_loss", "adaptive_log_softmax_with_loss"]
NONDIFF = set()


def _default_paths(labels, num_classes):
    """Paddle's default tree: class c has code c + num_classes; step j goes through node
    (code >> (j + 1)) - 1 with bit (code >> j) & 1, for the code's bit length - 1 steps.
    Paths are padded (node -1) to the longest code of any class."""
    codes = labels.astype(np.int64) + num_classes
    width = int(num_classes - 1).bit_length()
    steps = np.arange(width)
    lengths = np.array([int(c).bit_length() - 1 for c in codes])
    nodes = (codes[:, None] >> (steps + 1)) - 1
    bits = (codes[:, None] >> steps) & 1
    valid = steps[None, :] < lengths[:, None]
    return np.where(valid, nodes, -1), np.where(valid, bits, 0)


def hsigmoid_loss(input, label, num_classes, weight, bias=None, path_table=None,
                  path_code=None, is_sparse=False, name=None):
    """Hierarchical sigmoid loss: along each sample's path of tree nodes, the logistic
    loss of the node's score x . weight[node] + bias[node] (clipped to [-40, 40]) against the
    path bit. The default tree is a complete binary tree over num_classes; path_table and
    path_code ([N, L], -1 padded) give a custom one. As in Paddle, each padded step of a
    path shorter than the longest adds log 2. Returns [N, 1].

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x = dygraph.ones([1, 2])
        >>> w, b = dygraph.zeros([2, 2]), dygraph.zeros([2, 1])
        >>> F.hsigmoid_loss(x, dygraph.to_tensor([0]), 3, w, b).numpy().round(4)
        array([[1.3863]], dtype=float32)
    """
    op = "hsigmoid_loss"
    x, w = float_operand(input, op), float_operand(weight, op)
    if x._data.ndim != 2 or w._data.ndim != 2 or w._data.shape[1] != x._data.shape[1]:
        raise op_error(op, f"input must be [N, D] and weight [nodes, D], got "
                       f"{list(x._data.shape)} and {list(w._data.shape)}")
    n = x._data.shape[0]
    labels = np.asarray(as_tensor(label, op).numpy()).reshape(-1)
    if labels.shape[0] != n:
        raise op_error(op, f"label must have {n} entries, got {labels.shape[0]}")
    if (path_table is None) != (path_code is None):
        raise op_error(op, "path_table and path_code must be given together")
    if path_table is None:
        if num_classes < 2 or labels.size and (labels.min() < 0 or labels.max() >= num_classes):
            raise op_error(op, f"labels must be in [0, num_classes={num_classes}) and "
                           f"num_classes >= 2")
        nodes, bits = _default_paths(labels, num_classes)
    else:
        nodes = np.asarray(as_tensor(path_table, op).numpy()).astype(np.int64)
        bits = np.asarray(as_tensor(path_code, op).numpy()).astype(np.int64)
        if nodes.shape != bits.shape or nodes.ndim != 2 or nodes.shape[0] != n:
            raise op_error(op, f"path_table and path_code must be [N={n}, L] of one shape, "
                           f"got {list(nodes.shape)} and {list(bits.shape)}")
        # A path ends at its first negative node.
        valid = np.cumprod(nodes >= 0, axis=1).astype(bool)
        nodes, bits = np.where(valid, nodes, -1), np.where(valid, bits, 0)
    valid = nodes >= 0
    if nodes.size and nodes.max() >= w._data.shape[0]:
        raise op_error(op, f"a path uses node {nodes.max()} but weight has only "
                       f"{w._data.shape[0]} rows")
    safe = np.where(valid, nodes, 0)
    rows = P.reshape(P.gather(w, index(safe.reshape(-1), x)), [n, -1, w._data.shape[1]])
    score = P.sum(rows * P.unsqueeze(x, 1), axis=2)
    if bias is not None:
        b = P.reshape(float_operand(bias, op), [-1])
        score = score + P.reshape(P.gather(b, index(safe.reshape(-1), x)), list(nodes.shape))
    mask = const(valid, x)
    score = P.clip(score * mask, -40.0, 40.0)
    code = const(bits, x)
    return P.sum(softplus(score) - code * score, axis=1, keepdim=True)


def adaptive_log_softmax_with_loss(input, label, head_weight, tail_weights, cutoffs,
                                   head_bias=None, name=None):
    """Adaptive softmax (Grave et al.): classes below cutoffs[0] are scored by the head
    softmax; a class in cluster i ([cutoffs[i], cutoffs[i + 1]), the last cutoff being
    n_classes) by the head's cluster entry plus the cluster's own log-softmax, computed
    through the projections tail_weights[i] = (w0 [D, h], w1 [h, size]). Returns (the
    log-probability of each label, the mean negative log-likelihood).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x = dygraph.ones([1, 2])
        >>> head = dygraph.zeros([2, 2])  # shortlist of 1 class + 1 cluster
        >>> tail = [[dygraph.ones([2, 1]), dygraph.zeros([1, 2])]]
        >>> out, loss = F.adaptive_log_softmax_with_loss(x, dygraph.to_tensor([2]), head,
        ...                                              tail, [1, 3])
        >>> round(float(loss), 4)  # log 2 (head) + log 2 (cluster)
        1.3863
    """
    op = "adaptive_log_softmax_with_loss"
    x = float_operand(input, op)
    labels = np.asarray(as_tensor(label, op).numpy())
    batched = labels.ndim == 1
    if labels.ndim not in (0, 1) or x._data.ndim != labels.ndim + 1:
        raise op_error(op, f"label must be 0-D or 1-D with input 1-D or 2-D, got label "
                       f"{list(labels.shape)} and input {list(x._data.shape)}")
    if not batched:
        x, labels = P.unsqueeze(x, 0), labels.reshape(1)
    n = labels.shape[0]
    if x._data.shape[0] != n:
        raise op_error(op, f"input and label differ in batch size: {x._data.shape[0]} and {n}")
    bounds = [0, *[int(c) for c in cutoffs]]
    if labels.size and (labels.min() < 0 or labels.max() >= bounds[-1]):
        raise op_error(op, f"label values must be in [0, {bounds[-1] - 1}], got "
                       f"[{labels.min()}, {labels.max()}]")
    head = log_softmax(linear(x, head_weight, head_bias), axis=1)
    head_index = labels.copy()
    output = None
    for i in range(1, len(bounds) - 1):
        rows = np.nonzero((labels >= bounds[i]) & (labels < bounds[i + 1]))[0]
        if rows.size == 0:
            continue
        head_index[rows] = bounds[1] + i - 1
        w0, w1 = tail_weights[i - 1]
        sub = P.index_select(x, index(rows, x), axis=0)
        cluster = log_softmax(linear(linear(sub, w0), w1), axis=1)
        local = P.take_along_axis(cluster, index((labels[rows] - bounds[i])[:, None], x), 1)
        owner = np.zeros((n, rows.size))
        owner[rows, np.arange(rows.size)] = 1.0
        part = P.matmul(const(owner, x), local)
        output = part if output is None else output + part
    picked = P.take_along_axis(head, index(head_index[:, None], x), 1)
    output = picked if output is None else picked + output
    output = P.reshape(output, [n])
    loss = P.mean(-output)
    return (output if batched else P.reshape(output, [])), loss
