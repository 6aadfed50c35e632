"""The parallel environment: init_parallel_env, the world and sub-groups, ranks, barrier, and
what happens when a rank fails.

`init_parallel_env()` connects the processes of the job (started by
`python -m dygraph.distributed.launch`, `spawn`, or a plain `mpirun -n N python train.py`). A
single process not under mpirun gets a local group of one and needs no MPI. Under MPI an
uncaught exception on any rank prints its traceback, names the rank, and aborts the whole job,
so no rank waits forever for a peer that is gone; collectives that do not complete within
the timeout (DYGRAPH_DIST_TIMEOUT seconds, default 60) raise on the ranks that wait.

Example:
    >>> import dygraph.distributed as dist
    >>> group = dist.init_parallel_env()
    >>> dist.get_rank(), dist.get_world_size(), dist.is_initialized(), group.nranks
    (0, 1, True, 1)
"""

import os
import sys
import traceback

from dygraph.distributed import rendezvous
from dygraph.distributed.backend import BACKENDS, LocalBackend, load_mpi
from dygraph.distributed.parallel_env import ParallelEnv, env_rank, env_world_size

__all__ = ["Group", "init_parallel_env", "is_initialized", "get_rank", "get_world_size",
           "get_group", "new_group", "barrier", "timeout", "abort_job", "get_backend",
           "is_available", "destroy_process_group", "shutdown_process_group",
           "restart_process_group"]

_DEFAULT_TIMEOUT = 60.0
_state = {"world": None, "groups": {}}


class Group:
    """A set of ranks that run collectives together. `rank` is this process's rank in the
    group (-1 outside it), `nranks` its size, `ranks` the members' global ranks.

    Example:
        >>> import dygraph.distributed as dist
        >>> g = dist.new_group([0])
        >>> g.rank, g.nranks, g.ranks, g.is_member()
        (0, 1, [0], True)
    """

    def __init__(self, backend, ranks, gid):
        self.backend = backend
        self.ranks = list(ranks)
        self.id = gid
        self.rank = backend.rank if backend is not None else -1
        self.nranks = len(self.ranks)
        self.world_size = self.nranks

    def is_member(self):
        """Whether this process belongs to the group."""
        return self.backend is not None

    def get_group_rank(self, global_rank):
        """The group rank of a global rank (-1 when it is not a member)."""
        return self.ranks.index(global_rank) if global_rank in self.ranks else -1

    def get_global_rank(self, group_rank):
        """The global rank of the group's rank `group_rank`."""
        if not 0 <= group_rank < self.nranks:
            raise ValueError(f"group rank {group_rank} is not in {self!r}")
        return self.ranks[group_rank]

    @property
    def backend_name(self):
        """The transport's name, as get_backend gives it ('MPI'; 'LOCAL' for a job of one)."""
        return (self.backend.name if self.backend is not None else "mpi").upper()

    def __repr__(self):
        return f"Group(id={self.id}, rank={self.rank}, nranks={self.nranks}, ranks={self.ranks})"


def timeout():
    """Seconds a collective may wait for its peers (DYGRAPH_DIST_TIMEOUT, default 60).

    Example:
        >>> timeout() > 0
        True
    """
    return float(os.environ.get("DYGRAPH_DIST_TIMEOUT", _DEFAULT_TIMEOUT))


