"""Collectives that join or split along the ranks: gather (to one rank), reduce_scatter
(reduce, then each rank keeps its block) and alltoall_single (one tensor split along its
first axis, with sizes that may differ per rank), with Paddle 2.x's names and conventions.

As the other collectives, each first checks that all ranks of the group called the same
collective with matching tensors, and `sync_op=False` returns a Task.

Example:
    >>> import dygraph
    >>> import dygraph.distributed as dist
    >>> out = []
    >>> dist.gather(dygraph.to_tensor([1, 2]), out, dst=0); [t.numpy() for t in out]
    [array([1, 2])]
"""

import warnings

import numpy as np

from dygraph.distributed.backend import as_transport_array, transport_op
from dygraph.distributed.collective import (
    ReduceOp,
    _check_tensor,
    _check_writable,
    _group_rank,
    _member,
    _op_name,
    _run,
    _write_back,
)
from dygraph.distributed.task import Task, check_same_call
from dygraph.tensor.tensor import to_tensor

__all__ = ["gather", "reduce_scatter", "alltoall_single"]


def gather(tensor, gather_list=None, dst=0, group=None, sync_op=True):
    """Collect every rank's `tensor` on rank `dst`, in rank order, into `gather_list`: an
    empty list is filled with new tensors, a list of one tensor per rank is written in
    place. The other ranks' lists are not used.

    Example:
        >>> import dygraph
        >>> out = []
        >>> gather(dygraph.to_tensor([3.0]), out); out[0].numpy()
        array([3.], dtype=float32)
    """
    _check_tensor("gather", tensor)
    g = _member("gather", group)
    if g is None:
        return None
    root = _group_rank("gather", g, dst, "dst")
    if g.rank == root:
        if not isinstance(gather_list, list):
            raise TypeError(f"gather: rank {dst} (dst) needs gather_list, a list that "
                            f"receives the tensors, got {type(gather_list).__name__}")
        if gather_list and len(gather_list) != g.nranks:
            raise ValueError(f"gather: gather_list should be empty or hold one tensor per "
                             f"rank ({g.nranks}), got {len(gather_list)}")
        for i, t in enumerate(gather_list):
            _check_tensor("gather", t, f"gather_list[{i}]")
            _check_writable("gather", t)
    elif gather_list:
        warnings.warn("gather: gather_list is only used on the dst rank", stacklevel=2)
    check_same_call("gather", g, tensor._data, root)
    send, back = as_transport_array(tensor._data)
    recv = np.empty((g.nranks,) + send.shape, send.dtype) if g.rank == root else None
    request = g.backend.gather(send, recv, root)

    def finish():
        if recv is None:
            return
        gathered = back(recv)
        if gather_list:
            for t, value in zip(gather_list, gathered):
                _write_back(t, value, "gather")
        else:
            gather_list.extend(to_tensor(gathered[i], place=tensor.place)
                               for i in range(g.nranks))

    return _run("gather", g, request, finish, sync_op)


def reduce_scatter(tensor, tensor_list, op=ReduceOp.SUM, group=None, sync_op=True):
    """Reduce the ranks' `tensor_list` element-wise, then give rank i the i-th result, in
    place in `tensor`. `tensor_list` holds one tensor per rank shaped as `tensor`, or is
    one tensor whose first axis is the group size times `tensor`'s.

    Example:
        >>> import dygraph
        >>> x = dygraph.zeros([2])
        >>> reduce_scatter(x, [dygraph.to_tensor([1.0, 2.0])]); x.numpy()
        array([1., 2.], dtype=float32)
    """
    _check_tensor("reduce_scatter", tensor)
    _check_writable("reduce_scatter", tensor)
    g = _member("reduce_scatter", group)
    if g is None:
        return None
    shape, dtype = tensor._data.shape, tensor._data.dtype
    op_name = _op_name("reduce_scatter", op, dtype)
    if isinstance(tensor_list, (list, tuple)):
        if len(tensor_list) != g.nranks:
            raise ValueError(f"reduce_scatter: tensor_list needs one tensor per rank "
                             f"({g.nranks}), got {len(tensor_list)}")
        for i, t in enumerate(tensor_list):
            _check_tensor("reduce_scatter", t, f"tensor_list[{i}]")
            if t._data.shape != shape or t._data.dtype != dtype:
                raise ValueError(f"reduce_scatter: tensor_list[{i}] has shape "
                                 f"{list(t._data.shape)} and dtype {t._data.dtype}; the "
                                 f"output tensor has {list(shape)} and {dtype}")
        blocks = [as_transport_array(t._data)[0] for t in tensor_list]
    else:
        _check_tensor("reduce_scatter", tensor_list, "tensor_list")
        whole = tensor_list._data
        if (whole.dtype != dtype or whole.ndim != max(len(shape), 1)
                or whole.shape[0] != g.nranks * (shape[0] if shape else 1)
                or whole.shape[1:] != shape[1:]):
            raise ValueError(f"reduce_scatter: the input tensor should have dtype {dtype} "
                             f"and shape [{g.nranks} * {shape[0] if shape else 1}"
                             f"{''.join(', ' + str(d) for d in shape[1:])}], got "
                             f"{whole.dtype} and {list(whole.shape)}")
        blocks = [as_transport_array(b)[0].reshape(shape)
                  for b in np.split(whole, g.nranks)]
    check_same_call("reduce_scatter", g, tensor._data, op)
    send = np.stack(blocks)
    recv_buf, back = as_transport_array(tensor._data)
    recv_buf = np.empty_like(recv_buf)
    top = transport_op(dtype, "sum" if op_name == "avg" else op_name)
    request = g.backend.reduce_scatter(send, recv_buf, top)

    def finish():
        out = back(recv_buf)
        if op_name == "avg":
            out = (out / g.nranks).astype(dtype)
        _write_back(tensor, out, "reduce_scatter")

    return _run("reduce_scatter", g, request, finish, sync_op)


