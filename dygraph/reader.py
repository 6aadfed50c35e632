"""The 1.x reader API: a *reader* is a function with no arguments that returns an iterator
of samples; decorators build new readers from old ones.

`dygraph.batch` (Paddle's `paddle.batch`) groups samples into lists; `shuffle`, `chain`,
`compose`, `buffered`, `map_readers`, `firstn`, `xmap_readers`, `cache` and
`distributed_batch_reader` are the classic decorators. Random orders come from
`dygraph.seed`'s generator.

Example:
    >>> import dygraph
    >>> reader = lambda: iter(range(5))
    >>> list(dygraph.batch(reader, 2)())
    [[0, 1], [2, 3], [4]]
"""

import itertools
import os
import queue
import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

from dygraph.framework.random import rng

_END = object()  # marks the end of a stream

__all__ = ["batch", "shuffle", "chain", "compose", "buffered", "map_readers", "firstn",
           "xmap_readers", "cache", "distributed_batch_reader", "ComposeNotAligned"]


def batch(reader, batch_size, drop_last=False):
    """A reader of lists of `batch_size` samples (the last one shorter unless `drop_last`).

    Example:
        >>> list(batch(lambda: iter(range(5)), 2, drop_last=True)())
        [[0, 1], [2, 3]]
    """
    try:
        size = int(batch_size)  # Paddle accepts np.int64(64) and 64.0 alike
    except (TypeError, ValueError):
        size = 0
    if isinstance(batch_size, bool) or size <= 0 or size != batch_size:
        raise ValueError(f"batch_size should be a positive integer value, but got "
                         f"batch_size={batch_size!r}")
    batch_size = size

    def batch_reader():
        samples = iter(reader())
        while True:
            chunk = list(itertools.islice(samples, batch_size))
            if not chunk or (drop_last and len(chunk) < batch_size):
                return
            yield chunk

    return batch_reader


def shuffle(reader, buf_size):
    """Shuffle within windows of `buf_size` samples: fill a buffer, shuffle it, emit it.

    Example:
        >>> sorted(shuffle(lambda: iter(range(6)), 4)())
        [0, 1, 2, 3, 4, 5]
    """
    if buf_size <= 0:
        raise ValueError(f"shuffle: buf_size should be positive, but got {buf_size!r}")

    def shuffled():
        samples = iter(reader())
        while True:
            buf = list(itertools.islice(samples, buf_size))
            if not buf:
                return
            for i in rng().permutation(len(buf)).tolist():
                yield buf[i]

    return shuffled


def chain(*readers):
    """One reader after another.

    Example:
        >>> list(chain(lambda: iter([1]), lambda: iter([2, 3]))())
        [1, 2, 3]
    """
    def chained():
        for r in readers:
            yield from r()

    return chained


class ComposeNotAligned(ValueError):
    """The readers given to `compose` ended at different lengths."""


def compose(*readers, check_alignment=True):
    """Zip readers into one whose samples join their outputs (tuples are flattened).

    Example:
        >>> list(compose(lambda: iter([1, 2]), lambda: iter([(3, 4), (5, 6)]))())
        [(1, 3, 4), (2, 5, 6)]
    """
    def as_tuple(x):
        return x if isinstance(x, tuple) else (x,)

    def composed():
        iterators = [iter(r()) for r in readers]
        if not check_alignment:
            for items in zip(*iterators):
                yield sum((as_tuple(x) for x in items), ())
            return
        for items in itertools.zip_longest(*iterators, fillvalue=_END):
            if any(x is _END for x in items):
                raise ComposeNotAligned("compose: the readers have different lengths")
            yield sum((as_tuple(x) for x in items), ())

    return composed


def buffered(reader, size):
    """Read ahead up to `size` samples in a background thread.

    Example:
        >>> list(buffered(lambda: iter(range(3)), 2)())
        [0, 1, 2]
    """
    def buffered_reader():
        q = queue.Queue(maxsize=size)
        errors = []
        stop = threading.Event()

        def put(item):
            # Give up when the consumer has stopped, instead of blocking on a full queue.
            while not stop.is_set():
                try:
                    q.put(item, timeout=0.1)
                    return True
                except queue.Full:
                    continue
            return False

        def fill():
            try:
                for sample in reader():
                    if not put(sample):
                        return
            except Exception as exc:  # re-raised in the consumer
                errors.append(exc)
            put(_END)

        thread = threading.Thread(target=fill, daemon=True)
        thread.start()
        try:
            while (sample := q.get()) is not _END:
                yield sample
        finally:
            stop.set()
        if errors:
            raise errors[0]

    return buffered_reader


def map_readers(func, *readers):
    """A reader of `func(*samples)` over the zipped readers.

    Example:
        >>> list(map_readers(lambda a, b: a + b, lambda: iter([1, 2]), lambda: iter([10, 20]))())
        [11, 22]
    """
    def mapped():
        for items in zip(*[r() for r in readers]):
            yield func(*items)

    return mapped


def firstn(reader, n):
    """The first `n` samples of a reader.

    Example:
        >>> list(firstn(lambda: iter(range(10)), 3)())
        [0, 1, 2]
    """
    def first():
        yield from itertools.islice(reader(), n)

    return first


def xmap_readers(mapper, reader, process_num, buffer_size, order=False):
    """Map samples with `process_num` threads, keeping up to `buffer_size` in flight; `order`
    keeps the input order (else samples come as they finish).

    Example:
        >>> list(xmap_readers(lambda x: x * 2, lambda: iter(range(4)), 2, 4, order=True)())
        [0, 2, 4, 6]
    """
    def xmapped():
        window = max(int(buffer_size), 1)
        with ThreadPoolExecutor(max_workers=max(int(process_num), 1)) as pool:
            pending = []
            for sample in reader():
                pending.append(pool.submit(mapper, sample))
                if len(pending) >= window:
                    yield _pop_future(pending, order).result()
            while pending:
                yield _pop_future(pending, order).result()

    return xmapped


def _pop_future(pending, order):
    if order:
        return pending.pop(0)
    done, _ = wait(pending, return_when=FIRST_COMPLETED)
    future = next(f for f in pending if f in done)
    pending.remove(future)
    return future


def cache(reader):
    """Read everything once, then replay it from memory.

    Example:
        >>> r = cache(lambda: iter([1, 2])); list(r()) + list(r())
        [1, 2, 1, 2]
    """
    data = []
    loaded = []

    def cached():
        if not loaded:
            data.extend(reader())
            loaded.append(True)
        return iter(data)

    return cached


def distributed_batch_reader(batch_reader):
    """For multi-process training: trainer `PADDLE_TRAINER_ID` of `PADDLE_TRAINERS_NUM` keeps
    batch `trainer_id` of every group of `trainers_num` batches (an incomplete last group is
    dropped, so every trainer sees as many batches).

    Example:
        >>> list(distributed_batch_reader(lambda: iter([[1], [2], [3]]))())
        [[1], [2], [3]]
    """
    trainers = int(os.environ.get("PADDLE_TRAINERS_NUM", "1"))
    trainer_id = int(os.environ.get("PADDLE_TRAINER_ID", "0"))
    if not 0 <= trainer_id < trainers:
        raise ValueError(f"distributed_batch_reader: PADDLE_TRAINER_ID={trainer_id} should be "
                         f"in [0, PADDLE_TRAINERS_NUM={trainers})")

    def shard():
        batches = iter(batch_reader())
        while True:
            group = list(itertools.islice(batches, trainers))
            if len(group) < trainers:
                return
            yield group[trainer_id]

    return shard
