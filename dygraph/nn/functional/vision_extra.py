"""Vision and sequence helpers of dygraph.nn.functional: channel_shuffle, affine_grid,
temporal_shift (differentiable compositions of reshapes, slices and matmuls) and
sequence_mask, gather_tree (integer bookkeeping, no gradient).
"""

import numpy as np

from dygraph import ops as P
from dygraph.framework.errors import op_error
from dygraph.nn.functional._device import const
from dygraph.ops.common import as_tensor, float_operand
from dygraph.tensor import Tensor, to_tensor

__all__ = ["channel_shuffle", "affine_grid", "temporal_shift", "sequence_mask",
           "gather_tree"]
NONDIFF = {"sequence_mask", "gather_tree"}


def channel_shuffle(x, groups, data_format="NCHW", name=None):
    """Interleave the channels of `groups` equal groups (ShuffleNet): channel g * (C / groups)
    + i moves to i * groups + g.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x = dygraph.arange(4, dtype='float32').reshape([1, 4, 1, 1])
        >>> F.channel_shuffle(x, 2).numpy().ravel()
        array([0., 2., 1., 3.], dtype=float32)
    """
    op = "channel_shuffle"
    x = as_tensor(x, op)
    if data_format not in ("NCHW", "NHWC"):
        raise op_error(op, f"data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    if x._data.ndim != 4:
        raise op_error(op, f"x must be 4-D, got shape {list(x._data.shape)}")
    axis = 1 if data_format == "NCHW" else 3
    shape = list(x._data.shape)
    c = shape[axis]
    if not isinstance(groups, (int, np.integer)) or groups <= 0 or c % groups:
        raise op_error(op, f"groups must be a positive divisor of the channel count {c}, "
                       f"got {groups}")
    split = shape[:axis] + [int(groups), c // groups] + shape[axis + 1:]
    perm = list(range(5))
    perm[axis], perm[axis + 1] = axis + 1, axis
    return P.reshape(P.transpose(P.reshape(x, split), perm), shape)


def _base_coords(n, align_corners):
    if align_corners:
        return np.linspace(-1.0, 1.0, n) if n > 1 else np.zeros(1)
    return (np.arange(n) * 2.0 + 1.0) / n - 1.0


def affine_grid(theta, out_shape, align_corners=True, name=None):
    """The sampling grid of an affine map, for grid_sample: theta [N, 2, 3] and out_shape
    [N, C, H, W] give [N, H, W, 2] (x, y); theta [N, 3, 4] and [N, C, D, H, W] give
    [N, D, H, W, 3]. Coordinates are normalised to [-1, 1].

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> theta = dygraph.to_tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
        >>> F.affine_grid(theta, [1, 1, 2, 2]).numpy()[0, 0]
        array([[-1., -1.],
               [ 1., -1.]], dtype=float32)
    """
    op = "affine_grid"
    theta = float_operand(theta, op)
    if isinstance(out_shape, Tensor):
        out_shape = np.asarray(out_shape.numpy()).ravel().tolist()
    out_shape = [int(v) for v in out_shape]
    ts = list(theta._data.shape)
    if len(out_shape) == 4 and ts[1:] == [2, 3]:
        spatial = out_shape[2:]
    elif len(out_shape) == 5 and ts[1:] == [3, 4]:
        spatial = out_shape[2:]
    else:
        raise op_error(op, f"theta must be [N, 2, 3] with a 4-D out_shape or [N, 3, 4] with a "
                       f"5-D one, got theta {ts} and out_shape {out_shape}")
    if ts[0] != out_shape[0]:
        raise op_error(op, f"theta's batch {ts[0]} differs from out_shape's {out_shape[0]}")
    # Coordinates in (x, y[, z]) order: x runs along the last spatial dim.
    axes = [_base_coords(s, align_corners) for s in spatial[::-1]]
    mesh = list(np.meshgrid(*axes[::-1], indexing="ij"))[::-1]
    base = np.stack(mesh + [np.ones(spatial)], axis=-1).reshape(-1, len(spatial) + 1)
    base_t = const(base, theta)
    grid = P.matmul(base_t, theta, transpose_y=True)
    return P.reshape(grid, [ts[0], *spatial, len(spatial)])


def temporal_shift(x, seg_num, shift_ratio=0.25, name=None, data_format="NCHW"):
    """Temporal Shift Module: x is [N * seg_num, C, H, W]; along the segment axis the first
    C * shift_ratio channels take the previous segment's values and the next
    C * shift_ratio channels the following segment's (zeros at the ends).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x = dygraph.arange(8, dtype='float32').reshape([2, 4, 1, 1])
        >>> F.temporal_shift(x, 2, 0.25).numpy().reshape(2, 4)
        array([[0., 5., 2., 3.],
               [0., 0., 6., 7.]], dtype=float32)
    """
    op = "temporal_shift"
    x = float_operand(x, op)
    if data_format not in ("NCHW", "NHWC"):
        raise op_error(op, f"data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    shape = list(x._data.shape)
    if len(shape) != 4 or not isinstance(seg_num, (int, np.integer)) or seg_num <= 0 \
            or shape[0] % seg_num:
        raise op_error(op, f"x must be 4-D with a batch divisible by seg_num, got shape "
                       f"{shape} and seg_num {seg_num}")
    if data_format == "NHWC":
        x = P.transpose(x, [0, 3, 1, 2])
    n, c, h, w = x._data.shape
    v = P.reshape(x, [n // seg_num, seg_num, c, h, w])
    c1, c2 = int(c * shift_ratio), int(c * shift_ratio * 2)
    pieces = []
    if c1:
        past = v[:, :, :c1]
        pieces.append(P.concat([P.zeros_like(past[:, :1]), past[:, :-1]], axis=1))
    if c2 > c1:
        future = v[:, :, c1:c2]
        pieces.append(P.concat([future[:, 1:], P.zeros_like(future[:, :1])], axis=1))
    if c2 < c:
        pieces.append(v[:, :, c2:])
    out = P.reshape(P.concat(pieces, axis=2), [n, c, h, w])
    return P.transpose(out, [0, 2, 3, 1]) if data_format == "NHWC" else out


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
