"""`DataLoader.from_generator`: the 1.x loader fed by Python generator functions.

Example:
    >>> import numpy as np
    >>> def samples():
    ...     for i in range(5):
    ...         yield np.full(2, i, np.float32), i
    >>> loader = GeneratorLoader(return_list=True).set_sample_generator(samples, 2)
    >>> [y.numpy().tolist() for _, y in loader()]
    [[0, 1], [2, 3]]
"""

from dygraph.io.collate import default_collate_fn, to_tensors, wrap_batch

__all__ = ["GeneratorLoader"]


def _as_fields(sample):
    return sample if isinstance(sample, (list, tuple)) else (sample,)


class GeneratorLoader:
    """Batches from a generator function, as Paddle's `DataLoader.from_generator` gives.

    Set the source with one of `set_sample_generator` (a reader of single samples, grouped
    by `batch_size`), `set_sample_list_generator` (a reader of sample lists, e.g. from
    `dygraph.batch`) or `set_batch_generator` (a reader of ready batches); then iterate
    `loader()`. Each batch is a list of Tensors. In dynamic mode the loader is always
    iterable; `capacity`, `use_double_buffer`, `use_multiprocess` and `places` are accepted
    for compatibility and the batches are read when asked for.

    Example:
        >>> import numpy as np
        >>> loader = GeneratorLoader(return_list=True)
        >>> _ = loader.set_batch_generator(lambda: iter([np.ones((3, 2))]))
        >>> [b[0].shape for b in loader]
        [[3, 2]]
    """

    def __init__(self, feed_list=None, capacity=None, use_double_buffer=True, iterable=True,
                 return_list=False, use_multiprocess=False, drop_last=True):
        if not iterable:
            raise ValueError("DataLoader.from_generator: only iterable=True loaders exist in "
                             "dynamic mode; iterate the loader instead of start()/reset()")
        self.feed_list = feed_list
        self.capacity = capacity
        self.return_list = return_list
        self.drop_last = drop_last
        self._feed_names = None
        if not return_list and feed_list:
            self._feed_names = [getattr(var, "name", var) for var in feed_list]
        self._batch_reader = None

    def set_sample_generator(self, reader, batch_size, drop_last=True, places=None):
        """Read single samples from `reader()` and group them into batches of `batch_size`."""
        from dygraph.reader import batch

        return self.set_sample_list_generator(batch(reader, batch_size, drop_last), places)

    def set_sample_list_generator(self, reader, places=None):
        """Read lists of samples from `reader()`; each list becomes one batch."""
        def batches():
            for samples in reader():
                yield default_collate_fn([_as_fields(s) for s in samples])

        self._batch_reader = batches
        return self

    def set_batch_generator(self, reader, places=None):
        """Read ready batches (an array, or a tuple/list of arrays) from `reader()`."""
        self._batch_reader = reader
        return self

    def __iter__(self):
        if self._batch_reader is None:
            raise RuntimeError("DataLoader.from_generator: set a source first with "
                               "set_sample_generator, set_sample_list_generator or "
                               "set_batch_generator")
        for batch in self._batch_reader():
            yield wrap_batch(to_tensors(list(_as_fields(batch))), self._feed_names)

    def __call__(self):
        return self.__iter__()
