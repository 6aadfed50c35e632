"""A whole training step inside `jit.to_static`: `loss.backward()`, `opt.step()`,
`opt.clear_grad()` and `scheduler.step()` in the converted function.

While to_static traces such a function, `loss.backward()` appends the gradient ops of the
loss to the program (the eager engine's own per-op backward formulas) and then an
`Accumulate` op, which at each run adds the gradients to the parameters' `.grad` exactly
as the eager engine does, and outputs the accumulated arrays: until the trace ends,
`.grad` holds those outputs, so code between backward and step (printing, clipping by
hand) reads what it would read eagerly. Optimizer and scheduler calls do not run while
tracing: each becomes a `StepCall` op at its place in the program, which makes the same
eager call at each run. So an update is the eager one, with the optimizer's own state,
clipping, weight decay and learning-rate schedule.

The step program is not differentiable itself: what it returns has stop_gradient set.

Example:
    >>> import dygraph
    >>> net = dygraph.nn.Linear(2, 1)
    >>> opt = dygraph.optimizer.SGD(0.1, parameters=net.parameters())
    >>> @dygraph.jit.to_static
    ... def train_step(x):
    ...     loss = (net(x) ** 2).mean()
    ...     loss.backward()
    ...     opt.step()
    ...     opt.clear_grad()
    ...     return loss
    >>> x = dygraph.ones([4, 2])
    >>> bool(train_step(x) > train_step(x)), net.weight.grad.abs().sum().item()
    (True, 0.0)
"""

import numpy as np

from dygraph.autograd import grad_mode
from dygraph.autograd.function import Op
from dygraph.framework.errors import op_error
from dygraph.tensor.tensor import _new_tensor

__all__ = ["Accumulate", "StepCall", "TrainStep", "tracing_step", "refuse_in_trace",
           "record_backward", "record_call"]

_TOKEN = np.zeros((), np.float32)  # what a StepCall "returns", so the plan keeps it


def tracing_step(create=True):
    """The TrainStep of the to_static trace in progress (made on first use unless
    `create` is False), or None (not tracing, or building a plain static program, where
    backward and the optimizer have their static forms)."""
    program = grad_mode.state.static_program
    if program is None or program.live_tensors is None:
        return None
    step = getattr(program, "train_step", None)
    if step is None and create:
        step = program.train_step = TrainStep(program)
    return step


def refuse_in_trace(what, reason="is not converted inside jit.to_static (it reads and "
                    "updates state on the host at each call)"):
    """Raise Unconvertible (the function then runs eagerly, with a warning quoting
    `what` and `reason`) when a to_static trace is in progress: for calls whose effect a
    program cannot repeat."""
    program = grad_mode.state.static_program
    if program is not None and program.live_tensors is not None:
        from dygraph.jit.config import Unconvertible

        raise op_error(what, reason, Unconvertible)


class Accumulate(Op):
    """Adds each run's gradients to the parameters' `.grad` with the eager engine's own
    leaf accumulation (gradient hooks first, a buffer of its own where there was none,
    else in place), runs the callbacks queued for the end of a backward pass (where
    DataParallel waits for its all-reduces), and returns the accumulated arrays."""

    attrs = ("params",)
    saveable = False  # holds live objects; never in a saved program
    capturable = False  # runs on the host at each call, between CUDA graphs
    differentiable = False

    def __init__(self, params):
        self.params = params

    @property
    def name(self):
        return "accumulate_grad"

    def forward(self, xp, *grads):
        from dygraph.autograd.backward_math import array_math
        from dygraph.autograd.engine import _accumulate_leaf, _run_backward_callbacks

        m = array_math(xp)
        for param, g in zip(self.params, grads):
            _accumulate_leaf(param, g, m)
        _run_backward_callbacks()
        out = [param._grad._data for param in self.params]
        return tuple(out) if len(out) > 1 else out[0]

    def backward(self, m, *grads):
        raise NotImplementedError("gradients of a training step's gradients")


