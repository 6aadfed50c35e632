"""The process topology of a fleet job: CommunicateTopology (ranks laid out on named axes,
the last axis varying fastest, as Paddle lays them) and HybridCommunicateGroup (one
communication group per axis, made with new_group).

DyGraph trains with data parallelism, so fleet builds a topology whose 'data' axis holds
every rank; the other axes have size 1. The classes themselves work for any sizes.

Example:
    >>> topo = CommunicateTopology(['data', 'model'], [2, 2])
    >>> topo.get_rank(data=1, model=0), topo.get_comm_list('model')
    (2, [[0, 1], [2, 3]])
"""

import collections
import itertools

import numpy as np

from dygraph.distributed import env
from dygraph.distributed.modes import ParallelMode

__all__ = ["CommunicateTopology", "HybridCommunicateGroup"]

_NAMES = ["data", "pipe", "sharding", "sep", "context", "model"]


class CommunicateTopology:
    """Ranks 0..world_size-1 laid out on the axes `hybrid_group_names` of sizes `dims`.

    Example:
        >>> topo = CommunicateTopology(['data', 'model'], [2, 2])
        >>> topo.get_coord(3), topo.get_axis_list('data', 0), topo.world_size()
        (Coordinate(data=1, model=1), [0, 1], 4)
    """

    def __init__(self, hybrid_group_names=None, dims=None):
        names = list(_NAMES if hybrid_group_names is None else hybrid_group_names)
        dims = [1] * len(names) if dims is None else [int(d) for d in dims]
        if len(names) != len(dims) or len(set(names)) != len(names):
            raise ValueError(f"CommunicateTopology: one size per distinct axis name, got "
                             f"names {names} and dims {dims}")
        if any(d < 1 for d in dims):
            raise ValueError(f"CommunicateTopology: axis sizes should be at least 1, got "
                             f"{dims}")
        self._parallel_names = names
        self._dims = dims
        self.coordinate = collections.namedtuple("Coordinate", names)
        self._world_size = int(np.prod(dims))
        self._coord2rank = {self.coordinate(*c): r for r, c in enumerate(
            itertools.product(*(range(d) for d in dims)))}
        self._rank2coord = {r: c for c, r in self._coord2rank.items()}

    def get_hybrid_group_names(self):
        """The axis names, in order."""
        return list(self._parallel_names)

    def get_dim(self, axis_name):
        """The size of axis `axis_name`."""
        return self._dims[self._axis(axis_name)]

    get_dim_size = get_dim

    def world_size(self):
        """The number of ranks (the product of the axis sizes)."""
        return self._world_size

    def _axis(self, name):
        if name not in self._parallel_names:
            raise ValueError(f"CommunicateTopology: no axis {name!r}; the axes are "
                             f"{self._parallel_names}")
        return self._parallel_names.index(name)

    def get_rank(self, **coords):
        """The rank at the given coordinate (one keyword per axis)."""
        if sorted(coords) != sorted(self._parallel_names):
            raise ValueError(f"CommunicateTopology.get_rank: give one coordinate per axis "
                             f"{self._parallel_names}, got {sorted(coords)}")
        key = self.coordinate(**coords)
        if key not in self._coord2rank:
            raise ValueError(f"CommunicateTopology.get_rank: {key} is outside the sizes "
                             f"{self._dims}")
        return self._coord2rank[key]

    def get_coord(self, rank):
        """The coordinate of `rank`."""
        if rank not in self._rank2coord:
            raise ValueError(f"CommunicateTopology.get_coord: rank {rank} is not in 0.."
                             f"{self._world_size - 1}")
        return self._rank2coord[rank]

    def get_axis_list(self, axis_name, index):
        """The ranks whose coordinate on `axis_name` is `index`, in rank order."""
        axis = self._axis(axis_name)
        return sorted(r for c, r in self._coord2rank.items() if c[axis] == index)

    def get_comm_list(self, axis_name):
        """The groups of ranks that differ only on `axis_name` (one per position of the
        other axes), each in order along the axis."""
        return self.get_fused_ranks([axis_name])

    def get_fused_ranks(self, fused_axis):
        """The groups of ranks that differ only on the axes `fused_axis`."""
        axes = [self._axis(a) for a in fused_axis]
        others = [i for i in range(len(self._dims)) if i not in axes]
        groups = []
        for fixed in itertools.product(*(range(self._dims[i]) for i in others)):
            ranks = [r for c, r in self._coord2rank.items()
                     if all(c[i] == v for i, v in zip(others, fixed))]
            groups.append(sorted(ranks))
        return groups

    def get_rank_from_stage(self, global_rank, **kwargs):
        """The rank at `global_rank`'s coordinate with the given axes replaced."""
        coord = self.get_coord(global_rank)._asdict()
        coord.update(kwargs)
        return self.get_rank(**coord)


