"""while_loop: repeat `body` while `cond` holds, in static programs and eagerly.

Eagerly it is a plain Python loop. In a static program, `cond` and `body` are recorded
once into a sub-block (on placeholder variables standing for the loop variables), and one
`While` op in the enclosing block holds that sub-block. Its inputs are the loop variables'
start values and every outside value the sub-block reads (parameters, feeds, earlier
results), so pruning, feeding and gradients see them as usual. At run time the op runs the
sub-block's ops, the very Op instances recorded, on each iteration's values until `cond`
is false.

Gradients: when the program asks for them, each iteration's ops run as eager ops on
Tensors (a fresh copy of each Op per iteration, so every iteration keeps its own saved
values), and the While op's backward is a pass of the eager engine through that recorded
chain, in reverse. Without gradients the loop runs under no_grad.

Example:
    >>> import dygraph
    >>> i, total = while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + i),
    ...                       [dygraph.to_tensor(0), dygraph.to_tensor(0)])
    >>> int(i), int(total)
    (4, 6)
"""

import numpy as np

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
from dygraph.static.structure import flatten, pack, same_structure
from dygraph.tensor.tensor import Tensor

__all__ = ["while_loop", "While"]


def _check_pred(pred):
    if not isinstance(pred, Tensor) or pred._data.dtype != np.bool_:
        got = (f"dtype {pred._data.dtype.name}" if isinstance(pred, Tensor) else
               type(pred).__name__)
        raise op_error("while_loop", f"cond must return a bool Tensor, got {got}", TypeError)
    if pred._data.size != 1:
        raise op_error("while_loop", f"the variable returned by cond must hold one value, "
                       f"got shape {list(pred.shape)}", TypeError)


def _next_values(outs, loop_vars):
    """body's result as a list shaped like `loop_vars`, as they were before body ran (a
    body that adds a key to a dict of them changes their structure: ValueError)."""
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    if len(outs) != len(loop_vars) or not all(
            same_structure(a, b) for a, b in zip(loop_vars, outs)):
        raise op_error("while_loop", f"body in while_loop should return the same arity "
                       f"(length and structure) as loop_vars: {len(loop_vars)} loop "
                       f"variables, body returned {len(outs)} values of another structure"
                       if len(outs) == len(loop_vars) else
                       f"body in while_loop should return the same arity (length and "
                       f"structure) as loop_vars: {len(loop_vars)} loop variables, body "
                       f"returned {len(outs)} values")
    return outs


class While(BlockOp):
    """Inputs: the loop variables' start values, then the outside values the body reads.
    Outputs: the loop variables' final values."""

    attrs = ("block", "body_names", "cond_name", "holders", "n_cond_ops", "outside", "states")
    attr_kinds = {"block": "block"}

    def __init__(self, block, n_cond_ops, holders, cond_name, body_names, outside, states):
        self.block, self.n_cond_ops = block, n_cond_ops
        self.holders, self.cond_name = holders, cond_name  # placeholder names, cond's result
        self.body_names, self.outside, self.states = body_names, outside, states

    def forward(self, xp, *arrays):
        n = len(self.holders)
        if getattr(self, "probing", False):  # building: loop variables keep their kind
            out = [a.copy() for a in arrays[:n] + tuple(self._state_inputs(arrays, n))]
            return tuple(out) if len(out) > 1 else out[0]
        record, tensors = self._tensors(arrays)
        ops = self.block.ops
        cond_ops, body_ops = ops[:self.n_cond_ops], ops[self.n_cond_ops:]
        outside = dict(zip(self.outside, tensors[n:]))
        current = tensors[:n]
        with grad_mode.set_grad_enabled(record):
            while True:
                env = dict(outside)
                env.update(zip(self.holders, current))
                run_block(cond_ops, env)
                go = bool(env[self.cond_name]._data.reshape(-1)[0])
                if go:
                    run_block(body_ops, env)
                    current = [env[name] for name in self.body_names]
                for name in self.states:  # the next iteration reads the updated state
                    outside[name] = env[name]
                if not go:
                    break
        outs = current + [outside[name] for name in self.states]
        return self._results(record, tensors, outs, arrays)


def _eager_loop(cond, body, loop_vars):
    values = list(loop_vars)
    pred = cond(*values)
    _check_pred(pred)
    while bool(pred._data.reshape(-1)[0]):
        before = pack(values, flatten(values))  # the structure, should body change it
        values = _next_values(body(*values), before)
        pred = cond(*values)
        _check_pred(pred)
    return values


def _is_carried(value):
    """Whether a leaf of the loop variables is carried by the loop (a Tensor or a number);
    other leaves (None, strings) pass to cond and body unchanged."""
    return isinstance(value, (Tensor, bool, int, float, np.number, np.ndarray))


