"""Collectives on picklable Python objects: broadcast_object_list, scatter_object_list,
send_object_list and recv_object_list (all_gather_object is in `collective`).

Each object is pickled into bytes that travel as a uint8 tensor through the tensor
collectives, preceded by their sizes, so the same agreement checks and timeouts apply.
Unpickling runs code chosen by the sender: exchange objects only between the ranks of
your own job, as with any pickle.

Example:
    >>> import dygraph.distributed as dist
    >>> objs = [{'lr': 0.1}]
    >>> dist.broadcast_object_list(objs, src=0); objs
    [{'lr': 0.1}]
"""

import pickle

import numpy as np

from dygraph.distributed import env
from dygraph.distributed.collective import broadcast, recv, scatter, send
from dygraph.tensor.tensor import to_tensor

__all__ = ["broadcast_object_list", "scatter_object_list", "send_object_list",
           "recv_object_list"]


def _to_bytes(obj):
    return np.frombuffer(pickle.dumps(obj), dtype=np.uint8)


def _from_bytes(array):
    return pickle.loads(np.ascontiguousarray(array).tobytes())


def _check_list(name, value, arg):
    if not isinstance(value, list):
        raise TypeError(f"{name}: {arg} should be a list, got {type(value).__name__}")


def _split(sizes, data):
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    return [_from_bytes(data[offsets[i]:offsets[i + 1]]) for i in range(len(sizes))]


def broadcast_object_list(object_list, src, group=None):
    """Replace the objects of `object_list` on every rank with rank `src`'s, in place. All
    ranks pass lists of the same length.

    Example:
        >>> objs = ['step', 3]
        >>> broadcast_object_list(objs, src=0); objs
        ['step', 3]
    """
    _check_list("broadcast_object_list", object_list, "object_list")
    g = env.get_group(group)
    if not g.is_member():
        return
    mine = env.get_rank() == src
    pieces = [_to_bytes(obj) for obj in object_list] if mine else []
    sizes = to_tensor(np.array([len(p) for p in pieces] if mine else
                               [0] * len(object_list), dtype=np.int64))
    broadcast(sizes, src, group)
    count = sizes.numpy()
    data = to_tensor(np.concatenate(pieces) if mine and pieces else
                     np.zeros(int(count.sum()), dtype=np.uint8))
    broadcast(data, src, group)
    if not mine:
        object_list[:] = _split(count, data.numpy())


def scatter_object_list(out_object_list, in_object_list=None, src=0, group=None):
    """Rank `src` hands in_object_list[i] to rank i; `out_object_list` becomes a list of
    the one object this rank received.

    Example:
        >>> out = []
        >>> scatter_object_list(out, [{'shard': 0}], src=0); out
        [{'shard': 0}]
    """
    _check_list("scatter_object_list", out_object_list, "out_object_list")
    g = env.get_group(group)
    if not g.is_member():
        return
    is_src = env.get_rank() == src
    if is_src:
        if not isinstance(in_object_list, list) or len(in_object_list) != g.nranks:
            raise ValueError(f"scatter_object_list: rank {src} (src) needs in_object_list "
                             f"with one object per rank ({g.nranks}), got "
                             f"{in_object_list!r:.80}")
        pieces = [_to_bytes(obj) for obj in in_object_list]
        width = max(len(p) for p in pieces)
    else:
        pieces, width = [], 0
    longest = to_tensor(np.array(width, dtype=np.int64))
    broadcast(longest, src, group)
    width = int(longest.numpy())
    padded = [to_tensor(np.concatenate([p, np.zeros(width - len(p), np.uint8)]))
              for p in pieces]
    sizes = [to_tensor(np.array(len(p), dtype=np.int64)) for p in pieces]
    data = to_tensor(np.zeros(width, dtype=np.uint8))
    scatter(data, padded if is_src else None, src, group)
    size = to_tensor(np.array(0, dtype=np.int64))
    scatter(size, sizes if is_src else None, src, group)
    out_object_list.clear()
    out_object_list.append(_from_bytes(data.numpy()[:int(size.numpy())]))


def _peer(name, group, rank, rank_in_group, arg):
    g = env.get_group(group)
    if rank_in_group is not None:
        if rank is not None:
            raise ValueError(f"{name}: give {arg} or {arg}_in_group, not both")
        return g, g.get_global_rank(rank_in_group)
    return g, 0 if rank is None else rank


def send_object_list(object_list, dst=None, group=None, dst_in_group=None):
    """Send the objects of `object_list` to rank `dst` (or group rank `dst_in_group`),
    which calls recv_object_list with a list of the same length.

    Example:
        >>> send_object_list  # doctest: +ELLIPSIS
        <function send_object_list at ...>
    """
    if not isinstance(object_list, list) or not object_list:
        raise ValueError("send_object_list: object_list should be a non-empty list")
    g, dst = _peer("send_object_list", group, dst, dst_in_group, "dst")
    if not g.is_member():
        return
    pieces = [_to_bytes(obj) for obj in object_list]
    send(to_tensor(np.array([len(pieces)], dtype=np.int64)), dst, group)
    send(to_tensor(np.array([len(p) for p in pieces], dtype=np.int64)), dst, group)
    send(to_tensor(np.concatenate(pieces)), dst, group)


def recv_object_list(object_list, src=None, group=None, src_in_group=None):
    """Receive, into the slots of `object_list` (in place), the objects rank `src` (or
    group rank `src_in_group`) sends with send_object_list.

    Example:
        >>> recv_object_list  # doctest: +ELLIPSIS
        <function recv_object_list at ...>
    """
    if not isinstance(object_list, list) or not object_list:
        raise ValueError("recv_object_list: object_list should be a non-empty list, one "
                         "slot per object to receive")
    g, src = _peer("recv_object_list", group, src, src_in_group, "src")
    if not g.is_member():
        return
    count = to_tensor(np.zeros(1, dtype=np.int64))
    recv(count, src, group)
    if int(count.numpy()[0]) != len(object_list):
        raise ValueError(f"recv_object_list: rank {src} sends {int(count.numpy()[0])} "
                         f"objects, but object_list has {len(object_list)} slots")
    sizes = to_tensor(np.zeros(len(object_list), dtype=np.int64))
    recv(sizes, src, group)
    data = to_tensor(np.zeros(int(sizes.numpy().sum()), dtype=np.uint8))
    recv(data, src, group)
    object_list[:] = _split(sizes.numpy(), data.numpy())
