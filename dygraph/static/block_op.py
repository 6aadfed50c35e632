"""Ops that hold sub-blocks (a loop body, the branches of cond) and run their recorded ops.

A sub-block is recorded once while the program is built. At run time a `BlockOp` runs its
ops, the very Op instances recorded, as eager ops on Tensors (a fresh copy of each per
run, so every run keeps its own saved values). When the program has gradient ops for the
BlockOp (`grad_wanted`), those eager ops record a graph, and the BlockOp's backward is one
pass of the eager engine back through it; otherwise they run under no_grad.

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph import static
    >>> dygraph.enable_static()
    >>> main = static.Program()
    >>> with static.program_guard(main, static.Program()):
    ...     x = static.data('x', [1])
    ...     y = static.nn.cond(x.sum() > 0, lambda: x * 2.0, lambda: x - 1.0)
    >>> dygraph.disable_static()
    >>> isinstance(main.global_block().ops[-1].op, BlockOp), main.num_blocks
    (True, 3)
"""

import copy

from dygraph.autograd import grad_mode
from dygraph.autograd.function import Op, apply
from dygraph.tensor.tensor import _new_tensor

__all__ = ["BlockOp"]


def run_block(ops, env):
    """Run recorded ops on the Tensors of `env` (name -> Tensor), adding their outputs.
    Each op runs as a copy, so every run keeps its own saved values for backward."""
    for o in ops:
        op = copy.copy(o.op)
        if isinstance(op, BlockOp):  # a nested block records when the outer one does
            op.grad_wanted = grad_mode.state.grad_on
        outs = apply(op, *[env[n] for n in o.inputs])
        if type(outs) is tuple:
            env.update(zip(o.outputs, outs))
        else:
            env[o.outputs[0]] = outs


def outside_names(blocks, inner, results):
    """The names the ops of each block (and that block's `results`) read before the block
    makes them, in first use order; `inner`: names defined inside (placeholders). A
    persistable a block updates (batch norm's running statistics) is read from outside
    first, so it is among them."""
    outside = []
    for block, names in zip(blocks, results):
        made = set(inner)
        for o in block.ops:
            for n in o.inputs:
                if n not in made and n not in outside:
                    outside.append(n)
            made.update(o.outputs)
        outside += [n for n in dict.fromkeys(names) if n not in made and n not in outside]
    return outside


def state_names(blocks):
    """The persistable variables the ops of `blocks` write (batch norm's running
    statistics): a BlockOp outputs their final values, so they reach the scope."""
    names = []
    for block in blocks:
        for o in block.ops:
            names += [n for n in o.outputs if n not in names and lookup(block, n).persistable]
    return names


def adopt_states(op_record, n_results, states):
    """Name the BlockOp's state outputs after the persistable variables they update."""
    op_record.outputs[n_results:] = states


def lookup(block, name):
    """The variable `name` as seen from `block` (its own, or an enclosing block's)."""
    program = block.program
    while True:
        if name in block.vars:
            return block.vars[name]
        if block.parent_idx < 0:
            raise KeyError(f"no variable {name!r} in block {block.idx} or around it")
        block = program.blocks[block.parent_idx]


class BlockOp(Op):
    """Base of While and IfBlocks: the Tensor plumbing of a run and the backward.
    Subclasses set `outside` (the names of the inputs after their own) and `states`
    (persistables the block updates; extra outputs after the results)."""

    grad_wanted = False  # set when a gradient op of this op is appended
    states = ()

    def _state_inputs(self, arrays, skip):
        """The arrays of the states among the inputs (after the first `skip`)."""
        where = {n: i for i, n in enumerate(self.outside)}
        return [arrays[skip + where[s]] for s in self.states]

    def _tensors(self, arrays):
        """(record, the inputs as Tensors): they need gradients only when recording."""
        record = self.grad_wanted and grad_mode.state.grad_on
        edges = getattr(self, "edges", None) or (None,) * len(arrays)
        return record, [_new_tensor(a, None, 0, not (record and e is not None))
                        for a, e in zip(arrays, edges)]

    def _results(self, record, tensors, outs, arrays):
        """The output arrays; keeps what backward needs when recording."""
        if record:
            self.tensors, self.outs = tensors, outs
        # A value passed through unchanged is still the caller's array: copy it.
        given = {id(a) for a in arrays}
        result = tuple(t._data.copy() if id(t._data) in given else t._data for t in outs)
        return result if len(result) > 1 else result[0]

    def backward(self, m, *grads):
        from dygraph.autograd.engine import grad

        tensors, outs = self.tensors, self.outs
        result = [None] * len(tensors)
        where = {id(t): i for i, t in enumerate(tensors)}
        pairs = []
        for o, g in zip(outs, grads):
            if g is None or o._sg:
                continue
            if id(o) in where:  # passed through: the gradient goes straight back
                i = where[id(o)]
                result[i] = g if result[i] is None else result[i] + g
            else:
                pairs.append((o, g))
        wanted = [t for t in tensors if not t._sg]
        if pairs and wanted:
            found = grad([o for o, _ in pairs], wanted,
                         [_new_tensor(g, None, 0, True) for _, g in pairs],
                         allow_unused=True)
            for t, g in zip(wanted, found):
                if g is not None:
                    i = where[id(t)]
                    result[i] = g._data if result[i] is None else result[i] + g._data
        return tuple(result)