def _static_loop(cond, body, loop_vars):
    from dygraph.static.capture import _register
    from dygraph.static.program import Variable

    program = grad_mode.state.static_program
    parent = program.current_block()
    leaves = flatten(list(loop_vars))
    carried = [k for k, v in enumerate(leaves) if _is_carried(v)]
    starts = [leaves[k] if isinstance(leaves[k], Variable) else
              parent.vars[_register(parent, as_tensor(leaves[k], "while_loop"))]
              for k in carried]
    with program.sub_block() as block:
        holders = [block.create_var(None, v.static_shape, v._data.dtype,
                                    stop_gradient=v._sg, stand_ins=(v._data, v._alt))
                   for v in starts]
        # (names now: an in-place op in the body, increment(i), rebinds a holder object)
        holder_names = [h.name for h in holders]
        inner = list(leaves)
        for k, h in zip(carried, holders):
            inner[k] = h
        # fresh containers: a body that assigns into a dict or list of its loop variables
        # leaves the caller's own containers alone
        args = pack(list(loop_vars), inner)
        pred = cond(*args)
        _check_pred(pred)
        n_cond_ops = len(block.ops)
        outs = flatten(_next_values(body(*args), list(loop_vars)))
        names = []
        for value in [pred] + [outs[k] for k in carried]:
            value = value if isinstance(value, Tensor) else as_tensor(value, "while_loop")
            names.append(value.name if isinstance(value, Variable) else
                         _register(block, value))
    for start, name in zip(starts, names[1:]):
        out = lookup(block, name)
        if out._data.dtype != start._data.dtype:
            raise op_error("while_loop", f"body turns loop variable {start.name} of dtype "
                           f"{start._data.dtype.name} into dtype {out._data.dtype.name}; a "
                           "loop variable keeps its dtype", TypeError)
    outside = outside_names([block], holder_names, [names])
    states = state_names([block])
    outside += [s for s in states if s not in outside]
    op = While(block, n_cond_ops, holder_names, names[0], names[1:], outside, states)
    result = apply(op, *starts, *[lookup(block, n) for n in outside])
    result = list(result) if isinstance(result, tuple) else [result]
    adopt_states(parent.ops[-1], len(starts), states)
    result = result[:len(starts)]
    for r, name in zip(result, names[1:]):  # a size the body changes is free (-1)
        body_var = lookup(block, name)
        body_shape = body_var.static_shape
        if len(body_shape) == len(r.static_shape):
            r.static_shape = tuple(d if d == e else -1
                                   for d, e in zip(r.static_shape, body_shape))
        elif r._data.size == 0:  # an empty tensor array the body writes its first steps to
            r.static_shape, r._data, r._alt = body_shape, body_var._data, body_var._alt
        # (another rank the body changes keeps the start's, as Paddle declares it: a loop
        # that indexes a row of a batch fed as one row computes at run time what it reads)
    final = list(leaves)
    for k, r in zip(carried, result):
        final[k] = r
        if isinstance(leaves[k], Variable) and not getattr(leaves[k], "is_feed", False):
            # As in Paddle, the loop variable itself holds the final value afterwards: a
            # counter passed in reads as its last value (the Variable object stands for the
            # loop's result from now on; ops recorded before still read the start). A feed
            # keeps its name: it is what a run is fed by.
            leaves[k]._take(r, "while_loop")
    return pack(list(loop_vars), final)


def while_loop(cond, body, loop_vars, is_test=False, name=None):
    """Repeat `loop_vars = body(*loop_vars)` while `cond(*loop_vars)` (one bool) holds;
    returns the final loop variables as a list. Loop variables may be nested lists, tuples
    and dicts of tensors; body returns the same structure. In a static program the loop is
    one op whose gradients reach the start values and everything the body reads.

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([1.0], stop_gradient=False)
        >>> (y,) = while_loop(lambda v: v.sum() < 10, lambda v: [v * 2], [x])
        >>> y.backward(); float(y), float(x.grad)
        (16.0, 16.0)
    """
    if not callable(cond):
        raise TypeError("cond in while_loop should be callable")
    if not callable(body):
        raise TypeError("body in while_loop should be callable")
    if not isinstance(loop_vars, (list, tuple)):
        raise TypeError(f"while_loop: loop_vars must be a list or tuple, got "
                        f"{type(loop_vars).__name__}")
    if not loop_vars:
        raise ValueError("loop_vars in while_loop should not be empty")
    if grad_mode.state.static_program is None:
        return _eager_loop(cond, body, loop_vars)
    return _static_loop(cond, body, loop_vars)
