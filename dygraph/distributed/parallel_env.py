"""ParallelEnv: the job as the launcher describes it in environment variables.

`python -m dygraph.distributed.launch` sets Paddle's variables (PADDLE_TRAINERS_NUM,
PADDLE_TRAINER_ID, FLAGS_selected_gpus, PADDLE_TRAINER_ENDPOINTS, PADDLE_CURRENT_ENDPOINT).
A script started by a plain `mpirun -n N python train.py` has Open MPI's instead
(OMPI_COMM_WORLD_SIZE/RANK/LOCAL_RANK; PMI_SIZE/PMI_RANK with MPICH), which are read when
Paddle's are absent. Reading them needs no MPI library.

Example:
    >>> env = ParallelEnv()
    >>> env.world_size, env.rank, env.device_id
    (1, 0, 0)
"""

import os

__all__ = ["ParallelEnv", "env_world_size", "env_rank"]


def _first_int(names, default):
    for name in names:
        value = os.environ.get(name)
        if value not in (None, ""):
            return int(value)
    return default


def env_world_size():
    """The number of processes of the job, from the environment (1 outside a job).

    Example:
        >>> env_world_size()
        1
    """
    return _first_int(("PADDLE_TRAINERS_NUM", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE"), 1)


def env_rank():
    """This process's rank, from the environment (0 outside a job).

    Example:
        >>> env_rank()
        0
    """
    return _first_int(("PADDLE_TRAINER_ID", "OMPI_COMM_WORLD_RANK", "PMI_RANK"), 0)


class ParallelEnv:
    """The distributed job: world_size (nranks), rank (local_rank), device_id (dev_id) and
    the trainers' endpoints. The 1.x `fluid.dygraph.parallel.Env` is this class.

    Example:
        >>> env = ParallelEnv()
        >>> env.nranks, env.local_rank, env.dev_id, env.trainer_endpoints
        (1, 0, 0, [])
    """

    def __init__(self):
        self._world_size = env_world_size()
        self._rank = env_rank()
        local_rank = _first_int(("OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"), self._rank)
        gpus = os.environ.get("FLAGS_selected_gpus", "")
        if gpus:
            self._device_id = int(gpus.split(",")[0])
        else:  # one device per process on the node, in local-rank order
            self._device_id = local_rank if "OMPI_COMM_WORLD_LOCAL_RANK" in os.environ else 0
        endpoints = os.environ.get("PADDLE_TRAINER_ENDPOINTS", "")
        self._trainer_endpoints = endpoints.split(",") if endpoints else []
        self._current_endpoint = os.environ.get("PADDLE_CURRENT_ENDPOINT", "")

    @property
    def world_size(self):
        """Number of trainer processes."""
        return self._world_size

    @property
    def rank(self):
        """This process's rank, 0 to world_size - 1."""
        return self._rank

    @property
    def device_id(self):
        """The GPU this process uses (FLAGS_selected_gpus)."""
        return self._device_id

    @property
    def current_endpoint(self):
        """This trainer's ip:port ('' for a single process)."""
        return self._current_endpoint

    @property
    def trainer_endpoints(self):
        """Every trainer's ip:port."""
        return list(self._trainer_endpoints)

    nranks = world_size
    local_rank = rank
    dev_id = device_id