class StepCall(Op):
    """`target.method(*args)`, made eagerly at its place in each run."""

    attrs = ("args", "method", "target")
    saveable = False  # holds live objects; never in a saved program
    capturable = False  # runs on the host at each call, between CUDA graphs
    differentiable = False

    def __init__(self, target, method, args):
        self.target, self.method, self.args = target, method, args

    @property
    def name(self):
        return f"{type(self.target).__name__}.{self.method}"

    def forward(self, xp):
        getattr(self.target, self.method)(*self.args)
        return _TOKEN

    def backward(self, m, *grads):
        raise NotImplementedError("a training step's optimizer calls have no gradient")


class FusedStep(Op):
    """`Accumulate`, `opt.step()` and `opt.clear_grad(set_to_zero)` back to back, as one
    op. When every gradient the optimizer holds is one this op left zeroed (or there is
    none), adding this run's gradients to zero gives the gradients themselves, so it hands
    them to the optimizer directly (its multi-tensor update, else `apply_gradients`: the
    same update as `step()`) and leaves `.grad` zeroed, skipping two passes over every
    gradient. Otherwise, and when a parameter has gradient hooks (which the accumulation
    runs), it makes the three calls."""

    attrs = ("optimizer", "order", "params", "parts", "set_to_zero", "zeroed")
    saveable = False  # holds live objects; never in a saved program
    capturable = False  # runs on the host at each call, between CUDA graphs
    differentiable = False

    def __init__(self, accumulate, step_call, clear_call):
        self.parts = (accumulate, step_call, clear_call)
        self.optimizer = opt = step_call.target
        self.set_to_zero = clear_call.args[0]
        order = {id(p): i for i, p in enumerate(opt._parameter_list)}
        # The optimizer's own order, so its flat (foreach) state matches step()'s.
        pairs = sorted(enumerate(accumulate.params), key=lambda ip: order[id(ip[1])])
        self.order = [i for i, _ in pairs]
        self.params = [p for _, p in pairs]
        self.zeroed = {}  # id(param) -> (its .grad Tensor, version) as this op left it

    @property
    def name(self):
        return f"{type(self.optimizer).__name__}.step"

    def _grads_are_ours(self):
        zeroed = self.zeroed
        for p in self.optimizer._parameter_list:
            g = p._grad
            if g is not None:
                mark = zeroed.get(id(p))
                if mark is None or mark[0] is not g or mark[1] != g._version[0]:
                    return False
        return True

    def forward(self, xp, *grads):
        opt, params = self.optimizer, self.params
        if (opt._adopts_parameters or any(p._hooks for p in params)
                or not self._grads_are_ours()):
            accumulate, step_call, clear_call = self.parts
            accumulate.forward(xp, *grads)
            step_call.forward(xp)
            clear_call.forward(xp)
        else:
            grads = [grads[i] for i in self.order]
            fast = getattr(opt, "_step_arrays", None)
            if fast is None or not fast(params, grads):
                opt.apply_gradients([(p, _new_tensor(g, None, 0, True))
                                     for p, g in zip(params, grads) if not p._sg])
            if self.set_to_zero:
                for p, g in zip(params, grads):
                    if p._grad is None:
                        p._grad = _new_tensor(xp.zeros_like(g), None, 0, True)
        zeroed = self.zeroed
        zeroed.clear()
        if self.set_to_zero:
            for p in params:
                if p._grad is not None:
                    zeroed[id(p)] = (p._grad, p._grad._version[0])
        return _TOKEN

    def backward(self, m, *grads):
        raise NotImplementedError("a training step's optimizer calls have no gradient")


