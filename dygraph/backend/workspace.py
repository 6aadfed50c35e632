"""Memory reused between calls of the conv and pooling kernels: scratch buffers, saved
columns (Lease) and the memory of op results (`workspace.output`).

Example:
    >>> import numpy as np
    >>> a = workspace.output(np, (256, 256), np.float32)
    >>> a.shape, a.dtype
    ((256, 256), dtype('float32'))
"""

import os

import numpy as np

__all__ = ["workspace", "Lease", "POOLED_SIZE"]

# The most memory the workspace keeps for reuse; DYGRAPH_WORKSPACE_MB lowers (or raises)
# it, and `workspace.limit` (bytes) can be set at run time. docs/MEMORY.md explains.
_DEFAULT_LIMIT_MB = 256


def _nbytes(shape, dtype):
    n = dtype.itemsize
    for s in shape:
        n *= s
    return n


# Results smaller than this come from NumPy directly (pooling them costs more than it saves).
_MIN_POOLED_BYTES = 1 << 16
# Element count from which a float32 result is pooled: hot element-wise ops test `a.size`
# against it before asking `output` (a cheaper test than output's own for small arrays).
POOLED_SIZE = _MIN_POOLED_BYTES // 4


class _Workspace:
    """Arrays reused between calls: scratch buffers keyed by shape and dtype, and the memory
    of op results (`output`), keyed by size.

    A training loop allocates the same multi-MB arrays every step. Taking them fresh from
    malloc costs a page fault per 4 KB whenever the allocator has returned the freed memory
    to the OS, which it does for blocks this big, and in a small model's step those faults
    can cost as much as the arithmetic (figures: docs/PERFORMANCE.md#workspace). Scratch
    buffers never escape a kernel; results come back through _Block once their last view is
    gone. At most `limit_bytes` are kept. NumPy only: CuPy has its own memory pool.
    """

    def __init__(self, limit_bytes=None):
        if limit_bytes is None:
            limit_bytes = int(float(os.environ.get("DYGRAPH_WORKSPACE_MB",
                                                   _DEFAULT_LIMIT_MB)) * (1 << 20))
        self.limit = limit_bytes
        self.free = {}
        self.held = 0

    def output(self, xp, shape, dtype, zero=False):
        """A new array for an op's result; its memory returns here when the array dies."""
        dtype = np.dtype(dtype)
        nbytes = _nbytes(shape, dtype)
        if xp is not np or nbytes < _MIN_POOLED_BYTES:
            return (xp.zeros if zero else xp.empty)(shape, dtype)
        stack = self.free.get(nbytes)
        if stack:
            buf = stack.pop()
            self.held -= nbytes
        else:
            buf = np.empty(nbytes, np.uint8)
        out = np.asarray(_Block(buf, shape, dtype))
        if zero:
            out.fill(0)
        return out

    def result(self, xp, shape, dtype):
        """The array an op writes its result into through `out=`: `output`'s for NumPy,
        None elsewhere, so that the op allocates it itself. CuPy's pool already reuses
        device memory, and an allocation asked for apart from the op that fills it is one
        more CuPy call: microseconds of host time, per op, on a GPU.

        Example:
            >>> workspace.result(np, (256, 256), np.float32).shape
            (256, 256)
        """
        return self.output(xp, shape, dtype) if xp is np else None

    def take(self, xp, shape, dtype):
        """A scratch array (contents undefined); `give` it back when done."""
        if xp is not np:
            return xp.empty(shape, dtype)
        # The key must equal give()'s (a.shape, a.dtype) exactly: np.bool_ and
        # dtype('bool') compare equal but hash differently, so a request made with the
        # type would never find the buffers given back under the dtype, and the pool
        # would grow every step up to its cap.
        stack = self.free.get((tuple(shape), np.dtype(dtype)))
        if stack:
            a = stack.pop()
            self.held -= a.nbytes
            return a
        return np.empty(shape, dtype)

    def give(self, a):
        if type(a) is not np.ndarray or self.held + a.nbytes > self.limit:
            return
        self.free.setdefault((a.shape, a.dtype), []).append(a)
        self.held += a.nbytes


workspace = _Workspace()


class _Block:
    """The owner of a pooled buffer behind a result array. NumPy keeps it as the array's
    base, so it lives exactly as long as the array or any view of it, then hands the buffer
    back to the workspace (a caching allocator built on reference counting)."""

    __slots__ = ("buf", "__array_interface__")

    def __init__(self, buf, shape, dtype):
        self.buf = buf
        self.__array_interface__ = {"data": (buf.__array_interface__["data"][0], False),
                                    "shape": tuple(shape), "typestr": dtype.str, "version": 3}

    def __del__(self):
        pool = workspace  # None only while the interpreter shuts down
        if pool is not None and pool.held + self.buf.nbytes <= pool.limit:
            pool.free.setdefault(self.buf.nbytes, []).append(self.buf)
            pool.held += self.buf.nbytes


class Lease:
    """Holds a workspace array for as long as something needs it (an op's saved columns) and
    gives it back when dropped, as when the engine frees the op after backward.

    Example:
        >>> lease = Lease(workspace.take(np, (2,), np.float32))
        >>> lease.array.shape
        (2,)
    """

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __del__(self):
        if workspace is not None:  # None only while the interpreter shuts down
            workspace.give(self.array)
