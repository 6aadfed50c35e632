"""The gradient reducer of DataParallel: buckets of gradients all-reduced while backward runs.

Parameters are taken in reverse order (roughly the order backward produces their gradients)
and grouped by dtype into buckets: the first holds up to `last_comm_buffer_size` MB, the
others up to `comm_buffer_size` MB, as in Paddle. A gradient hook on each parameter copies its
gradient (plus what an earlier no_sync step accumulated) into its bucket's flat buffer; when
a bucket's last gradient arrives, the bucket starts a non-blocking all-reduce, so the
communication runs while backward computes the gradients of the layers below. Buckets start
in the same order on every rank (a bucket waits for the ones before it). When backward ends,
the reducer waits for the buckets, averages (or sums, for the 1.x API) and writes the
results back into the parameters' gradients.

Example:
    >>> import dygraph
    >>> import dygraph.distributed as dist
    >>> from dygraph.distributed.reducer import Reducer
    >>> layer = dygraph.nn.Linear(2, 2)
    >>> [len(b.params) for b in Reducer(layer.parameters(), dist.init_parallel_env()).buckets]
    [2]
"""

import time

import numpy as np

from dygraph.autograd.engine import queue_callback
from dygraph.backend import as_numpy, place_of, to_place
from dygraph.distributed.task import Task, check_same_call
from dygraph.tensor.tensor import _new_tensor

__all__ = ["Reducer"]

_MB = 1024 * 1024


class _Bucket:
    def __init__(self, params, dtype):
        self.params = params
        self.offsets = []
        total = 0
        for p in params:
            self.offsets.append(total)
            total += p._data.size
        self.flat = np.zeros(total, dtype=dtype)
        self.ready = 0
        self.request = None
        self.started = self.finished = None  # perf_counter times of the last all-reduce

    def view(self, i):
        p, start = self.params[i], self.offsets[i]
        return self.flat[start:start + p._data.size].reshape(p._data.shape)


