"""Fleet: Paddle's collective training entry points over DyGraph's data parallelism.

`fleet.init(is_collective=True, strategy=...)` connects the processes (init_parallel_env:
mpirun, the launcher, spawn, or Paddle's own launch variables), checks the strategy and
builds the topology (every rank on the data axis). `fleet.distributed_model(model)` wraps
the model in DataParallel with the strategy's bucket sizes and find_unused_parameters
(and SyncBatchNorm when sync_batch_norm is set); `fleet.distributed_optimizer(opt)` returns
the optimizer, whose step then applies the gradients DataParallel averaged. The
worker_* queries answer from the job.

Example:
    >>> import dygraph
    >>> f = Fleet()
    >>> _ = f.init(is_collective=True)
    >>> f.worker_index(), f.worker_num(), f.is_first_worker()
    (0, 1, True)
    >>> model = f.distributed_model(dygraph.nn.Linear(2, 1))
    >>> type(model).__name__
    'DataParallel'
"""

from dygraph.distributed import env
from dygraph.distributed.data_parallel import DataParallel
from dygraph.distributed.fleet.roles import PaddleCloudRoleMaker
from dygraph.distributed.fleet.strategy import DistributedStrategy
from dygraph.distributed.fleet.topology import CommunicateTopology, HybridCommunicateGroup
from dygraph.distributed.fleet.util import UtilBase

__all__ = ["Fleet"]


