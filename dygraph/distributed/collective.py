"""Collective communication on Tensors, with Paddle 2.x's names and in-place conventions.

Every collective first checks that all ranks of the group called the same collective with
the same shape and dtype (a small all-gather), so a mismatch raises ValueError on every rank
instead of corrupting data. `sync_op=False` returns a Task; `task.wait()` completes it. Waits
poll with a deadline (see `env.timeout`), so a missing peer ends in an error, not a hang.

all_reduce of a tensor that is part of a graph records a backward for SUM and AVG (the
gradient is all-reduced the same way); the other reductions have none and say so.

Example:
    >>> import dygraph
    >>> import dygraph.distributed as dist
    >>> x = dygraph.to_tensor([1.0, 2.0])
    >>> dist.all_reduce(x); x.numpy()
    array([1., 2.], dtype=float32)
"""

import numpy as np

from dygraph.autograd import grad_mode
from dygraph.autograd.function import Op, apply
from dygraph.distributed import env
from dygraph.distributed.backend import as_transport_array, transport_op
from dygraph.distributed.task import Task, check_same_call
from dygraph.tensor.tensor import Tensor, to_tensor

__all__ = ["ReduceOp", "Task", "all_reduce", "broadcast", "reduce", "all_gather",
           "all_gather_object", "scatter", "alltoall", "send", "recv", "isend", "irecv",
           "wait"]


class ReduceOp:
    """The reductions of all_reduce and reduce.

    Example:
        >>> ReduceOp.SUM, ReduceOp.AVG
        (0, 4)
    """

    SUM = 0
    MAX = 1
    MIN = 2
    PROD = 3
    AVG = 4


_OP_NAMES = {ReduceOp.SUM: "sum", ReduceOp.MAX: "max", ReduceOp.MIN: "min",
             ReduceOp.PROD: "prod", ReduceOp.AVG: "avg"}


def wait(tensor, group=None, use_calc_stream=True):
    """Paddle's stream synchronisation; on CPU the collectives are complete already.

    Example:
        >>> import dygraph
        >>> wait(dygraph.ones([1]))
    """


def _check_tensor(name, tensor, arg="tensor"):
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{name}: {arg} should be a dygraph Tensor, got "
                        f"{type(tensor).__name__}")


def _member(name, group):
    g = env.get_group(group)
    if not g.is_member():
        return None
    if g.backend.closed:
        raise RuntimeError(f"{name}: {g!r} was shut down; restart_process_group(group) "
                           f"makes a new communicator for it")
    return g


def _group_rank(name, g, rank, arg):
    r = g.get_group_rank(rank)
    if r < 0:
        raise ValueError(f"{name}: {arg}={rank} is not a rank of {g!r}")
    return r


def _op_name(name, op, dtype):
    if op not in _OP_NAMES:
        raise ValueError(f"{name}: op should be a ReduceOp (SUM, MAX, MIN, PROD, AVG), got "
                         f"{op!r}")
    op_name = _OP_NAMES[op]
    if op_name == "avg" and dtype.kind not in "fcV":
        raise TypeError(f"{name}: ReduceOp.AVG needs a floating-point or complex tensor, got "
                        f"{dtype}")
    if op_name in ("max", "min") and dtype.kind == "c":
        raise TypeError(f"{name}: ReduceOp.{op_name.upper()} is not defined for complex "
                        f"tensors ({dtype})")
    return op_name


def _check_writable(name, tensor):
    """Collectives other than all_reduce write into a tensor without recording a backward;
    refuse a tensor inside a graph that records gradients (a leaf, a parameter, is fine)."""
    if tensor._node is not None and not tensor._sg and grad_mode.state.grad_on:
        raise RuntimeError(f"{name}: the tensor is part of a graph that records gradients, "
                           f"and {name} has no backward; call it under dygraph.no_grad() "
                           f"or on tensor.detach()")


