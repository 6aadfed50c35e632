"""The run plans of a to_static program: its forward ops (run at the call) and its gradient
ops (run later, when the eager engine reaches the call's backward).

A plan keeps the ops a fetch needs and frees each intermediate after its last reader, as
the Executor's plans do, and runs them with the Executor's generated straight-line code
where the static package has it (dygraph.static.straight_line), else with a flat loop.
Whole-plan rewrites of the static package (dygraph.static.rewrite) see the forward and the
gradient ops together, so a swap of two forward ops swaps their gradient ops as well.

Example:
    >>> import numpy as np
    >>> from dygraph.static.program import Operator
    >>> from dygraph.ops.unary import Exp
    >>> plan = Plan([Operator(Exp(), ['x'], ['y'])], {'x'}, ['y'])
    >>> list(plan({'x': np.zeros(2)}))
    [array([1., 1.])]
"""

import importlib

import numpy as np

from dygraph.autograd.function import _FORWARD_ERRORS
from dygraph.framework.errors import op_error

__all__ = ["Plan", "select", "rewrite"]


def _optional(module, name):
    """A helper of the static package that some versions of it have, or None."""
    try:
        return getattr(importlib.import_module(module), name, None)
    except ModuleNotFoundError:
        return None


def select(ops, fetch_names):
    """The ops (in program order) that the values `fetch_names` need."""
    needed, chosen = set(fetch_names), []
    for o in reversed(ops):
        if set(o.outputs) & needed:
            chosen.append(o)
            needed |= set(o.inputs)
    return chosen[::-1]


def rewrite(forward_ops, gradient_ops, kept):
    """(forward ops, gradient ops) after the static package's exact whole-plan rewrites,
    applied to both lists at once; unchanged where the package has none."""
    pool_before_relu = _optional("dygraph.static.rewrite", "pool_before_relu")
    if pool_before_relu is None:
        return forward_ops, gradient_ops
    ops = pool_before_relu(list(forward_ops) + list(gradient_ops), set(kept))
    return ops[:len(forward_ops)], ops[len(forward_ops):]


class Plan:
    """`ops` run on {name: array} feeds; plan(env) returns the values of `fetch_names` (a
    sequence)."""

    def __init__(self, ops, feed_names, fetch_names):
        self.ops, self.fetch_names = list(ops), list(fetch_names)
        last = {}
        for i, o in enumerate(self.ops):
            for n in o.inputs:
                last[n] = i
        keep = set(fetch_names)
        free_after = [[n for n in set(o.inputs) if last.get(n) == i and n not in keep]
                      for i, o in enumerate(self.ops)]
        straight_line = _optional("dygraph.static.straight_line", "straight_line")
        if straight_line is not None:
            generated = straight_line(self.ops, free_after, set(feed_names),
                                      self.fetch_names, set())
            self.run = lambda env: generated({}, env)
            return
        self.steps = []
        for o, dead in zip(self.ops, free_after):
            slots = getattr(o.op, "inputs", None)
            self.steps.append((o.op.forward, tuple(o.inputs), tuple(o.outputs),
                               slots if type(slots) is tuple else None,
                               o.op if getattr(o.op, "save_output", False) else None,
                               tuple(dead)))

    def run(self, env):
        """The flat loop over the prepared steps (where there is no generated code)."""
        for step, (forward, ins, outs, slots, keeper, dead) in enumerate(self.steps):
            arrays = [env[n] for n in ins]
            if slots is not None:
                for slot, a in zip(slots, arrays):
                    slot._data = a
            try:
                result = forward(np, *arrays)
            except _FORWARD_ERRORS as exc:
                exc.static_step = step
                raise
            if type(result) is tuple:
                env.update(zip(outs, result))
            else:
                env[outs[0]] = result
                result = (result,)
            if keeper is not None:
                keeper.out_data = result
            for name in dead:
                del env[name]
        return [env[n] for n in self.fetch_names]

    def __call__(self, env):
        try:
            return self.run(env)
        except _FORWARD_ERRORS as exc:
            step = getattr(exc, "static_step", -1)
            if step < 0:
                raise
            raise op_error(self.ops[step].type, f"{exc} (in a to_static program)",
                           type(exc)) from None
