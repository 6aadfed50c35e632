"""dygraph.distributed.fleet: Paddle's collective training entry points (paddle.distributed
.fleet) over DyGraph's data parallelism.

A collective script of Paddle's runs unchanged under `python -m dygraph.distributed.launch`,
mpirun, or Paddle's own launch variables::

    from dygraph.distributed import fleet
    strategy = fleet.DistributedStrategy()
    fleet.init(is_collective=True, strategy=strategy)
    model = fleet.distributed_model(model)            # DataParallel
    opt = fleet.distributed_optimizer(opt)            # the optimizer itself

The module-level functions are those of `fleet.fleet`, the job's Fleet. Parameter-server
training (servers, PS datasets, table saving) is not supported: see docs/DISTRIBUTED.md.

Example:
    >>> from dygraph.distributed import fleet
    >>> _ = fleet.init(is_collective=True)
    >>> fleet.worker_index(), fleet.worker_num(), fleet.is_first_worker()
    (0, 1, True)
"""

from dygraph.distributed.fleet.data_generator import (
    MultiSlotDataGenerator,
    MultiSlotStringDataGenerator,
)
from dygraph.distributed.fleet.fleet_base import Fleet
from dygraph.distributed.fleet.roles import PaddleCloudRoleMaker, Role, UserDefinedRoleMaker
from dygraph.distributed.fleet.strategy import DistributedStrategy
from dygraph.distributed.fleet.topology import CommunicateTopology, HybridCommunicateGroup
from dygraph.distributed.fleet.util import UtilBase

__all__ = ["CommunicateTopology", "UtilBase", "HybridCommunicateGroup",
           "MultiSlotStringDataGenerator", "UserDefinedRoleMaker", "DistributedStrategy",
           "Role", "MultiSlotDataGenerator", "PaddleCloudRoleMaker", "Fleet"]

fleet = Fleet()

init = fleet.init
distributed_model = fleet.distributed_model
distributed_optimizer = fleet.distributed_optimizer
distributed_scaler = fleet.distributed_scaler
get_hybrid_communicate_group = fleet.get_hybrid_communicate_group
is_first_worker = fleet.is_first_worker
worker_index = fleet.worker_index
worker_num = fleet.worker_num
rank = fleet.rank
nranks = fleet.nranks
world_size = fleet.world_size
is_worker = fleet.is_worker
is_server = fleet.is_server
is_coordinator = fleet.is_coordinator
server_num = fleet.server_num
server_index = fleet.server_index
server_endpoints = fleet.server_endpoints
worker_endpoints = fleet.worker_endpoints
node_num = fleet.node_num
local_rank = fleet.local_rank
rank_in_node = fleet.rank_in_node
local_device_ids = fleet.local_device_ids
world_device_ids = fleet.world_device_ids
barrier_worker = fleet.barrier_worker
all_reduce = fleet.all_reduce
util = fleet.util