def _axis_size(topo, name):
    return topo.get_dim(name) if name in topo.get_hybrid_group_names() else 1


class HybridCommunicateGroup:
    """A group per axis of `topology` for this process: data, model, pipe, sharding and
    sep (an axis the topology lacks has size 1). Every rank of the job constructs it, in
    the same order, as for new_group.

    Example:
        >>> import dygraph.distributed as dist
        >>> hcg = HybridCommunicateGroup(CommunicateTopology())
        >>> hcg.get_parallel_mode(), hcg.get_data_parallel_world_size()
        (0, 1)
    """

    def __init__(self, topology, hybrid_configs=None):
        world = env.init_parallel_env()
        if topology.world_size() != world.nranks:
            raise ValueError(f"HybridCommunicateGroup: the topology has "
                             f"{topology.world_size()} ranks, the job {world.nranks}")
        self._topo = topology
        self.global_rank = world.rank
        self.nranks = world.nranks
        self._groups = {}
        for name in topology.get_hybrid_group_names():
            for ranks in topology.get_comm_list(name):
                group = env.new_group(ranks) if len(ranks) < world.nranks else world
                if self.global_rank in ranks:
                    self._groups[name] = group
        self._coord = topology.get_coord(self.global_rank)

    def topology(self):
        """The CommunicateTopology."""
        return self._topo

    def get_parallel_mode(self):
        """ParallelMode of the job: DATA_PARALLEL unless another axis has size > 1."""
        sizes = {n: _axis_size(self._topo, n) for n in ("model", "pipe", "sharding", "sep")}
        if sizes["pipe"] > 1:
            return ParallelMode.PIPELINE_PARALLEL
        if sizes["model"] > 1:
            return ParallelMode.TENSOR_PARALLEL
        if sizes["sharding"] > 1:
            return ParallelMode.SHARDING_PARALLEL
        if sizes["sep"] > 1:
            return ParallelMode.SEGMENT_PARALLEL
        return ParallelMode.DATA_PARALLEL

    def get_global_rank(self):
        """This process's rank in the job."""
        return self.global_rank

    def _group(self, name):
        if name not in self._groups:  # an axis the topology lacks: this process alone
            self._groups[name] = env.new_group([self.global_rank])
        return self._groups[name]

    def _rank(self, name):
        return getattr(self._coord, name) if name in self._coord._fields else 0

    def _src(self, name):
        return self._group(name).ranks[0]

    def get_data_parallel_group(self):
        """The group of the ranks that hold other shares of the data."""
        return self._group("data")

    def get_data_parallel_rank(self):
        """This process's place on the data axis."""
        return self._rank("data")

    def get_data_parallel_world_size(self):
        """The size of the data axis."""
        return _axis_size(self._topo, "data")

    def get_data_parallel_group_src_rank(self):
        """The global rank of the first process of this data-parallel group."""
        return self._src("data")

    def get_model_parallel_group(self):
        """The group along the model axis."""
        return self._group("model")

    def get_model_parallel_rank(self):
        """This process's place on the model axis."""
        return self._rank("model")

    def get_model_parallel_world_size(self):
        """The size of the model axis."""
        return _axis_size(self._topo, "model")

    def get_model_parallel_group_src_rank(self):
        """The global rank of the first process of this model-parallel group."""
        return self._src("model")

    def get_pipe_parallel_group(self):
        """The group along the pipe axis."""
        return self._group("pipe")

    def get_pipe_parallel_world_size(self):
        """The size of the pipe axis."""
        return _axis_size(self._topo, "pipe")

    def get_stage_id(self):
        """This process's place on the pipe axis."""
        return self._rank("pipe")

    def get_sharding_parallel_group(self):
        """The group along the sharding axis."""
        return self._group("sharding")

    def get_sharding_parallel_rank(self):
        """This process's place on the sharding axis."""
        return self._rank("sharding")

    def get_sharding_parallel_world_size(self):
        """The size of the sharding axis."""
        return _axis_size(self._topo, "sharding")

    def get_sharding_parallel_group_src_rank(self):
        """The global rank of the first process of this sharding group."""
        return self._src("sharding")

    def get_sep_parallel_group(self):
        """The group along the sep axis."""
        return self._group("sep")

    def get_sep_parallel_rank(self):
        """This process's place on the sep axis."""
        return self._rank("sep")

    def get_sep_parallel_world_size(self):
        """The size of the sep axis."""
        return _axis_size(self._topo, "sep")

    def get_sep_parallel_group_src_rank(self):
        """The global rank of the first process of this sep group."""
        return self._src("sep")

    def get_rank_from_stage(self, stage_id, **kwargs):
        """The global rank at this process's coordinate with the pipe stage `stage_id`."""
        return self._topo.get_rank_from_stage(self.global_rank, pipe=stage_id, **kwargs)
