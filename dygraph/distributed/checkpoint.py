"""Distributed checkpoints of data-parallel training: save_state_dict, load_state_dict and
load_merged_state_dict, with Paddle's names and arguments.

Under data parallelism every rank holds the whole of each tensor, so a checkpoint stores
each tensor once: the keys are dealt out over the ranks of the group, each rank writes its
share to `<rank>_<id>.distcp` (dygraph.save's format) and the coordinator writes
`<id>.metadata` (JSON: for each key, its file, shape and dtype). Loading reads every file
it needs, so a checkpoint loads on any number of ranks (or in one process); the ranks of
a job need a shared filesystem. `<id>` is `unique_id`, by default the next free number
when saving and the newest checkpoint when loading.

Paddle's sharded weights (ShardedWeight) belong to its tensor and sharding parallelism,
which DyGraph does not have; safetensors files are not written or read.

Example:
    >>> import tempfile, dygraph
    >>> import dygraph.distributed as dist
    >>> path = tempfile.mkdtemp()
    >>> dist.save_state_dict({'w': dygraph.ones([2])}, path)
    >>> target = {'w': dygraph.zeros([2])}
    >>> dist.load_state_dict(target, path); target['w'].numpy()
    array([1., 1.], dtype=float32)
"""

import json
import os
import re

import numpy as np

from dygraph.distributed import env
from dygraph.distributed.objects import broadcast_object_list
from dygraph.tensor.tensor import Tensor

__all__ = ["save_state_dict", "load_state_dict", "load_merged_state_dict"]

_METADATA = re.compile(r"^(\d+)\.metadata$")
_FORMAT = "dygraph.distributed.checkpoint"


def _ids(path):
    if not os.path.isdir(path):
        return []
    return sorted(int(m.group(1)) for m in map(_METADATA.match, os.listdir(path)) if m)


def _no_safetensors(name, safetensors):
    if safetensors:
        raise NotImplementedError(f"{name}: safetensors checkpoints are not supported; "
                                  f"checkpoints use dygraph.save's format")


def _member(name, group):
    g = env.get_group(group)
    return g if g.is_member() else None


def save_state_dict(state_dict, path, process_group=None, coordinator_rank=0,
                    unique_id=None, async_save=False, safetensors=False,
                    save_replicas=False):
    """Save `state_dict` (names to Tensors, the same on every rank) into the directory
    `path`, each tensor written once, by one rank of the group (by every rank with
    save_replicas=True). Returns when the checkpoint is complete (async_save saves at once
    too).

    Example:
        >>> import tempfile, dygraph
        >>> path = tempfile.mkdtemp()
        >>> save_state_dict({'b': dygraph.to_tensor([1, 2])}, path)
        >>> sorted(os.listdir(path))
        ['0.metadata', '0_0.distcp']
    """
    _no_safetensors("save_state_dict", safetensors)
    if not isinstance(state_dict, dict):
        raise TypeError(f"save_state_dict: state_dict should be a dict of Tensors, got "
                        f"{type(state_dict).__name__}")
    for key, value in state_dict.items():
        if not isinstance(key, str) or not isinstance(value, Tensor):
            raise TypeError(f"save_state_dict: state_dict should map names to Tensors; "
                            f"{key!r} holds {type(value).__name__}")
    g = _member("save_state_dict", process_group)
    if g is None:
        return
    root = g.ranks.index(coordinator_rank) if coordinator_rank in g.ranks else None
    if root is None:
        raise ValueError(f"save_state_dict: coordinator_rank={coordinator_rank} is not a "
                         f"rank of {g!r}")
    decided = [unique_id]
    if g.rank == root:
        os.makedirs(path, exist_ok=True)
        if unique_id is None:
            taken = _ids(path)
            decided = [taken[-1] + 1 if taken else 0]
    broadcast_object_list(decided, src=coordinator_rank, group=process_group)
    uid = int(decided[0])
    keys = sorted(state_dict)
    writer = {k: (g.rank if save_replicas else i % g.nranks) for i, k in enumerate(keys)}
    mine = {k: state_dict[k] for k in keys if writer[k] == g.rank}
    from dygraph.io.checkpoint import save

    os.makedirs(path, exist_ok=True)
    save(mine, os.path.join(path, f"{g.rank}_{uid}.distcp"))
    env.barrier(process_group)
    if g.rank == root:
        owner = {k: (root if save_replicas else writer[k]) for k in keys}
        metadata = {"format": _FORMAT, "unique_id": uid,
                    "tensors": {k: {"file": f"{owner[k]}_{uid}.distcp",
                                    "shape": list(state_dict[k].shape),
                                    "dtype": str(state_dict[k]._data.dtype)} for k in keys}}
        with open(os.path.join(path, f"{uid}.metadata.partial"), "w") as f:
            json.dump(metadata, f, indent=1)
        os.replace(os.path.join(path, f"{uid}.metadata.partial"),
                   os.path.join(path, f"{uid}.metadata"))
    env.barrier(process_group)


