"""fluid.dygraph.Layer: the 1.x base class of models, on the 2.x `dygraph.nn.Layer`.

What 1.x code relies on is already in the 2.x Layer: `Layer(name_scope)` whose `full_name()`
is unique and nests under a parent's full_name ('mnist_0/simple_img_conv_pool_0'), and an
optional `build_once(*inputs)` run once before the first forward (where FC and the 1.5 Conv2D
create the parameters that depend on the input's shape). This class adds the 1.x argument
order of `create_parameter` and the 1.x `load_dict`/`set_dict`, which accepts a state dict
keyed by structured names (what `state_dict()` gives) or by parameter names.

Example:
    >>> import numpy as np
    >>> import dygraph.fluid as fluid
    >>> class MyLayer(fluid.dygraph.Layer):
    ...     def __init__(self, name_scope):
    ...         super(MyLayer, self).__init__(name_scope)
    ...     def forward(self, inputs):
    ...         x = fluid.layers.relu(inputs)
    ...         return [fluid.layers.reduce_sum(fluid.layers.elementwise_mul(x, x))]
    >>> with fluid.dygraph.guard():
    ...     layer = MyLayer('my_layer')
    ...     out = layer(fluid.dygraph.to_variable(np.array([1.0, 2.0, -1.0], np.float32)))[0]
    ...     out.numpy()
    array([5.], dtype=float32)
"""

import collections.abc
import warnings

from dygraph.nn.layer.layers import Layer as _Layer
from dygraph.nn.param_attr import ParamAttr

__all__ = ["Layer"]


def _is_shape(value):
    return isinstance(value, (list, tuple)) and all(
        isinstance(d, int) and not isinstance(d, bool) for d in value)


class Layer(_Layer):
    """Base class of 1.x layers and models: pass `name_scope` (a name for this layer, or a
    parent's `full_name()` to nest under it), create parameters and sublayers in `__init__`
    (or in `build_once` when they depend on the input), compute in `forward`.

    Example:
        >>> class Net(Layer):
        ...     def forward(self, x):
        ...         return x
        >>> Net('net').full_name().startswith('net_')
        True
    """

    def __init__(self, name_scope=None, dtype="float32"):
        super().__init__(name_scope, dtype)

    def create_parameter(self, attr=None, shape=None, dtype=None, is_bias=False,
                         default_initializer=None):
        """Make a Parameter named after this layer. The 1.x order is
        `(attr, shape, dtype, is_bias, default_initializer)`; a shape given first (the 2.x
        order) is accepted too.

        Example:
            >>> layer = Layer('doc_create')
            >>> layer.create_parameter(None, [2, 3], 'float32').shape
            [2, 3]
            >>> layer.create_parameter([4]).shape
            [4]
        """
        if _is_shape(attr) and (shape is None or isinstance(shape, (ParamAttr, str, bool))):
            attr, shape = shape, attr
        if shape is None:
            raise TypeError(f"{type(self).__name__}.create_parameter: shape is required")
        return super().create_parameter(list(shape), attr, dtype, is_bias,
                                        default_initializer)

    def set_dict(self, stat_dict, include_sublayers=True, use_structured_name=True):
        """Load parameter and buffer values from `stat_dict`, keyed by structured names
        ('_fc._w0', as `state_dict()` gives) or by parameter names ('fc_0.w_0', as 1.5
        checkpoints were); the key style is detected. Values for parameters a sublayer has
        not created yet (FC builds its weight at the first call) are kept and loaded when
        it creates them. A parameter with no value raises RuntimeError, as in 1.x, before
        anything is written.

        Example:
            >>> import dygraph
            >>> layer = Layer('doc_load')
            >>> layer.w = layer.create_parameter(None, [2], 'float32')
            >>> layer.load_dict({layer.w.name: [1.0, 2.0]})
            >>> layer.w.numpy()
            array([1., 2.], dtype=float32)
        """
        if not isinstance(stat_dict, collections.abc.Mapping):
            raise TypeError(f"load_dict: expected a dict, got {type(stat_dict).__name__}")
        own = self.state_dict(include_sublayers=include_sublayers)
        if use_structured_name and not own.keys() & stat_dict.keys():
            use_structured_name = not {t.name for t in own.values()} & stat_dict.keys()
        keys = list(own) if use_structured_name else [t.name for t in own.values()]
        missing = [key for key in keys if key not in stat_dict]
        if missing:
            raise RuntimeError(f"load_dict: no value for {missing} in the state dict "
                               f"(it holds {list(stat_dict)[:6]}...)")
        if not include_sublayers:
            stat_dict = {key: stat_dict[key] for key in keys}
        with warnings.catch_warnings():
            # Keys for parameters not created yet are expected in 1.x code: quiet.
            warnings.simplefilter("ignore")
            self.set_state_dict(stat_dict, use_structured_name)

    load_dict = set_dict
