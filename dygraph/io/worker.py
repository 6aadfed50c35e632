"""What runs inside a DataLoader worker process, and `get_worker_info()` for dataset code.

A worker reads tasks `(epoch, send_idx, indices)` from its task pipe, fetches and collates
the samples into NumPy arrays and sends `(epoch, send_idx, batch)` back on its result pipe.
Errors travel as `WorkerError` (type, message, formatted traceback); the main process
re-raises them. `None` on the task pipe (or a closed pipe, or a dead parent) ends the loop.

Example:
    >>> get_worker_info() is None  # in the main process
    True
"""

import os
import pickle
import random
import traceback

import numpy as np

from dygraph.io.collate import fetch_batch

__all__ = ["WorkerInfo", "get_worker_info"]

# How often an idle worker checks that its parent process is still alive (seconds).
POLL_INTERVAL = 1.0

_worker_info = None


class WorkerInfo:
    """Facts about the current worker: `id`, `num_workers`, `seed` and its `dataset` copy.

    Example:
        >>> WorkerInfo(id=0, num_workers=2, seed=7, dataset=None).num_workers
        2
    """

    def __init__(self, id, num_workers, seed, dataset):
        self.id = id
        self.num_workers = num_workers
        self.seed = seed
        self.dataset = dataset

    def __repr__(self):
        return f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed})"


def get_worker_info():
    """The WorkerInfo of the DataLoader worker process running this code, else None.

    Use it in an IterableDataset's `__iter__` to give each worker its own share of the data,
    or in `worker_init_fn`.

    Example:
        >>> print(get_worker_info())
        None
    """
    return _worker_info


class _IterableEnd:
    """Sent by a worker whose IterableDataset copy is exhausted."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


class _KeyErrorMessage(str):
    # KeyError's str() quotes its argument; keep the multi-line message readable.
    def __repr__(self):
        return str(self)


class WorkerError:
    """An exception raised in a worker, in a form that always crosses the process boundary."""

    def __init__(self, worker_id, exc, where):
        self.worker_id = worker_id
        self.exc_type = type(exc)
        self.type_name = f"{type(exc).__module__}.{type(exc).__qualname__}"
        self.message = str(exc)
        self.traceback = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        self.where = where
        self.pid = os.getpid()
        try:
            pickle.dumps(self.exc_type)
        except Exception:  # a local exception class cannot be rebuilt in the main process
            self.exc_type = RuntimeError

    def build(self):
        """The exception to raise in the main process: the original type when it can be
        rebuilt from a message, else RuntimeError; the message names the worker and holds
        the worker's traceback."""
        text = (f"DataLoader worker {self.worker_id} (pid {self.pid}) raised {self.type_name} "
                f"{self.where}: {self.message}\n\nOriginal traceback in worker "
                f"{self.worker_id}:\n{self.traceback}")
        if self.exc_type is KeyError:
            text = _KeyErrorMessage(text)
        try:
            exc = self.exc_type(text)
            if str(exc) == text:
                return exc
        except Exception:
            pass
        return RuntimeError(text)


def _seed_everything(seed):
    from dygraph.framework.random import seed as dygraph_seed

    dygraph_seed(seed)
    np.random.seed(seed % 2**32)
    random.seed(seed)


class _IterableFetcher:
    """Pulls batches from this worker's own iterator over its IterableDataset copy."""

    def __init__(self, dataset, collate_fn, auto_collate, batch_size, drop_last):
        self.dataset = dataset
        self.collate_fn = collate_fn
        self.auto_collate = auto_collate
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.epoch = None
        self.iterator = None

    def fetch(self, epoch):
        """The next batch for `epoch`, or None when exhausted (a new epoch restarts)."""
        if epoch != self.epoch:
            self.epoch, self.iterator = epoch, iter(self.dataset)
        if self.iterator is None:
            return None
        if not self.auto_collate:
            for sample in self.iterator:
                return self.collate_fn(sample)
            self.iterator = None
            return None
        batch = []
        for sample in self.iterator:
            batch.append(sample)
            if len(batch) == self.batch_size:
                return self.collate_fn(batch)
        self.iterator = None
        if batch and not self.drop_last:
            return self.collate_fn(batch)
        return None


def _send(conn, message, worker_id):
    """Send a result; a batch that cannot be pickled is reported as an error instead."""
    try:
        conn.send(message)
    except (pickle.PicklingError, TypeError, AttributeError) as exc:
        epoch, send_idx, _ = message
        conn.send((epoch, send_idx, WorkerError(worker_id, exc, "sending a batch")))


def worker_loop(config, task_conn, result_conn, worker_id, seed):
    """Body of worker process `worker_id` (a module-level function, so 'spawn' works)."""
    global _worker_info
    from dygraph.framework.place import set_device

    # Batches go back to the main process as NumPy arrays; never touch a GPU in a worker.
    set_device("cpu")
    parent = os.getppid()
    dataset = config["dataset"]
    _worker_info = WorkerInfo(worker_id, config["num_workers"], seed, dataset)
    _seed_everything(seed)
    init_error = None
    try:
        if config["worker_init_fn"] is not None:
            config["worker_init_fn"](worker_id)
    except Exception as exc:
        init_error = WorkerError(worker_id, exc, "in worker_init_fn")
    iterable = None
    if config["iterable"]:
        iterable = _IterableFetcher(dataset, config["collate_fn"], config["auto_collate"],
                                    config["batch_size"], config["drop_last"])
    try:
        while True:
            if not task_conn.poll(POLL_INTERVAL):
                if os.getppid() != parent:
                    return
                continue
            task = task_conn.recv()
            if task is None:
                return
            epoch, send_idx, indices = task
            if init_error is not None:
                result = init_error
            else:
                try:
                    if iterable is not None:
                        result = iterable.fetch(epoch)
                        result = _IterableEnd(worker_id) if result is None else result
                    else:
                        result = fetch_batch(dataset, indices, config["collate_fn"],
                                            config["auto_collate"])
                except Exception as exc:
                    result = WorkerError(worker_id, exc, "while loading a batch")
            _send(result_conn, (epoch, send_idx, result), worker_id)
    except (EOFError, BrokenPipeError, ConnectionResetError, KeyboardInterrupt):
        return  # the main process went away or shut us down
