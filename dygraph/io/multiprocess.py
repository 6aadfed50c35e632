"""The DataLoader iterator with worker processes: prefetching, in-order results, clean exit.

Every worker has a task pipe and a result pipe. Tasks go round-robin to the workers and a
worker answers its tasks in the order received, so batch k is simply the next answer of the
worker that got task k. At most `prefetch_factor` tasks per worker are in flight. Workers
end when the iterator is exhausted (unless persistent), on an error, when the iterator is
garbage collected and at interpreter exit.
"""

import multiprocessing
import multiprocessing.connection
import pickle
import signal
import time
import weakref

from dygraph.framework.random import rng
from dygraph.io.collate import to_tensors, wrap_batch
from dygraph.io.worker import POLL_INTERVAL, WorkerError, _IterableEnd, worker_loop

# Seconds a worker gets to finish after being told to stop, before it is terminated.
SHUTDOWN_TIMEOUT = 5.0


def _context(start_method):
    if start_method is None:
        methods = multiprocessing.get_all_start_methods()
        # fork starts workers in milliseconds; everything also works under spawn.
        return multiprocessing.get_context("fork" if "fork" in methods else None)
    if isinstance(start_method, str):
        return multiprocessing.get_context(start_method)
    return start_method


def _shutdown(workers, task_conns, result_conns, graceful=True):
    """Stop every worker: ask, drain their pipes while they finish, then terminate.

    After an error there is nothing left to wait for, so `graceful=False` terminates at once.
    """
    for conn in task_conns:
        try:
            conn.send(None)
        except (OSError, ValueError):
            pass
    open_results = {conn for conn in result_conns if not conn.closed}
    deadline = time.monotonic() + (SHUTDOWN_TIMEOUT if graceful else 0.0)
    while any(p.is_alive() for p in workers) and time.monotonic() < deadline:
        # A worker blocked sending a prefetched batch can only exit once it is read.
        for conn in multiprocessing.connection.wait(list(open_results), timeout=0.05):
            try:
                conn.recv_bytes()
            except (EOFError, OSError):
                open_results.discard(conn)
        if not open_results:
            time.sleep(0.01)
    for p in workers:
        if p.is_alive():
            p.terminate()
    for p in workers:
        p.join(timeout=1.0)
    for conn in task_conns + result_conns:
        conn.close()


def _exit_status(code):
    """How a worker process ended, as the end of a sentence: its exit code, or the signal
    that killed it (multiprocessing reports signal N as exit code -N).

    Example:
        >>> _exit_status(7), _exit_status(-15)
        (' with exit code 7', ': killed by SIGTERM (exit code -15)')
    """
    if code is None:
        return " (its pipe closed, but it has not ended yet)"
    if code >= 0:
        return f" with exit code {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = f"signal {-code}"
    hint = ", e.g. by the out-of-memory killer" if name == "SIGKILL" else ""
    return f": killed by {name} (exit code {code}){hint}"