class Reducer:
    """Buckets for `params` that all-reduce their gradients over `group` during backward.

    `average=True` divides the sums by the number of ranks (2.x DataParallel); the 1.x API
    scales the loss instead. `find_unused_parameters=True` lets parameters that got no
    gradient in a step count as zeros; without it such a step raises a clear error.
    """

    def __init__(self, params, group, comm_buffer_size=25, last_comm_buffer_size=1,
                 find_unused_parameters=False, average=True):
        self.group = group
        self.average = average
        self.find_unused_parameters = find_unused_parameters
        self.enabled = True
        self.params = [p for p in params if not p.stop_gradient]
        self.buckets = self._assign(self.params[::-1], comm_buffer_size * _MB,
                                    last_comm_buffer_size * _MB)
        self.place = {}  # id(param) -> (bucket index, index in bucket)
        for b, bucket in enumerate(self.buckets):
            for i, p in enumerate(bucket.params):
                self.place[id(p)] = (b, i)
        self.handles = [p.register_hook(self._hook_for(p)) for p in self.params]
        # For the benchmark: time spent waiting after backward, and when the last backward
        # ended (each bucket keeps when its all-reduce started and was seen finished).
        self.exposed_wait_s = 0.0
        self.backward_end = None
        self._check_same_layout()
        self._reset()

    def _check_same_layout(self):
        """Every rank must have built the same buckets, or their all-reduces would mix
        different gradients: compare the bucket sizes of all ranks once, at the start."""
        if self.group.nranks == 1:
            return
        name = "DataParallel (gradient buckets)"
        layout = np.array([b.flat.size for b in self.buckets], dtype=np.int64)
        check_same_call(name, self.group, layout, what="model")
        rows = np.empty((self.group.nranks, layout.size), dtype=np.int64)
        Task([self.group.backend.allgather(layout, rows)], name, self.group).wait()
        if not (rows == layout).all():
            raise ValueError(f"{name}: the ranks wrap different models (gradient bucket "
                             f"sizes per rank: {rows.tolist()})")

    @staticmethod
    def _assign(params, limit, first_limit):
        buckets, current, size, dtype = [], [], 0, None
        for p in params:
            nbytes = p._data.nbytes
            cap = first_limit if not buckets else limit
            if current and (p._data.dtype != dtype or size + nbytes > cap):
                buckets.append(_Bucket(current, dtype))
                current, size = [], 0
            current.append(p)
            dtype = p._data.dtype
            size += nbytes
        if current:
            buckets.append(_Bucket(current, dtype))
        return buckets

    def _reset(self):
        self.active = False
        self.next_bucket = 0
        self.seen = set()
        for bucket in self.buckets:
            bucket.ready = 0
            bucket.request = None

    def remove(self):
        """Unregister the gradient hooks."""
        for handle in self.handles:
            handle.remove()

    # -- during backward --------------------------------------------------------------------
    def _hook_for(self, param):
        def hook(grad):
            if self.enabled and self.group.nranks > 1:
                self._mark_ready(param, grad._data)

        return hook

    def _mark_ready(self, param, grad):
        if not self.active:
            self.active = True
            queue_callback(self._finish)
        b, i = self.place[id(param)]
        bucket = self.buckets[b]
        slot = bucket.view(i)
        old = param._grad
        # The buckets live in host memory (the transport's); GPU gradients are copied in.
        if old is None:
            slot[...] = as_numpy(grad)
        else:  # gradients accumulated under no_sync() are communicated with this one
            np.add(as_numpy(old._data), as_numpy(grad), out=slot)
        self.seen.add(id(param))
        bucket.ready += 1
        self._start_ready_buckets()

    def _start_ready_buckets(self):
        while self.next_bucket < len(self.buckets):
            bucket = self.buckets[self.next_bucket]
            if bucket.ready < len(bucket.params):
                break
            bucket.request = self.group.backend.allreduce(bucket.flat, "sum")
            bucket.started = time.perf_counter()
            self.next_bucket += 1
        for bucket in self.buckets[:self.next_bucket]:
            if bucket.request is not None and bucket.request.test():  # let MPI progress
                bucket.request = None
                bucket.finished = time.perf_counter()

    # -- after backward ---------------------------------------------------------------------
    def _finish(self):
        try:
            self.backward_end = time.perf_counter()
            self._check_all_ready()
            pending = [b for b in self.buckets if b.request is not None]
            Task([b.request for b in pending], "DataParallel gradient all-reduce",
                 self.group).wait()
            now = time.perf_counter()
            for bucket in pending:
                bucket.finished = now
            self.exposed_wait_s += now - self.backward_end
            self._write_back()
        finally:
            self._reset()

    def _check_all_ready(self):
        missing = [p for p in self.params if id(p) not in self.seen]
        if missing and not self.find_unused_parameters:
            names = ", ".join(p.name for p in missing[:8])
            raise RuntimeError(
                f"DataParallel: {len(missing)} parameter(s) got no gradient in this backward "
                f"({names}{', ...' if len(missing) > 8 else ''}), so their all-reduce "
                f"cannot start and the other ranks would wait for it forever. Pass "
                f"find_unused_parameters=True to DataParallel when some parameters take no "
                f"part in a step, or stop_gradient=True on those never trained")
        for p in missing:  # unused this step: zeros, or what no_sync accumulated
            b, i = self.place[id(p)]
            slot = self.buckets[b].view(i)
            slot[...] = 0 if p._grad is None else as_numpy(p._grad._data)
            self.buckets[b].ready += 1
        self._start_ready_buckets()

    def _write_back(self):
        n = self.group.nranks
        for bucket in self.buckets:
            if self.average:
                bucket.flat /= n
            for i, p in enumerate(bucket.params):
                value = bucket.view(i)
                on_gpu = type(p._data) is not np.ndarray
                if on_gpu:  # a new device array
                    value = to_place(value, place_of(p._data))
                if p._grad is None:
                    p._grad = _new_tensor(value if on_gpu else value.copy(), None, 0, True)
                else:
                    p._grad._data[...] = value
                    p._grad._version[0] += 1
