"""A traced program as ONE differentiable op of the eager graph (Paddle's `run_program`).

`CompiledProgram` holds a Program, the names of its inputs (the traced function's tensor
arguments, then the parameters and live tensors it reads) and of its outputs. Calling it
applies a `RunProgram` op to those tensors: the forward runs the program's forward ops on
raw arrays (the Executor's prepared steps: no Tensor objects, no autograd bookkeeping per
op); the backward runs the program's gradient ops, built once from the same per-op
backward formulas as static `append_backward`. Because parameters are inputs of the op,
`loss.backward()`, hooks, `paddle.grad` and optimizers work around it as around any op.

Example:
    >>> import dygraph
    >>> from dygraph import static
    >>> net = dygraph.nn.Linear(2, 1)
    >>> main = static.Program(); main.live_tensors = {}
    >>> dygraph.enable_static()
    >>> with static.program_guard(main):
    ...     x = static.data('x', [None, 2])
    ...     y = net(x)
    >>> dygraph.disable_static()
    >>> compiled = CompiledProgram(main, ['x'], [y.name])
    >>> out, = compiled([dygraph.ones([3, 2])])
    >>> out.sum().backward(); net.weight.grad.shape
    [2, 1]
"""

import numpy as np

from dygraph.autograd import grad_mode
from dygraph.autograd.function import Op, apply
from dygraph.backend import get_array_module, is_gpu_array
from dygraph.jit.cuda_graph import GraphedPlan
from dygraph.jit.plan import Plan, rewrite, select
from dygraph.static.backward import _backward
from dygraph.tensor.tensor import _new_tensor

__all__ = ["CompiledProgram", "RunProgram"]


class RunProgram(Op):
    """One call of a compiled program; keeps what its backward needs from its forward."""

    attrs = ("compiled", "record")
    saveable = False  # holds live objects; never in a saved program
    complex_grad = "same"  # its backward runs the program's own (complex-aware) gradient ops

    def __init__(self, compiled, record):
        self.compiled, self.record = compiled, record

    @property
    def name(self):
        return "run_program"

    def forward(self, xp, *arrays):
        return self.compiled.run_forward(self, arrays)

    def backward(self, m, *grads):
        if m.tensor_mode:
            raise NotImplementedError(
                "run_program: double backward (create_graph=True) through a to_static "
                "function is not supported; call the function eagerly for that")
        return self.compiled.run_backward(self, grads)


