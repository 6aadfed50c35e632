"""Batching samples into arrays (collate) and turning the arrays into Tensors.

Collation works on NumPy only, so it can run inside worker processes; the DataLoader turns
the NumPy arrays of a collated batch into Tensors in the main process (`to_tensors`).

Example:
    >>> import numpy as np
    >>> batch = default_collate_fn([(np.zeros(2), 1), (np.ones(2), 0)])
    >>> batch[0].shape, batch[1].tolist()
    ((2, 2), [1, 0])
"""

import numbers
from collections.abc import Mapping, Sequence

import numpy as np

from dygraph.tensor import Tensor, _new_tensor

__all__ = ["default_collate_fn", "default_convert_fn", "fetch_batch", "to_tensors", "wrap_batch"]


def _stack(arrays):
    try:
        return np.stack(arrays)
    except ValueError:
        shapes = sorted({tuple(a.shape) for a in arrays})
        raise ValueError(f"default_collate_fn: cannot stack samples of different shapes "
                         f"{[list(s) for s in shapes]} into one batch; make the samples the "
                         f"same shape (e.g. with a transform) or pass a collate_fn") from None


def default_collate_fn(batch):
    """Stack a list of samples field by field into NumPy arrays.

    Arrays and Tensors are stacked along a new first axis, numbers become a 1-D array,
    strings stay a list; dicts and sequences are collated per key / per position.

    Example:
        >>> out = default_collate_fn([{"x": 1.5, "n": "a"}, {"x": 2.5, "n": "b"}])
        >>> out["x"].tolist(), out["n"]
        ([1.5, 2.5], ['a', 'b'])
    """
    first = batch[0]
    if isinstance(first, np.ndarray):
        return _stack(batch)
    if isinstance(first, Tensor):
        return _stack([t.numpy() for t in batch])
    if isinstance(first, (numbers.Number, np.generic)):
        return np.array(batch)
    if isinstance(first, (str, bytes)):
        return list(batch)
    if isinstance(first, Mapping):
        return {key: default_collate_fn([sample[key] for sample in batch]) for key in first}
    if isinstance(first, Sequence):
        size = len(first)
        if any(len(sample) != size for sample in batch):
            raise ValueError(f"default_collate_fn: every sample should have the same number "
                             f"of fields; got {sorted({len(s) for s in batch})}")
        return [default_collate_fn(list(fields)) for fields in zip(*batch)]
    raise TypeError(f"default_collate_fn: samples should hold NumPy arrays, Tensors, "
                    f"numbers, strings, dicts or lists, but got {type(first).__name__}")


def fetch_batch(dataset, indices, collate_fn, auto_collate):
    """Read the samples `indices` of a map-style dataset and collate them. A dataset that
    can index all its rows at once (`TensorDataset.collated_rows`) does so when the
    collate function is the default one: the same arrays, without a Tensor per sample.

    Example:
        >>> from dygraph.io import TensorDataset
        >>> ds = TensorDataset([np.arange(4.0), np.arange(4)])
        >>> [a.tolist() for a in fetch_batch(ds, [3, 1], default_collate_fn, True)]
        [[3.0, 1.0], [3, 1]]
    """
    if not auto_collate:
        return collate_fn(dataset[indices])
    if collate_fn is default_collate_fn and hasattr(dataset, "collated_rows"):
        return dataset.collated_rows(indices)
    return collate_fn([dataset[i] for i in indices])


def default_convert_fn(sample):
    """Convert one unbatched sample to NumPy (used when batch_size is None).

    Example:
        >>> import dygraph
        >>> default_convert_fn((dygraph.to_tensor([1, 2]), 3))[0].tolist()
        [1, 2]
    """
    if isinstance(sample, Tensor):
        return sample.numpy()
    if isinstance(sample, Mapping):
        return {key: default_convert_fn(value) for key, value in sample.items()}
    if isinstance(sample, (list, tuple)):
        return [default_convert_fn(value) for value in sample]
    return sample


def to_tensors(data):
    """Turn every NumPy array (and NumPy scalar) in a nested batch into a Tensor.

    Tuples become lists, as Paddle's `return_list=True` gives them. Arrays go to the current
    device; on the CPU freshly collated arrays are wrapped without a copy. Tensors stay as
    they are.

    Example:
        >>> import numpy as np
        >>> to_tensors((np.zeros((2, 3), np.float32), {"y": np.arange(2)}))[1]["y"].shape
        [2]
    """
    from dygraph.framework.place import current_place

    on_gpu = current_place().is_gpu_place()
    return _convert(data, on_gpu)


def _convert(data, on_gpu):
    if isinstance(data, np.ndarray):
        if data.dtype.kind in "OUS":
            return data
        if on_gpu:
            return _device_tensor(data)
        # Wrap freshly collated arrays as they are; copy views so that a batch never shares
        # memory with the dataset. An array unpickled from a worker is a writeable view of
        # its own private bytes: wrapping it is safe too.
        private = data.flags.owndata or isinstance(data.base, bytes)
        if not (private and data.flags.writeable):
            data = np.array(data)
        return _new_tensor(data, None, 0, True)
    if isinstance(data, np.generic):
        return _convert(np.asarray(data), on_gpu)
    if isinstance(data, Mapping):
        return {key: _convert(value, on_gpu) for key, value in data.items()}
    if isinstance(data, (list, tuple)):
        return [_convert(value, on_gpu) for value in data]
    return data


def _device_tensor(data):
    from dygraph.tensor import to_tensor

    return to_tensor(data)


def wrap_batch(batch, feed_names):
    """A converted batch as the loader returns it: a dict keyed by the feed names when
    `feed_names` is given (return_list=False with a feed_list), else unchanged.

    Example:
        >>> wrap_batch([1, 2], ["x", "y"])
        {'x': 1, 'y': 2}
    """
    if feed_names is None:
        return batch
    fields = batch if isinstance(batch, list) else [batch]
    if len(fields) != len(feed_names):
        raise ValueError(f"DataLoader: the feed_list names {feed_names} do not match the "
                         f"{len(fields)} fields of a batch")
    return dict(zip(feed_names, fields))
