"""What a Layer holds: the member stores (parameters, sublayers, buffers) and the methods
that walk them (named_parameters, sublayers, children, buffers, apply). Layer inherits it.

Each store is a MemberDict that mirrors its entries into the owning layer's __dict__, so
`self.weight` in a forward is a plain attribute read; writing to a store directly (as
containers do) keeps the mirror right.

Example:
    >>> from dygraph.nn import Layer
    >>> layer = Layer()
    >>> layer.w = layer.create_parameter([2])
    >>> layer.__dict__['w'] is layer._parameters['w']
    True
"""

import collections
from collections.abc import MutableMapping

__all__ = ["MemberDict", "LayerTreeMixin"]

_MISSING = object()


class MemberDict(collections.OrderedDict):
    """An OrderedDict whose entries are mirrored into `mirror` (the owner's __dict__).

    Example:
        >>> owner = {}
        >>> store = MemberDict(owner)
        >>> store['w'] = 1; owner
        {'w': 1}
        >>> del store['w']; owner
        {}
    """

    def __init__(self, mirror=None, items=()):
        super().__init__()
        self._mirror = mirror
        for key, value in items:
            self[key] = value

    def _unmirror(self, key, value):
        mirror = self.__dict__.get("_mirror")
        # Only drop the mirror entry if it is still this member (not a newer plain value).
        if mirror is not None and mirror.get(key, _MISSING) is value:
            del mirror[key]

    def __setitem__(self, key, value):
        if key in self:
            self._unmirror(key, super().__getitem__(key))
        super().__setitem__(key, value)
        mirror = self.__dict__.get("_mirror")
        if mirror is not None:
            mirror[key] = value

    def __delitem__(self, key):
        value = super().__getitem__(key)
        super().__delitem__(key)
        self._unmirror(key, value)

    def pop(self, key, *default):
        if key not in self:
            return super().pop(key, *default)
        value = super().pop(key)
        self._unmirror(key, value)
        return value

    def popitem(self, last=True):
        key, value = super().popitem(last)
        self._unmirror(key, value)
        return key, value

    def clear(self):
        for key, value in list(self.items()):
            self._unmirror(key, value)
        super().clear()

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    update = MutableMapping.update


class LayerTreeMixin:
    """Traversal methods of Layer (see dygraph.nn.Layer)."""

    def named_sublayers(self, prefix="", include_self=False, layers_set=None,
                        remove_duplicate=True):
        """Yield (structured name, layer) for every sublayer, each layer once (every time it
        appears with remove_duplicate=False).

        Example:
            >>> from dygraph.nn import Layer, Sequential
            >>> net = Sequential(Sequential(Layer()))
            >>> [name for name, _ in net.named_sublayers()]
            ['0', '0.0']
        """
        if layers_set is None:
            layers_set = set()
        if include_self and (id(self) not in layers_set or not remove_duplicate):
            layers_set.add(id(self))
            yield prefix, self
        for key, layer in self._sub_layers.items():
            if layer is None:
                continue
            layer_prefix = f"{prefix}.{key}" if prefix else key
            yield from layer.named_sublayers(layer_prefix, True, layers_set, remove_duplicate)

    def sublayers(self, include_self=False):
        """All sublayers (recursively) as a list.

        Example:
            >>> from dygraph.nn import Layer, Sequential
            >>> len(Sequential(Layer(), Layer()).sublayers())
            2
        """
        return [layer for _, layer in self.named_sublayers(include_self=include_self)]

    def named_children(self):
        """Yield (name, layer) for the direct sublayers.

        Example:
            >>> from dygraph.nn import Layer, Sequential
            >>> [name for name, _ in Sequential(Layer()).named_children()]
            ['0']
        """
        seen = set()
        for name, layer in self._sub_layers.items():
            if layer is not None and id(layer) not in seen:
                seen.add(id(layer))
                yield name, layer

    def children(self):
        """Yield the direct sublayers.

        Example:
            >>> from dygraph.nn import Layer, Sequential
            >>> len(list(Sequential(Layer()).children()))
            1
        """
        for _, layer in self.named_children():
            yield layer

    def _named_members(self, store, prefix, include_sublayers, remove_duplicate=True):
        layers = (self.named_sublayers(prefix=prefix, include_self=True,
                                       remove_duplicate=remove_duplicate)
                  if include_sublayers else [(prefix, self)])
        seen = set()
        for layer_prefix, layer in layers:
            for key, value in getattr(layer, store).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield (f"{layer_prefix}.{key}" if layer_prefix else key), value

    def named_parameters(self, prefix="", include_sublayers=True, remove_duplicate=True):
        """Yield (structured name, parameter), each parameter once (under every name it has
        with remove_duplicate=False).

        Example:
            >>> from dygraph.nn import Layer
            >>> layer = Layer()
            >>> layer.w = layer.create_parameter([1])
            >>> [name for name, _ in layer.named_parameters(prefix='net')]
            ['net.w']
        """
        return self._named_members("_parameters", prefix, include_sublayers, remove_duplicate)

    def parameters(self, include_sublayers=True):
        """All parameters as a list (what an optimizer takes).

        Example:
            >>> from dygraph.nn import Layer
            >>> layer = Layer()
            >>> layer.w = layer.create_parameter([1])
            >>> len(layer.parameters())
            1
        """
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def named_buffers(self, prefix="", include_sublayers=True, remove_duplicate=True):
        """Yield (structured name, buffer), persistable or not, each once (under every name
        with remove_duplicate=False).

        Example:
            >>> import dygraph
            >>> from dygraph.nn import Layer
            >>> layer = Layer()
            >>> layer.register_buffer('count', dygraph.zeros([1]), persistable=False)
            >>> [name for name, _ in layer.named_buffers()]
            ['count']
        """
        return self._named_members("_buffers", prefix, include_sublayers, remove_duplicate)

    def buffers(self, include_sublayers=True):
        """All buffers as a list.

        Example:
            >>> from dygraph.nn import Layer
            >>> len(Layer().buffers())
            0
        """
        return [b for _, b in self.named_buffers(include_sublayers=include_sublayers)]

    def apply(self, fn):
        """Call `fn(layer)` on every sublayer (children first), then on self; returns self.

        Example:
            >>> from dygraph.nn import Layer, Sequential
            >>> seen = []
            >>> _ = Sequential(Layer()).apply(lambda l: seen.append(type(l).__name__))
            >>> seen
            ['Layer', 'Sequential']
        """
        for layer in self.children():
            layer.apply(fn)
        fn(self)
        return self
