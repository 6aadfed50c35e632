"""Container layers: Sequential, LayerList, LayerDict and ParameterList.

They register what they hold, so parameters(), state_dict(), train()/eval() and to() reach
every member.

Example:
    >>> import dygraph
    >>> net = dygraph.nn.Sequential(dygraph.nn.Layer(), dygraph.nn.Layer())
    >>> len(net), [name for name, _ in net.named_children()]
    (2, ['0', '1'])
"""

from collections.abc import Iterable, Mapping

from dygraph.framework.errors import AssertedTypeError
from dygraph.framework.parameter import Parameter
from dygraph.nn.layer.layers import Layer

__all__ = ["Sequential", "LayerList", "LayerDict", "ParameterList"]


def _index(idx, length, kind):
    """A non-negative position from a Python-style (possibly negative) int index."""
    if not isinstance(idx, int):
        raise TypeError(f"{kind} indices must be int or slice, got {type(idx).__name__}")
    if not -length <= idx < length:
        raise IndexError(f"{kind} index {idx} is out of range for length {length}")
    return idx + length if idx < 0 else idx


class Sequential(Layer):
    """Run layers one after another. Takes layers, (name, layer) pairs or a dict.

    Example:
        >>> import dygraph
        >>> net = Sequential(('a', dygraph.nn.Layer()), ('b', dygraph.nn.Layer()))
        >>> list(net._sub_layers), type(net[0:1]).__name__
        (['a', 'b'], 'Sequential')
    """

    def __init__(self, *layers):
        super().__init__()
        if len(layers) == 1 and isinstance(layers[0], Mapping):
            pairs = layers[0].items()
        elif layers and isinstance(layers[0], (list, tuple)):
            pairs = layers
        else:
            pairs = ((str(i), layer) for i, layer in enumerate(layers))
        for name, layer in pairs:
            self.add_sublayer(str(name), layer)

    def __getitem__(self, key):
        if isinstance(key, slice):
            return type(self)(*list(self._sub_layers.values())[key])
        if isinstance(key, str):
            return self._sub_layers[key]
        layers = list(self._sub_layers.values())
        return layers[_index(key, len(layers), "Sequential")]

    def __setitem__(self, key, layer):
        if not isinstance(layer, Layer):
            raise TypeError(f"Sequential items must be Layers, got {type(layer).__name__}")
        if isinstance(key, int):
            key = list(self._sub_layers)[_index(key, len(self), "Sequential")]
        self._sub_layers[str(key)] = layer

    def __delitem__(self, key):
        if isinstance(key, int):
            key = list(self._sub_layers)[_index(key, len(self), "Sequential")]
        del self._sub_layers[str(key)]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(list(self._sub_layers.values()))

    def forward(self, input):
        for layer in self._sub_layers.values():
            input = layer(input)
        return input

    def append(self, module):
        """Add a layer at the end (named by its position); returns self.

        Example:
            >>> import dygraph
            >>> len(Sequential().append(dygraph.nn.ReLU()))
            1
        """
        self.add_sublayer(str(len(self)), module)
        return self

    def insert(self, index, module):
        """Insert a layer before position `index`, renumbering the ones after it (the
        layers must be named by position); returns self. Paddle's order: (index, module);
        a non-Layer (e.g. the arguments swapped) raises a TypeError that is also an
        AssertionError, as Paddle asserts the type.

        Example:
            >>> import dygraph
            >>> net = Sequential(dygraph.nn.ReLU()).insert(0, dygraph.nn.Tanh())
            >>> [type(layer).__name__ for layer in net]
            ['Tanh', 'ReLU']
        """
        if not isinstance(module, Layer):
            raise AssertedTypeError(f"Sequential.insert(index, module): module should be a "
                                    f"Layer, got {type(module).__name__}")
        n = len(self._sub_layers)
        if not -n <= index <= n:
            raise IndexError(f"Sequential.insert: index {index} out of range for {n} layers")
        if index < 0:
            index += n
        for i in range(n, index, -1):
            self._sub_layers[str(i)] = self._sub_layers[str(i - 1)]
        self._sub_layers[str(index)] = module
        return self

    def extend(self, sequential):
        """Append every layer of an iterable; returns self.

        Example:
            >>> import dygraph
            >>> len(Sequential().extend([dygraph.nn.ReLU(), dygraph.nn.Tanh()]))
            2
        """
        for layer in sequential:
            self.append(layer)
        return self


