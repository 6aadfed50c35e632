"""PyLayer: a user-defined op with a Python forward and backward (NumPy allowed inside).

Example:
    >>> import dygraph
    >>> from dygraph.autograd import PyLayer
    >>> class Cube(PyLayer):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x ** 3
    ...     @staticmethod
    ...     def backward(ctx, dy):
    ...         (x,) = ctx.saved_tensor()
    ...         return dy * 3 * x * x
    >>> x = dygraph.to_tensor([2.0], stop_gradient=False)
    >>> Cube.apply(x).backward(); x.grad.numpy()
    array([12.], dtype=float32)
"""

import numpy as np

from dygraph.autograd import grad_mode
from dygraph.autograd.function import Op
from dygraph.autograd.saved_hooks import pack_tensors, unpack_tensors
from dygraph.framework.errors import op_error
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["PyLayer", "PyLayerContext"]


class PyLayerContext:
    """The `ctx` handed to forward and backward: a place to keep what backward needs."""

    def __init__(self):
        self.container = ()
        self.needs_input_grad = ()
        self.materialize_grads = True

    def save_for_backward(self, *tensors):
        self.container = tensors
        self._versions = [t._version[0] if isinstance(t, Tensor) else None for t in tensors]
        if grad_mode.state.saved_hooks is not None:
            self._packed = pack_tensors(tensors)

    def saved_tensor(self):
        for i, (t, version) in enumerate(zip(self.container, getattr(self, "_versions", ()))):
            if version is not None and t._version[0] != version:
                raise RuntimeError(
                    f"PyLayer: saved tensor {i} (shape {t.shape}) was modified by an in-place "
                    "operation after save_for_backward; clone it before changing it")
        packed = getattr(self, "_packed", None)
        return self.container if packed is None else unpack_tensors(packed)

    saved_tensors = property(saved_tensor)

    def mark_not_inplace(self, *args):
        pass

    def mark_non_differentiable(self, *args):
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)


class _PyLayerNode(Op):
    attrs = ("ctx", "layer_cls")
    saveable = False  # holds live objects; never in a saved program

    def __init__(self, layer_cls, ctx):
        self.layer_cls = layer_cls
        self.ctx = ctx

    @property
    def name(self):
        return self.layer_cls.__name__

    def backward(self, m, *grads):
        xp_grads = []
        for i, g in enumerate(grads):
            if self.out_meta[i] is None:
                continue  # a non-Tensor output: backward gets no gradient for it
            if g is None and self.ctx.materialize_grads:
                shape, dtype = self.out_meta[i]
                g = np.zeros(shape, dtype)
                if m.tensor_mode:
                    g = _new_tensor(g, None, 0, True)
            if g is not None and not m.tensor_mode:
                g = _new_tensor(g, None, 0, True)
            xp_grads.append(g)
        result = self.layer_cls.backward(self.ctx, *xp_grads)
        if not isinstance(result, (tuple, list)) or len(self.slots) == 1 and \
                self.slots[0] is not None and isinstance(result, list):
            result = (result,)
        if len(result) != len(self.slots):
            raise op_error(self.name, f"The number of outputs of `PyLayer.backward` should be "
                           f"{len(self.slots)} (one per Tensor argument of forward), but "
                           f"received {len(result)}.")
        out = []
        for r, slot in zip(result, self.slots):
            if slot is None:
                out.append(self._one(r, m))
                continue
            parts = [None] * slot if r is None else r
            if not isinstance(parts, (tuple, list)) or len(parts) != slot:
                raise op_error(self.name, f"backward must return a list of {slot} gradients "
                               f"for a list of {slot} Tensors, got {type(r).__name__}")
            out.extend(self._one(p, m) for p in parts)
        return tuple(out)

    def _one(self, r, m):
        if r is None:
            return None
        if not isinstance(r, Tensor):
            raise op_error(self.name, "We can only support Tensor or None for backward "
                           f"output, but got {type(r).__name__}")
        return r if m.tensor_mode else r._data


def _tensor_args(args, kwargs):
    """The Tensors among forward's arguments, keyword values and list items included, in
    order; and per argument that holds any, None (a Tensor) or the count (a list of them)."""
    tensors, slots = [], []
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, Tensor):
            tensors.append(a)
            slots.append(None)
        elif isinstance(a, (list, tuple)):
            inner = [t for t in a if isinstance(t, Tensor)]
            if inner:
                tensors.extend(inner)
                slots.append(len(inner))
    return tuple(tensors), slots


class PyLayer:
    """Subclass with static `forward(ctx, *args)` and `backward(ctx, *grads)`; call `.apply`."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = PyLayerContext()
        inputs, slots = _tensor_args(args, kwargs)
        ctx.needs_input_grad = tuple(not t._sg for t in inputs)
        with grad_mode.no_grad():
            outs = cls.forward(ctx, *args, **kwargs)
        single = not isinstance(outs, (tuple, list))
        out_list = (outs,) if single else tuple(outs)
        if not any(isinstance(o, Tensor) for o in out_list):
            raise op_error(cls.__name__, "At least one output of `PyLayer.forward` must be a "
                           f"Tensor, got {[type(o).__name__ for o in out_list]}")
        if not (grad_mode.state.grad_on and any(ctx.needs_input_grad)):
            return outs
        node = _PyLayerNode(cls, ctx)
        node.inputs = inputs
        node.slots = slots
        node.edges = tuple(None if t._sg else (t._node, t._idx if t._node is not None else t)
                           for t in inputs)
        node.out_dirty = False
        node.hooks = None
        node.retained = None
        node.n_outputs = len(out_list)
        node.out_meta = [(o._data.shape, o._data.dtype) if isinstance(o, Tensor) else None
                         for o in out_list]
        skip = {id(t) for t in getattr(ctx, "non_differentiable", ())}
        result = []
        for i, o in enumerate(out_list):
            if isinstance(o, Tensor) and o._data.dtype.kind in "fc" and id(o) not in skip:
                if any(o is t for t in inputs):  # an input passed through: new identity
                    o = _new_tensor(o._data, None, 0, True)
                o._node, o._idx, o._sg = node, i, False
            result.append(o)
        return result[0] if single else type(outs)(result) if isinstance(outs, tuple) \
            else result
