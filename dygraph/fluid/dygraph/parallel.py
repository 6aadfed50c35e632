"""1.x data parallelism: Env (ParallelEnv), prepare_context and DataParallel.

`paddle.distributed.launch` starts one process per device and describes the job in
environment variables (PADDLE_TRAINERS_NUM, PADDLE_TRAINER_ID, FLAGS_selected_gpus,
PADDLE_TRAINER_ENDPOINTS, PADDLE_CURRENT_ENDPOINT); Env reads them, with the defaults of a
single process. With one process, DataParallel is the wrapped model, `scale_loss` returns
the loss and `apply_collective_grads` has nothing to gather. Several processes need
collective communication, which DyGraph does not have yet: prepare_context (and
DataParallel) refuse nranks > 1 with NotImplementedError.

Example:
    >>> import dygraph.fluid as fluid
    >>> with fluid.dygraph.guard():
    ...     strategy = fluid.dygraph.parallel.prepare_context()
    ...     model = fluid.dygraph.parallel.DataParallel(fluid.dygraph.Linear(2, 1), strategy)
    ...     strategy.nranks, list(model.state_dict())
    (1, ['weight', 'bias'])
"""

import os

from dygraph.fluid.dygraph.layers import Layer

__all__ = ["Env", "ParallelEnv", "ParallelStrategy", "prepare_context", "DataParallel"]


class Env:
    """The distributed job as the launcher described it in environment variables.

    Example:
        >>> env = Env()
        >>> env.nranks, env.local_rank, env.dev_id
        (1, 0, 0)
    """

    def __init__(self):
        self._nranks = int(os.getenv("PADDLE_TRAINERS_NUM", "1"))
        self._local_rank = int(os.getenv("PADDLE_TRAINER_ID", "0"))
        self._dev_id = int(os.getenv("FLAGS_selected_gpus", "0").split(",")[0])
        endpoints = os.getenv("PADDLE_TRAINER_ENDPOINTS", "")
        self._trainer_endpoints = endpoints.split(",") if endpoints else []
        self._current_endpoint = os.getenv("PADDLE_CURRENT_ENDPOINT", "")

    @property
    def nranks(self):
        """Number of trainer processes."""
        return self._nranks

    @property
    def local_rank(self):
        """This process's rank, 0 to nranks - 1."""
        return self._local_rank

    @property
    def dev_id(self):
        """The GPU this process uses."""
        return self._dev_id

    @property
    def current_endpoint(self):
        """This trainer's ip:port ('' for a single process)."""
        return self._current_endpoint

    @property
    def trainer_endpoints(self):
        """Every trainer's ip:port."""
        return list(self._trainer_endpoints)


ParallelEnv = Env


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


def _check_single_process(strategy):
    if strategy.nranks > 1:
        raise NotImplementedError(
            f"data-parallel training over {strategy.nranks} processes needs collective "
            f"communication, which DyGraph does not provide yet; run a single process "
            f"(PADDLE_TRAINERS_NUM unset or 1)")


def prepare_context(strategy=None):
    """The job's ParallelStrategy, read from Env when not given; for several processes this
    is where communication would be set up (not available yet: NotImplementedError).

    Example:
        >>> prepare_context().local_rank
        0
    """
    if strategy is None:
        env = Env()
        strategy = ParallelStrategy(env.nranks, env.local_rank, env.trainer_endpoints,
                                    env.current_endpoint)
    _check_single_process(strategy)
    return strategy


class DataParallel(Layer):
    """Wrap a model for data-parallel training; calling it calls the model, and its
    state_dict/set_dict are the model's (the same keys as without the wrapper).

    Example:
        >>> import dygraph
        >>> import dygraph.fluid as fluid
        >>> model = DataParallel(fluid.dygraph.Linear(3, 2), prepare_context())
        >>> loss = model.scale_loss(model(dygraph.ones([1, 3])).sum())
        >>> loss.backward(); model.apply_collective_grads()
        >>> model._layers.weight.gradient().shape
        (3, 2)
    """

    def __init__(self, layers, strategy=None):
        super().__init__(layers.full_name() + "_data_parallel")
        self._strategy = prepare_context(strategy)
        self._layers = layers

    def forward(self, *inputs, **kwargs):
        return self._layers(*inputs, **kwargs)

    def scale_loss(self, loss):
        """The loss to back-propagate: with one process, the loss itself (several would
        divide it by nranks, so that summed gradients average).

        Example:
            >>> import dygraph
            >>> import dygraph.fluid as fluid
            >>> model = DataParallel(fluid.dygraph.Linear(1, 1))
            >>> loss = dygraph.ones([1])
            >>> model.scale_loss(loss) is loss
            True
        """
        return loss

    def apply_collective_grads(self):
        """Sum the gradients over the processes: with one process they are complete
        already, so nothing changes.

        Example:
            >>> import dygraph.fluid as fluid
            >>> DataParallel(fluid.dygraph.Linear(1, 1)).apply_collective_grads()
        """

    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix="",
                   keep_vars=True):
        """The wrapped model's state dict.

        Example:
            >>> import dygraph.fluid as fluid
            >>> sorted(DataParallel(fluid.dygraph.Linear(1, 1)).state_dict())
            ['bias', 'weight']
        """
        return self._layers.state_dict(destination, include_sublayers,
                                       structured_name_prefix, keep_vars)

    def set_dict(self, stat_dict, include_sublayers=True, use_structured_name=True):
        """Load into the wrapped model (see Layer.set_dict).

        Example:
            >>> import numpy as np
            >>> import dygraph.fluid as fluid
            >>> model = DataParallel(fluid.dygraph.Linear(1, 1))
            >>> model.set_dict({'weight': np.ones([1, 1], 'f4'), 'bias': np.zeros([1], 'f4')})
            >>> model._layers.weight.numpy()
            array([[1.]], dtype=float32)
        """
        self._layers.set_dict(stat_dict, include_sublayers, use_structured_name)

    load_dict = set_dict
