"""The state half of Layer: state_dict / set_state_dict and moving or casting the parameters
and buffers (to, astype, float, float16, bfloat16). Layer inherits it.

Example:
    >>> import dygraph
    >>> net = dygraph.nn.Layer()
    >>> net.w = net.create_parameter([2])
    >>> missing, unexpected = net.set_state_dict({'w': [1.0, 2.0]})
    >>> net.w.numpy(), missing, unexpected
    (array([1., 2.], dtype=float32), [], [])
"""

import collections
import warnings

import numpy as np

from dygraph.backend import as_numpy, to_place
from dygraph.framework import dtype as _dt
from dygraph.framework.place import _parse_device
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["LayerStateMixin"]


def _converted(data, place, np_dtype, floating_only):
    if np_dtype is not None and data.dtype != np_dtype and (
            not floating_only or data.dtype.kind == "f"):
        data = data.astype(np_dtype)
    if place is not None:
        data = to_place(data, place)
    return data


def _convert_tensor(tensor, place, np_dtype, floating_only):
    data = _converted(tensor._data, place, np_dtype, floating_only)
    if data is tensor._data:
        return
    # Parameters are converted in place (same objects), so optimizers built earlier
    # still hold them.
    tensor._data = data
    tensor._version[0] += 1
    if tensor._grad is not None:
        grad = _converted(tensor._grad._data, place, np_dtype, floating_only)
        tensor._grad = _new_tensor(grad, None, 0, True)


def _is_batch_norm(layer):
    # float16/bfloat16 keep BatchNorm statistics in float32, as Paddle does.
    return any("BatchNorm" in cls.__name__ for cls in type(layer).__mro__)


