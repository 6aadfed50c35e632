"""1.x tracing: `TracedLayer.trace(layer, inputs)` runs the layer once and records the
program it ran (Paddle 1.6+ `fluid.dygraph.TracedLayer`); the traced layer runs that
program on new inputs and saves it as an inference model that fluid.io loads.

Example:
    >>> import numpy as np
    >>> import dygraph.fluid as fluid
    >>> with fluid.dygraph.guard():
    ...     layer = fluid.dygraph.Linear(3, 2)
    ...     x = fluid.dygraph.to_variable(np.ones((4, 3), np.float32))
    ...     out, static_layer = TracedLayer.trace(layer, inputs=[x])
    ...     result = static_layer([x])
    >>> len(result), result[0].shape, bool(np.allclose(result[0], out.numpy()))
    (1, (4, 2), True)
"""

import os

import numpy as np

from dygraph.autograd.grad_mode import no_grad
from dygraph.jit.static_function import StaticFunction
from dygraph.static import io as _io
from dygraph.static.executor import Scope
from dygraph.tensor.tensor import Tensor, to_tensor

__all__ = ["TracedLayer"]


def _tensors(inputs):
    items = inputs if isinstance(inputs, (list, tuple)) else [inputs]
    return [t if isinstance(t, Tensor) else to_tensor(np.asarray(t)) for t in items]


class TracedLayer:
    """A layer's program recorded by `trace`; call it with a list of inputs for a list of
    NumPy outputs, as the 1.x static executor returns them."""

    def __init__(self, concrete):
        self._concrete = concrete

    @staticmethod
    def trace(layer, inputs):
        """(the layer's outputs on `inputs`, the TracedLayer of the program it ran)."""
        tensors = _tensors(inputs)
        outputs = layer(*tensors)
        forward = layer.forward
        function = forward if isinstance(forward, StaticFunction) else \
            StaticFunction(type(layer).forward, None, layer)
        concrete = function.get_concrete_program(*tensors)[0]
        return outputs, TracedLayer(concrete)

    @property
    def program(self):
        """The traced Program."""
        return self._concrete.main_program

    def set_strategy(self, build_strategy=None, exec_strategy=None):
        """Accepted for compatibility; programs run on the CPU Executor path."""

    def __call__(self, inputs):
        tensors = _tensors(inputs)
        with no_grad():
            outs = self._concrete.compiled(tensors)
        return [o.numpy() for o in outs]

    def save_inference_model(self, path, feed=None, fetch=None, **kwargs):
        """Write the program into folder `path` (`__model__` files, which
        fluid.io.load_inference_model reads); `feed`/`fetch` pick inputs and outputs by
        index (all by default)."""
        concrete = self._concrete
        feeds = [concrete.inputs[i] for i in (feed if feed is not None else
                                               range(len(concrete.inputs)))]
        fetches = [concrete.outputs[i] for i in (fetch if fetch is not None else
                                                  range(len(concrete.outputs)))]
        scope = Scope()
        scope.vars = {n: t._data for n, t in concrete.compiled.persistables.items()}
        _io.save_inference_model(os.path.join(path, "__model__"), feeds, fetches, None,
                                 program=concrete.main_program, scope=scope)
