"""Intra-op parallelism over the batch, for NumPy kernels that stream through memory.

BLAS products already use every core; element-wise NumPy kernels use one. A kernel made of
many passes over large arrays (the depthwise convolution) can run on several cores by
splitting the batch: NumPy releases the GIL inside each pass, so the chunks' passes
overlap. Alone, such a kernel runs faster in two chunks on two cores. Inside a model's
training step it does not pay there: after each product OpenBLAS's threads spin on the
other cores for a while, and the second chunk competes with them. So it is off by default
(one chunk): `set_num_threads(n)` or DYGRAPH_NUM_THREADS=n turns it on, for machines with
cores to spare (figures: docs/PERFORMANCE.md#blas-and-threads). Work below _MIN_CHUNK
elements a chunk runs in the calling thread, where a hand-off would cost more than it
saves; a worker never splits again.

Chunk functions write to preallocated slices only: the buffers (and the workspace they
come from) are taken by the caller, so nothing shared is allocated or mutated across
threads.

Example:
    >>> import numpy as np
    >>> out = np.empty(6)
    >>> def fill(lo, hi):
    ...     out[lo:hi] = np.arange(lo, hi) * 2
    >>> over_batch(np, fill, 6, 6)
    >>> out.tolist()
    [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
"""

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

__all__ = ["over_batch", "num_threads", "set_num_threads"]

# Elements per chunk below which a split does not pay (a thread hand-off costs tens of
# microseconds).
_MIN_CHUNK = 1 << 16
_STATE = {"pool": None, "size": 0, "pid": None, "override": None}
_LOCAL = threading.local()
_LOCK = threading.Lock()


def set_num_threads(n):
    """Threads for the batch-parallel kernels (None: the default, DYGRAPH_NUM_THREADS or 1).

    Example:
        >>> set_num_threads(1); num_threads()
        1
        >>> set_num_threads(None)
    """
    if n is not None and int(n) < 1:
        raise ValueError(f"set_num_threads: expected a count >= 1 or None, got {n}")
    _STATE["override"] = None if n is None else int(n)


def num_threads():
    """How many chunks a batch-parallel kernel runs in at most.

    Example:
        >>> num_threads() >= 1
        True
    """
    if _STATE["override"] is not None:
        return _STATE["override"]
    return max(int(os.environ.get("DYGRAPH_NUM_THREADS", 1) or 1), 1)


def _pool(size):
    with _LOCK:
        # A forked child (a data-loader worker, a spawned rank) inherits the pool object
        # but not its threads: it makes its own.
        forked = _STATE["pid"] != os.getpid()
        if forked or _STATE["size"] < size:
            if _STATE["pool"] is not None and not forked:
                _STATE["pool"].shutdown(wait=False)
            _STATE["pool"] = ThreadPoolExecutor(size, thread_name_prefix="dygraph-batch",
                                                initializer=_mark_worker)
            _STATE["size"], _STATE["pid"] = size, os.getpid()
        return _STATE["pool"]


def _mark_worker():
    _LOCAL.worker = True


def over_batch(xp, fn, n, elements):
    """Run fn(lo, hi) over the rows [0, n) of a batch whose kernel touches `elements`
    elements: in up to num_threads() chunks at once for NumPy work big enough to split,
    else as one call. An exception in any chunk is raised here."""
    chunks = min(num_threads(), n, elements // _MIN_CHUNK)
    if chunks < 2 or xp is not np or getattr(_LOCAL, "worker", False):
        fn(0, n)
        return
    bounds = [n * i // chunks for i in range(chunks + 1)]
    pool = _pool(chunks - 1)
    futures = [pool.submit(fn, lo, hi) for lo, hi in zip(bounds[1:-1], bounds[2:])]
    error = None
    try:
        fn(bounds[0], bounds[1])
    except BaseException as exc:  # noqa: BLE001 - re-raised once every chunk is done
        error = exc
    for f in futures:  # every chunk finishes before its buffers are reused
        try:
            f.result()
        except BaseException as exc:  # noqa: BLE001
            error = error or exc
    if error is not None:
        raise error