def _write_back(tensor, result, name):
    """Put `result` into `tensor` in place (the collectives' Paddle convention)."""
    if result is not tensor._data:
        tensor._data[...] = result
    tensor._version[0] += 1


def _run(name, g, request, finish, sync_op):
    task = Task([request], name, g, finish)
    if sync_op:
        task.wait()
        return None
    return task


# -- reductions ---------------------------------------------------------------------------------
def _reduce_array(name, g, array, op_name, root=None):
    """Start reducing a copy-free transport view of `array`; returns (request, finish) where
    finish() gives the result as an array of `array`'s dtype."""
    buf, back = as_transport_array(array)
    top = transport_op(array.dtype, "sum" if op_name == "avg" else op_name)
    if root is None:
        request = g.backend.allreduce(buf, top)
    else:
        request = g.backend.reduce(buf, top, root)

    def result():
        out = back(buf)
        if op_name == "avg":
            out = (out / g.nranks).astype(array.dtype)
        return out

    return request, result


class _AllReduceOp(Op):
    """all_reduce recorded in a graph: the gradient is all-reduced the same way."""

    attrs = ("group", "op_name")
    saveable = False  # holds live objects; never in a saved program

    def __init__(self, op_name, group):
        self.op_name = op_name
        self.group = group

    def forward(self, xp, x):
        out = x.copy()
        request, result = _reduce_array("all_reduce", self.group, out, self.op_name)
        Task([request], "all_reduce", self.group).wait()
        return result()

    def backward(self, m, gy):
        g = (gy._data if isinstance(gy, Tensor) else gy).copy()
        request, result = _reduce_array("all_reduce (backward)", self.group, g, self.op_name)
        Task([request], "all_reduce (backward)", self.group).wait()
        out = result()
        return (to_tensor(out) if isinstance(gy, Tensor) else out,)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, sync_op=True, use_calc_stream=None):
    """Reduce `tensor` over the ranks of `group`, in place: every rank gets the result.

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([3, 1])
        >>> all_reduce(x, ReduceOp.MAX); x.numpy()
        array([3, 1])
    """
    _check_tensor("all_reduce", tensor)
    g = _member("all_reduce", group)
    if g is None:
        return None
    op_name = _op_name("all_reduce", op, tensor._data.dtype)
    check_same_call("all_reduce", g, tensor._data, op)
    if tensor._node is not None and not tensor._sg and grad_mode.state.grad_on:
        if op_name not in ("sum", "avg"):
            raise RuntimeError(f"all_reduce: ReduceOp.{op_name.upper()} has no backward, and "
                               f"the tensor records gradients; call it under no_grad() or on "
                               f"tensor.detach()")
        out = apply(_AllReduceOp(op_name, g), tensor)
        tensor._data, tensor._node, tensor._idx = out._data, out._node, out._idx
        tensor._version[0] += 1
        return None
    request, result = _reduce_array("all_reduce", g, tensor._data, op_name)
    return _run("all_reduce", g, request,
                lambda: _write_back(tensor, result(), "all_reduce"), sync_op)


def reduce(tensor, dst=0, op=ReduceOp.SUM, group=None, sync_op=True, use_calc_stream=None):
    """Reduce `tensor` over the group into rank `dst`'s tensor (the others keep theirs).

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([2.0])
        >>> reduce(x, dst=0); x.numpy()
        array([2.], dtype=float32)
    """
    _check_tensor("reduce", tensor)
    _check_writable("reduce", tensor)
    g = _member("reduce", group)
    if g is None:
        return None
    root = _group_rank("reduce", g, dst, "dst")
    op_name = _op_name("reduce", op, tensor._data.dtype)
    check_same_call("reduce", g, tensor._data, root * 8 + op)
    request, result = _reduce_array("reduce", g, tensor._data, op_name, root)

    def finish():
        if g.rank == root:
            _write_back(tensor, result(), "reduce")

    return _run("reduce", g, request, finish, sync_op)


