"""Samplers: the order in which a DataLoader visits the indices of a map-style dataset.

A sampler yields single indices; a batch sampler yields lists of indices (one list per
batch). Random orders come from `dygraph.seed`'s generator, so runs are reproducible.

Example:
    >>> from dygraph.io import BatchSampler
    >>> list(BatchSampler(range(5), batch_size=2))
    [[0, 1], [2, 3], [4]]
"""

import math
import os
from itertools import islice

import numpy as np

from dygraph.framework.errors import AssertedTypeError, AssertedValueError
from dygraph.framework.random import rng

__all__ = ["Sampler", "SequenceSampler", "RandomSampler", "WeightedRandomSampler",
           "SubsetRandomSampler", "BatchSampler", "DistributedBatchSampler"]


class Sampler:
    """Base of index samplers: subclasses define `__iter__` (and `__len__` when known).

    Example:
        >>> class Evens(Sampler):
        ...     def __iter__(self):
        ...         return iter(range(0, len(self.data_source), 2))
        >>> list(Evens(range(5)))
        [0, 2, 4]
    """

    def __init__(self, data_source=None):
        self.data_source = data_source

    def __iter__(self):
        raise NotImplementedError(f"'__iter__' is not implemented in class {type(self).__name__}")


class SequenceSampler(Sampler):
    """Indices 0, 1, ..., len(data_source) - 1 in order.

    Example:
        >>> list(SequenceSampler([7, 8, 9]))
        [0, 1, 2]
    """

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _random_source(generator):
    """A NumPy Generator from a dygraph Generator, a NumPy Generator, or the global one."""
    if generator is None:
        return rng()
    return getattr(generator, "rng", generator)


def _check_positive_int(owner, name, value, exc=ValueError):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise exc(f"{owner}: {name} should be a positive integer, but got {value!r}")
    return int(value)


