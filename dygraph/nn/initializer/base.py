"""The Initializer base class, fan computation, gains and the global default initializers.

An initializer is called on a Parameter (or any Tensor) and overwrites its values in place.
Values are drawn on the host from the global generator (`dygraph.seed` makes them
reproducible) and then copied to the tensor's device.

Example:
    >>> import dygraph
    >>> from dygraph.nn.initializer import Constant
    >>> t = dygraph.zeros([2])
    >>> Constant(3.0)(t).numpy()
    array([3., 3.], dtype=float32)
"""

import math

import numpy as np

from dygraph.tensor.tensor import Tensor

__all__ = ["Initializer", "calculate_gain", "set_global_initializer"]


class Initializer:
    """Base class of the initializers: subclasses implement `_values(shape, np_dtype)`.

    `init(param)` (or `init.forward(param)`) fills `param` in place and returns it.

    Example:
        >>> import dygraph
        >>> class Twos(Initializer):
        ...     def _values(self, shape, dtype):
        ...         return np.full(shape, 2, dtype)
        >>> Twos()(dygraph.zeros([3])).numpy()
        array([2., 2., 2.], dtype=float32)
    """

    def __call__(self, param, block=None):
        return self.forward(param, block)

    def forward(self, var, block=None):
        """Overwrite `var`'s values; `block` exists for Paddle's static-graph signature."""
        if not isinstance(var, Tensor):
            raise TypeError(f"{type(self).__name__}: expected a Tensor or Parameter to "
                            f"initialize, got {type(var).__name__}")
        values = self._values(tuple(var._data.shape), var._data.dtype)
        write_values(var, values)
        return var

    def _values(self, shape, dtype):
        raise NotImplementedError(f"{type(self).__name__} does not define _values")

    def __repr__(self):
        fields = ", ".join(f"{k.lstrip('_')}={v!r}" for k, v in vars(self).items()
                           if not isinstance(v, np.ndarray))
        return f"{type(self).__name__}({fields})"


def _draw_dtype(dtype):
    # Generator.random/standard_normal draw float32 natively: half the memory and time of
    # float64 draws for float32 weights (a VGG classifier layer is 100M values).
    return np.float32 if np.dtype(dtype).itemsize <= 4 else np.float64


def draw_uniform(low, high, shape, dtype):
    """U[low, high) values for a tensor of `dtype`, from the global generator."""
    from dygraph.framework.random import rng

    values = rng().random(shape, dtype=_draw_dtype(dtype))
    values *= high - low
    values += low
    return values


def draw_normal(mean, std, shape, dtype):
    """N(mean, std**2) values for a tensor of `dtype`, from the global generator."""
    from dygraph.framework.random import rng

    values = rng().standard_normal(shape, dtype=_draw_dtype(dtype))
    values *= std
    values += mean
    return values


def write_values(tensor, values):
    """Copy host `values` into `tensor` in place (moving them to its device first)."""
    data = tensor._data
    values = np.asarray(values).astype(data.dtype, copy=False)
    if type(data) is not np.ndarray:
        from dygraph.backend import to_place

        values = to_place(values, tensor.place)
    # Writing the array directly (not through an op) keeps initialization out of any graph,
    # which is what `no_grad` would give; the version bump still guards saved tensors.
    data[...] = values
    tensor._version[0] += 1


def compute_fans(shape):
    """(fan_in, fan_out) with Paddle's rules: [in, out] for 2-D weights; for conv kernels
    [out_channels, in_channels, *kernel] both are multiplied by the receptive field size.

    Example:
        >>> compute_fans((20, 1, 5, 5))
        (25, 500)
    """
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = int(np.prod(shape[2:]))
    return shape[1] * receptive, shape[0] * receptive


_GAINS = {"sigmoid": 1.0, "linear": 1.0, "conv1d": 1.0, "conv2d": 1.0, "conv3d": 1.0,
          "conv1d_transpose": 1.0, "conv2d_transpose": 1.0, "conv3d_transpose": 1.0,
          "tanh": 5.0 / 3.0, "relu": math.sqrt(2.0), "selu": 3.0 / 4.0}


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (leaky_relu takes its slope, default 0.01).

    Example:
        >>> round(calculate_gain('tanh'), 4), round(calculate_gain('leaky_relu', 1.0), 4)
        (1.6667, 1.0)
    """
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else float(param)
        return math.sqrt(2.0 / (1.0 + slope ** 2))
    if nonlinearity not in _GAINS:
        raise ValueError(f"calculate_gain: nonlinearity {nonlinearity!r} is not supported; "
                         f"expected one of {sorted([*_GAINS, 'leaky_relu'])}")
    return _GAINS[nonlinearity]


_global = {"weight": None, "bias": None}


def set_global_initializer(weight_init, bias_init=None):
    """Make `weight_init` / `bias_init` the default initializers of every parameter created
    later (a ParamAttr's own initializer still wins). `set_global_initializer(None)` resets.

    Example:
        >>> from dygraph.nn.initializer import Constant
        >>> set_global_initializer(Constant(1.0)); set_global_initializer(None)
    """
    for label, init in (("weight_init", weight_init), ("bias_init", bias_init)):
        if init is not None and not isinstance(init, Initializer):
            raise TypeError(f"set_global_initializer: {label} must be an Initializer or None, "
                            f"got {type(init).__name__}")
    _global["weight"] = weight_init
    _global["bias"] = bias_init


def global_initializer(is_bias):
    """The initializer set by set_global_initializer for weights or biases, or None."""
    return _global["bias" if is_bias else "weight"]
