"""paddle.DataParallel: the same model on every rank, each on its share of the batch.

Wrapping broadcasts rank 0's parameters and buffers, so all ranks start equal; backward
all-reduces the gradients in buckets while it runs (see `reducer.Reducer`) and leaves the
average on every rank, so the optimizers take the same step. Parameters that 1.x layers create
during their first forward are broadcast when they appear, and that first forward runs again
with them.

Example:
    >>> import dygraph
    >>> model = dygraph.DataParallel(dygraph.nn.Linear(3, 2))
    >>> model(dygraph.ones([4, 3])).mean().backward()
    >>> list(model.state_dict()), model._layers.weight.grad.shape
    (['weight', 'bias'], [3, 2])
"""

import contextlib

from dygraph.autograd import grad_mode
from dygraph.distributed import env
from dygraph.distributed.backend import as_transport_array
from dygraph.distributed.reducer import Reducer
from dygraph.distributed.task import Task, check_same_call
from dygraph.nn.layer.layers import Layer

__all__ = ["DataParallel"]


class DataParallel(Layer):
    """Data-parallel training of `layers` over the ranks of `group` (the world by default).

    comm_buffer_size / last_comm_buffer_size: bucket sizes in MB (Paddle's 25 and 1).
    find_unused_parameters: allow parameters that get no gradient in some steps.

    Example:
        >>> import dygraph
        >>> import dygraph.distributed as dist
        >>> _ = dist.init_parallel_env()
        >>> model = dygraph.DataParallel(dygraph.nn.Linear(2, 1))
        >>> with model.no_sync():
        ...     model(dygraph.ones([1, 2])).sum().backward()
        >>> model._layers.bias.grad.numpy()
        array([1.], dtype=float32)
    """

    _average = True  # the 1.x API sums instead, after scale_loss divided the loss

    def __init__(self, layers, strategy=None, comm_buffer_size=25, last_comm_buffer_size=1,
                 find_unused_parameters=False, group=None):
        if not isinstance(layers, Layer):
            raise TypeError(f"DataParallel: layers should be a Layer, got "
                            f"{type(layers).__name__}")
        super().__init__(layers.full_name() + "_data_parallel")
        for name, value in (("comm_buffer_size", comm_buffer_size),
                            ("last_comm_buffer_size", last_comm_buffer_size)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ValueError(f"DataParallel: {name} should be a positive number of MB, "
                                 f"got {value!r}")
        self._layers = layers
        self._strategy = strategy
        self.group = env.get_group(group)
        self.find_unused_parameters = find_unused_parameters
        self._bucket_sizes = (comm_buffer_size, last_comm_buffer_size)
        self._reducer = None
        self._known = ()
        self._sync_parameters()

    @property
    def nranks(self):
        """The number of ranks that train together."""
        return self.group.nranks

    def _state_tensors(self):
        return list(self._layers.parameters()) + [
            b for b in self._layers.buffers() if b is not None]

    def _sync_parameters(self):
        """Broadcast rank 0's parameters and buffers that this wrapper has not seen yet, and
        rebuild the gradient buckets when the parameters changed; True if they did."""
        tensors = self._state_tensors()
        if len(tensors) == len(self._known):
            return False
        known = {id(t) for t in self._known}
        fresh = [t for t in tensors if id(t) not in known]
        if self.group.nranks > 1:
            self._broadcast(fresh)
        self._known = tuple(tensors)
        if self._reducer is not None:
            self._reducer.remove()
        self._reducer = Reducer(self._layers.parameters(), self.group, *self._bucket_sizes,
                                find_unused_parameters=self.find_unused_parameters,
                                average=self._average)
        return True

    def _broadcast(self, tensors):
        g = self.group
        root = g.get_group_rank(0) if 0 in g.ranks else 0
        name = "DataParallel (broadcasting rank 0's parameters)"
        with grad_mode.no_grad():
            for t in tensors:
                check_same_call(name, g, t._data, root, what="parameter")
                buf, back = as_transport_array(t._data)  # a host copy of a GPU parameter
                Task([g.backend.broadcast(buf, root)], name, g).wait()
                if buf is not t._data:
                    t._data[...] = back(buf)
                t._version[0] += 1

    def forward(self, *inputs, **kwargs):
        outputs = self._layers(*inputs, **kwargs)
        if self._sync_parameters():  # 1.x layers created parameters just now: run again
            outputs = self._layers(*inputs, **kwargs)
        return outputs

    @contextlib.contextmanager
    def no_sync(self):
        """Within this context backward accumulates gradients locally; the next backward
        outside it communicates the accumulated sum.

        Example:
            >>> import dygraph
            >>> model = DataParallel(dygraph.nn.Linear(1, 1))
            >>> with model.no_sync():
            ...     model(dygraph.ones([1, 1])).sum().backward()
        """
        previous = self._reducer.enabled
        self._reducer.enabled = False
        try:
            yield
        finally:
            self._reducer.enabled = previous

    def scale_loss(self, loss):
        """The loss itself (2.x averages the gradients; kept for 1.x-style code).

        Example:
            >>> import dygraph
            >>> loss = dygraph.ones([1])
            >>> DataParallel(dygraph.nn.Linear(1, 1)).scale_loss(loss) is loss
            True
        """
        return loss

    def apply_collective_grads(self):
        """Nothing left to do: backward has all-reduced the gradients already.

        Example:
            >>> import dygraph
            >>> DataParallel(dygraph.nn.Linear(1, 1)).apply_collective_grads()
        """

    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix="",
                   keep_vars=True):
        """The wrapped model's state dict (no prefix: it loads into an unwrapped model).

        Example:
            >>> import dygraph
            >>> sorted(DataParallel(dygraph.nn.Linear(1, 1)).state_dict())
            ['bias', 'weight']
        """
        return self._layers.state_dict(destination, include_sublayers,
                                       structured_name_prefix, keep_vars)

    def set_state_dict(self, state_dict, use_structured_name=True):
        """Load into the wrapped model (see Layer.set_state_dict).

        Example:
            >>> import dygraph
            >>> model = DataParallel(dygraph.nn.Linear(1, 1))
            >>> model.set_state_dict(model.state_dict())
            ([], [])
        """
        return self._layers.set_state_dict(state_dict, use_structured_name)

    def set_dict(self, stat_dict, include_sublayers=True, use_structured_name=True):
        """Load into the wrapped model (1.x name; see Layer.set_dict).

        Example:
            >>> import dygraph.fluid as fluid
            >>> model = DataParallel(fluid.dygraph.Linear(1, 1))
            >>> model.set_dict(model.state_dict())
        """
        self._layers.set_dict(stat_dict, use_structured_name=use_structured_name)

    load_dict = set_dict