class CompiledProgram:
    """`program` run as one op: `input_names` are fed in order (the tensors passed to the
    call, then those of `persistables`, {name: Tensor}, read at each call; by default the
    program's parameters and live tensors); the values of `output_names` come back as
    Tensors."""

    def __init__(self, program, input_names, output_names, persistables=None):
        self.program = program
        if persistables is None:
            persistables = {**program.parameters, **(program.live_tensors or {})}
        self.persistables = dict(persistables)
        self.input_names = list(input_names) + list(self.persistables)
        self._n_call = len(input_names)
        self._host_copies = {}  # input index -> (host array, its copy on the GPU)
        self.output_names = list(output_names)
        self._persist_tensors = list(self.persistables.values())
        # Outputs that are inputs come back as copies (a new tensor, as from an op).
        names = set(self.input_names)
        self._copied = [i for i, n in enumerate(self.output_names) if n in names]
        self._backward_plan = None
        self._grad_of = None
        block = program.global_block()
        self._out_vars = [block.vars[n] for n in self.output_names]
        # A training step (dygraph.jit.train_step) runs its own gradient ops and optimizer
        # calls: every op its effects need, in program order.
        step = getattr(program, "train_step", None)
        self._effects = list(step.effect_outputs) if step is not None else []
        ops = block.ops if step is not None else [o for o in block.ops
                                                  if o.role != "backward"]
        fetch = self.output_names + self._effects
        # Outputs a step returns as copies: inputs, and gradients (.grad's own arrays).
        self._step_copies = set(self._copied) | {
            i for i, n in enumerate(self.output_names) if n in set(self._effects)}
        self._forward_ops = select(ops, fetch)
        forward, _ = rewrite(self._forward_ops, [], fetch)
        self._set_forward(Plan(forward, names, fetch))

    def _on_one_device(self, arrays):
        """`arrays` with the host arrays among them on the GPU where the run is on one:
        constants a trace made on the host (a scale, a table) are live inputs too. Each
        is copied once and kept while its source array stays the same."""
        if not self._host_copies and type(arrays[0] if arrays else None) is np.ndarray:
            return arrays
        device = next((a for a in arrays if is_gpu_array(a)), None)
        if device is None:
            return arrays
        xp = get_array_module(device)
        out = list(arrays)
        for i, a in enumerate(arrays):
            if type(a) is np.ndarray:
                kept = self._host_copies.get(i)
                if kept is None or kept[0] is not a:
                    kept = self._host_copies[i] = (a, xp.asarray(a))
                out[i] = kept[1]
        return out

    def _set_forward(self, plan):
        self._forward_plan = plan
        # On a GPU, runs that keep nothing for a backward replay CUDA graphs.
        self._graphed = GraphedPlan(plan, self.input_names[:self._n_call])
        ops = [o.op for o in plan.ops]
        # What a run leaves on the op instances, cleared after runs without a backward.
        self._slots = [s for op in ops if type(getattr(op, "inputs", None)) is tuple
                       for s in op.inputs]
        self._keepers = [op for op in ops if op.save_output]

    # -- gradient program --------------------------------------------------------------------
    def _build_backward(self):
        """Append the gradient ops (once): output gradients in, input gradients out."""
        block = self.program.global_block()
        targets, grads, where = [], [], []
        for i, var in enumerate(self._out_vars):
            if var._sg or var._data.dtype.kind not in "fc":
                continue
            # An output returned twice gets the sum of both gradients (identity, not ==:
            # comparing Variables would record an op).
            seen = [k for k, t in enumerate(targets) if t is var]
            if seen:
                where[seen[0]].append(i)
                continue
            g = block.create_var(f"{var.name}@GRAD@OUT{i}", var.static_shape,
                                 var._data.dtype, stop_gradient=True,
                                 stand_ins=(var._data, var._alt))
            g.is_feed = True
            targets.append(var)
            grads.append(g)
            where.append([i])
        first = len(block.ops)
        done = _backward(block, targets, grads, set()) if targets else {}
        self._grad_feeds = [(indices, g.name) for indices, g in zip(where, grads)]
        self._grad_of = [done.get(n) for n in self.input_names]
        fetch = [n for n in self._grad_of if n is not None]
        # Both plans again, rewritten together (a swap of forward ops swaps their
        # gradient ops too).
        forward, backward = rewrite(self._forward_ops, select(block.ops[first:], fetch),
                                    self.output_names + fetch)
        self._set_forward(Plan(forward, set(self.input_names), self.output_names))
        self._backward_plan = Plan(backward, {g.name for g in grads}, fetch)

    # -- running -------------------------------------------------------------------------------
    def __call__(self, tensors):
        """Apply the program to `tensors` (the call's inputs); a list of output Tensors."""
        if self._effects:
            return self._run_step(tensors)
        inputs = list(tensors) + self._persist_tensors
        record = grad_mode.state.grad_on and not all(t._sg for t in inputs)
        if record and self._backward_plan is None:
            self._build_backward()
        out = apply(RunProgram(self, record), *inputs)
        return list(out) if type(out) is tuple else [out]

    def _run_step(self, tensors):
        """A training step: one run, not recorded (its gradients were taken inside); the
        outputs, with stop_gradient set."""
        arrays = [t._data for t in tensors]
        arrays += [t._data for t in self._persist_tensors]
        arrays = self._on_one_device(arrays)
        outs = self._graphed(dict(zip(self.input_names, arrays)))
        for slot in self._slots:
            slot._data = None
        for op in self._keepers:
            op.out_data = None
        copies = self._step_copies
        return [_new_tensor(outs[i].copy() if i in copies else outs[i], None, 0, True)
                for i in range(len(self.output_names))]

    def run_forward(self, node, arrays):
        env = dict(zip(self.input_names, self._on_one_device(arrays)))
        outs = self._forward_plan(env) if node.record else self._graphed(env)
        ops = self._forward_plan.ops
        if node.record:
            # The op instances hold this run's saved values; keep them with this call, so
            # a second call before backward (a shared encoder) does not overwrite them.
            node.saved = [(o.op, dict(o.op.__dict__),
                           [s._data for s in o.op.inputs]
                           if type(getattr(o.op, "inputs", None)) is tuple else None)
                          for o in ops]
            node.out_shapes = [(a.shape, a.dtype) for a in outs]
        else:
            for slot in self._slots:
                slot._data = None
            for op in self._keepers:
                op.out_data = None
        if self._copied:
            outs = list(outs)
            for i in self._copied:
                outs[i] = outs[i].copy()
        return tuple(outs) if len(outs) != 1 else outs[0]

    def run_backward(self, node, grads):
        for op, state, datas in node.saved:
            op.__dict__.update(state)
            if datas is not None:
                for slot, a in zip(op.inputs, datas):
                    slot._data = a
        env = {}
        for indices, name in self._grad_feeds:
            parts = [grads[i] for i in indices if grads[i] is not None]
            if not parts:
                shape, dtype = node.out_shapes[indices[0]]
                parts = [np.zeros(shape, dtype)]
            env[name] = parts[0] if len(parts) == 1 else sum(parts[1:], parts[0])
        values = iter(self._backward_plan(env))
        return tuple(None if n is None else next(values) for n in self._grad_of)
