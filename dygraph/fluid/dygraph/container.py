"""The 1.x container layers: Sequential, LayerList, ParameterList.

They are the 2.x containers with the 1.x Layer's methods (`load_dict`/`set_dict` by
structured or parameter names, the 1.x `create_parameter` argument order).

Example:
    >>> import dygraph
    >>> import dygraph.fluid as fluid
    >>> model = fluid.dygraph.Sequential(fluid.dygraph.Linear(4, 2), fluid.dygraph.Linear(2, 1))
    >>> model(dygraph.ones([3, 4])).shape
    [3, 1]
"""

from dygraph.fluid.dygraph.layers import Layer
from dygraph.nn.layer import container as _container

__all__ = ["Sequential", "LayerList", "ParameterList"]


class Sequential(_container.Sequential, Layer):
    """Run sublayers in order; give layers, or (name, layer) pairs.

    Example:
        >>> import dygraph.fluid as fluid
        >>> net = Sequential(('fc', fluid.dygraph.Linear(2, 2)))
        >>> [name for name, _ in net.named_children()]
        ['fc']
    """


class LayerList(_container.LayerList, Layer):
    """A list of sublayers, indexable and iterable, whose parameters the parent owns.

    Example:
        >>> import dygraph.fluid as fluid
        >>> layers = LayerList([fluid.dygraph.Linear(2, 2) for _ in range(3)])
        >>> len(layers), len(layers.parameters())
        (3, 6)
    """


class ParameterList(_container.ParameterList, Layer):
    """A list of parameters that the layer owns.

    Example:
        >>> import dygraph.fluid as fluid
        >>> holder = fluid.dygraph.Layer('holder')
        >>> params = ParameterList([holder.create_parameter(None, [2], 'float32')])
        >>> len(params.parameters())
        1
    """
