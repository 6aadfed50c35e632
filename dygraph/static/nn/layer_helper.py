"""What every static.nn builder does besides its computation: name and make its parameters
as Paddle names them (`<layer>_<n>.w_0`, `.b_0`, or the ParamAttr's name), reuse a
parameter a ParamAttr names again (weight sharing), and apply an activation given by name.

Example:
    >>> import dygraph
    >>> with dygraph.utils.unique_name.guard():
    ...     helper = LayerHelper('doc_fc')
    ...     w = helper.parameter([3, 2], None, 'float32')
    ...     b = helper.parameter([2], None, 'float32', is_bias=True)
    >>> w.name, b.name, b.tolist()
    ('doc_fc_0.w_0', 'doc_fc_0.b_0', [0.0, 0.0])
"""

from dygraph.autograd import grad_mode
from dygraph.framework.parameter import unique_name
from dygraph.nn.param_attr import ParamAttr, make_parameter

__all__ = ["LayerHelper", "activation", "channels"]


class LayerHelper:
    """Parameters of one builder call: named after `name` when given, else after a fresh
    `<layer_type>_<n>`."""

    def __init__(self, layer_type, name=None):
        self.prefix = name if name else unique_name(layer_type)

    def parameter(self, shape, attr, dtype, is_bias=False, default_initializer=None):
        """A parameter of `shape` from `attr` (a ParamAttr, a name, an initializer, None;
        False: no parameter, None is returned). A name the program already holds gives
        that parameter back (ParamAttr(name=...) shares one between builders). A
        WeightNormParamAttr gives the weight-normalized weight its two parameters make."""
        from dygraph.static.nn.weight_norm import WeightNormParamAttr, weight_normalized

        if isinstance(attr, WeightNormParamAttr):
            base = attr.name or unique_name(f"{self.prefix}.{'b' if is_bias else 'w'}")
            return weight_normalized(self._make, shape, attr, dtype, base)
        return self._make(shape, attr, dtype, default_initializer, is_bias)

    def _make(self, shape, attr, dtype, default_initializer, is_bias=False):
        attr = ParamAttr._to_attr(attr)
        if attr is False:
            return None
        program = grad_mode.state.static_program
        if attr.name and program is not None and attr.name in program.parameters:
            shared = program.parameters[attr.name]
            if list(shared.shape) != [int(d) for d in shape]:
                raise ValueError(f"parameter {attr.name!r} is shared with shape "
                                 f"{list(shared.shape)} but this layer needs {list(shape)}")
            return shared
        param = make_parameter(shape, attr, dtype, is_bias, default_initializer, self.prefix)
        if program is not None:  # a variable of the program from now on, used or not
            from dygraph.static.capture import program_constant

            program_constant(param)
        return param


def activation(y, act):
    """y through the activation called `act` (None: y itself).

    Example:
        >>> import dygraph
        >>> activation(dygraph.to_tensor([-1.0, 2.0]), 'relu').tolist()
        [0.0, 2.0]
    """
    if act is None:
        return y
    import dygraph.nn.functional as F

    known = {"relu": F.relu, "sigmoid": F.sigmoid, "tanh": F.tanh, "softmax": F.softmax,
             "gelu": F.gelu, "leaky_relu": F.leaky_relu, "elu": F.elu, "relu6": F.relu6,
             "swish": F.swish, "hardswish": F.hardswish, "softplus": F.softplus,
             "softsign": F.softsign, "selu": F.selu, "silu": F.silu, "mish": F.mish,
             "hardsigmoid": F.hardsigmoid, "log_softmax": F.log_softmax}
    if act not in known:
        raise ValueError(f"unknown activation {act!r}; one of {sorted(known)}")
    return known[act](y)


def channels(x, data_format, api):
    """The number of channels of `x` in layout `data_format` (NC..., or N...C)."""
    if x.ndim < 2:
        raise ValueError(f"{api}: the input must have a batch and a channel dimension, got "
                         f"shape {list(x.shape)}")
    c = x.shape[1] if data_format.startswith("NC") else x.shape[-1]
    if c == -1:  # (a free dimension: its size is known only at run time)
        raise ValueError(f"{api}: the channel dimension of {list(x.shape)} must have a size")
    return int(c)
