"""cond in a static program: each branch recorded into its own sub-block, and one
`IfBlocks` op that runs only the branch `pred` chooses at run time (its gradient reaches
that branch only; see dygraph.static.block_op).

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph import static
    >>> dygraph.enable_static()
    >>> main = static.Program()
    >>> with static.program_guard(main, static.Program()):
    ...     x = static.data('x', [2])
    ...     y = static.nn.cond(x.sum() > 0, lambda: x * 2.0, lambda: x - 1.0)
    >>> dygraph.disable_static()
    >>> static.Executor().run(main, feed={'x': np.array([1., 2.], np.float32)},
    ...                       fetch_list=[y])[0].tolist()
    [2.0, 4.0]
"""

from dygraph.autograd import grad_mode
from dygraph.autograd.function import apply
from dygraph.framework.errors import op_error
from dygraph.ops.common import as_tensor
from dygraph.static.block_op import (
    BlockOp,
    adopt_states,
    lookup,
    outside_names,
    run_block,
    state_names,
)
from dygraph.static.structure import flatten, pack
from dygraph.tensor.tensor import Tensor

__all__ = ["IfBlocks"]


class IfBlocks(BlockOp):
    """Inputs: pred, then the outside values the branches read. Outputs: the results of
    the branch pred chooses."""

    attrs = ("blocks", "outside", "probes", "results", "states")
    attr_kinds = {"blocks": "block"}

    def __init__(self, blocks, results, outside, states):
        self.blocks, self.results, self.outside = blocks, results, outside
        self.states = states
        self.probes = 0

    def forward(self, xp, pred, *arrays):
        if getattr(self, "probing", False):  # building: the true branch's stand-ins
            block, names = self.blocks[0], self.results[0]
            first = self.probes % 2 == 0  # the two stand-ins, in turn
            self.probes += 1
            out = [(v._data if first else v._alt).copy()
                   for v in (lookup(block, n) for n in names)]
            out += [a.copy() for a in self._state_inputs(arrays, 0)]
            return tuple(out) if len(out) > 1 else out[0]
        chosen = 0 if bool(pred.reshape(-1)[0]) else 1
        record, tensors = self._tensors((pred,) + arrays)
        env = dict(zip(self.outside, tensors[1:]))
        with grad_mode.set_grad_enabled(record):
            run_block(self.blocks[chosen].ops, env)
        outs = [env[n] for n in self.results[chosen] + list(self.states)]
        return self._results(record, tensors, outs, (pred,) + arrays)


def _branch(program, fn):
    """Record fn() into a new sub-block; (block, what fn returned)."""
    with program.sub_block() as block:
        out = fn() if fn is not None else None
    return block, out


def _as_results(out):
    """The results of a branch as a list (a dict or a single tensor is one result)."""
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _check_structures(true_out, false_out):
    if true_out is None or false_out is None:
        sides = ("None", "non-None") if true_out is None else ("non-None", "None")
        raise ValueError(f"Incompatible return values of true_fn and false_fn in cond: "
                         f"true_fn returns {sides[0]} while false_fn returns {sides[1]}")
    true_list, false_list = _as_results(true_out), _as_results(false_out)
    if len(true_list) != len(false_list):
        raise ValueError(f"true fn returns {len(true_list)} vars, but false fn returns "
                         f"{len(false_list)} vars, which is not equals")
    for a, b in zip(true_list, false_list):
        if len(flatten(a)) != len(flatten(b)):
            raise ValueError(f"Incompatible return values of true_fn and false_fn in cond: "
                             f"{a!r} and {b!r} nest differently")


def _leaf_names(block, leaves, other_leaves):
    """The program names of a branch's leaves that become results of the op: tensors, and
    Python values the other branch does not return alike (those become constants). A
    leaf both branches return as the same Python value (None, a number) stays one."""
    from dygraph.static.capture import _register
    from dygraph.static.program import Variable

    names = []
    with _recording_into(block):
        for value, other in zip(leaves, other_leaves):
            if not isinstance(value, Tensor) and not isinstance(other, Tensor) and (
                    value is other or type(value) is type(other) and value == other):
                names.append(None)
                continue
            value = value if isinstance(value, Tensor) else as_tensor(value, "cond")
            names.append(value.name if isinstance(value, Variable) else
                         _register(block, value))
    return names


def _recording_into(block):
    """Record into `block` (a branch, already built) inside the `with`."""
    import contextlib

    program = block.program

    @contextlib.contextmanager
    def guard():
        previous = program._current
        program._current = block.idx
        try:
            yield
        finally:
            program._current = previous

    return guard()


def static_cond(pred, true_fn, false_fn):
    """cond(pred, true_fn, false_fn) for a program Variable pred (see the module
    docstring)."""
    program = grad_mode.state.static_program
    true_block, true_out = _branch(program, true_fn)
    false_block, false_out = _branch(program, false_fn)
    if true_out is None and false_out is None:
        if state_names((true_block, false_block)):  # the branches update persistables
            _if_op(program, pred, true_block, false_block, [], [])
        return None
    _check_structures(true_out, false_out)
    true_leaves, false_leaves = flatten(true_out), flatten(false_out)
    true_names = _leaf_names(true_block, true_leaves, false_leaves)
    false_names = _leaf_names(false_block, false_leaves, true_leaves)
    kept = [k for k, n in enumerate(true_names) if n is not None]
    result = _if_op(program, pred, true_block, false_block,
                    [true_names[k] for k in kept], [false_names[k] for k in kept])
    leaves = list(true_leaves)
    for k, r in zip(kept, result):
        leaves[k] = r
    return pack(true_out, leaves)


def _if_op(program, pred, true_block, false_block, true_names, false_names):
    """Append the IfBlocks op choosing between the two recorded branches; its results."""
    pairs = [(lookup(true_block, a), lookup(false_block, b))
             for a, b in zip(true_names, false_names)]
    for k, (a, b) in enumerate(pairs):
        if a._data.dtype != b._data.dtype or a.ndim != b.ndim:
            raise op_error("cond", f"result {k} is {a._data.dtype.name} of shape "
                           f"{list(a.static_shape)} in true_fn but {b._data.dtype.name} of "
                           f"shape {list(b.static_shape)} in false_fn; dtype and rank must "
                           "match", TypeError)
    blocks = (true_block, false_block)
    outside = outside_names(blocks, (), (true_names, false_names))
    states = state_names(blocks)
    outside += [s for s in states if s not in outside]
    op = IfBlocks(blocks, (true_names, false_names), outside, states)
    result = apply(op, pred, *[lookup(true_block, n) for n in outside])
    result = list(result) if isinstance(result, tuple) else [result]
    adopt_states(program.current_block().ops[-1], len(true_names), states)
    result = result[:len(true_names)]
    for r, (a, b) in zip(result, pairs):  # a size the branches disagree on is free (-1)
        r.static_shape = tuple(d if d == e else -1 for d, e in zip(a.static_shape,
                                                                   b.static_shape))
    return result