def _metadata(name, path, unique_id):
    ids = _ids(path)
    if not ids:
        raise FileNotFoundError(f"{name}: no checkpoint (<id>.metadata) in {path!r}")
    uid = ids[-1] if unique_id is None else int(unique_id)
    if uid not in ids:
        raise FileNotFoundError(f"{name}: no checkpoint {uid} in {path!r} (it has {ids})")
    return _checked_metadata(name, os.path.join(path, f"{uid}.metadata"), uid)


def _checked_metadata(name, where, uid):
    """The tensors table of a metadata file, checked field by field: the file is data, and
    every shard it names must be a shard of this checkpoint in its own folder."""
    def bad(field, why):
        return ValueError(f"{name}: {where}: {field} {why}")

    try:
        with open(where) as f:
            metadata = json.load(f)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ValueError(f"{name}: {where} is not checkpoint metadata ({exc})") from None
    if not isinstance(metadata, dict) or metadata.get("format") != _FORMAT:
        raise bad("format", f"should be {_FORMAT!r}")
    tensors = metadata.get("tensors")
    if not isinstance(tensors, dict):
        raise bad("tensors", "should be a table of tensor entries")
    shard = re.compile(rf"\d+_{uid}\.distcp")
    for key, entry in tensors.items():
        if not isinstance(entry, dict) or set(entry) != {"file", "shape", "dtype"}:
            raise bad(f"tensors[{key!r}]", "should hold exactly file, shape and dtype")
        if not isinstance(entry["file"], str) or not shard.fullmatch(entry["file"]):
            raise bad(f"tensors[{key!r}].file", f"should name a shard <rank>_{uid}.distcp "
                      f"of this checkpoint, got {str(entry['file'])[:80]!r}")
        shape = entry["shape"]
        if not isinstance(shape, list) or not all(type(d) is int and d >= 0 for d in shape):
            raise bad(f"tensors[{key!r}].shape", "should be a list of sizes")
        if not isinstance(entry["dtype"], str):
            raise bad(f"tensors[{key!r}].dtype", "should be a dtype name")
    return tensors


def _read(path, tensors, keys):
    from dygraph.io.checkpoint import load

    files = {}
    out = {}
    for key in keys:
        name = tensors[key]["file"]
        if name not in files:
            files[name] = load(os.path.join(path, name), return_numpy=True)
        out[key] = np.asarray(files[name][key])
    return out


def load_state_dict(state_dict, path, process_group=None, coordinator_rank=0,
                    unique_id=None, offload=False, mw_name_compatibility=True,
                    aoa_config=None, safetensors=False, worker_groups=None,
                    comm_method="broadcast"):
    """Fill the Tensors of `state_dict` in place from the checkpoint in `path` (the newest,
    or `unique_id`); every key must be in it, with the same shape and dtype.

    Example:
        >>> import tempfile, dygraph
        >>> path = tempfile.mkdtemp()
        >>> save_state_dict({'b': dygraph.to_tensor([1, 2])}, path)
        >>> target = {'b': dygraph.zeros([2], dtype='int64')}
        >>> load_state_dict(target, path); target['b'].numpy()
        array([1, 2])
    """
    _no_safetensors("load_state_dict", safetensors)
    if aoa_config:
        raise NotImplementedError("load_state_dict: aoa_config (renaming and reshaping "
                                  "weights while loading) is not supported")
    if not isinstance(state_dict, dict):
        raise TypeError(f"load_state_dict: state_dict should be a dict of Tensors, got "
                        f"{type(state_dict).__name__}")
    tensors = _metadata("load_state_dict", path, unique_id)
    missing = sorted(set(state_dict) - set(tensors))
    if missing:
        raise KeyError(f"load_state_dict: the checkpoint in {path!r} has no "
                       f"{', '.join(missing)}")
    values = _read(path, tensors, sorted(state_dict))
    for key, target in state_dict.items():
        if not isinstance(target, Tensor):
            raise TypeError(f"load_state_dict: {key!r} should be a Tensor to fill, got "
                            f"{type(target).__name__}")
        value = values[key]
        if list(value.shape) != list(target.shape) or value.dtype != target._data.dtype:
            raise ValueError(f"load_state_dict: {key!r} is {list(value.shape)} "
                             f"{value.dtype} in the checkpoint, {list(target.shape)} "
                             f"{target._data.dtype} here")
        target.set_value(value)


def load_merged_state_dict(path, prefix=None, unique_id=None, offload=False,
                           aoa_config=None, safetensors=False):
    """The whole checkpoint in `path` (the newest, or `unique_id`) as names to Tensors;
    with `prefix`, only the names that start with it.

    Example:
        >>> import tempfile, dygraph
        >>> path = tempfile.mkdtemp()
        >>> save_state_dict({'fc.w': dygraph.ones([1]), 'bn.b': dygraph.ones([1])}, path)
        >>> sorted(load_merged_state_dict(path, prefix='fc'))
        ['fc.w']
    """
    _no_safetensors("load_merged_state_dict", safetensors)
    if aoa_config:
        raise NotImplementedError("load_merged_state_dict: aoa_config is not supported")
    from dygraph.tensor.tensor import to_tensor

    tensors = _metadata("load_merged_state_dict", path, unique_id)
    keys = sorted(k for k in tensors if prefix is None or k.startswith(prefix))
    return {k: to_tensor(v) for k, v in _read(path, tensors, keys).items()}
