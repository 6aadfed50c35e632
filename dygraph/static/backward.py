"""Gradients in a program, from the eager backward formulas (no second definition).

`append_backward(loss)` walks the forward ops in reverse and appends, for each op that
leads to the loss, a gradient op holding the forward op itself: at run time it calls that
op's `backward` with the array namespace, on the values the forward saved in the same run
(its inputs come through the op's Slots). Gradients of a variable used by several ops are
summed; gradients of broadcast inputs are summed back to the input's shape, as the eager
engine does.

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph import static
    >>> dygraph.enable_static()
    >>> main = static.Program()
    >>> with static.program_guard(main, static.Program()):
    ...     x = static.data('x', [None, 2]); x.stop_gradient = False
    ...     loss = (x * x).sum()
    ...     (gx,) = gradients([loss], [x])
    >>> dygraph.disable_static()
    >>> static.Executor().run(main, feed={'x': np.array([[1., 2.]], np.float32)},
    ...                       fetch_list=[gx])[0].tolist()
    [[2.0, 4.0]]
"""

import copy

import numpy as np

from dygraph.autograd.backward_math import array_math
from dygraph.autograd.engine import _sum_to
from dygraph.autograd.function import Op
from dygraph.backend import get_array_module
from dygraph.static.block_op import lookup
from dygraph.static.capture import Slot as _Slot
from dygraph.static.program import Variable, default_main_program

__all__ = ["append_backward", "gradients"]

_MATH = array_math(np)
# Attributes in which ops keep values from their forward for their backward (each forward
# sets them again).
_SAVED_STATE = frozenset(("cols", "saved", "prob", "arg", "keep", "mask", "flat", "inner",
                          "tensors", "outs"))


class GradOf(Op):
    """The gradient op of forward op `fwd`: output gradients in (the forward op's inputs
    come through its Slots), the wanted input gradients out (`wanted` indices). When a
    second gradient goes through it, the forward op's inputs (`fwd_names`) become its
    first program inputs too (`with_inputs`), so that the walk reaches them."""

    attrs = ("fwd", "fwd_edges", "fwd_names", "one", "present", "single", "wanted",
             "with_inputs")
    saveable = False  # holds live objects; never in a saved program
    # (a class default too: a second-order gradient op's release clears saved state named
    # "keep" from the op it differentiates, this one)
    keep = False

    def __init__(self, fwd, present, wanted, fwd_names=(), fwd_edges=()):
        self.fwd, self.present, self.wanted = fwd, present, wanted
        self.fwd_names, self.fwd_edges = list(fwd_names), tuple(fwd_edges)
        self.with_inputs = False
        self.keep = False  # a later gradient op of the same forward op reads its values
        self.single = getattr(fwd, "n_outputs", 1) == 1 and list(present) == [0]
        self.one = len(wanted) == 1

    def forward(self, xp, *arrays):
        fwd = self.fwd
        m = _MATH if xp is np else array_math(xp)
        grads = arrays[len(fwd.inputs):] if self.with_inputs else arrays
        if self.single:
            result = fwd.backward(m, grads[0])
        else:
            full = [None] * fwd.n_outputs
            for i, g in zip(self.present, grads):
                full[i] = g
            result = fwd.backward(m, *full)
        inputs = fwd.inputs
        out = []
        for i in self.wanted:
            g = result[i]
            if g is None or g.shape != inputs[i]._data.shape:
                g = self.fit(g, i)
            out.append(g)
        self.release()
        return out[0] if self.one else tuple(out)

    def fit(self, g, i):
        """Gradient `g` of input i in the input's shape (zeros for None)."""
        x = self.fwd.inputs[i]._data
        m = _MATH if type(x) is np.ndarray else array_math(get_array_module(x))
        return m.xp.zeros(x.shape, x.dtype) if g is None else _sum_to(m, g, x.shape)

    def release(self):
        """Done with the forward op's saved values for this run: free them now, as the
        eager engine frees a node after its backward, instead of at the op's next forward."""
        if self.keep:
            return
        fwd = self.fwd
        for slot in fwd.inputs:
            slot._data = None
        if fwd.save_output:
            fwd.out_data = None
        saved = fwd.__dict__
        for name in _SAVED_STATE.intersection(saved):
            del saved[name]

    def backward(self, m, *ggs):
        """Second order: the forward op runs again eagerly on this run's values, its
        gradient is taken with create_graph, and that gradient's own gradient (by the
        eager engine, with the `ggs` coming in) goes to the forward op's inputs and to the
        output gradients."""
        from dygraph.autograd.engine import grad
        from dygraph.autograd.function import apply
        from dygraph.autograd.grad_mode import enable_grad
        from dygraph.tensor.tensor import _new_tensor

        arrays = [slot._data for slot in self.inputs]
        n = len(self.fwd.inputs)
        with enable_grad():
            tensors = [_new_tensor(a, None, 0, a.dtype.kind not in "fc") for a in arrays]
            xs, gs = tensors[:n], tensors[n:]
            outs = apply(copy.copy(self.fwd), *xs)
            outs = outs if isinstance(outs, tuple) else (outs,)
            first = grad([outs[i] for i in self.present], [xs[i] for i in self.wanted], gs,
                         create_graph=True, allow_unused=True)
            pairs = [(f, gg) for f, gg in zip(first, ggs) if f is not None and gg is not None]
            wanted = [t for t in tensors if not t._sg]
            result = dict(zip(map(id, wanted), grad(
                [f for f, _ in pairs], wanted, [_new_tensor(gg, None, 0, True)
                                                for _, gg in pairs], allow_unused=True)))
        return tuple(None if id(t) not in result or result[id(t)] is None
                     else result[id(t)]._data for t in tensors)


