"""`optimizer.minimize(loss)` in static mode: gradient ops, then one update op that runs the
eager optimizer's own update (clipping, weight decay, accumulators) on the program's
parameter arrays.

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph import static
    >>> dygraph.enable_static()
    >>> main, startup = static.Program(), static.Program()
    >>> with static.program_guard(main, startup):
    ...     x = static.data('x', [None, 2])
    ...     net = dygraph.nn.Linear(2, 1)
    ...     loss = (net(x) ** 2).mean()
    ...     _ = dygraph.optimizer.SGD(0.1, parameters=net.parameters()).minimize(loss)
    >>> dygraph.disable_static()
    >>> exe = static.Executor(); _ = exe.run(startup)
    >>> a = exe.run(main, feed={'x': np.ones((4, 2), np.float32)}, fetch_list=[loss])[0]
    >>> b = exe.run(main, feed={'x': np.ones((4, 2), np.float32)}, fetch_list=[loss])[0]
    >>> bool(b < a)
    True
"""

from dygraph.autograd.function import Op
from dygraph.static.backward import append_backward
from dygraph.tensor import _new_tensor

__all__ = ["minimize_static"]


class ParamUpdate(Op):
    """Inputs: parameter arrays then their gradients; updates the parameters in place."""

    differentiable = False

    def __init__(self, optimizer, params):
        self.optimizer, self.params = optimizer, params

    def forward(self, xp, *arrays):
        n = len(self.params)
        saved = [p._data for p in self.params]
        try:
            for p, data in zip(self.params, arrays[:n]):
                p._data = data  # the update writes into the program's array
            self.optimizer.apply_gradients(
                [(p, _new_tensor(g, None, 0, True)) for p, g in zip(self.params, arrays[n:])])
            return tuple(arrays[:n]) if n > 1 else arrays[0]
        finally:
            for p, data in zip(self.params, saved):
                p._data = data

    def backward(self, m, *grads):
        raise NotImplementedError


def minimize_static(optimizer, loss, parameters=None, no_grad_set=None):
    """Append backward and the update of `optimizer` for static `loss`; returns
    (update ops, [(param var, grad var)])."""
    block = loss.block
    pairs = append_backward(loss, parameters, no_grad_set)
    program = block.program
    params = [program.parameters[v.name] for v, _ in pairs]
    new = [p for p in params if id(p) not in optimizer._group_of]
    if new:
        optimizer._add_param_group({"params": new})
    if not pairs:
        return [], []
    op = ParamUpdate(optimizer, params)
    names = [v.name for v, _ in pairs]
    update = block.append_op(op, names + [g.name for _, g in pairs], names, role="optimize")
    return [update], pairs
