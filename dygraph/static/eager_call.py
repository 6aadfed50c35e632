"""EagerCall: one op of a static program that runs a whole function eagerly (see
dygraph.autograd.whole_call).

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> import dygraph.nn.functional as F
    >>> from dygraph import static
    >>> dygraph.enable_static()
    >>> main = static.Program()
    >>> with static.program_guard(main, static.Program()):
    ...     logits = static.data('logits', [None, 3])
    ...     label = static.data('label', [None, 1], 'int64')
    ...     loss = F.cross_entropy(logits, label)
    >>> dygraph.disable_static()
    >>> feed = {'logits': np.zeros((2, 3), np.float32), 'label': np.array([[0], [2]])}
    >>> round(float(static.Executor().run(main, feed=feed, fetch_list=[loss])[0]), 4)
    1.0986
"""

import contextlib
import inspect

import numpy as np

from dygraph.amp.auto_cast import active_settings, settings_applied
from dygraph.autograd.function import Op, apply
from dygraph.autograd.grad_mode import enable_grad
from dygraph.framework.free_dim import FreeDim
from dygraph.static.program import Variable
from dygraph.tensor.tensor import Tensor, _new_tensor, to_tensor

__all__ = ["EagerCall", "capture_call"]


class EagerCall(Op):
    """Runs `fn` on Tensors made from the input arrays; backward through eager autograd.

    `kwargs` holds every argument by name (the Tensor ones are filled in per run), so a
    program clone for testing can switch `training` off."""

    attrs = ("always", "amp", "fn", "free_dims", "kwargs", "names", "stops")
    attr_kinds = {"fn": "function"}
    complex_grad = "same"  # backward runs eager autograd, which applies the complex rules

    def __init__(self, fn, kwargs, names, stops, free_dims=(), always=False, amp=None):
        self.fn, self.kwargs = fn, kwargs
        # The Tensor arguments ("name", or "name:i" for item i of a list argument) and their
        # stop_gradient.
        self.names, self.stops = names, stops
        self.free_dims = free_dims  # output dims whose size depends on the input's values
        self.always = always  # in the program even without Variable inputs (creation ops)
        self.amp = amp  # the auto_cast settings it was recorded under, applied at each run

    def _arguments(self, tensors):
        """The function's arguments with `tensors` in the places `names` give ("inputs:2":
        item 2 of a list argument)."""
        kwargs = dict(self.kwargs)
        for name, t in zip(self.names, tensors):
            key, _, item = name.partition(":")
            if item:
                if kwargs[key] is self.kwargs[key]:
                    kwargs[key] = list(kwargs[key])
                kwargs[key][int(item)] = t
            else:
                kwargs[key] = t
        return kwargs

    def _mixed_precision(self):
        """The auto_cast settings the op was recorded under, for its function's run."""
        return settings_applied(self.amp) if self.amp else contextlib.nullcontext()

    def _constants_on(self, xp, kwargs):
        """On a GPU, the function's NumPy array arguments (constants of the program, such
        as a closure's ids or class weights) as device Tensors made once per op: a copy
        from the host at each run costs a transfer, and a CUDA graph cannot hold one."""
        if xp is np:
            return kwargs
        device = xp.cuda.runtime.getDevice()
        kept = self.__dict__.setdefault("_constants_on_device", {})
        for key, value in kwargs.items():
            if type(value) is np.ndarray:
                entry = kept.get((key, device))
                if entry is None or entry[0] is not value:
                    entry = kept[key, device] = (value, _new_tensor(xp.asarray(value), None,
                                                                    0, True))
                kwargs[key] = entry[1]
        return kwargs

    def forward(self, xp, *arrays):
        tensors = [_new_tensor(a, None, 0, stop) for a, stop in zip(arrays, self.stops)]
        kwargs = self._constants_on(xp, self._arguments(tensors))
        with enable_grad(), self._mixed_precision():
            out = self.fn(**kwargs)
        self.tensors = tensors
        self.outs = out if isinstance(out, tuple) else (out,)
        arrays_out = tuple(o._data for o in self.outs)
        return arrays_out if len(arrays_out) > 1 else arrays_out[0]

    def _one_node(self):
        """The single op that produced the (single) output straight from our inputs, or
        None: then its own backward serves, without a pass of the engine."""
        if len(self.outs) != 1:
            return None
        node = self.outs[0]._node
        if node is None or node.n_outputs != 1:
            return None
        ids = {id(t): i for i, t in enumerate(self.tensors)}
        if not all(id(t) in ids for t in node.inputs):
            return None
        return node, [ids[id(t)] for t in node.inputs]

    def backward(self, m, *grads):
        from dygraph.autograd.engine import _sum_to, grad

        if m.tensor_mode:
            return self._backward_recorded(grads)
        direct = self._one_node() if grads[0] is not None else None
        if direct is not None:
            node, where = direct
            result = [None] * len(self.tensors)
            for i, g in zip(where, node.backward(m, grads[0])):
                if g is not None and not self.tensors[i]._sg:
                    result[i] = _sum_to(m, g, self.tensors[i]._data.shape)
            return tuple(result)
        wanted = [t for t in self.tensors if not t._sg]
        pairs = [(o, g) for o, g in zip(self.outs, grads) if g is not None and not o._sg]
        if not wanted or not pairs:
            return (None,) * len(self.tensors)
        result = iter(grad([o for o, _ in pairs], wanted,
                           [_new_tensor(g, None, 0, True) for _, g in pairs],
                           allow_unused=True))
        out = []
        for t in self.tensors:
            g = next(result) if not t._sg else None
            out.append(None if g is None else g._data)
        return tuple(out)


    def _backward_recorded(self, grads):
        """The gradient as Tensors with their own graph (create_graph, a second gradient):
        the function runs again on the op's input Tensors, so the graph reaches them."""
        from dygraph.autograd.engine import grad

        inputs = list(self.inputs)
        kwargs = self._arguments(inputs)
        with enable_grad(), self._mixed_precision():
            out = self.fn(**kwargs)
            outs = out if isinstance(out, tuple) else (out,)
            pairs = [(o, g) for o, g in zip(outs, grads) if g is not None and not o._sg]
            wanted = [t for t in inputs if not t._sg]
            if not wanted or not pairs:
                return (None,) * len(inputs)
            result = dict(zip(map(id, wanted), grad(
                [o for o, _ in pairs], wanted, [g for _, g in pairs], create_graph=True,
                allow_unused=True)))
        return tuple(result.get(id(t)) for t in inputs)