class SumGrads(Op):
    """The sum of the gradient contributions to one variable."""

    def forward(self, xp, *parts):
        total = parts[0].copy()
        for p in parts[1:]:
            if p.dtype == total.dtype:
                total += p
            else:  # a complex contribution to a real one (angle, abs of complex inputs)
                total = total + p
        return total

    def backward(self, m, g):
        return (g,) * len(self.inputs)


class OnesLike(Op):
    """d loss / d loss."""

    differentiable = False

    def forward(self, xp, x):
        return xp.ones_like(x)

    def backward(self, m, g):
        raise NotImplementedError


def _grad_var(block, var, name):
    # Differentiable (stop_gradient False): ops on a gradient record what a second
    # gradient needs, as eager create_graph does.
    return block.create_var(name, var.static_shape, var._data.dtype, stop_gradient=False,
                            stand_ins=(var._data, var._alt))


def _backward(block, targets, target_grads, no_grad):
    """Append gradient ops for `targets`; returns {var name: gradient var name}."""
    pending = {}  # var name -> gradient contributions (names)
    for t, g in zip(targets, target_grads):
        if g is None:
            g = _grad_var(block, t, f"{t.name}@GRAD")
            block.append_op(OnesLike(), [t.name], [g.name], role="backward")
        pending.setdefault(t.name, []).append(g.name)
    done = {}

    def total(name):
        parts = pending.get(name)
        if not parts:
            return None
        if len(parts) > 1:
            var = _grad_var(block, block.vars[name], f"{name}@GRAD@SUM{len(block.ops)}")
            summed = SumGrads()
            summed.edges = (True,) * len(parts)  # differentiable, for a second gradient
            block.append_op(summed, parts, [var.name], role="backward")
            parts[:] = [var.name]
        return parts[0]

    # Gradient ops are differentiable too: gradients of a gradient (a gradient penalty)
    # walk back through them to the forward values they read.
    forward_ops = [o for o in block.ops if o.role in ("forward", "backward")]
    # Gradient ops appended by an earlier call (a second loss.backward() in a to_static
    # step): the forward values they read must outlive them.
    earlier = {}
    for o in block.ops:
        if isinstance(o.op, GradOf):
            earlier.setdefault(id(o.op.fwd), []).append(o.op)
    for o in reversed(forward_ops):
        present = [i for i, n in enumerate(o.outputs) if n in pending]
        if not present or not getattr(o.op, "differentiable", True):
            continue
        if o.role == "backward":
            _expose_inputs(o, block)
        grads = [total(o.outputs[i]) for i in present]
        edges = getattr(o.op, "edges", ())
        wanted = [i for i, n in enumerate(o.inputs)
                  if i < len(edges) and edges[i] is not None and n not in no_grad]
        if not wanted:
            continue
        outs = []
        for i in wanted:
            var = block.vars[o.inputs[i]]
            g = _grad_var(block, var, f"{var.name}@GRAD@{len(block.ops)}_{i}")
            outs.append(g.name)
            pending.setdefault(var.name, []).append(g.name)
        if hasattr(o.op, "grad_wanted"):  # a loop keeps its iterations for this op
            o.op.grad_wanted = True
        for grad_op in earlier.get(id(o.op), ()):
            grad_op.keep = True
        grad_op = GradOf(o.op, present, wanted, o.inputs, edges[:len(o.inputs)])
        grad_op.edges = (True,) * len(grads)  # its inputs: gradients of what needs one
        grad_op.n_outputs = len(outs)
        block.append_op(grad_op, grads, outs, role="backward")
    for name in list(pending):
        done[name] = total(name)
    return done