# -- data movement ------------------------------------------------------------------------------
def broadcast(tensor, src=0, group=None, sync_op=True, use_calc_stream=None):
    """Give every rank of the group rank `src`'s values of `tensor`, in place.

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([1, 2])
        >>> broadcast(x, src=0); x.numpy()
        array([1, 2])
    """
    _check_tensor("broadcast", tensor)
    _check_writable("broadcast", tensor)
    g = _member("broadcast", group)
    if g is None:
        return None
    root = _group_rank("broadcast", g, src, "src")
    check_same_call("broadcast", g, tensor._data, root)
    buf, back = as_transport_array(tensor._data)
    request = g.backend.broadcast(buf, root)
    return _run("broadcast", g, request,
                lambda: _write_back(tensor, back(buf), "broadcast"), sync_op)


def all_gather(tensor_list, tensor, group=None, sync_op=True, use_calc_stream=None):
    """Fill `tensor_list` with every rank's `tensor`, in rank order.

    Example:
        >>> import dygraph
        >>> out = []
        >>> all_gather(out, dygraph.to_tensor([5])); [t.numpy() for t in out]
        [array([5])]
    """
    _check_tensor("all_gather", tensor)
    if not isinstance(tensor_list, list):
        raise TypeError(f"all_gather: tensor_list should be a list that receives the "
                        f"tensors, got {type(tensor_list).__name__}")
    g = _member("all_gather", group)
    if g is None:
        return None
    check_same_call("all_gather", g, tensor._data)
    send, back = as_transport_array(tensor._data)
    recv = np.empty((g.nranks,) + send.shape, dtype=send.dtype)
    request = g.backend.allgather(send, recv)

    def finish():
        gathered = back(recv)
        tensor_list.clear()
        tensor_list.extend(to_tensor(gathered[i], place=tensor.place)
                           for i in range(g.nranks))

    return _run("all_gather", g, request, finish, sync_op)


def all_gather_object(object_list, obj, group=None):
    """Fill `object_list` with every rank's picklable `obj`, in rank order.

    Example:
        >>> out = []
        >>> all_gather_object(out, {'rank': 0}); out
        [{'rank': 0}]
    """
    if not isinstance(object_list, list):
        raise TypeError(f"all_gather_object: object_list should be a list, got "
                        f"{type(object_list).__name__}")
    g = _member("all_gather_object", group)
    if g is None:
        return
    check_same_call("all_gather_object", g, None)
    object_list.clear()
    object_list.extend(g.backend.allgather_object(obj))


def scatter(tensor, tensor_list=None, src=0, group=None, sync_op=True, use_calc_stream=None):
    """Rank `src` hands tensor_list[i] to rank i, which receives it into `tensor`.

    Example:
        >>> import dygraph
        >>> x = dygraph.zeros([2])
        >>> scatter(x, [dygraph.ones([2])], src=0); x.numpy()
        array([1., 1.], dtype=float32)
    """
    _check_tensor("scatter", tensor)
    _check_writable("scatter", tensor)
    g = _member("scatter", group)
    if g is None:
        return None
    root = _group_rank("scatter", g, src, "src")
    send = None
    if g.rank == root:
        if tensor_list is None or len(tensor_list) != g.nranks:
            raise ValueError(f"scatter: rank {src} (src) needs tensor_list with one tensor "
                             f"per rank ({g.nranks}), got "
                             f"{None if tensor_list is None else len(tensor_list)}")
        for i, t in enumerate(tensor_list):
            _check_tensor("scatter", t, f"tensor_list[{i}]")
            if t._data.shape != tensor._data.shape or t._data.dtype != tensor._data.dtype:
                raise ValueError(f"scatter: tensor_list[{i}] has shape {list(t._data.shape)} "
                                 f"and dtype {t._data.dtype}, but the receiving tensor has "
                                 f"{list(tensor._data.shape)} and {tensor._data.dtype}")
        send = np.stack([as_transport_array(t._data)[0] for t in tensor_list])
    check_same_call("scatter", g, tensor._data, root)
    recv, back = as_transport_array(tensor._data)
    recv = np.empty_like(recv)
    request = g.backend.scatter(send, recv, root)
    return _run("scatter", g, request,
                lambda: _write_back(tensor, back(recv), "scatter"), sync_op)