def capture_call(fn, args, kwargs, free_dims=(), always=False):
    """Record fn(*args, **kwargs) as one EagerCall op when a static Variable is among the
    arguments; NotImplemented otherwise (the call then runs as usual). `free_dims`: output
    dimensions whose size depends on the input's values; `always`: recorded without Variable
    arguments too."""
    signature = inspect.signature(fn)
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()  # every argument by name: a test clone can turn `training` off
    values = {k: v for k, v in bound.arguments.items() if signature.parameters[k].kind not in
              (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD) or v}
    from dygraph.ops.manipulation.rearrange import stack

    for k, v in values.items():  # a free dimension's size is an input read at each run
        if type(v) is FreeDim:
            values[k] = v.tensor()
        elif isinstance(v, (list, tuple)) and any(type(d) is FreeDim for d in v):
            values[k] = stack([d.tensor() if type(d) is FreeDim else
                               to_tensor(d, dtype="int64") for d in v])
    names, tensors, template = [], [], dict(values)
    for k, v in values.items():
        if isinstance(v, Tensor):
            names.append(k)
            tensors.append(v)
            template[k] = None
        elif isinstance(v, (list, tuple)) and v and all(isinstance(t, Tensor) for t in v):
            names += [f"{k}:{i}" for i in range(len(v))]  # a list of Tensors (multiplex)
            tensors += list(v)
            template[k] = [None] * len(v)
    if not always and not any(isinstance(t, Variable) for t in tensors):
        return NotImplemented
    stops = [t._sg for t in tensors]
    op = EagerCall(fn, template, names, stops, tuple(free_dims), always, active_settings())
    return apply(op, *tensors)