def _fuse_update(block, effects):
    """Replace each Accumulate, step(), clear_grad() run whose gradients nothing else
    reads by one FusedStep (in `block.ops` and in the list of effect outputs)."""
    readers = {}
    for o in block.ops:
        for n in o.inputs:
            readers[n] = readers.get(n, 0) + 1
    ops = block.ops
    for i in range(len(ops) - 2):
        acc, step, clear = ops[i:i + 3]
        if not (type(acc.op) is Accumulate and type(step.op) is StepCall
                and type(clear.op) is StepCall and step.op.method == "step"
                and clear.op.method == "clear_grad" and step.op.target is clear.op.target
                and type(step.op.target).step is _base_step()
                and not any(readers.get(n) for n in acc.outputs)):
            continue
        opt = step.op.target
        known = {id(p) for p in opt._parameter_list}
        if not all(id(p) in known for p in acc.op.params):
            continue
        fused = type(acc)(FusedStep(acc.op, step.op, clear.op), acc.inputs, clear.outputs,
                          "effect")
        ops[i:i + 3] = [fused]
        gone = set(acc.outputs) | set(step.outputs)
        effects[:] = [n for n in effects if n not in gone]
        block.program._bump()
        return _fuse_update(block, effects)


def _base_step():
    from dygraph.optimizer.optimizer import Optimizer

    return Optimizer.step


class TrainStep:
    """What a to_static trace recorded of a training step: the effect ops' outputs (the
    plan runs every op they need, in program order), and the parameters whose `.grad`
    the trace replaced with Variables, with their eager gradients (given back at the end)."""

    def __init__(self, program):
        self.program = program
        self.eager_grads = {}  # id(param) -> (param, its .grad before the trace)
        self.effect_outputs = []
        self.grad_views = set()  # Accumulate outputs: the eager .grad arrays themselves

    def backward(self, loss, grad_tensor):
        from dygraph.static.backward import append_backward

        if grad_tensor is not None:
            raise op_error("backward", "inside a to_static training step, backward() "
                           "takes no grad_tensor; scale the loss instead", ValueError)
        block = self.program.global_block()
        if loss.block is not block:
            raise op_error("backward", "loss.backward() inside a static cond or loop body "
                           "is not supported; call it after the branch", ValueError)
        pairs = append_backward(loss)
        if not pairs:
            return
        parameters = self.program.parameters
        params = [parameters[var.name] for var, _ in pairs]
        outs = [block.create_var(f"{var.name}@GRAD@ACC{len(block.ops)}", var.static_shape,
                                 var._data.dtype, stop_gradient=True,
                                 stand_ins=(g._data, g._alt)) for var, g in pairs]
        block.append_op(Accumulate(params), [g.name for _, g in pairs],
                        [v.name for v in outs], role="effect")
        self.effect_outputs += [v.name for v in outs]
        self.grad_views.update(v.name for v in outs)
        for param, var in zip(params, outs):
            self.eager_grads.setdefault(id(param), (param, param._grad))
            param._grad = var

    def call(self, target, method, args):
        block = self.program.global_block()
        token = block.create_var(f"step_call_{len(block.ops)}", (), np.float32,
                                 stop_gradient=True, stand_ins=(_TOKEN, _TOKEN))
        block.append_op(StepCall(target, method, args), [], [token.name], role="effect")
        self.effect_outputs.append(token.name)

    def drop_grads(self, params):
        """The trace's view of clear_grad(set_to_zero=False): no gradient."""
        for p in params:
            if id(p) in self.eager_grads:
                p._grad = None

    def finish(self):
        """End of the trace: every parameter gets its eager gradient back, and the usual
        update sequence becomes one op."""
        for param, eager in self.eager_grads.values():
            param._grad = eager
        _fuse_update(self.program.global_block(), self.effect_outputs)


def record_backward(loss, grad_tensor):
    """`loss.backward()` on a Variable: recorded when a to_static trace is in progress
    (True), else False."""
    step = tracing_step()
    if step is None:
        return False
    step.backward(loss, grad_tensor)
    return True


def record_call(target, method, args=(), drops=()):
    """Record `target.method(*args)` in the training step being traced (True), or do
    nothing when no to_static trace is in progress (False: the caller runs it).
    `drops`: parameters whose gradient the call removes."""
    step = tracing_step()
    if step is None:
        return False
    step.call(target, method, tuple(args))
    step.drop_grads(drops)
    return True