def _splits(name, sizes, rows, n, arg):
    if sizes is None:
        if rows % n:
            raise ValueError(f"alltoall_single: {name} has {rows} rows, not a multiple of "
                             f"the group size {n}; give {arg}")
        return [rows // n] * n
    sizes = [int(s) for s in sizes]
    if len(sizes) != n or any(s < 0 for s in sizes) or sum(sizes) != rows:
        raise ValueError(f"alltoall_single: {arg} should be {n} sizes (one per rank, not "
                         f"negative) that add up to {name}'s {rows} rows, got {sizes}")
    return sizes


def alltoall_single(out_tensor, in_tensor, in_split_sizes=None, out_split_sizes=None,
                    group=None, sync_op=True):
    """Split `in_tensor` along its first axis (equally, or by `in_split_sizes`), send block
    i to rank i, and fill `out_tensor` with the blocks received, in rank order (equal
    blocks, or `out_split_sizes`). The sizes must agree: what rank r sends to rank i is
    what rank i expects from r, which is checked on every rank before data moves.

    Example:
        >>> import dygraph
        >>> out = dygraph.zeros([2], dtype='int64')
        >>> alltoall_single(out, dygraph.to_tensor([4, 5])); out.numpy()
        array([4, 5])
    """
    _check_tensor("alltoall_single", out_tensor, "out_tensor")
    _check_tensor("alltoall_single", in_tensor, "in_tensor")
    _check_writable("alltoall_single", out_tensor)
    g = _member("alltoall_single", group)
    if g is None:
        return None
    src, dst = in_tensor._data, out_tensor._data
    if src.ndim == 0 or dst.ndim == 0:
        raise ValueError("alltoall_single: in_tensor and out_tensor need a first axis to "
                         "split")
    if src.dtype != dst.dtype or src.shape[1:] != dst.shape[1:]:
        raise ValueError(f"alltoall_single: out_tensor ({dst.dtype}, {list(dst.shape)}) "
                         f"should have in_tensor's dtype {src.dtype} and trailing shape "
                         f"{list(src.shape[1:])}")
    n = g.nranks
    sends = _splits("in_tensor", in_split_sizes, src.shape[0], n, "in_split_sizes")
    recvs = _splits("out_tensor", out_split_sizes, dst.shape[0], n, "out_split_sizes")
    check_same_call("alltoall_single", g, src[:0])  # dtype and trailing shape agree
    mine = np.array(sends + recvs, dtype=np.int64)
    table = np.empty((n, 2 * n), dtype=np.int64)
    Task([g.backend.allgather(mine, table)], "alltoall_single (checking the sizes)",
         g).wait()
    sent, expected = table[:, :n], table[:, n:]
    if not (sent == expected.T).all():
        detail = "; ".join(f"rank {g.ranks[r]} sends {sent[r].tolist()} and expects "
                           f"{expected[r].tolist()}" for r in range(n))
        raise ValueError(f"alltoall_single: the split sizes disagree (what rank r sends "
                         f"to rank i must be what rank i expects from r): {detail}")
    row = int(np.prod(src.shape[1:], dtype=np.int64))
    send_buf, back = as_transport_array(src)
    recv_buf = np.empty((dst.shape[0],) + send_buf.shape[1:], dtype=send_buf.dtype)
    request = g.backend.alltoallv(send_buf.reshape(-1), [s * row for s in sends],
                                  recv_buf.reshape(-1), [r * row for r in recvs])
    return _run("alltoall_single", g, request,
                lambda: _write_back(out_tensor, back(recv_buf), "alltoall_single"), sync_op)