class LayerStateMixin:
    """State-dict and conversion methods of Layer (see dygraph.nn.Layer)."""

    def _state_items(self, prefix, include_sublayers):
        """(structured name, tensor) for parameters and persistable buffers, recursively."""
        for name, param in self._parameters.items():
            if param is not None:
                yield prefix + name, param
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistable_buffer_names_set:
                yield prefix + name, buffer
        if include_sublayers:
            for name, layer in self._sub_layers.items():
                if layer is not None:
                    yield from layer._state_items(f"{prefix}{name}.", True)

    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix="",
                   keep_vars=True):
        """An OrderedDict from structured names ('fc.weight') to the parameters and
        persistable buffers (the tensors themselves; detached views when keep_vars=False).

        Example:
            >>> import dygraph
            >>> net = dygraph.nn.Sequential(dygraph.nn.Layer())
            >>> net[0].w = net[0].create_parameter([1])
            >>> list(net.state_dict())
            ['0.w']
        """
        dest = collections.OrderedDict() if destination is None else destination
        for key, value in self._state_items(structured_name_prefix, include_sublayers):
            dest[key] = value if keep_vars else value.detach()
        return dest

    to_static_state_dict = state_dict

    def set_state_dict(self, state_dict, use_structured_name=True):
        """Load values (Tensors or arrays) into the parameters and persistable buffers, by
        structured name (or by parameter name when use_structured_name=False).

        Every shape is checked before anything is written: a mismatch raises ValueError
        naming the key. Returns (missing_keys, unexpected_keys) and warns about them.
        Unexpected keys that name a parameter of an existing sublayer are kept and loaded
        when that parameter is created (1.x layers create some on the first call).

        Example:
            >>> import dygraph
            >>> net = dygraph.nn.Layer()
            >>> net.w = net.create_parameter([1])
            >>> net.set_state_dict({'w': dygraph.to_tensor([5.0])})
            ([], [])
        """
        if not isinstance(state_dict, collections.abc.Mapping):
            raise TypeError(f"set_state_dict: expected a dict, got {type(state_dict).__name__}")
        missing, plan, used = [], [], set()
        for key, target in self._state_items("", True):
            lookup = key if use_structured_name else target.name
            if lookup not in state_dict:
                missing.append(lookup)
                continue
            used.add(lookup)
            plan.append((target, self._checked_state(target, state_dict[lookup], lookup)))
        for target, data in plan:
            self._assign_state(target, data)
        unexpected = [key for key in state_dict if key not in used]
        if unexpected:
            self._hold_for_later(unexpected, state_dict, use_structured_name)
        if missing or unexpected:
            warnings.warn(f"set_state_dict: missing keys {missing}, unexpected keys "
                          f"{unexpected} (kept in case a sublayer creates them later)",
                          stacklevel=2)
        return missing, unexpected

    set_dict = set_state_dict
    load_dict = set_state_dict

    @staticmethod
    def _checked_state(target, value, key):
        data = value._data if isinstance(value, Tensor) else value
        if not (hasattr(data, "shape") and hasattr(data, "dtype")):
            data = np.asarray(data)
        if tuple(data.shape) != target._data.shape:
            raise ValueError(f"set_state_dict: {key!r} has shape {list(data.shape)} but the "
                             f"layer's tensor has shape {list(target._data.shape)}")
        if data.dtype != target._data.dtype and not np.can_cast(
                data.dtype, target._data.dtype, "same_kind"):
            raise TypeError(f"set_state_dict: {key!r} has dtype {data.dtype} which cannot be "
                            f"stored in the layer's {target._data.dtype} tensor")
        return data

    @staticmethod
    def _assign_state(target, data):
        dst = target._data
        dst[...] = as_numpy(data) if type(dst) is np.ndarray else to_place(data, target.place)
        target._version[0] += 1

    def _write_state(self, target, value, key):
        self._assign_state(target, self._checked_state(target, value, key))

    def _hold_for_later(self, keys, state_dict, structured):
        if structured:
            layers = dict(self.named_sublayers(include_self=True))
            for key in keys:
                head, _, leaf = key.rpartition(".")
                layer = layers.get(head)
                if layer is not None:
                    layer._loaddict_holder[leaf] = state_dict[key]
            return
        held = {key: state_dict[key] for key in keys}
        for layer in self.sublayers(include_self=True):
            layer._loaddict_holder.update(held)

    # -- device and dtype ------------------------------------------------------------------
    def _convert(self, layers, place, np_dtype, floating_only):
        seen = set()
        for layer in layers:
            for store in (layer._parameters, layer._buffers):
                for tensor in store.values():
                    if tensor is not None and id(tensor) not in seen:
                        seen.add(id(tensor))
                        _convert_tensor(tensor, place, np_dtype, floating_only)
            if np_dtype is not None:
                layer._dtype = _dt.to_dtype_object(np.dtype(np_dtype)).name

    def to(self, device=None, dtype=None, blocking=None):
        """Move parameters and buffers to `device` ('cpu', 'gpu:0', a Place) and/or cast
        them to `dtype`, in place; returns self. Copies here are always synchronous, so
        `blocking` changes nothing.

        Example:
            >>> import dygraph
            >>> net = dygraph.nn.Layer()
            >>> net.w = net.create_parameter([1])
            >>> net.to(dtype='float64').w.dtype
            dygraph.float64
        """
        place = None if device is None else _parse_device(device)
        np_dtype = None if dtype is None else _dt.convert_dtype(dtype).np_dtype
        self._convert(self.sublayers(include_self=True), place, np_dtype, False)
        return self

    def astype(self, dtype=None):
        """Cast the floating-point parameters and buffers to `dtype`; returns self.

        Example:
            >>> import dygraph
            >>> net = dygraph.nn.Layer()
            >>> net.w = net.create_parameter([1])
            >>> net.astype('float16').w.dtype
            dygraph.float16
        """
        np_dtype = _dt.convert_dtype(dtype).np_dtype
        self._convert(self.sublayers(include_self=True), None, np_dtype, True)
        return self

    def _cast_floats(self, dtype, excluded_layers, skip_batch_norm):
        if excluded_layers is None:
            excluded_layers = []
        elif not isinstance(excluded_layers, (list, tuple)):
            excluded_layers = [excluded_layers]
        excluded_types = tuple(e for e in excluded_layers if isinstance(e, type))
        excluded_ids = {id(sub) for e in excluded_layers if not isinstance(e, type)
                        for sub in e.sublayers(include_self=True)}
        layers = [layer for layer in self.sublayers(include_self=True)
                  if id(layer) not in excluded_ids and not isinstance(layer, excluded_types)
                  and not (skip_batch_norm and _is_batch_norm(layer))]
        self._convert(layers, None, _dt.convert_dtype(dtype).np_dtype, True)
        return self

    def float(self, excluded_layers=None):
        """Cast floating-point parameters and buffers to float32, except in
        `excluded_layers` (Layer classes or instances); returns self.

        Example:
            >>> import dygraph
            >>> net = dygraph.nn.Layer()
            >>> net.w = net.create_parameter([1], dtype='float64')
            >>> net.float().w.dtype
            dygraph.float32
        """
        return self._cast_floats("float32", excluded_layers, False)

    def float16(self, excluded_layers=None):
        """Cast floating-point parameters and buffers to float16 (BatchNorm layers and
        `excluded_layers` keep theirs); returns self.

        Example:
            >>> import dygraph
            >>> net = dygraph.nn.Layer()
            >>> net.w = net.create_parameter([1])
            >>> net.float16().w.dtype
            dygraph.float16
        """
        return self._cast_floats("float16", excluded_layers, True)

    def bfloat16(self, excluded_layers=None):
        """Cast to bfloat16 like float16; NumPy has no bfloat16, so values stay float32.

        Example:
            >>> import dygraph
            >>> net = dygraph.nn.Layer()
            >>> net.w = net.create_parameter([1], dtype='float64')
            >>> net.bfloat16().w.dtype
            dygraph.float32
        """
        return self._cast_floats("bfloat16", excluded_layers, True)