class MultiProcessIter:
    """Iterates a DataLoader with `num_workers` worker processes."""

    def __init__(self, loader, start_method=None):
        self.num_workers = loader.num_workers
        self.timeout = loader.timeout
        self.prefetch = loader.prefetch_factor * loader.num_workers
        self.persistent = loader.persistent_workers
        self.iterable = loader._iterable
        self.index_sampler = loader._index_sampler
        self.feed_names = loader._feed_names
        config = {"dataset": loader.dataset, "collate_fn": loader.collate_fn,
                  "auto_collate": loader._auto_collate, "batch_size": loader.batch_size,
                  "drop_last": loader.drop_last, "iterable": self.iterable,
                  "worker_init_fn": loader.worker_init_fn, "num_workers": self.num_workers}
        # The sampler draws its order first, so the order is the same with or without workers.
        self.epoch = 0
        self.index_iter = None if self.iterable else iter(self.index_sampler)
        # Drawn from the global generator so that dygraph.seed fixes the workers' seeds.
        base_seed = int(rng().integers(0, 2**62))
        ctx = _context(start_method)
        self.workers, self.task_conns, self.result_conns = [], [], []
        self._finalizer = weakref.finalize(self, _shutdown, self.workers, self.task_conns,
                                           self.result_conns)
        for worker_id in range(self.num_workers):
            task_r, task_w = ctx.Pipe(duplex=False)
            result_r, result_w = ctx.Pipe(duplex=False)
            process = ctx.Process(target=worker_loop, daemon=True,
                                  args=(config, task_r, result_w, worker_id,
                                        base_seed + worker_id))
            self.task_conns.append(task_w)
            self.result_conns.append(result_r)
            try:
                process.start()
            except (pickle.PicklingError, AttributeError, TypeError) as exc:
                for conn in (task_r, result_w):
                    conn.close()
                self._finalizer()
                raise RuntimeError(
                    f"DataLoader: cannot start worker processes with the "
                    f"'{ctx.get_start_method()}' start method because the dataset, collate_fn "
                    f"or worker_init_fn cannot be pickled ({exc}); define them at module "
                    f"level, or use num_workers=0") from exc
            self.workers.append(process)
            # Only the worker keeps these ends: then a dead worker shows as EOF here.
            task_r.close()
            result_w.close()
        self._start()

    @property
    def alive(self):
        return self._finalizer.alive

    def reset(self):
        """Start a new pass over the data (persistent workers keep running)."""
        self.epoch += 1
        self.index_iter = None if self.iterable else iter(self.index_sampler)
        self._start()

    def _start(self):
        self.active = [True] * self.num_workers
        self.cursor = 0
        self.send_idx = 0
        self.rcvd_idx = 0
        self.owner = {}
        try:
            for _ in range(self.prefetch):
                if not self._dispatch():
                    break
        except BaseException:
            self.close(graceful=False)
            raise

    def _dispatch(self):
        """Send the next task to the next active worker; False when there is none to send."""
        if not any(self.active):
            return False
        indices = None
        if self.index_iter is not None:
            indices = next(self.index_iter, None)
            if indices is None:
                self.index_iter = None
                self.active = [False] * self.num_workers
                return False
        while not self.active[self.cursor]:
            self.cursor = (self.cursor + 1) % self.num_workers
        worker = self.cursor
        self.cursor = (self.cursor + 1) % self.num_workers
        try:
            self.task_conns[worker].send((self.epoch, self.send_idx, indices))
        except OSError:
            raise self._died(worker) from None
        self.owner[self.send_idx] = worker
        self.send_idx += 1
        return True

    def __iter__(self):
        return self

    def __next__(self):
        if not self.alive:
            raise StopIteration
        try:
            while self.rcvd_idx < self.send_idx:
                worker = self.owner.pop(self.rcvd_idx)
                data = self._receive(worker)
                self.rcvd_idx += 1
                if isinstance(data, _IterableEnd):
                    self.active[worker] = False
                    continue
                if isinstance(data, WorkerError):
                    raise data.build()
                self._dispatch()
                return wrap_batch(to_tensors(data), self.feed_names)
        except BaseException:
            self.close(graceful=False)
            raise
        if not self.persistent:
            self.close()
        raise StopIteration

    def _receive(self, worker):
        """The next answer of `worker` for this epoch (older epochs' answers are dropped)."""
        conn = self.result_conns[worker]
        deadline = time.monotonic() + self.timeout if self.timeout > 0 else None
        while True:
            wait = POLL_INTERVAL if deadline is None else min(POLL_INTERVAL,
                                                             deadline - time.monotonic())
            if conn.poll(max(wait, 0.0)):
                try:
                    epoch, _, data = conn.recv()
                except (EOFError, OSError):
                    # EOFError: the worker died between messages; OSError ("got end of file
                    # during message", a reset connection): it died while sending one.
                    raise self._died(worker) from None
                if epoch == self.epoch:
                    return data
                continue
            if not self.workers[worker].is_alive():
                raise self._died(worker)
            if deadline is not None and time.monotonic() >= deadline:
                raise RuntimeError(f"DataLoader timed out: batch {self.rcvd_idx} was not "
                                   f"ready from worker {worker} after {self.timeout} seconds "
                                   f"(timeout={self.timeout})")

    def _died(self, worker):
        process = self.workers[worker]
        process.join(timeout=1.0)
        return RuntimeError(f"DataLoader worker {worker} (pid {process.pid}) exited "
                            f"unexpectedly{_exit_status(process.exitcode)}")

    def close(self, graceful=True):
        """Stop the workers now (see `_shutdown`)."""
        state = self._finalizer.detach()
        if state is not None:
            _shutdown(*state[2], graceful=graceful)