def _expose_inputs(o, block):
    """Make gradient op `o` differentiable in turn: a GradOf gets its forward op's inputs
    as program inputs, and each run hands `o` its inputs through Slots, which the new
    gradient op reads and then frees."""
    op = o.op
    fwd = getattr(op, "fwd", None)
    names = list(getattr(op, "fwd_names", ())) + list(o.inputs) + list(o.outputs)
    complex_data = any(lookup(block, n)._data.dtype.kind == "c" for n in names)
    if fwd is not None and (type(fwd).__name__ == "EagerCall" or isinstance(fwd, GradOf)
                            or complex_data or type(getattr(fwd, "inputs", None)) is not tuple):
        what = ("a whole-call op" if type(fwd).__name__ == "EagerCall" else
                "a gradient of a gradient" if isinstance(fwd, GradOf) else
                "complex data" if complex_data else "an op built outside capture")
        raise NotImplementedError(
            f"gradients: a gradient of the gradient of {fwd.name} ({what}) is not supported "
            "in static programs yet; compute it eagerly (paddle.grad with create_graph)")
    if isinstance(op, GradOf) and not op.with_inputs:
        o.inputs[:0] = op.fwd_names
        op.edges = tuple(op.fwd_edges) + tuple(op.edges)
        op.with_inputs = True
    if type(getattr(op, "inputs", None)) is not tuple:
        op.inputs = tuple(_Slot(True) for _ in o.inputs)


def _names(items):
    return {v if isinstance(v, str) else v.name for v in items or ()}


def append_backward(loss, parameter_list=None, no_grad_set=None, callbacks=None,
                    checkpoints=None):
    """Append the gradient ops of `loss` to its program; returns [(variable, gradient)]
    for the trainable parameters and the other persistable variables that need a gradient
    (a feed or constant marked `persistable`, as Paddle 3.3 lists them), or for those in
    `parameter_list`."""
    if not isinstance(loss, Variable):
        raise TypeError(f"append_backward: loss must be a static Variable, got "
                        f"{type(loss).__name__}")
    block = loss.block
    grads = _backward(block, [loss], [None], _names(no_grad_set))
    wanted = _names(parameter_list) if parameter_list is not None else None
    pairs = []
    live = block.program.live_tensors or {}  # (to_static's outside tensors: not listed)
    candidates = [v for v in block.vars.values()
                  if v.is_parameter or v.persistable and v.name not in live]
    for var in candidates:
        if var._sg or (wanted is not None and var.name not in wanted):
            continue
        g = grads.get(var.name)
        if g is not None:
            pairs.append((var, block.vars[g]))
    return pairs


def gradients(targets, inputs, target_gradients=None, no_grad_set=None):
    """Gradient variables of sum(targets) with respect to each of `inputs` (None where an
    input does not lead to the targets)."""
    targets = targets if isinstance(targets, (list, tuple)) else [targets]
    inputs = inputs if isinstance(inputs, (list, tuple)) else [inputs]
    block = targets[0].block if isinstance(targets[0], Variable) else \
        default_main_program().global_block()
    target_gradients = target_gradients or [None] * len(targets)
    grads = _backward(block, targets, target_gradients, _names(no_grad_set))
    return [block.vars[grads[v.name]] if grads.get(v.name) else None for v in inputs]
