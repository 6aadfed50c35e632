"""WeightNormParamAttr (Paddle's paddle.static.WeightNormParamAttr): a ParamAttr asking a
static.nn builder for a weight-normalized weight, w = g * v / ||v||, where v
(`<weight name>_v`, started by the attr's initializer) and g (`<weight name>_g`, started
at ||v||, so w starts as v) are the trained parameters, and the norm is over every axis
but `dim` (all axes when dim is None).

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph.nn.initializer import Assign
    >>> from dygraph.static.nn import fc
    >>> attr = WeightNormParamAttr(dim=1, initializer=Assign(np.array([[3., 0.], [4., 1.]])))
    >>> fc(dygraph.ones([1, 2]), 2, weight_attr=attr, bias_attr=False).tolist()
    [[7.0, 1.0]]
"""

import copy

import numpy as np

from dygraph.nn.param_attr import ParamAttr

__all__ = ["WeightNormParamAttr", "weight_normalized"]


class WeightNormParamAttr(ParamAttr):
    """ParamAttr of a weight-normalized weight (see the module docstring); the weights it
    made are listed in `WeightNormParamAttr.params_with_weight_norm`."""

    params_with_weight_norm = []

    def __init__(self, dim=None, name=None, initializer=None, learning_rate=1.0,
                 regularizer=None, trainable=True, do_model_average=False, need_clip=True):
        super().__init__(name=name, initializer=initializer, learning_rate=learning_rate,
                         regularizer=regularizer, trainable=trainable,
                         do_model_average=do_model_average, need_clip=need_clip)
        if dim is not None and not isinstance(dim, int):
            raise TypeError(f"WeightNormParamAttr: dim must be an int or None, got "
                            f"{type(dim).__name__}")
        self.dim = dim


def _axes(ndim, dim):
    return tuple(a for a in range(ndim) if dim is None or a != dim % ndim)


def weight_normalized(make, shape, attr, dtype, base):
    """g * v / ||v|| for the WeightNormParamAttr `attr` of a weight called `base`;
    `make(shape, attr, dtype, default_initializer)` makes each of v and g."""
    import dygraph
    from dygraph.nn.initializer import Assign

    v_attr = copy.copy(attr)
    v_attr.name = f"{base}_v"
    v = make(shape, ParamAttr(name=v_attr.name, initializer=attr.initializer,
                              learning_rate=attr.learning_rate,
                              regularizer=attr.regularizer, trainable=attr.trainable,
                              do_model_average=attr.do_model_average,
                              need_clip=attr.need_clip), dtype, None)
    axes = _axes(len(shape), attr.dim)
    start = np.sqrt(np.sum(np.square(np.asarray(v._data, np.float64)), axis=axes,
                           keepdims=True)).astype(v._data.dtype)
    g = make(list(start.shape), ParamAttr(name=f"{base}_g", initializer=Assign(start),
                                          learning_rate=attr.learning_rate,
                                          regularizer=attr.regularizer,
                                          trainable=attr.trainable,
                                          do_model_average=attr.do_model_average,
                                          need_clip=attr.need_clip), dtype, None)
    norm = dygraph.sqrt(dygraph.sum(v * v, axis=list(axes), keepdim=True))
    w = g * (v / norm)
    WeightNormParamAttr.params_with_weight_norm.append(w)
    return w
