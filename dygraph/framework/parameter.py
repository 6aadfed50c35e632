"""Parameter: a leaf Tensor that a Layer owns and an optimizer updates.

Example:
    >>> import numpy as np
    >>> from dygraph.framework.parameter import Parameter
    >>> w = Parameter(np.zeros((2, 3), np.float32), name="linear_0.w_0")
    >>> w.stop_gradient, w.trainable, w.persistable
    (False, True, True)
"""

import itertools
import weakref

import numpy as np

from dygraph.tensor.tensor import Tensor, _init_from

__all__ = ["Parameter", "unique_name", "live_parameters"]

_counters = {}
# Every live Parameter: the 1.x `minimize(loss)` without a parameter list updates all
# trainable parameters that hold a gradient, as Paddle 1.x's tracer did.
_live_parameters = weakref.WeakSet()


def live_parameters():
    """All Parameters that still exist, in no particular order."""
    return list(_live_parameters)


def unique_name(prefix):
    """'prefix_0', 'prefix_1', ... : Paddle's unique names for layers and parameters.

    Example:
        >>> unique_name('doctest_layer')
        'doctest_layer_0'
    """
    counter = _counters.setdefault(prefix, itertools.count())
    return f"{prefix}_{next(counter)}"


class Parameter(Tensor):
    """A trainable tensor with the per-parameter options a ParamAttr gives.

    Attributes: trainable (stop_gradient is its negation), optimize_attr
    ({'learning_rate': multiplier}), regularizer, need_clip, is_distributed.
    """

    __slots__ = ("optimize_attr", "regularizer", "need_clip", "is_distributed",
                 "do_model_average", "__dict__")

    def __init__(self, data, name=None, trainable=True, learning_rate=1.0, regularizer=None,
                 need_clip=True):
        if isinstance(data, Tensor):
            data = data._data
        if type(data) is not np.ndarray and not hasattr(data, "__cuda_array_interface__"):
            data = np.asarray(data)
        _init_from(self, data, None, 0, not trainable)
        self._name = name
        self.persistable = True
        self.optimize_attr = {"learning_rate": float(learning_rate)}
        self.regularizer = regularizer
        self.need_clip = need_clip
        self.is_distributed = False
        self.do_model_average = None
        _live_parameters.add(self)

    @property
    def trainable(self):
        return not self._sg

    @trainable.setter
    def trainable(self, value):
        self._sg = not value

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __deepcopy__(self, memo):
        copied = Parameter(self._data.copy(), self._name, self.trainable,
                           self.optimize_attr["learning_rate"], self.regularizer,
                           self.need_clip)
        memo[id(self)] = copied
        return copied

    def __reduce__(self):
        return (Parameter, (self.numpy(), self._name, self.trainable))
