"""Datasets: map-style (`__getitem__` + `__len__`) and iterable (`__iter__`) sources of samples.

A sample is whatever `__getitem__` returns, usually a tuple such as `(image, label)`;
`DataLoader` batches samples field by field.

Example:
    >>> import numpy as np
    >>> from dygraph.io import TensorDataset, Subset
    >>> ds = TensorDataset([np.arange(6).reshape(3, 2), np.arange(3)])
    >>> len(ds), int(Subset(ds, [2])[0][1])
    (3, 2)
"""

import bisect
import math

import numpy as np

from dygraph.framework.errors import AssertedValueError
from dygraph.framework.random import rng
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ComposeDataset", "ChainDataset",
           "ConcatDataset", "Subset", "random_split"]


class Dataset:
    """Base of map-style datasets: subclasses define `__getitem__(idx)` and `__len__()`.

    Example:
        >>> class Squares(Dataset):
        ...     def __getitem__(self, idx):
        ...         return idx * idx
        ...     def __len__(self):
        ...         return 4
        >>> [Squares()[i] for i in range(4)]
        [0, 1, 4, 9]
    """

    def __getitem__(self, idx):
        raise NotImplementedError(
            f"'__getitem__' is not implemented in class {type(self).__name__}")

    def __len__(self):
        raise NotImplementedError(f"'__len__' is not implemented in class {type(self).__name__}")


class IterableDataset(Dataset):
    """Base of stream-style datasets: subclasses define `__iter__()` yielding samples.

    With `DataLoader(num_workers=N)` every worker process iterates its own copy of the
    dataset, so without care each sample comes N times: shard inside `__iter__` with
    `dygraph.io.get_worker_info()` (its `id` and `num_workers`).

    Example:
        >>> class Count(IterableDataset):
        ...     def __iter__(self):
        ...         return iter(range(3))
        >>> list(Count())
        [0, 1, 2]
    """

    def __iter__(self):
        raise NotImplementedError(f"'__iter__' is not implemented in class {type(self).__name__}")

    def __getitem__(self, idx):
        raise RuntimeError(f"'__getitem__' should not be called on IterableDataset "
                           f"{type(self).__name__}; iterate over it instead")

    def __len__(self):
        # TypeError, as for any object without a length: list(dataset) relies on it.
        raise TypeError(f"'__len__' should not be called on IterableDataset "
                        f"{type(self).__name__}; it has no length")


def _row(array, idx):
    """Row `idx` of a Tensor (as a detached Tensor) or of an array-like."""
    if isinstance(array, Tensor):
        return _new_tensor(array._data[idx], None, 0, True)
    return array[idx]


class TensorDataset(Dataset):
    """Samples are the rows of several Tensors (or arrays) that share their first dimension.

    Example:
        >>> import dygraph
        >>> ds = TensorDataset([dygraph.to_tensor([[1.0], [2.0]]), dygraph.to_tensor([3, 4])])
        >>> x, y = ds[1]; float(x), int(y)
        (2.0, 4)
    """

    def __init__(self, tensors):
        tensors = list(tensors)
        if not tensors:
            raise ValueError("TensorDataset: expected at least one tensor, got none")
        lengths = [len(t) for t in tensors]
        if len(set(lengths)) != 1:
            raise AssertedValueError(  # Paddle asserts it
                f"TensorDataset: all tensors must have the same size in the first dimension; "
                f"got sizes {lengths}")
        self.tensors = tensors

    def __getitem__(self, idx):
        return tuple(_row(t, idx) for t in self.tensors)

    def __len__(self):
        return len(self.tensors[0])

    def collated_rows(self, indices):
        """The batch of rows `indices`, field by field, as NumPy arrays: what
        `default_collate_fn` makes of the samples, in one indexing per field instead of a
        Tensor per sample (the DataLoader uses it with the default collate function).

        Example:
            >>> import numpy as np
            >>> ds = TensorDataset([np.arange(6).reshape(3, 2), np.array([7, 8, 9])])
            >>> [a.tolist() for a in ds.collated_rows([2, 0])]
            [[[4, 5], [0, 1]], [9, 7]]
        """
        indices = np.asarray(indices, dtype=np.int64)
        return [_row(t, indices).numpy() if isinstance(t, Tensor) else np.asarray(t)[indices]
                for t in self.tensors]


def _fields(sample):
    return tuple(sample) if isinstance(sample, (tuple, list)) else (sample,)


