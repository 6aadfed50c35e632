"""Layer builders of static programs (Paddle's paddle.static.nn.fc, 1.x fluid.layers.fc):
a function call that makes its layer's parameters and applies it, for code that builds a
program without Layer objects.

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph import static
    >>> dygraph.enable_static()
    >>> main, startup = static.Program(), static.Program()
    >>> with static.program_guard(main, startup):
    ...     x = static.data('x', [None, 13])
    ...     y = fc(x, size=1)
    >>> dygraph.disable_static()
    >>> exe = static.Executor(); _ = exe.run(startup)
    >>> exe.run(main, feed={'x': np.ones((4, 13), np.float32)}, fetch_list=[y])[0].shape
    (4, 1)
"""

import math

__all__ = ["fc"]


def _activation(y, activation):
    if activation is None:
        return y
    import dygraph.nn.functional as F

    known = {"relu": F.relu, "sigmoid": F.sigmoid, "tanh": F.tanh, "softmax": F.softmax,
             "gelu": F.gelu, "leaky_relu": F.leaky_relu, "elu": F.elu, "relu6": F.relu6,
             "swish": F.swish, "hardswish": F.hardswish}
    if activation not in known:
        raise ValueError(f"fc: unknown activation {activation!r}; one of {sorted(known)}")
    return known[activation](y)


def fc(x, size, num_flatten_dims=1, weight_attr=None, bias_attr=None, activation=None,
       name=None):
    """A fully connected layer on `x` (a Tensor or a list of them): the dimensions from
    `num_flatten_dims` on are flattened and multiplied by a new weight of `size` columns;
    several inputs are summed; one bias is added (bias_attr=False: none); `activation` is
    applied by name. The output has shape x.shape[:num_flatten_dims] + [size].

    Example:
        >>> import dygraph
        >>> fc(dygraph.ones([2, 3, 4]), size=5, num_flatten_dims=2).shape
        [2, 3, 5]
    """
    from dygraph.nn import Linear

    inputs = list(x) if isinstance(x, (list, tuple)) else [x]
    if not inputs:
        raise ValueError("fc: x is an empty list")
    total = None
    for k, t in enumerate(inputs):
        shape = list(t.shape)
        if not 1 <= num_flatten_dims < len(shape):
            raise ValueError(f"fc: num_flatten_dims={num_flatten_dims} needs an input of more "
                             f"dimensions than that, got shape {shape}")
        tail = shape[num_flatten_dims:]
        if any(d == -1 for d in tail):
            raise ValueError(f"fc: the flattened dimensions {tail} must have sizes")
        features = math.prod(int(d) for d in tail)
        flat = t.reshape([0] * num_flatten_dims + [features])  # 0 keeps a leading dim
        layer = Linear(features, size, weight_attr=weight_attr,
                       bias_attr=bias_attr if k == 0 else False)
        y = layer(flat)
        total = y if total is None else total + y
    return _activation(total, activation)
