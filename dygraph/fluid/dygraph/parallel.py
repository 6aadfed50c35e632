"""1.x data parallelism: Env (ParallelEnv), prepare_context and DataParallel.

`python -m dygraph.distributed.launch` starts one process per device and describes the job in
environment variables (PADDLE_TRAINERS_NUM, PADDLE_TRAINER_ID, FLAGS_selected_gpus,
PADDLE_TRAINER_ENDPOINTS, PADDLE_CURRENT_ENDPOINT), which Env reads. prepare_context connects
the processes (`dygraph.distributed.init_parallel_env`, MPI underneath). The 1.x DataParallel
is the 2.x one with 1.x arithmetic: `scale_loss` divides the loss by the number of processes
and the gradients are summed over them, so the sum is the average of the processes' gradients.
With one process all of this leaves the model as it is.

Example:
    >>> import dygraph.fluid as fluid
    >>> with fluid.dygraph.guard():
    ...     strategy = fluid.dygraph.parallel.prepare_context()
    ...     model = fluid.dygraph.parallel.DataParallel(fluid.dygraph.Linear(2, 1), strategy)
    ...     strategy.nranks, list(model.state_dict())
    (1, ['weight', 'bias'])
"""

from dygraph.distributed import data_parallel, env
from dygraph.distributed.parallel_env import ParallelEnv

__all__ = ["Env", "ParallelEnv", "ParallelStrategy", "prepare_context", "DataParallel"]

Env = ParallelEnv


class ParallelStrategy:
    """What DataParallel needs to know about the job: nranks, local_rank and endpoints.

    Example:
        >>> ParallelStrategy().nranks
        1
    """

    def __init__(self, nranks=1, local_rank=0, trainer_endpoints=(), current_endpoint=""):
        self.nranks = nranks
        self.local_rank = local_rank
        self.trainer_endpoints = list(trainer_endpoints)
        self.current_endpoint = current_endpoint


def prepare_context(strategy=None):
    """Connect the processes of the job and return its ParallelStrategy (read from Env when
    not given).

    Example:
        >>> prepare_context().local_rank
        0
    """
    if strategy is None:
        job = Env()
        strategy = ParallelStrategy(job.nranks, job.local_rank, job.trainer_endpoints,
                                    job.current_endpoint)
    world = env.init_parallel_env()
    if strategy.nranks != world.nranks:
        raise ValueError(f"prepare_context: the strategy has nranks={strategy.nranks} but the "
                         f"job has {world.nranks} processes")
    return strategy


class DataParallel(data_parallel.DataParallel):
    """Wrap a model for data-parallel training (1.x): `scale_loss(loss)` before backward,
    `apply_collective_grads()` after it; state_dict/set_dict are the model's.

    Example:
        >>> import dygraph
        >>> import dygraph.fluid as fluid
        >>> model = DataParallel(fluid.dygraph.Linear(3, 2), prepare_context())
        >>> loss = model.scale_loss(model(dygraph.ones([1, 3])).sum())
        >>> loss.backward(); model.apply_collective_grads()
        >>> model._layers.weight.gradient().shape
        (3, 2)
    """

    _average = False

    def __init__(self, layers, strategy=None):
        super().__init__(layers, prepare_context(strategy))

    def scale_loss(self, loss):
        """The loss divided by the number of processes (the loss itself for one), so that
        the summed gradients are the average.

        Example:
            >>> import dygraph
            >>> import dygraph.fluid as fluid
            >>> model = DataParallel(fluid.dygraph.Linear(1, 1))
            >>> loss = dygraph.ones([1])
            >>> model.scale_loss(loss) is loss
            True
        """
        if self.nranks < 2:
            return loss
        return loss / self.nranks

    def apply_collective_grads(self):
        """The gradients are summed over the processes during backward already; this is
        where 1.x code asks for it, so nothing is left to do.

        Example:
            >>> import dygraph.fluid as fluid
            >>> DataParallel(fluid.dygraph.Linear(1, 1)).apply_collective_grads()
        """
