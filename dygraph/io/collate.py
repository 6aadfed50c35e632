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

from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["default_collate_fn", "default_convert_fn", "fetch_batch", "to_tensors", "wrap_batch"]


def _field(path):
    """How an error names the part of a sample at `path` (dict keys and positions)."""
    return "field " + "".join(f"[{key!r}]" for key in path) if path else "the samples"


def _differences(descriptions):
    """'sample 0 has shape [3], sample 2 has shape [7]': the first sample (position in the
    batch) of each distinct description, at most four of them."""
    first = {}
    for index, text in enumerate(descriptions):
        first.setdefault(text, index)
    parts = [f"sample {index} {text}" for text, index in first.items()]
    more = f", and {len(parts) - 4} more" if len(parts) > 4 else ""
    return ", ".join(parts[:4]) + more


def _stack(arrays, path):
    try:
        return np.stack(arrays)
    except ValueError:
        shapes = _differences(f"has shape {list(a.shape)}" if isinstance(a, np.ndarray)
                              else f"is a {type(a).__name__}" for a in arrays)
        raise ValueError(f"default_collate_fn: cannot stack {_field(path)} into one batch, the "
                         f"samples have different shapes: {shapes}; make the samples the "
                         f"same shape (e.g. with a transform) or pass a collate_fn") from None


def default_collate_fn(batch):
    """Stack a list of samples field by field into NumPy arrays.

    Arrays and Tensors are stacked along a new first axis, numbers become a 1-D array,
    strings stay a list; dicts and sequences are collated per key / per position. Samples
    that cannot be stacked raise ValueError naming the field and the samples that differ.

    Example:
        >>> out = default_collate_fn([{"x": 1.5, "n": "a"}, {"x": 2.5, "n": "b"}])
        >>> out["x"].tolist(), out["n"]
        ([1.5, 2.5], ['a', 'b'])
        >>> x3, x7 = {"x": np.zeros(3)}, {"x": np.zeros(7)}
        >>> default_collate_fn([x3, x3, x7])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: ... stack field ['x'] ...: sample 0 has shape [3], sample 2 has shape [7]; ...
    """
    return _collate(batch, ())


def _collate(batch, path):
    first = batch[0]
    if isinstance(first, np.ndarray):
        return _stack(batch, path)
    if isinstance(first, Tensor):
        return _stack([t.numpy() if isinstance(t, Tensor) else t for t in batch], path)
    if isinstance(first, (numbers.Number, np.generic)):
        return np.array(batch)
    if isinstance(first, (str, bytes)):
        return list(batch)
    if isinstance(first, Mapping):
        return {key: _collate([sample[key] for sample in batch], path + (key,))
                for key in first}
    if isinstance(first, Sequence):
        size = len(first)
        if any(len(sample) != size for sample in batch):
            sizes = _differences(f"has {len(sample)} fields" for sample in batch)
            raise ValueError(f"default_collate_fn: every sample should have the same number "
                             f"of fields in {_field(path)}; {sizes}")
        return [_collate(list(fields), path + (i,)) for i, fields in enumerate(zip(*batch))]
    raise TypeError(f"default_collate_fn: samples should hold NumPy arrays, Tensors, "
                    f"numbers, strings, dicts or lists, but got {type(first).__name__} in "
                    f"{_field(path)}")


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
    from dygraph.tensor.tensor import to_tensor

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