class LayerList(Layer):
    """Hold sublayers in a list (registered under '0', '1', ...).

    Example:
        >>> import dygraph
        >>> layers = LayerList([dygraph.nn.Layer() for _ in range(3)])
        >>> _ = layers.append(dygraph.nn.Layer()); len(layers)
        4
    """

    def __init__(self, sublayers=None):
        super().__init__()
        if sublayers is not None:
            self.extend(sublayers)

    def _renumber(self, layers):
        self._sub_layers.clear()
        for i, layer in enumerate(layers):
            self.add_sublayer(str(i), layer)

    def __getitem__(self, idx):
        layers = list(self._sub_layers.values())
        if isinstance(idx, slice):
            return type(self)(layers[idx])
        return layers[_index(idx, len(layers), "LayerList")]

    def __setitem__(self, idx, sublayer):
        self.add_sublayer(str(_index(idx, len(self), "LayerList")), sublayer)

    def __delitem__(self, idx):
        layers = list(self._sub_layers.values())
        if isinstance(idx, slice):
            del layers[idx]
        else:
            del layers[_index(idx, len(layers), "LayerList")]
        self._renumber(layers)

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(list(self._sub_layers.values()))

    def append(self, sublayer):
        """Add a sublayer at the end; returns self.

        Example:
            >>> import dygraph
            >>> len(LayerList().append(dygraph.nn.Layer()))
            1
        """
        self.add_sublayer(str(len(self)), sublayer)
        return self

    def insert(self, index, sublayer):
        """Insert a sublayer before position `index` (len(self) appends).

        Example:
            >>> import dygraph
            >>> layers = LayerList([dygraph.nn.Layer()])
            >>> new = dygraph.nn.Layer(); layers.insert(0, new)
            >>> layers[0] is new
            True
        """
        layers = list(self._sub_layers.values())
        position = len(layers) if index == len(layers) else _index(index, len(layers),
                                                                     "LayerList")
        layers.insert(position, sublayer)
        self._renumber(layers)

    def extend(self, sublayers):
        """Append every layer of an iterable; returns self.

        Example:
            >>> import dygraph
            >>> len(LayerList().extend([dygraph.nn.Layer(), dygraph.nn.Layer()]))
            2
        """
        if not isinstance(sublayers, Iterable):
            raise TypeError(f"LayerList.extend takes an iterable of Layers, got "
                            f"{type(sublayers).__name__}")
        for layer in sublayers:
            self.append(layer)
        return self


class LayerDict(Layer):
    """Hold sublayers by name, like an ordered dict.

    Example:
        >>> import dygraph
        >>> layers = LayerDict({'enc': dygraph.nn.Layer(), 'dec': dygraph.nn.Layer()})
        >>> list(layers.keys()), 'enc' in layers
        (['enc', 'dec'], True)
    """

    def __init__(self, sublayers=None):
        super().__init__()
        if sublayers is not None:
            self.update(sublayers)

    def __getitem__(self, key):
        return self._sub_layers[key]

    def __setitem__(self, key, sublayer):
        self.add_sublayer(key, sublayer)

    def __delitem__(self, key):
        del self._sub_layers[key]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(list(self._sub_layers))

    def __contains__(self, key):
        return key in self._sub_layers

    def clear(self):
        """Remove every sublayer."""
        self._sub_layers.clear()

    def pop(self, key):
        """Remove the sublayer `key` and return it.

        Example:
            >>> import dygraph
            >>> layers = LayerDict({'a': dygraph.nn.Layer()})
            >>> _ = layers.pop('a'); len(layers)
            0
        """
        return self._sub_layers.pop(key)

    def keys(self):
        """The names, in insertion order."""
        return self._sub_layers.keys()

    def items(self):
        """(name, sublayer) pairs, in insertion order."""
        return self._sub_layers.items()

    def values(self):
        """The sublayers, in insertion order."""
        return self._sub_layers.values()

    def update(self, sublayers):
        """Add sublayers from a mapping or an iterable of (name, layer) pairs.

        Example:
            >>> import dygraph
            >>> layers = LayerDict(); layers.update([('a', dygraph.nn.Layer())])
            >>> list(layers)
            ['a']
        """
        if isinstance(sublayers, (Mapping, LayerDict)):
            pairs = sublayers.items()
        elif isinstance(sublayers, Iterable):
            pairs = sublayers
        else:
            raise TypeError(f"LayerDict.update takes a mapping or (name, layer) pairs, got "
                            f"{type(sublayers).__name__}")
        for i, pair in enumerate(pairs):
            if len(pair) != 2:
                raise ValueError(f"LayerDict.update: element {i} has length {len(pair)}; "
                                 f"expected a (name, layer) pair")
            self.add_sublayer(pair[0], pair[1])


class ParameterList(Layer):
    """Hold parameters in a list (registered under '0', '1', ...).

    Example:
        >>> import dygraph
        >>> maker = dygraph.nn.Layer()
        >>> params = ParameterList([maker.create_parameter([2]) for _ in range(2)])
        >>> len(params), len(params.parameters())
        (2, 2)
    """

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            for param in parameters:
                self.append(param)

    def __getitem__(self, idx):
        params = list(self._parameters.values())
        if isinstance(idx, slice):
            return params[idx]
        return params[_index(idx, len(params), "ParameterList")]

    def __setitem__(self, idx, param):
        if not isinstance(param, Parameter):
            raise TypeError(f"ParameterList items must be Parameters, got "
                            f"{type(param).__name__}")
        self._parameters[str(_index(idx, len(self), "ParameterList"))] = param

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(list(self._parameters.values()))

    def append(self, parameter):
        """Add a parameter at the end; returns self.

        Example:
            >>> import dygraph
            >>> maker = dygraph.nn.Layer()
            >>> len(ParameterList().append(maker.create_parameter([1])))
            1
        """
        self.add_parameter(str(len(self)), parameter)
        return self

