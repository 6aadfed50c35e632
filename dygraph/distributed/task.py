"""Tasks and agreement checks under the collectives.

A Task wraps the transport's requests of one collective: `wait()` polls them with a deadline
(`env.timeout()`), first yielding the core, then sleeping up to 1 ms, so a peer that died or
went astray ends in an error rather than a hang. `check_same_call` makes every rank of a
group confirm that all called the same collective with the same shape and dtype (a small
all-gather of a fixed-size description) before any data moves.

Example:
    >>> import numpy as np
    >>> from dygraph.distributed import env
    >>> check_same_call('all_reduce', env.get_group(), np.ones(2))
"""

import time
import zlib

import numpy as np

from dygraph.distributed import env

__all__ = ["Task", "check_same_call"]


class Task:
    """A collective in flight: `wait()` completes it (and raises if the peers do not answer
    within the timeout); `is_completed()` asks without waiting.

    Example:
        >>> import dygraph
        >>> import dygraph.distributed as dist
        >>> task = dist.all_reduce(dygraph.ones([2]), sync_op=False)
        >>> task.wait(), task.is_completed()
        (True, True)
    """

    def __init__(self, requests, name, group, finish=None):
        self._requests = [r for r in requests if r is not None]
        self._name = name
        self._group = group
        self._finish = finish
        self._done = False

    def _test(self):
        self._requests = [r for r in self._requests if not r.test()]
        return not self._requests

    def is_completed(self):
        """Whether the communication has finished (finishing the task if it has)."""
        if not self._done and self._test():
            self._complete()
        return self._done

    def wait(self):
        """Block until the collective completes; True."""
        if self._done:
            return True
        limit = env.timeout()
        deadline = time.monotonic() + limit
        spins = 0
        while not self._test():
            spins += 1
            if spins < 2000:  # a peer a little behind: give up the core briefly, keep polling
                time.sleep(0)
                continue
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"{self._name}: rank {env.get_rank()} waited {limit:g} s for the other "
                    f"ranks of {self._group!r} without an answer: a rank failed, stopped, or "
                    f"called a different collective (the limit is DYGRAPH_DIST_TIMEOUT, or "
                    f"launch --timeout)")
            time.sleep(min(1e-3, 1e-7 * spins))  # a peer far behind: sleep, up to 1 ms
        self._complete()
        return True

    def _complete(self):
        self._done = True
        if self._finish is not None:
            finish, self._finish = self._finish, None
            finish()


# -- checks -----------------------------------------------------------------------------------
_META = 16


def _meta(name, array, extra=0):
    code = zlib.crc32(name.encode()) & 0x7FFFFFFF
    shape = list(array.shape) if array is not None else [-1]
    dtype = zlib.crc32(str(array.dtype).encode()) & 0x7FFFFFFF if array is not None else -1
    row = [code, dtype, extra, len(shape)] + shape[:_META - 4]
    if len(shape) > _META - 4:
        row[-1] = zlib.crc32(str(shape).encode())
    return np.array(row + [0] * (_META - len(row)), dtype=np.int64)


def _describe(row):
    ndim = int(row[3])
    return f"shape {[int(d) for d in row[4:4 + min(ndim, _META - 4)]]}"


def check_same_call(name, group, array, extra=0, what="tensor"):
    """Raise ValueError on every rank unless all ranks of `group` called collective `name`
    with the same shape and dtype (and the same `extra`: a root rank, say).

    Example:
        >>> import numpy as np
        >>> check_same_call('all_reduce', env.get_group(), np.ones(2))
    """
    backend = group.backend
    if backend.size == 1:
        return
    mine = _meta(name, array, extra)
    rows = np.empty((backend.size, _META), dtype=np.int64)
    Task([backend.allgather(mine, rows)], f"{name} (checking the ranks agree)", group).wait()
    if (rows == mine).all():
        return
    if not (rows[:, 0] == mine[0]).all():
        raise RuntimeError(f"{name}: the ranks of the group called different collectives at "
                           f"this point (rank {env.get_rank()} called {name})")
    lines = []
    for r, row in enumerate(rows):
        lines.append(f"rank {group.ranks[r]}: {_describe(row)}")
    detail = "; ".join(lines)
    if not (rows[:, 2] == mine[2]).all():
        raise ValueError(f"{name}: the ranks disagree on the root/peer rank ({detail})")
    raise ValueError(f"{name}: every rank must pass a {what} of the same shape and dtype, "
                     f"but they differ ({detail}; this rank has {array.dtype})")
