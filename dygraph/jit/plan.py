"""The run plans of a to_static program: its forward ops (run at the call) and its gradient
ops (run later, when the eager engine reaches the call's backward).

A plan keeps the ops a fetch needs and frees each intermediate after its last reader, as
the Executor's plans do, and runs them with the Executor's generated straight-line code
(dygraph.static.straight_line).
Whole-plan rewrites of the static package (dygraph.static.rewrite) see the forward and the
gradient ops together, so a swap of two forward ops swaps their gradient ops as well. Runs
on a GPU take the plan's device form, whose chains of element-wise ops run as one kernel
each (dygraph.static.fuse_elementwise).

Example:
    >>> import numpy as np
    >>> from dygraph.static.program import Operator
    >>> from dygraph.ops.unary.core import Exp
    >>> plan = Plan([Operator(Exp(), ['x'], ['y'])], {'x'}, ['y'])
    >>> list(plan({'x': np.zeros(2)}))
    [array([1., 1.])]
"""

import functools

import numpy as np

from dygraph.autograd.function import _FORWARD_ERRORS
from dygraph.backend import plan_array_module
from dygraph.framework.errors import op_error
from dygraph.static import fuse_elementwise
from dygraph.static.rewrite import pool_before_relu
from dygraph.static.straight_line import straight_line

__all__ = ["Plan", "select", "rewrite"]


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
    applied to both lists at once."""
    ops = pool_before_relu(list(forward_ops) + list(gradient_ops), set(kept))
    return ops[:len(forward_ops)], ops[len(forward_ops):]


class Plan:
    """`ops` run on {name: array} feeds; plan(env) returns the values of `fetch_names` (a
    sequence)."""

    def __init__(self, ops, feed_names, fetch_names, device=False):
        self.ops, self.fetch_names = list(ops), list(fetch_names)
        self._feed_names = set(feed_names)
        # The plans GPU runs take, by what their ops save (fuse_elementwise's `saved`):
        # this one once it is that form, or where nothing fuses.
        self._device = {"all": self, "plan": self} if device else {}
        last = {}
        for i, o in enumerate(self.ops):
            for n in o.inputs:
                last[n] = i
        keep = set(fetch_names)
        free_after = [[n for n in set(o.inputs) if last.get(n) == i and n not in keep]
                      for i, o in enumerate(self.ops)]
        self._generate = functools.partial(straight_line, self.ops, free_after,
                                           set(feed_names), self.fetch_names, set())
        self.run = functools.partial(self._generate(), {})
        self._hooked = None

    def for_gpu(self, saved="all"):
        """The plan a GPU run takes: `on_device(saved)`, or this plan with
        DYGRAPH_FUSION=0.

        Example:
            >>> plan = Plan([], set(), [])
            >>> plan.for_gpu() is plan
            True
        """
        return self.on_device(saved) if fuse_elementwise.enabled() else self

    def on_device(self, saved="all"):
        """The plan of GPU runs: this plan's ops with each chain of element-wise ops as
        one op (dygraph.static.fuse_elementwise; `saved`: "all" where a backward outside
        the plan reads the ops' saved values, "plan" where only the plan's own gradient
        ops do), or this plan where none fuse. Its ops are the same Op instances, so their
        saved state is where this plan's runs leave it.

        Example:
            >>> from dygraph.static.program import Operator
            >>> from dygraph.ops.unary.core import Exp, Tanh
            >>> plan = Plan([Operator(Exp(), ['x'], ['y']), Operator(Tanh(), ['y'], ['z'])],
            ...             {'x'}, ['z'])
            >>> [o.type for o in plan.on_device().ops]
            ['fused(exp, tanh)']
        """
        device = self._device.get(saved)
        if device is None:
            fused = fuse_elementwise.fuse_elementwise(self.ops, self.fetch_names, saved)
            device = self._device[saved] = (
                self if len(fused) == len(self.ops) else
                Plan(fused, self._feed_names, self.fetch_names, device=True))
        return device

    def run_hooked(self, env, hook):
        """One run with every op's forward called through hook(i, forward, args) (CUDA
        graph capture: dygraph.jit.cuda_graph)."""
        if self._hooked is None:
            self._hooked = self._generate(hooked=True)
        try:
            return self._hooked({}, env, hook)
        except _FORWARD_ERRORS as exc:
            step = getattr(exc, "static_step", -1)
            if step < 0:
                raise
            raise op_error(self.ops[step].type, f"{exc} (in a to_static program)",
                           type(exc)) from None

    def __call__(self, env):
        if self._device.get("all") is not self and plan_array_module(env, {}) is not np:
            plan = self.for_gpu()
            if plan is not self:
                return plan(env)
        try:
            return self.run(env)
        except _FORWARD_ERRORS as exc:
            step = getattr(exc, "static_step", -1)
            if step < 0:
                raise
            raise op_error(self.ops[step].type, f"{exc} (in a to_static program)",
                           type(exc)) from None
