"""Chains of element-wise ops in a to_static program, run on a GPU as one kernel each.

On a GPU each op of a program is a kernel launch and a pass over memory: `relu(x + b)`,
a residual add and its activation, the arithmetic of a hand-written activation or loss,
each read and write whole tensors between steps that do almost nothing. The GPU plan of
a to_static program (dygraph/jit/plan.py) replaces each run of two or more consecutive
element-wise ops that feed each other by one `FusedElementwise` op, whose kernel
(dygraph/kernels/cuda/elementwise_chains.py) computes the whole chain per element and
writes only:

- the values an op outside the chain reads, or that the plan fetches;
- the values the chain's ops keep for their gradients (the inputs of an op that saves its
  inputs, the result of one that saves its output): for every op where the plan's run is
  recorded for a backward that runs later (`saved="all"`), for the ops whose gradient ops
  are in the plan where it is not (`saved="plan"`: a whole training step, inference).

So `relu(x + b)` in a training step writes relu's result alone (relu's gradient reads its
output; the sum is never stored), and a chain in inference writes its last value.

The kernel is chosen at the first run of each input signature (shapes and dtypes): the
chain fuses where every op's result has the shape of the chain's last (inputs may
broadcast into it) and is float32 or float64, and its inputs are float32/64, signed
integers, uint8 or bool; otherwise, and on the CPU, the ops run one by one as before.
The ops' saved state is set as their own runs set it, so their gradient ops, the CUDA
graph capture and a recorded call's backward work unchanged. Off: DYGRAPH_FUSION=0.

Example:
    >>> import numpy as np
    >>> from dygraph.static.program import Operator
    >>> from dygraph.ops.math.arithmetic import Add
    >>> from dygraph.ops.activation.piecewise import Relu
    >>> ops = [Operator(Add(), ["x", "b"], ["s"]), Operator(Relu(), ["s"], ["y"])]
    >>> fused, = fuse_elementwise(ops, {"y"})
    >>> fused.type, fused.inputs, fused.outputs
    ('fused(add, relu)', ['x', 'b'], ['y'])
    >>> fused.op.forward(np, np.array([-1.0, 2.0]), np.array(0.5))
    array([0. , 2.5])
"""

import os

import numpy as np

from dygraph.autograd.function import Op
from dygraph.kernels.cuda import elementwise_chains
from dygraph.static.backward import GradOf
from dygraph.static.program import Operator

__all__ = ["FusedElementwise", "fuse_elementwise", "enabled"]

def enabled():
    """Whether GPU plans fuse element-wise chains (DYGRAPH_FUSION, default on).

    Example:
        >>> enabled() in (True, False)
        True
    """
    return os.environ.get("DYGRAPH_FUSION", "1") != "0"


