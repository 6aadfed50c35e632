"""Sequence helpers of dygraph.nn.functional: sequence_mask and gather_tree (integer
bookkeeping for padded batches and beam search; no gradient).
"""

import numpy as np

from dygraph import ops as P
from dygraph.framework.errors import op_error
from dygraph.ops.common import as_tensor
from dygraph.tensor.tensor import Tensor, to_tensor

__all__ = ["sequence_mask", "gather_tree"]
NONDIFF = {"sequence_mask", "gather_tree"}


def sequence_mask(x, maxlen=None, dtype="int64", name=None):
    """mask[..., j] = j < x[...]: x holds lengths; maxlen defaults to max(x).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.sequence_mask(dygraph.to_tensor([1, 3]), 4).numpy()
        array([[1, 0, 0, 0],
               [1, 1, 1, 0]])
    """
    lengths = np.asarray(as_tensor(x, "sequence_mask").numpy())
    if maxlen is None:
        maxlen = int(lengths.max()) if lengths.size else 0
    elif isinstance(maxlen, Tensor):
        maxlen = int(np.asarray(maxlen.numpy()).ravel()[0])
    mask = np.arange(int(maxlen)) < lengths[..., None]
    return P.cast(to_tensor(mask), dtype)


def gather_tree(ids, parents):
    """Backtrace beam search: the full sequences from each step's chosen ids and the beam
    each came from. ids and parents are [max_time, batch, beam].

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> ids = dygraph.to_tensor([[[2, 2], [6, 1]], [[3, 9], [6, 1]], [[0, 1], [9, 0]]])
        >>> parents = dygraph.to_tensor([[[0, 0], [1, 1]], [[1, 0], [1, 0]], [[0, 0], [0, 1]]])
        >>> F.gather_tree(ids, parents).numpy()[:, 0].tolist()
        [[2, 2], [3, 3], [0, 1]]
    """
    idv = np.asarray(as_tensor(ids, "gather_tree").numpy())
    par = np.asarray(as_tensor(parents, "gather_tree").numpy())
    if idv.ndim != 3 or par.shape != idv.shape:
        raise op_error("gather_tree", f"ids and parents must be [max_time, batch, beam] of one "
                       f"shape, got {list(idv.shape)} and {list(par.shape)}")
    out = np.empty_like(idv)
    steps = idv.shape[0]
    if steps == 0:
        return to_tensor(out)
    batch = np.arange(idv.shape[1])[:, None]
    beam = np.broadcast_to(np.arange(idv.shape[2]), idv.shape[1:])
    for t in range(steps - 1, -1, -1):
        out[t] = idv[t, batch, beam]
        beam = par[t, batch, beam]
    return to_tensor(out)
