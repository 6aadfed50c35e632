"""fleet.util: small helpers over the workers of a fleet job: all_reduce, all_gather and
barrier of plain Python numbers and NumPy arrays, each worker's share of a file list, and
printing on one rank. The communication goes through the job's collectives (MPI).

Example:
    >>> util = UtilBase()
    >>> util.get_file_shard(['a.txt', 'b.txt', 'c.txt'])
    ['a.txt', 'b.txt', 'c.txt']
"""

import numpy as np

from dygraph.distributed import env
from dygraph.distributed.collective import ReduceOp, all_gather_object, all_reduce
from dygraph.tensor.tensor import to_tensor

__all__ = ["UtilBase"]

_MODES = {"sum": ReduceOp.SUM, "max": ReduceOp.MAX, "min": ReduceOp.MIN,
          "mean": ReduceOp.AVG}


def _check_world(name, comm_world):
    if comm_world != "worker":
        raise NotImplementedError(f"fleet.util.{name}: comm_world={comm_world!r} needs "
                                  f"parameter servers; DyGraph's workers are comm_world="
                                  f"'worker'")


class UtilBase:
    """Helpers over the workers of the job (fleet.util is one).

    Example:
        >>> UtilBase().all_reduce([1, 2], mode='max')
        [1, 2]
    """

    def all_reduce(self, input, mode="sum", comm_world="worker"):
        """The element-wise reduction of every worker's `input` ('sum', 'max', 'min' or
        'mean'), with the input's kind (a list stays a list, an array an array).

        Example:
            >>> UtilBase().all_reduce(np.array([3, 4]))
            array([3, 4])
        """
        _check_world("all_reduce", comm_world)
        if mode not in _MODES:
            raise ValueError(f"fleet.util.all_reduce: mode should be one of "
                             f"{sorted(_MODES)}, got {mode!r}")
        if env.get_world_size() == 1:
            return input
        array = np.asarray(input)
        if mode == "mean" and array.dtype.kind not in "fc":
            array = array.astype(np.float64)
        tensor = to_tensor(array)
        all_reduce(tensor, _MODES[mode])
        out = tensor.numpy()
        return out.tolist() if isinstance(input, (list, tuple)) else out

    def all_gather(self, input, comm_world="worker"):
        """Every worker's `input` (any picklable value), in rank order.

        Example:
            >>> UtilBase().all_gather(3)
            3
        """
        _check_world("all_gather", comm_world)
        if env.get_world_size() == 1:
            return input
        out = []
        all_gather_object(out, input)
        return out

    def barrier(self, comm_world="worker"):
        """Wait until every worker has reached the barrier.

        Example:
            >>> UtilBase().barrier()
        """
        _check_world("barrier", comm_world)
        env.barrier()

    def get_file_shard(self, files):
        """This worker's share of `files`: consecutive blocks, the first
        len(files) % workers blocks one file longer.

        Example:
            >>> UtilBase().get_file_shard(['x', 'y'])
            ['x', 'y']
        """
        if not isinstance(files, list):
            raise TypeError(f"fleet.util.get_file_shard: files should be a list of file "
                            f"names, got {type(files).__name__}")
        workers, index = env.get_world_size(), env.get_rank()
        size, extra = divmod(len(files), workers)
        start = index * size + min(index, extra)
        return files[start:start + size + (index < extra)]

    def print_on_rank(self, message, rank_id):
        """Print `message` on the worker `rank_id` only.

        Example:
            >>> UtilBase().print_on_rank('hello', 0)
            hello
        """
        if env.get_rank() == rank_id:
            print(message)
