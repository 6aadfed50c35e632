"""Paddle 3's torch-style names in paddle.nn: Module, ModuleList, ModuleDict, Parameter,
Conv1d/2d/3d (torch's constructor: `bias=`, `dtype=`), ParameterDict, and the lower-case
spellings that are the same classes in Paddle 3.3 (AdaptiveAvgPool1d/2d/3d,
UpsamplingBilinear2d, UpsamplingNearest2d, ZeroPad1d/2d/3d).

Example:
    >>> AdaptiveAvgPool2d is AdaptiveAvgPool2D
    True
"""

from collections.abc import Iterable, Mapping

import numpy as np

from dygraph.framework.dtype import convert_dtype
from dygraph.framework.parameter import Parameter as _Parameter
from dygraph.nn.layer.common import UpsamplingBilinear2D, UpsamplingNearest2D, ZeroPad2D
from dygraph.nn.layer.container import LayerDict, LayerList
from dygraph.nn.layer.conv import Conv1D, Conv2D, Conv3D
from dygraph.nn.layer.layers import Layer
from dygraph.nn.layer.padding import ZeroPad1D, ZeroPad3D
from dygraph.nn.layer.pooling import AdaptiveAvgPool1D, AdaptiveAvgPool2D, AdaptiveAvgPool3D

__all__ = ["Module", "ModuleList", "ModuleDict", "Parameter", "ParameterDict", "Conv1d",
           "Conv2d", "Conv3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d",
           "UpsamplingBilinear2d", "UpsamplingNearest2d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"]

Module, ModuleList, ModuleDict = Layer, LayerList, LayerDict
AdaptiveAvgPool1d, AdaptiveAvgPool2d = AdaptiveAvgPool1D, AdaptiveAvgPool2D
AdaptiveAvgPool3d = AdaptiveAvgPool3D
UpsamplingBilinear2d, UpsamplingNearest2d = UpsamplingBilinear2D, UpsamplingNearest2D
ZeroPad1d, ZeroPad2d, ZeroPad3d = ZeroPad1D, ZeroPad2D, ZeroPad3D


class Parameter(_Parameter):
    """paddle.nn.Parameter: a parameter from a tensor or array, or, given (shape, dtype),
    a new one of that shape (zeros). Keyword options are the parameter's (name, trainable,
    learning_rate, regularizer, need_clip).

    Example:
        >>> import dygraph
        >>> dygraph.nn.Parameter([2, 3], 'float32').shape
        [2, 3]
        >>> dygraph.nn.Parameter(dygraph.ones([2])).stop_gradient
        False
    """

    def __init__(self, data=None, dtype=None, shape=None, **options):
        if shape is not None or dtype is not None:
            dims = [int(v) for v in (shape if shape is not None else data)]
            data = np.zeros(dims, dtype=convert_dtype(dtype or "float32").np_dtype)
        super().__init__(data, **options)


def _torch_conv(base, data_format):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, *, bias=True, padding_mode="zeros", device=None,
                 dtype=None, weight_attr=None, bias_attr=None, data_format=data_format):
        base.__init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                      groups, padding_mode, weight_attr, bias_attr if bias else False,
                      data_format)
        if dtype is not None or device is not None:
            self.to(device=device, dtype=dtype)

    name = base.__name__[:-1] + "d"
    doc = (f"{base.__name__} with torch's constructor (bias=False drops the bias; dtype and "
           f"device convert the parameters).\n\n"
           f"    Example:\n"
           f"        >>> import dygraph\n"
           f"        >>> dygraph.nn.{name}(2, 3, 1, bias=False).bias is None\n"
           f"        True\n")
    return type(name, (base,), {"__init__": __init__, "__doc__": doc, "__module__": __name__,
                                "__qualname__": name})


Conv1d = _torch_conv(Conv1D, "NCL")
Conv2d = _torch_conv(Conv2D, "NCHW")
Conv3d = _torch_conv(Conv3D, "NCDHW")


class ParameterDict(Layer):
    """Hold parameters by name, like an ordered dict (they land in parameters() and
    state_dict under their names).

    Example:
        >>> import dygraph
        >>> maker = dygraph.nn.Layer()
        >>> params = ParameterDict({'w': maker.create_parameter([2])})
        >>> list(params), len(params.parameters())
        (['w'], 1)
    """

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return self._parameters[key]

    def __setitem__(self, key, parameter):
        self.add_parameter(key, parameter)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(list(self._parameters))

    def __contains__(self, key):
        return key in self._parameters

    def keys(self):
        """The names, in insertion order."""
        return self._parameters.keys()

    def items(self):
        """(name, parameter) pairs, in insertion order."""
        return self._parameters.items()

    def values(self):
        """The parameters, in insertion order."""
        return self._parameters.values()

    def update(self, parameters):
        """Add parameters from a mapping or an iterable of (name, parameter) pairs.

        Example:
            >>> import dygraph
            >>> params = ParameterDict()
            >>> params.update([('b', dygraph.nn.Layer().create_parameter([1]))])
            >>> list(params)
            ['b']
        """
        if isinstance(parameters, (Mapping, ParameterDict)):
            pairs = parameters.items()
        elif isinstance(parameters, Iterable):
            pairs = parameters
        else:
            raise TypeError(f"ParameterDict.update takes a mapping or (name, parameter) "
                            f"pairs, got {type(parameters).__name__}")
        for i, pair in enumerate(pairs):
            if len(pair) != 2:
                raise ValueError(f"ParameterDict.update: element {i} has length {len(pair)}; "
                                 f"expected a (name, parameter) pair")
            self.add_parameter(pair[0], pair[1])
