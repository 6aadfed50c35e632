"""fluid.PyLayer (1.4): a layer computed in Python/NumPy, with a hand-written backward.

Subclass it with two static methods working on NumPy arrays:

- `forward(inputs)`: `inputs` is the tuple of input arrays; return an array or a tuple.
- `backward(inputs)`: `inputs` is (input arrays..., output arrays..., output gradients...);
  return the gradient of each input (an array, or a tuple for several inputs).

Calling an instance on variables returns the list of output variables, whose gradients flow
back through `backward`. It runs on `dygraph.autograd.PyLayer`.

Example:
    >>> import numpy as np
    >>> import dygraph.fluid as fluid
    >>> class Tanh(fluid.PyLayer):
    ...     @staticmethod
    ...     def forward(inputs):
    ...         return np.tanh(inputs[0])
    ...     @staticmethod
    ...     def backward(inputs):
    ...         inp, out, dout = inputs
    ...         return np.array(dout) * (1 - np.square(np.array(out)))
    >>> with fluid.dygraph.guard():
    ...     x = fluid.dygraph.to_variable(np.zeros([2], np.float32))
    ...     outs = Tanh()(x)
    ...     outs[0].backward()
    ...     x.gradient()
    array([1., 1.], dtype=float32)
"""

import numpy as np

from dygraph.autograd.py_layer import PyLayer as _AutogradPyLayer
from dygraph.tensor.tensor import Tensor, to_tensor

__all__ = ["PyLayer"]


def _as_tuple(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


class _NumpyBridge(_AutogradPyLayer):
    """Runs a 1.x PyLayer's NumPy forward/backward as a 2.x autograd PyLayer."""

    @staticmethod
    def forward(ctx, layer, *tensors):
        arrays = tuple(t.numpy() for t in tensors)
        outs = tuple(np.asarray(o) for o in _as_tuple(layer.forward(arrays)))
        ctx.layer, ctx.arrays, ctx.outs = layer, arrays, outs
        return tuple(to_tensor(o) for o in outs)

    @staticmethod
    def backward(ctx, *grads):
        douts = tuple(g.numpy() for g in grads)
        result = _as_tuple(ctx.layer.backward(ctx.arrays + ctx.outs + douts))
        if len(result) != len(ctx.arrays):
            raise ValueError(f"{type(ctx.layer).__name__}.backward returned {len(result)} "
                             f"gradient(s) for {len(ctx.arrays)} input(s)")
        return tuple(None if g is None else to_tensor(np.asarray(g)) for g in result)


class PyLayer:
    """Base class of 1.4-style Python layers; see the module docstring.

    Example:
        >>> import numpy as np
        >>> import dygraph
        >>> class Double(PyLayer):
        ...     @staticmethod
        ...     def forward(inputs):
        ...         return inputs[0] * 2
        ...     @staticmethod
        ...     def backward(inputs):
        ...         return inputs[-1] * 2
        >>> Double()(dygraph.to_tensor([1.0]))[0].numpy()
        array([2.], dtype=float32)
    """

    @staticmethod
    def forward(inputs):
        """Compute the outputs from the tuple of input arrays."""
        raise NotImplementedError("a PyLayer subclass defines forward(inputs)")

    @staticmethod
    def backward(inputs):
        """Compute the input gradients from (inputs..., outputs..., output gradients...)."""
        raise NotImplementedError("a PyLayer subclass defines backward(inputs)")

    def __call__(self, *inputs):
        tensors = tuple(x if isinstance(x, Tensor) else to_tensor(np.asarray(x))
                        for x in inputs)
        return list(_NumpyBridge.apply(self, *tensors))