class ComposeDataset(Dataset):
    """Zip map-style datasets of equal length: sample i joins the fields of every sample i.

    Example:
        >>> import numpy as np
        >>> a = TensorDataset([np.zeros((2, 1))]); b = TensorDataset([np.ones(2), np.arange(2)])
        >>> len(ComposeDataset([a, b])[1])
        3
    """

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ComposeDataset: expected at least one dataset, got none")
        for ds in self.datasets:
            if isinstance(ds, IterableDataset):
                raise TypeError("ComposeDataset: only map-style datasets can be composed; got "
                                f"the IterableDataset {type(ds).__name__}")
        lengths = [len(ds) for ds in self.datasets]
        if len(set(lengths)) != 1:
            raise ValueError(f"ComposeDataset: the datasets must have the same length; got "
                             f"lengths {lengths}")

    def __len__(self):
        return len(self.datasets[0])

    def __getitem__(self, idx):
        sample = []
        for ds in self.datasets:
            sample.extend(_fields(ds[idx]))
        return tuple(sample)


class ChainDataset(IterableDataset):
    """Iterate several IterableDatasets one after another.

    Example:
        >>> class R(IterableDataset):
        ...     def __init__(self, n):
        ...         self.n = n
        ...     def __iter__(self):
        ...         return iter(range(self.n))
        >>> list(ChainDataset([R(2), R(3)]))
        [0, 1, 0, 1, 2]
    """

    def __init__(self, datasets):
        self.datasets = list(datasets)
        for ds in self.datasets:
            if not isinstance(ds, IterableDataset):
                raise TypeError(f"ChainDataset: only IterableDatasets can be chained; got "
                                f"{type(ds).__name__}")

    def __iter__(self):
        for ds in self.datasets:
            yield from ds


class ConcatDataset(Dataset):
    """Map-style datasets one after another: indices run through the first, then the next.

    Example:
        >>> import numpy as np
        >>> ds = ConcatDataset([TensorDataset([np.arange(2)]), TensorDataset([np.arange(3)])])
        >>> len(ds), int(ds[3][0])
        (5, 1)
    """

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ConcatDataset: expected at least one dataset, got none")
        for ds in self.datasets:
            if isinstance(ds, IterableDataset):
                raise TypeError("ConcatDataset: IterableDatasets cannot be concatenated by "
                                "index; use ChainDataset")
        self.cumulative_sizes = np.cumsum([len(ds) for ds in self.datasets]).tolist()

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise IndexError(f"ConcatDataset: index {idx} out of range for length "
                                 f"{len(self)}")
            idx += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        if which == len(self.datasets):
            raise IndexError(f"ConcatDataset: index {idx} out of range for length {len(self)}")
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order.

    Example:
        >>> import numpy as np
        >>> sub = Subset(TensorDataset([np.arange(10)]), [7, 3])
        >>> len(sub), int(sub[0][0])
        (2, 7)
    """

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = list(indices)

    def __getitem__(self, idx):
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


def _split_lengths(lengths, total):
    """Integer lengths from counts or from fractions that sum to 1 (remainder round-robin)."""
    if all(isinstance(n, (int, np.integer)) for n in lengths):
        counts = [int(n) for n in lengths]
    elif math.isclose(sum(lengths), 1.0) and all(0 <= f <= 1 for f in lengths):
        counts = [int(math.floor(total * f)) for f in lengths]
        for i in range(total - sum(counts)):
            counts[i % len(counts)] += 1
    else:
        raise ValueError(f"random_split: lengths must be integers or fractions summing to 1; "
                         f"got {list(lengths)}")
    if sum(counts) != total or min(counts, default=0) < 0:
        raise ValueError(f"random_split: the lengths {counts} do not sum to the dataset "
                         f"length {total}")
    return counts


def random_split(dataset, lengths, generator=None):
    """Split `dataset` at random into Subsets of the given lengths (or fractions).

    The permutation comes from `dygraph.seed`'s generator, or from `generator` (a
    `dygraph.framework.random.Generator` or a NumPy Generator) when given.

    Example:
        >>> import numpy as np, dygraph
        >>> _ = dygraph.seed(0)
        >>> a, b = random_split(TensorDataset([np.arange(10)]), [7, 3])
        >>> len(a), len(b), sorted(a.indices + b.indices) == list(range(10))
        (7, 3, True)
    """
    total = len(dataset)
    counts = _split_lengths(list(lengths), total)
    source = rng() if generator is None else getattr(generator, "rng", generator)
    order = source.permutation(total).tolist()
    ends = np.cumsum(counts).tolist()
    starts = [0] + ends[:-1]
    return [Subset(dataset, order[s:e]) for s, e in zip(starts, ends)]
