"""ParamAttr (how a layer's parameter is named, initialized, regularized and trained) and the
helper that turns an attr plus a layer's defaults into a Parameter.

Example:
    >>> import dygraph
    >>> from dygraph.nn.initializer import Constant
    >>> attr = dygraph.ParamAttr(name="my_w", initializer=Constant(0.5), learning_rate=0.1)
    >>> w = make_parameter([2], attr)
    >>> w.name, w.numpy().tolist(), w.optimize_attr
    ('my_w', [0.5, 0.5], {'learning_rate': 0.1})
"""

import copy

import numpy as np

from dygraph.framework import dtype as _dt
from dygraph.framework.errors import AssertedValueError
from dygraph.framework.parameter import Parameter, unique_name
from dygraph.framework.place import current_place
from dygraph.nn.initializer.base import Initializer, global_initializer
from dygraph.nn.initializer.basic import Constant
from dygraph.nn.initializer.fan import XavierUniform
from dygraph.nn.lazy_init import defer_initializer, lazy_init_enabled

__all__ = ["ParamAttr", "create_parameter"]


def _check_type(value, name, types, type_names):
    if not isinstance(value, types):
        raise TypeError(f"ParamAttr: {name} must be {type_names}, got {type(value).__name__}")


class ParamAttr:
    """Options of one parameter: name, initializer, learning-rate multiplier, regularizer,
    trainable, do_model_average and need_clip (whether gradient clipping applies).

    Example:
        >>> import dygraph
        >>> attr = dygraph.ParamAttr(trainable=False)
        >>> attr.trainable, attr.learning_rate
        (False, 1.0)
    """

    def __init__(self, name=None, initializer=None, learning_rate=1.0, regularizer=None,
                 trainable=True, do_model_average=True, need_clip=True):
        _check_type(name, "name", (str, type(None)), "a str or None")
        _check_type(learning_rate, "learning_rate", (float, int), "a float")
        _check_type(trainable, "trainable", bool, "a bool")
        _check_type(do_model_average, "do_model_average", bool, "a bool")
        _check_type(need_clip, "need_clip", bool, "a bool")
        _check_type(initializer, "initializer", (Initializer, type(None)),
                    "an Initializer or None")
        self.name = name
        self.initializer = initializer
        self.learning_rate = float(learning_rate)
        self.regularizer = regularizer
        self.trainable = trainable
        self.do_model_average = do_model_average
        self.need_clip = need_clip

    def __repr__(self):
        return (f"ParamAttr(name={self.name!r}, initializer={self.initializer!r}, "
                f"learning_rate={self.learning_rate}, regularizer={self.regularizer!r}, "
                f"trainable={self.trainable}, need_clip={self.need_clip})")

    def _set_default_initializer(self, initializer):
        if self.initializer is None:
            self.initializer = initializer

    @staticmethod
    def _to_attr(arg):
        """Normalize what layers accept as an attr: None -> default ParamAttr, a str -> its
        name, an Initializer -> its initializer, False -> False (no parameter), True ->
        default, a list -> one attr per item.

        Example:
            >>> ParamAttr._to_attr("w").name, ParamAttr._to_attr(False)
            ('w', False)
        """
        if arg is None or arg is True:
            return ParamAttr()
        if arg is False:
            return False
        if isinstance(arg, ParamAttr):
            return arg
        if isinstance(arg, str):
            return ParamAttr(name=arg)
        if isinstance(arg, Initializer):
            return ParamAttr(initializer=arg)
        if isinstance(arg, (list, tuple)):
            return [ParamAttr._to_attr(a) for a in arg]
        raise TypeError(f"ParamAttr: cannot make a ParamAttr from {type(arg).__name__}; "
                        f"expected ParamAttr, str, Initializer, bool or None")


def _check_shape(shape):
    if isinstance(shape, int):
        shape = [shape]
    try:
        dims = [int(s) for s in shape]
    except TypeError as exc:
        raise TypeError(f"create_parameter: shape must be a list of ints, got {shape!r}") \
            from exc
    if any(d < 0 for d in dims):
        raise AssertedValueError(  # Paddle asserts it
            f"create_parameter: every dimension must be >= 0, got shape {dims}")
    return dims


def make_parameter(shape, attr=None, dtype=None, is_bias=False, default_initializer=None,
                   prefix="param"):
    """Build a Parameter from `attr` (anything ParamAttr._to_attr takes) and defaults.

    Returns None when attr is False. Without a name the parameter is called
    '<prefix>.w_N' ('<prefix>.b_N' for biases). The initializer is, in order: the attr's,
    the global one (set_global_initializer), `default_initializer`, then XavierUniform for
    weights and Constant(0) for biases.

    Example:
        >>> make_parameter([2, 2], False) is None
        True
    """
    attr = ParamAttr._to_attr(attr)
    if attr is False:
        return None
    if isinstance(attr, list):
        raise TypeError("create_parameter: expected one ParamAttr, got a list")
    dims = _check_shape(shape)
    np_dtype = _dt.convert_dtype(dtype if dtype is not None else _dt.default_float()).np_dtype
    name = attr.name or unique_name(f"{prefix}.{'b' if is_bias else 'w'}")
    init = attr.initializer or global_initializer(is_bias) or default_initializer
    if init is None:
        if np_dtype.kind not in "fc":
            raise TypeError(f"create_parameter: {np_dtype.name} parameters have no default "
                            f"initializer; pass default_initializer or a ParamAttr with one")
        init = Constant(0.0) if is_bias else XavierUniform()
    param = Parameter(np.zeros(dims, np_dtype), name=name, trainable=attr.trainable,
                      learning_rate=attr.learning_rate, regularizer=attr.regularizer,
                      need_clip=attr.need_clip)
    param.do_model_average = attr.do_model_average
    if lazy_init_enabled():
        defer_initializer(param, init)
    else:
        init(param)
    place = current_place()
    if place.is_gpu_place():
        from dygraph.backend import to_place

        param._data = to_place(param._data, place)
    return param


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False,
                     default_initializer=None):
    """Create a standalone Parameter (Paddle's `paddle.create_parameter`).

    Example:
        >>> w = create_parameter([3, 2], 'float32')
        >>> w.shape, w.stop_gradient, w.name.startswith('create_parameter')
        ([3, 2], False, True)
    """
    attr = ParamAttr._to_attr(attr)
    if attr is False:
        return None
    attr = copy.copy(attr)
    if name is not None:
        attr.name = name
    return make_parameter(shape, attr, dtype, is_bias, default_initializer,
                          prefix=unique_name("create_parameter"))