class Fleet:
    """The fleet of a job (`dygraph.distributed.fleet.fleet` is the one the module-level
    functions use).

    Example:
        >>> Fleet().is_server()
        False
    """

    def __init__(self):
        self._role_maker = None
        self._is_collective = True
        self._user_defined_strategy = DistributedStrategy()
        self._hcg = None
        self._topology = None
        self.user_defined_optimizer = None
        self.util = UtilBase()

    def init(self, role_maker=None, is_collective=False, strategy=None, log_level="INFO"):
        """Join the job: connect the processes, take the strategy, build the topology.
        Returns the fleet.

        Example:
            >>> Fleet().init(is_collective=True).worker_num()
            1
        """
        if strategy is not None and not isinstance(strategy, DistributedStrategy):
            raise TypeError(f"fleet.init: strategy should be a DistributedStrategy, got "
                            f"{type(strategy).__name__}")
        self._role_maker = role_maker or PaddleCloudRoleMaker(is_collective=is_collective)
        self._is_collective = True
        self._user_defined_strategy = strategy or DistributedStrategy()
        world = env.init_parallel_env()
        role_index, role_num = self._role_maker._worker_index(), self._role_maker._worker_num()
        if (role_index, role_num) != (world.rank, world.nranks):
            raise ValueError(f"fleet.init: the role maker says worker {role_index} of "
                             f"{role_num}, but the job made this process rank {world.rank} "
                             f"of {world.nranks}")
        dp = self._user_defined_strategy.data_parallel_degree(world.nranks)
        self._user_defined_strategy.warn_unhonoured()
        names = ["data", "pipe", "sharding", "sep", "model"]
        self._topology = CommunicateTopology(names, [dp, 1, 1, 1, 1])
        self._hcg = HybridCommunicateGroup(self._topology)
        return self

    def _strategy(self, strategy=None):
        if strategy is not None:
            if not isinstance(strategy, DistributedStrategy):
                raise TypeError(f"fleet: strategy should be a DistributedStrategy, got "
                                f"{type(strategy).__name__}")
            strategy.data_parallel_degree(env.get_world_size())
            strategy.warn_unhonoured()
            self._user_defined_strategy = strategy
        return self._user_defined_strategy

    def _role(self):
        if self._role_maker is None:
            self._role_maker = PaddleCloudRoleMaker(is_collective=True)
        return self._role_maker

    def distributed_model(self, model):
        """`model` wrapped for data-parallel training (DataParallel over the data-parallel
        group, with the strategy's options).

        Example:
            >>> import dygraph
            >>> Fleet().distributed_model(dygraph.nn.Linear(1, 1)).nranks
            1
        """
        if model is None:
            raise ValueError("fleet.distributed_model: model should not be None")
        strategy = self._strategy()
        if strategy.sync_batch_norm:
            from dygraph.nn import SyncBatchNorm

            model = SyncBatchNorm.convert_sync_batchnorm(model)
        group = self._hcg.get_data_parallel_group() if self._hcg is not None else None
        return DataParallel(model, comm_buffer_size=strategy.fuse_grad_size_in_MB,
                            last_comm_buffer_size=strategy.last_comm_group_size_MB,
                            find_unused_parameters=strategy.find_unused_parameters,
                            group=group)

    def distributed_optimizer(self, optimizer, strategy=None):
        """The optimizer for distributed training: `optimizer` itself, as DataParallel
        averages the gradients during backward. A `strategy` here replaces fleet.init's.

        Example:
            >>> import dygraph
            >>> opt = dygraph.optimizer.SGD(parameters=dygraph.nn.Linear(1, 1).parameters())
            >>> Fleet().distributed_optimizer(opt) is opt
            True
        """
        self._strategy(strategy)
        self.user_defined_optimizer = optimizer
        return optimizer

    def distributed_scaler(self, scaler):
        """The GradScaler for distributed training: `scaler` itself (with data
        parallelism every rank sees the same averaged gradients, so the same overflow).

        Example:
            >>> import dygraph
            >>> s = dygraph.amp.GradScaler()
            >>> Fleet().distributed_scaler(s) is s
            True
        """
        return scaler

    def get_hybrid_communicate_group(self):
        """The HybridCommunicateGroup fleet.init built.

        Example:
            >>> Fleet().init(is_collective=True).get_hybrid_communicate_group().nranks
            1
        """
        if self._hcg is None:
            raise RuntimeError("fleet.get_hybrid_communicate_group: call fleet.init first")
        return self._hcg

    def get_hybrid_parallel_topology(self):
        """The CommunicateTopology fleet.init built."""
        return self.get_hybrid_communicate_group().topology()

    # -- the job ---------------------------------------------------------------------------
    def is_first_worker(self):
        """Whether this process is worker 0."""
        return self.worker_index() == 0

    def worker_index(self):
        """This worker's index (its rank)."""
        return env.get_rank() if env.is_initialized() else self._role()._worker_index()

    def worker_num(self):
        """The number of workers."""
        return env.get_world_size() if env.is_initialized() else self._role()._worker_num()

    rank = worker_index
    nranks = worker_num
    world_size = worker_num

    def is_worker(self):
        """Whether this process is a worker (always, in a collective job)."""
        return True

    def is_server(self):
        """Whether this process is a parameter server (never, in a collective job)."""
        return False

    def is_coordinator(self):
        """Whether this process is a coordinator (never, in a collective job)."""
        return False

    def server_num(self):
        """The number of parameter servers (0)."""
        return 0

    def server_index(self):
        """This process's server index (0: it is no server, as Paddle reports)."""
        return 0

    def server_endpoints(self, to_string=False):
        """The parameter servers' endpoints (none)."""
        return "" if to_string else []

    def worker_endpoints(self, to_string=False):
        """Every worker's ip:port (PADDLE_TRAINER_ENDPOINTS)."""
        endpoints = self._role()._get_trainer_endpoints()
        return ",".join(endpoints) if to_string else endpoints

    def node_num(self):
        """The number of hosts of the job."""
        return self._role()._node_num()

    def local_rank(self):
        """This process's rank on its host (PADDLE_RANK_IN_NODE; None when not set)."""
        return self._role()._get_local_rank()

    rank_in_node = local_rank

    def local_device_ids(self):
        """The devices of this host (PADDLE_LOCAL_DEVICE_IDS; None when not set)."""
        return self._role()._get_local_device_ids()

    def world_device_ids(self):
        """The devices of the job (PADDLE_WORLD_DEVICE_IDS; None when not set)."""
        return self._role()._get_world_device_ids()

    def barrier_worker(self):
        """Wait until every worker has reached the barrier."""
        env.barrier()

    def all_reduce(self, input, mode="sum"):
        """Reduce `input` (a number, list or NumPy array) over the workers: 'sum', 'mean',
        'max' or 'min'."""
        return self.util.all_reduce(input, mode, "worker")