class RandomSampler(Sampler):
    """Indices in random order: a permutation, or `num_samples` draws with replacement.

    `generator` may be a Python iterator of indices (Paddle's meaning: its first
    `num_samples` values are used as they are), a `dygraph.framework.random.Generator` or a
    NumPy Generator; by default the global generator (`dygraph.seed`) is used. Without
    replacement, `num_samples` may not exceed the dataset's length (ValueError, as Paddle).

    Example:
        >>> import dygraph
        >>> _ = dygraph.seed(1)
        >>> sorted(RandomSampler(range(4)))
        [0, 1, 2, 3]
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        super().__init__(data_source)
        if not isinstance(replacement, bool):
            raise TypeError(f"RandomSampler: replacement should be a bool, but got "
                            f"{type(replacement).__name__}")
        self.replacement = replacement
        self._num_samples = None if num_samples is None else _check_positive_int(
            "RandomSampler", "num_samples", num_samples)
        if not replacement and self.num_samples > len(data_source):
            raise ValueError(f"RandomSampler: num_samples should be smaller than or equal to "
                             f"the length of data_source when replacement is False, but got "
                             f"num_samples {self.num_samples} > {len(data_source)}")
        self.generator = generator

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n, count = len(self.data_source), self.num_samples
        if self.generator is not None and hasattr(self.generator, "__next__"):
            return islice(self.generator, count)
        source = _random_source(self.generator)
        if self.replacement:
            return iter(source.integers(0, n, size=count).tolist())
        return iter(source.permutation(n)[:count].tolist())

    def __len__(self):
        return self.num_samples


def _weights_array(weights):
    """`weights` as a float64 1-D array, checked when the sampler is built. Paddle 3.3
    checks them with asserts (AssertionError) when iterating; these errors are also
    AssertionErrors (and TypeError/ValueError, DyGraph's kinds), raised earlier."""
    owner = "WeightedRandomSampler"
    raw = weights.numpy() if hasattr(weights, "numpy") else weights
    if not isinstance(raw, (np.ndarray, list, tuple)):
        raise AssertedTypeError(f"{owner}: weights should be a Tensor, numpy.ndarray, list or "
                                f"tuple, but got {type(weights).__name__}")
    try:
        array = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        # non-numeric weights: Paddle fails comparing them (a TypeError)
        raise AssertedTypeError(f"{owner}: weights should be numbers ({exc})") from None
    if array.ndim != 1 or array.size == 0:
        raise AssertedValueError(f"{owner}: weights should be a non-empty 1-D sequence, but "
                                 f"got shape {list(array.shape)}")
    if (array < 0).any() or np.isnan(array).any():
        raise AssertedValueError(f"{owner}: weights should be non-negative numbers")
    if np.isinf(array).any():
        raise AssertedValueError(f"{owner}: weights should not be INF")
    if not (array > 0).any():
        raise AssertedValueError(f"{owner}: weights should have positive values")
    return array


class WeightedRandomSampler(Sampler):
    """`num_samples` indices drawn with probability proportional to `weights`.

    Example:
        >>> import dygraph
        >>> _ = dygraph.seed(0)
        >>> set(WeightedRandomSampler([0.0, 1.0, 0.0], 5))
        {1}
    """

    def __init__(self, weights, num_samples, replacement=True):
        super().__init__(None)
        if not isinstance(replacement, bool):
            raise ValueError(f"WeightedRandomSampler: replacement should be a boolean value, "
                             f"but got {type(replacement).__name__}")
        weights = _weights_array(weights)
        self.num_samples = _check_positive_int("WeightedRandomSampler", "num_samples",
                                               num_samples)
        if not replacement and self.num_samples > np.count_nonzero(weights):
            # Paddle asserts this (AssertionError); ours is also a ValueError
            raise AssertedValueError(
                f"WeightedRandomSampler: cannot draw {self.num_samples} samples without "
                f"replacement from {np.count_nonzero(weights)} positive weights")
        self.weights = weights
        self.replacement = replacement

    def __iter__(self):
        p = self.weights / self.weights.sum()
        picks = rng().choice(len(p), size=self.num_samples, replace=self.replacement, p=p)
        return iter(picks.tolist())

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in random order.

    Example:
        >>> sorted(SubsetRandomSampler([5, 1, 3]))
        [1, 3, 5]
    """

    def __init__(self, indices):
        super().__init__(None)
        self.indices = list(indices)
        if not self.indices:
            raise ValueError("SubsetRandomSampler: indices should not be empty")

    def __iter__(self):
        order = rng().permutation(len(self.indices)).tolist()
        return (self.indices[i] for i in order)

    def __len__(self):
        return len(self.indices)


def _chunks(iterator, batch_size, drop_last):
    """Lists of `batch_size` items from `iterator`; the last may be short unless drop_last."""
    while True:
        batch = list(islice(iterator, batch_size))
        if not batch or (drop_last and len(batch) < batch_size):
            return
        yield batch


class BatchSampler(Sampler):
    """Group a sampler's indices into lists of `batch_size`.

    Give either `dataset` (indices in order, or shuffled when `shuffle=True`) or `sampler`.

    Example:
        >>> list(BatchSampler(range(5), batch_size=2, drop_last=True))
        [[0, 1], [2, 3]]
    """

    def __init__(self, dataset=None, sampler=None, shuffle=False, batch_size=1, drop_last=False):
        from dygraph.io.dataset import IterableDataset

        if dataset is None:
            if sampler is None:
                raise AssertedValueError("BatchSampler: either dataset or sampler should be "
                                         "set")
            if shuffle:
                raise AssertedValueError("BatchSampler: shuffle should be False when a "
                                         "sampler is given; shuffle inside the sampler")
        else:
            if sampler is not None:
                raise AssertedValueError("BatchSampler: set only one of dataset and sampler")
            if isinstance(dataset, IterableDataset):
                raise AssertedTypeError("BatchSampler: an IterableDataset has no indices to "
                                        "sample")
            sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        if not isinstance(shuffle, bool):
            raise AssertedTypeError(f"BatchSampler: shuffle should be a bool, but got "
                                    f"{type(shuffle).__name__}")
        if not isinstance(drop_last, bool):
            raise AssertedTypeError(f"BatchSampler: drop_last should be a bool, but got "
                                    f"{type(drop_last).__name__}")
        super().__init__(dataset)
        self.sampler = sampler
        self.shuffle = shuffle
        self.batch_size = _check_positive_int("BatchSampler", "batch_size", batch_size,
                                              AssertedValueError)
        self.drop_last = drop_last

    def __iter__(self):
        return _chunks(iter(self.sampler), self.batch_size, self.drop_last)

    def __len__(self):
        count = len(self.sampler)
        if self.drop_last:
            return count // self.batch_size
        return -(-count // self.batch_size)


def _env_int(name, default):
    value = os.environ.get(name)
    return default if value in (None, "") else int(value)


class DistributedBatchSampler(BatchSampler):
    """Batches for one of `num_replicas` processes: disjoint shards that together cover the data.

    The index list is padded to `ceil(len(dataset) / num_replicas) * num_replicas` by
    repeating its first indices, so every replica gets the same number of samples; with
    `shuffle=True` it is then shuffled with the epoch number as seed (the same order on every
    replica; the epoch advances after each pass, or set it with `set_epoch`). Replicas take
    `batch_size` consecutive indices in turn, and the last partial round is split evenly.
    `num_replicas` and `rank` default to the environment (PADDLE_TRAINERS_NUM and
    PADDLE_TRAINER_ID), else 1 and 0.

    Example:
        >>> [list(DistributedBatchSampler(range(5), 2, num_replicas=2, rank=r)) for r in (0, 1)]
        [[[0, 1], [4]], [[2, 3], [0]]]
    """

    def __init__(self, dataset, batch_size, num_replicas=None, rank=None, shuffle=False,
                 drop_last=False):
        self.dataset = dataset
        self.data_source = dataset
        self.batch_size = _check_positive_int("DistributedBatchSampler", "batch_size",
                                              batch_size, AssertedValueError)
        if not isinstance(shuffle, bool) or not isinstance(drop_last, bool):
            raise AssertedTypeError("DistributedBatchSampler: shuffle and drop_last should be "
                                    "bools")
        self.shuffle = shuffle
        self.drop_last = drop_last
        nranks = _env_int("PADDLE_TRAINERS_NUM", 1) if num_replicas is None else num_replicas
        self.nranks = _check_positive_int("DistributedBatchSampler", "num_replicas", nranks,
                                          AssertedValueError)
        local_rank = _env_int("PADDLE_TRAINER_ID", 0) if rank is None else rank
        if isinstance(local_rank, bool) or not 0 <= int(local_rank) < self.nranks:
            raise AssertedValueError(f"DistributedBatchSampler: rank should be in "
                                     f"[0, {self.nranks}), but got {local_rank!r}")
        self.local_rank = int(local_rank)
        self.epoch = 0
        self.num_samples = int(math.ceil(len(dataset) / self.nranks))
        self.total_size = self.num_samples * self.nranks

    def _local_indices(self):
        n = len(self.dataset)
        order = np.arange(n, dtype=np.int64)
        if self.total_size > n:
            order = np.concatenate([order, np.resize(order, self.total_size - n)])
        if self.shuffle:
            np.random.default_rng(self.epoch).shuffle(order)
            self.epoch += 1
        if self.nranks == 1:
            return order
        step = self.batch_size * self.nranks
        tail = self.total_size % step
        full = order[:self.total_size - tail].reshape(-1, self.nranks, self.batch_size)
        share = tail // self.nranks
        start = self.total_size - tail + self.local_rank * share
        return np.concatenate([full[:, self.local_rank].ravel(), order[start:start + share]])

    def __iter__(self):
        return _chunks(iter(self._local_indices().tolist()), self.batch_size, self.drop_last)

    def __len__(self):
        if self.drop_last:
            return self.num_samples // self.batch_size
        return -(-self.num_samples // self.batch_size)

    def set_epoch(self, epoch):
        """Set the epoch used as the shuffling seed (call it with the same value on every
        replica at the start of each epoch).

        Example:
            >>> s = DistributedBatchSampler(range(4), 2, num_replicas=1, rank=0, shuffle=True)
            >>> s.set_epoch(3); s.epoch
            3
        """
        self.epoch = int(epoch)
