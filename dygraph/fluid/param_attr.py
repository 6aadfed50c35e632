"""fluid.param_attr: the 1.x ParamAttr, the 2.x one with the 1.x arguments.

Example:
    >>> import dygraph.fluid as fluid
    >>> attr = fluid.ParamAttr(name='fc_w', learning_rate=0.5,
    ...                        initializer=fluid.initializer.ConstantInitializer(1.0))
    >>> attr.name, attr.learning_rate, attr.do_model_average
    ('fc_w', 0.5, False)
"""

from dygraph.nn.param_attr import ParamAttr as _ParamAttr
from dygraph.static.nn.weight_norm import WeightNormParamAttr

__all__ = ["ParamAttr", "WeightNormParamAttr"]


class ParamAttr(_ParamAttr):
    """How a layer's parameter is named, initialized, regularized and trained (1.x form).

    `gradient_clip` is kept on the attr for 1.x code; in dygraph mode clipping is set on
    the optimizer (`grad_clip=`) or `minimize(..., grad_clip=)`, and a parameter opts out of
    it with `need_clip=False`.

    Example:
        >>> ParamAttr(trainable=False).trainable
        False
    """

    def __init__(self, name=None, initializer=None, learning_rate=1.0, regularizer=None,
                 trainable=True, gradient_clip=None, do_model_average=False, need_clip=True):
        super().__init__(name=name, initializer=initializer, learning_rate=learning_rate,
                         regularizer=regularizer, trainable=trainable,
                         do_model_average=do_model_average, need_clip=need_clip)
        self.gradient_clip = gradient_clip
