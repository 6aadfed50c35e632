"""DataLoader: batches of Tensors from a Dataset, in the main process or in worker processes.

Example:
    >>> import numpy as np
    >>> from dygraph.io import DataLoader, TensorDataset
    >>> ds = TensorDataset([np.arange(10, dtype=np.float32).reshape(5, 2), np.arange(5)])
    >>> x, y = next(iter(DataLoader(ds, batch_size=2)))
    >>> x.shape, y.numpy().tolist()
    ([2, 2], [0, 1])
"""

import numbers

from dygraph.io.collate import (
    default_collate_fn,
    default_convert_fn,
    fetch_batch,
    to_tensors,
    wrap_batch,
)
from dygraph.io.dataset import IterableDataset
from dygraph.io.sampler import BatchSampler, RandomSampler, SequenceSampler

__all__ = ["DataLoader"]


def _check_int(name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"DataLoader: {name} should be an integer >= {minimum}, but got "
                         f"{value!r}")
    return int(value)


class DataLoader:
    """Iterate a dataset in batches; each batch is a list of Tensors (one per sample field).

    Map-style datasets are visited through `batch_sampler`, or through a BatchSampler built
    from `batch_size`, `shuffle` and `drop_last` (`batch_size=None` turns batching off).
    An IterableDataset is read in order and grouped by `batch_size`.

    `collate_fn(list_of_samples)` builds a batch; the default stacks arrays, numbers and
    Tensors field by field into NumPy arrays (nested dicts and lists kept) and the loader
    turns them into Tensors on the current device.

    With `num_workers > 0` samples are loaded in worker processes ('fork' where available,
    else the platform default; `multiprocessing_context` may name another start method, a
    DyGraph extension), `prefetch_factor` batches per worker ahead of use. `worker_init_fn`
    runs in each worker with its id; `dygraph.io.get_worker_info()` describes the worker
    inside it. Each worker iterates its own copy of an IterableDataset: shard in `__iter__`
    with get_worker_info(), or every sample comes `num_workers` times. An error in a worker
    is raised in the main process with the worker's traceback; a worker that dies (a crash,
    or SIGKILL from the out-of-memory killer, even halfway through sending a batch) raises
    RuntimeError "DataLoader worker N ... exited unexpectedly" with its exit code or signal;
    `timeout` > 0 bounds the wait for one batch (RuntimeError). `persistent_workers=True`
    keeps the workers between epochs.

    `feed_list`, `places`, `use_buffer_reader` and `use_shared_memory` are accepted for
    Paddle compatibility: batches always go to the current device, batches from workers
    travel through pipes, and there is no background thread in the main process (it would
    draw from the global random generator concurrently with the model and break
    `dygraph.seed` reproducibility). With `return_list=False` and a `feed_list`, a batch is
    a dict keyed by the feed variables' names.

    Example:
        >>> import numpy as np
        >>> ds = [{"x": np.ones(3), "y": i} for i in range(4)]
        >>> batch = next(iter(DataLoader(ds, batch_size=4)))
        >>> batch["x"].shape, batch["y"].numpy().tolist()
        ([4, 3], [0, 1, 2, 3])
    """

    def __init__(self, dataset, feed_list=None, places=None, return_list=True,
                 batch_sampler=None, batch_size=1, shuffle=False, drop_last=False,
                 collate_fn=None, num_workers=0, use_buffer_reader=True, prefetch_factor=2,
                 use_shared_memory=True, timeout=0, worker_init_fn=None,
                 persistent_workers=False, *, multiprocessing_context=None):
        self.dataset = dataset
        self.feed_list = feed_list
        self.places = places
        self.return_list = return_list
        self.use_buffer_reader = use_buffer_reader
        self.use_shared_memory = use_shared_memory
        self.num_workers = _check_int("num_workers", num_workers, 0)
        self.prefetch_factor = _check_int("prefetch_factor", prefetch_factor, 1)
        if not isinstance(timeout, numbers.Real) or timeout < 0:
            raise ValueError(f"DataLoader: timeout should be a number >= 0, but got {timeout!r}")
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.persistent_workers = bool(persistent_workers) and self.num_workers > 0
        self.multiprocessing_context = multiprocessing_context
        self._iterable = isinstance(dataset, IterableDataset)
        self._setup_sampling(batch_sampler, batch_size, shuffle, drop_last)
        self.collate_fn = collate_fn or (default_collate_fn if self._auto_collate
                                         else default_convert_fn)
        self._feed_names = None
        if not return_list and feed_list:
            self._feed_names = [getattr(var, "name", var) for var in feed_list]
        self._iterator = None

    def _setup_sampling(self, batch_sampler, batch_size, shuffle, drop_last):
        if batch_size is not None:
            batch_size = _check_int("batch_size", batch_size, 1)
        if self._iterable:
            if shuffle:
                raise ValueError("DataLoader: an IterableDataset cannot be shuffled "
                                 "(shuffle=True); shuffle inside the dataset")
            if batch_sampler is not None:
                raise ValueError("DataLoader: an IterableDataset has no indices, so "
                                 "batch_sampler cannot be used with it")
            sampler = None
        elif batch_sampler is not None:
            if batch_size != 1 or shuffle or drop_last:
                raise ValueError("DataLoader: batch_size, shuffle and drop_last should not be "
                                 "set when batch_sampler is given")
            batch_size, drop_last = getattr(batch_sampler, "batch_size", None), False
            sampler = batch_sampler
        elif batch_size is None:
            sampler = RandomSampler(self.dataset) if shuffle else SequenceSampler(self.dataset)
        else:
            sampler = batch_sampler = BatchSampler(self.dataset, shuffle=shuffle,
                                                   batch_size=batch_size, drop_last=drop_last)
        self.batch_sampler = batch_sampler
        self.batch_size = batch_size
        self.drop_last = bool(drop_last)
        self._auto_collate = batch_sampler is not None or (self._iterable and
                                                           batch_size is not None)
        self._index_sampler = sampler

    def __len__(self):
        if self._iterable:
            raise TypeError("DataLoader: a loader over an IterableDataset has no length")
        return len(self._index_sampler)

    def __iter__(self):
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        from dygraph.io.multiprocess import MultiProcessIter

        if self.persistent_workers and self._iterator is not None and self._iterator.alive:
            self._iterator.reset()
            return self._iterator
        iterator = MultiProcessIter(self, self.multiprocessing_context)
        if self.persistent_workers:
            self._iterator = iterator
        return iterator

    def __call__(self):
        """`loader()` is `iter(loader)`, as the 1.x API iterates `for data in loader():`."""
        return self.__iter__()

    @staticmethod
    def from_generator(feed_list=None, capacity=None, use_double_buffer=True, iterable=True,
                       return_list=False, use_multiprocess=False, drop_last=True):
        """A loader fed by a Python generator (the 1.x API); see GeneratorLoader.

        Example:
            >>> import numpy as np
            >>> loader = DataLoader.from_generator(capacity=2, return_list=True)
            >>> _ = loader.set_batch_generator(lambda: iter([(np.zeros((2, 3)),)]))
            >>> [b[0].shape for b in loader()]
            [[2, 3]]
        """
        from dygraph.io.generator_loader import GeneratorLoader

        return GeneratorLoader(feed_list, capacity, use_double_buffer, iterable, return_list,
                               use_multiprocess, drop_last)


class _SingleProcessIter:
    """Loads every batch in the main process, when it is asked for."""

    def __init__(self, loader):
        self.dataset = loader.dataset
        self.collate_fn = loader.collate_fn
        self.auto_collate = loader._auto_collate
        self.feed_names = loader._feed_names
        if loader._iterable:
            self.samples = iter(loader.dataset)
            self.batch_size = loader.batch_size
            self.drop_last = loader.drop_last
            self.indices = None
        else:
            self.indices = iter(loader._index_sampler)

    def __iter__(self):
        return self

    def __next__(self):
        if self.indices is not None:
            data = fetch_batch(self.dataset, next(self.indices), self.collate_fn,
                               self.auto_collate)
        elif not self.auto_collate:
            data = self.collate_fn(next(self.samples))
        else:
            batch = [sample for _, sample in zip(range(self.batch_size), self.samples)]
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                raise StopIteration
            data = self.collate_fn(batch)
        return wrap_batch(to_tensors(data), self.feed_names)