class Unkept:
    """What a fused-away value leaves in the saved input of an op whose gradient reads
    only that input's shape (relu's, whose gradient reads its output): its shape and
    dtype, and no values (reading them is an error, never silent zeros)."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape, self.dtype = shape, dtype

    @property
    def ndim(self):
        return len(self.shape)

    def __array__(self, dtype=None, copy=None):
        raise RuntimeError("a value fused away by dygraph.static.fuse_elementwise was read; "
                           "run with DYGRAPH_FUSION=0 and report it")


class _Signature:
    """What one input signature runs: the kernel, or None (the ops one by one)."""

    __slots__ = ("kernel", "written", "dtypes", "shape")

    def __init__(self, kernel, written, dtypes, shape):
        self.kernel, self.written, self.dtypes, self.shape = kernel, written, dtypes, shape


class FusedElementwise(Op):
    """The ops `members` [(op, refs)] of a chain as one op: refs ("in", k) for the fused
    op's input k, ("val", j) for member j's result; it returns the results of the members
    `returned`, and also writes those of `kept` (what the members' gradients read)."""

    attrs = ("members", "returned", "kept")
    saveable = False  # holds the ops of a live program
    differentiable = False  # runs inside plans only; the members' gradient ops differentiate

    def __init__(self, members, returned, kept):
        self.members, self.returned = list(members), list(returned)
        self.kept = sorted(set(kept))

    @property
    def name(self):
        return f"fused({', '.join(op.name for op, _ in self.members)})"

    def forward(self, xp, *args):
        if xp is not np:
            key = tuple((a.shape, a.dtype) for a in args)
            signatures = self.__dict__.get("_signatures")
            if signatures is None:  # input signature -> _Signature, made at first runs
                signatures = self._signatures = {}
            signature = signatures.get(key)
            if signature is None:
                signature = signatures[key] = self._prepare(args)
            if signature.kernel is not None:
                return self._run_kernel(signature, args)
        return self._run_members(xp, args)

    # -- the two ways to run -----------------------------------------------------------
    def _run_members(self, xp, args):
        values = []
        for op, refs in self.members:
            operands = [args[k] if kind == "in" else values[k] for kind, k in refs]
            if type(getattr(op, "inputs", None)) is tuple:  # what its gradient reads
                for slot, a in zip(op.inputs, operands):
                    slot._data = a
            out = op.forward(xp, *operands)
            if op.save_output:
                op.out_data = (out,)
            values.append(out)
        return self._returned({j: values[j] for j in self.returned})

    def _run_kernel(self, signature, args):
        outs = signature.kernel(*args)
        values = dict(zip(signature.written, outs))
        for j, (op, refs) in enumerate(self.members):
            if type(getattr(op, "inputs", None)) is tuple:
                for slot, (kind, k) in zip(op.inputs, refs):
                    slot._data = (args[k] if kind == "in" else values[k] if k in values
                                  else Unkept(signature.shape, signature.dtypes[k]))
            if op.save_output:  # unkept where no gradient of this run reads it
                op.out_data = (values[j],) if j in values else None
        return self._returned(values)

    def _returned(self, values):
        if len(self.returned) == 1:
            return values[self.returned[0]]
        return tuple(values[j] for j in self.returned)

    def _prepare(self, args):
        """The signature of `args`: its kernel where the chain fuses for them (see the
        module docstring), else none."""
        none = _Signature(None, (), (), ())
        if any(a.dtype.name not in elementwise_chains.C_TYPES for a in args):
            return none  # float16, complex, the wide unsigned integers
        shapes = []
        for _, refs in self.members:
            try:
                shapes.append(np.broadcast_shapes(*[args[k].shape if kind == "in"
                                                    else shapes[k] for kind, k in refs]))
            except ValueError:
                return none  # the ops raise it themselves, one by one
        if any(s != shapes[-1] for s in shapes):
            return none
        # The results' dtypes, from the ops' own forwards on one element of each input.
        ones = [np.ones((1,) * a.ndim, a.dtype) for a in args]
        dtypes = []
        with np.errstate(all="ignore"):
            values = []
            for op, refs in self.members:
                out = op.forward(np, *[ones[k] if kind == "in" else values[k]
                                       for kind, k in refs])
                if type(out) is not np.ndarray or out.dtype.name not in \
                        elementwise_chains.VALUE_DTYPES:
                    return none
                values.append(out)
                dtypes.append(out.dtype)
        written = sorted(set(self.returned) | set(self.kept))
        kernel = elementwise_chains.chain_kernel(
            self.members, [a.dtype.name for a in args], [d.name for d in dtypes], written)
        return _Signature(kernel, written, dtypes, shapes[-1])


def _fusable(o):
    return (len(o.outputs) == 1 and o.role != "backward" and
            elementwise_chains.fusable(o.op))


def _chains(ops):
    """[start, end) index ranges of the runs of two or more consecutive fusable ops
    in which each op reads a value made earlier in the run."""
    chains, i = [], 0
    while i < len(ops):
        if not _fusable(ops[i]):
            i += 1
            continue
        made, j = set(ops[i].outputs), i + 1
        while j < len(ops) and _fusable(ops[j]) and made.intersection(ops[j].inputs):
            made.update(ops[j].outputs)
            j += 1
        if j - i >= 2:
            chains.append((i, j))
        i = j
    return chains


def _fused(ops, start, end, kept_names, graded):
    """The Operator of the chain ops[start:end]; `graded`: the ids of the ops whose
    saved values are kept (None: all)."""
    chain = ops[start:end]
    made = {o.outputs[0]: j for j, o in enumerate(chain)}
    inputs, members = [], []
    for o in chain:
        refs = []
        for n in o.inputs:
            if n in made and made[n] < len(members):
                refs.append(("val", made[n]))
            else:
                if n not in inputs:
                    inputs.append(n)
                refs.append(("in", inputs.index(n)))
        members.append((o.op, refs))
    outside = {n for o in ops[:start] + ops[end:] for n in o.inputs}
    returned = [j for j, o in enumerate(chain)
                if o.outputs[0] in outside or o.outputs[0] in kept_names]
    returned = returned or [len(chain) - 1]
    kept = set()
    for j, (op, refs) in enumerate(members):
        if graded is not None and id(op) not in graded:
            continue
        if op.save_output:
            kept.add(j)
        if op.save_inputs:
            kept.update(k for kind, k in refs if kind == "val")
    fused = FusedElementwise(members, returned, kept)
    operator = Operator(fused, inputs, [chain[j].outputs[0] for j in returned],
                        chain[-1].role)
    operator.type = fused.name
    return operator


def fuse_elementwise(ops, kept, saved="all"):
    """`ops` (a plan's Operators) with each chain of element-wise ops as one
    FusedElementwise Operator (see the module docstring); `kept`: the names the plan
    fetches; `saved`: "all" (a backward outside the plan reads the ops' saved values) or
    "plan" (only the plan's own gradient ops do). The program's own Operators are not
    changed."""
    ops = list(ops)
    graded = None
    if saved == "plan":
        graded = {id(o.op.fwd) for o in ops if isinstance(o.op, GradOf)}
    for start, end in reversed(_chains(ops)):
        ops[start:end] = [_fused(ops, start, end, set(kept), graded)]
    return ops