def alltoall(in_tensor_list, out_tensor_list, group=None, sync_op=True, use_calc_stream=None):
    """Rank r sends in_tensor_list[i] to rank i; out_tensor_list receives, in rank order,
    what each rank sent to r.

    Example:
        >>> import dygraph
        >>> out = []
        >>> alltoall([dygraph.to_tensor([7])], out); out[0].numpy()
        array([7])
    """
    if not isinstance(out_tensor_list, list):
        raise TypeError(f"alltoall: out_tensor_list should be a list, got "
                        f"{type(out_tensor_list).__name__}")
    g = _member("alltoall", group)
    if g is None:
        return None
    if len(in_tensor_list) != g.nranks:
        raise ValueError(f"alltoall: in_tensor_list needs one tensor per rank ({g.nranks}), "
                         f"got {len(in_tensor_list)}")
    for i, t in enumerate(in_tensor_list):
        _check_tensor("alltoall", t, f"in_tensor_list[{i}]")
    shapes = {(t._data.shape, t._data.dtype) for t in in_tensor_list}
    if len(shapes) != 1:
        raise ValueError(f"alltoall: the tensors of in_tensor_list must have one shape and "
                         f"dtype, got {sorted(str(s) for s in shapes)}")
    first = in_tensor_list[0]._data
    check_same_call("alltoall", g, first)
    send = np.stack([as_transport_array(t._data)[0] for t in in_tensor_list])
    recv = np.empty_like(send)
    back = as_transport_array(first)[1]
    request = g.backend.alltoall(send, recv)

    def finish():
        received = back(recv)
        out_tensor_list.clear()
        out_tensor_list.extend(to_tensor(received[i]) for i in range(g.nranks))

    return _run("alltoall", g, request, finish, sync_op)


def send(tensor, dst=0, group=None, sync_op=True, use_calc_stream=None):
    """Send `tensor` to rank `dst`, which calls recv.

    Example:
        >>> send  # doctest: +ELLIPSIS
        <function send at ...>
    """
    _check_tensor("send", tensor)
    g = _member("send", group)
    if g is None:
        return None
    peer = _group_rank("send", g, dst, "dst")
    buf = as_transport_array(tensor._data)[0]
    return _run("send", g, g.backend.send(buf, peer, 7), None, sync_op)


def recv(tensor, src=0, group=None, sync_op=True, use_calc_stream=None):
    """Receive into `tensor` (in place) what rank `src` sends.

    Example:
        >>> recv  # doctest: +ELLIPSIS
        <function recv at ...>
    """
    _check_tensor("recv", tensor)
    _check_writable("recv", tensor)
    g = _member("recv", group)
    if g is None:
        return None
    peer = _group_rank("recv", g, src, "src")
    buf, back = as_transport_array(tensor._data)
    buf = np.empty_like(buf)
    return _run("recv", g, g.backend.recv(buf, peer, 7),
                lambda: _write_back(tensor, back(buf), "recv"), sync_op)


def isend(tensor, dst, group=None):
    """Start sending `tensor` to rank `dst`; returns the Task (`wait()` completes it).

    Example:
        >>> isend  # doctest: +ELLIPSIS
        <function isend at ...>
    """
    return send(tensor, dst, group, sync_op=False)


def irecv(tensor, src=None, group=None):
    """Start receiving into `tensor` what rank `src` sends; returns the Task, whose
    `wait()` completes it and writes the tensor.

    Example:
        >>> irecv  # doctest: +ELLIPSIS
        <function irecv at ...>
    """
    return recv(tensor, src, group, sync_op=False)