def _under_mpi():
    return any(k in os.environ for k in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"))


def init_parallel_env(backend="mpi"):
    """Connect the processes of the job and return the world group (idempotent).

    Outside mpirun, with PADDLE_TRAINERS_NUM unset or 1, the group is this process alone.
    Trainers started as plain processes with Paddle's launch variables (PADDLE_TRAINER_ID,
    PADDLE_TRAINERS_NUM, PADDLE_TRAINER_ENDPOINTS) join one MPI job here (see
    `dygraph.distributed.rendezvous`). The launcher's variables are filled in when mpirun
    started the script directly, so data readers and samplers find this process's share.

    Example:
        >>> import dygraph.distributed as dist
        >>> dist.init_parallel_env().ranks
        [0]
    """
    if _state["world"] is not None:
        return _state["world"]
    expected = env_world_size()
    if backend not in BACKENDS:
        raise ValueError(f"init_parallel_env: unknown backend {backend!r}; available: "
                         f"{sorted(BACKENDS)}")
    if expected > 1 and not _under_mpi():
        transport = BACKENDS[backend](comm=_join_paddle_trainers(expected))
    elif not _under_mpi():
        transport = LocalBackend()
    elif rendezvous.REJOIN_VARIABLE in os.environ:  # restarted by trainer 0: join it
        transport = BACKENDS[backend](comm=rendezvous.rejoin(load_mpi()))
    else:
        transport = BACKENDS[backend]()
    if transport.size > 1:
        if "PADDLE_TRAINERS_NUM" in os.environ and transport.size != expected:
            raise RuntimeError(
                f"init_parallel_env: PADDLE_TRAINERS_NUM={expected} but MPI started "
                f"{transport.size} processes")
        os.environ.setdefault("PADDLE_TRAINERS_NUM", str(transport.size))
        os.environ.setdefault("PADDLE_TRAINER_ID", str(transport.rank))
        _install_abort_on_error(transport)
    world = Group(transport, range(transport.size), 0)
    _state["world"] = world
    _state["groups"] = {0: world}
    return world


def _join_paddle_trainers(expected):
    """The communicator of trainers started with Paddle's launch variables, no mpirun."""
    endpoints = [e for e in os.environ.get("PADDLE_TRAINER_ENDPOINTS", "").split(",") if e]
    if len(endpoints) != expected:
        raise RuntimeError(
            f"init_parallel_env: PADDLE_TRAINERS_NUM={expected} but this process was not "
            f"started by mpirun, and PADDLE_TRAINER_ENDPOINTS names {len(endpoints)} "
            f"trainer(s); set it to the {expected} trainers' ip:port (Paddle's launch "
            f"protocol), or start the job with `python -m dygraph.distributed.launch "
            f"--nproc_per_node {expected} train.py`, `dygraph.distributed.spawn` or "
            f"`mpirun -n {expected} python train.py`")
    rank = env_rank()
    if not 0 <= rank < expected:
        raise RuntimeError(f"init_parallel_env: PADDLE_TRAINER_ID={rank} is not one of the "
                           f"{expected} trainers")
    comm = rendezvous.join(rank, expected, endpoints, timeout())
    if comm.Get_rank() != rank or comm.Get_size() != expected:
        raise RuntimeError(f"init_parallel_env: trainer {rank} joined as rank "
                           f"{comm.Get_rank()} of {comm.Get_size()}")
    return comm


def _install_abort_on_error(transport):
    previous = sys.excepthook

    def abort_on_error(kind, value, tb):
        if issubclass(kind, KeyboardInterrupt):
            previous(kind, value, tb)
        else:
            traceback.print_exception(kind, value, tb)
        abort_job(f"{kind.__name__}: {value}")

    sys.excepthook = abort_on_error


def abort_job(reason, code=1):
    """Name this rank and the reason on stderr, then end every process of the job.

    Example:
        >>> abort_job  # doctest: +ELLIPSIS
        <function abort_job at ...>
    """
    rank = get_rank()
    sys.stderr.write(f"dygraph.distributed: rank {rank} failed ({reason}); ending all "
                     f"ranks of the job\n")
    sys.stderr.flush()
    sys.stdout.flush()
    rendezvous.end_leader()
    world = _state["world"]
    if world is None or world.backend is None:
        os._exit(code)
    world.backend.abort(code)


def is_initialized():
    """Whether init_parallel_env has run in this process.

    Example:
        >>> import dygraph.distributed as dist
        >>> _ = dist.init_parallel_env(); dist.is_initialized()
        True
    """
    return _state["world"] is not None


def get_group(group=None):
    """The group to run on: `group`, or the world (initialised on first use).

    Example:
        >>> get_group().id
        0
    """
    if group is None:
        return init_parallel_env()
    if isinstance(group, int):
        return _state["groups"][group]
    return group


def get_rank(group=None):
    """This process's rank in `group` (the world by default; -1 outside the group).

    Example:
        >>> get_rank()
        0
    """
    if group is None and _state["world"] is None:
        return env_rank()
    return get_group(group).rank


def get_world_size(group=None):
    """The number of processes in `group` (the world by default).

    Example:
        >>> get_world_size()
        1
    """
    if group is None and _state["world"] is None:
        return env_world_size()
    return get_group(group).nranks


def new_group(ranks=None, backend=None, timeout=None):
    """A group of the given global ranks (all ranks by default). Every rank of the world
    calls it, members or not, in the same order.

    Example:
        >>> import dygraph.distributed as dist
        >>> dist.new_group().nranks
        1
    """
    world = init_parallel_env()
    ranks = sorted(set(range(world.nranks) if ranks is None else ranks))
    for r in ranks:
        if not 0 <= r < world.nranks:
            raise ValueError(f"new_group: rank {r} is not in the world of {world.nranks} "
                             f"processes (ranks {ranks})")
    gid = max(_state["groups"]) + 1
    group = Group(world.backend.subgroup(ranks), ranks, gid)
    _state["groups"][gid] = group
    return group


def barrier(group=None):
    """Wait until every rank of the group has reached the barrier.

    Example:
        >>> import dygraph.distributed as dist
        >>> dist.barrier()
    """
    from dygraph.distributed.task import Task

    g = get_group(group)
    if g.is_member():
        Task([g.backend.barrier()], "barrier", g).wait()


def _initialized_world(name):
    if _state["world"] is None:
        raise RuntimeError(f"{name}: the global group is not initialized; call "
                           f"init_parallel_env() first")
    return _state["world"]


def get_backend(group=None):
    """The name of the transport of `group` (the world by default): 'MPI' in a job of
    several processes, 'LOCAL' in a job of one. Paddle names its own ('NCCL', 'GLOO').

    Example:
        >>> import dygraph.distributed as dist
        >>> _ = dist.init_parallel_env(); dist.get_backend()
        'LOCAL'
    """
    world = _initialized_world("get_backend")
    return (world if group is None else get_group(group)).backend_name


def is_available():
    """Whether multi-process training can run here: mpi4py and an MPI library import.

    Example:
        >>> import dygraph.distributed as dist
        >>> isinstance(dist.is_available(), bool)
        True
    """
    import importlib.util

    return importlib.util.find_spec("mpi4py") is not None


def destroy_process_group(group=None):
    """Release `group`; without one, release every group and end the parallel environment
    (is_initialized() is then False, and init_parallel_env() connects again).

    Example:
        >>> import dygraph.distributed as dist
        >>> _ = dist.init_parallel_env()
        >>> dist.destroy_process_group(); dist.is_initialized()
        False
    """
    world = _initialized_world("destroy_process_group")
    if group is not None:
        g = get_group(group)
        if g.id == 0:
            raise ValueError("destroy_process_group: the world group is destroyed with "
                             "destroy_process_group() (no argument)")
        if g.is_member():
            g.backend.shutdown()
        _state["groups"].pop(g.id, None)
        return
    for g in _state["groups"].values():
        if g.is_member() and g is not world:
            g.backend.shutdown()
    if world.backend is not None:
        world.backend.shutdown()
    _state["world"] = None
    _state["groups"] = {}


def shutdown_process_group(group=None):
    """Free the communicator of `group` (of every group but the world without one); the
    group's collectives raise until restart_process_group makes a new one.

    Example:
        >>> import dygraph.distributed as dist
        >>> g = dist.new_group([0])
        >>> dist.shutdown_process_group(g); dist.restart_process_group(g)
    """
    _initialized_world("shutdown_process_group")
    groups = [get_group(group)] if group is not None else [
        g for gid, g in _state["groups"].items() if gid != 0]
    for g in groups:
        if g.is_member():
            g.backend.shutdown()


def restart_process_group(group=None):
    """Make a new communicator for `group` (for every group that was shut down without
    one). Each member of the group calls it.

    Example:
        >>> import dygraph.distributed as dist
        >>> dist.restart_process_group()
    """
    _initialized_world("restart_process_group")
    groups = [get_group(group)] if group is not None else list(_state["groups"].values())
    for g in groups:
        if g.is_member() and g.backend.closed:
            g.backend.restart()


__all__ += ["ParallelEnv"]
