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

import numpy as np

from dygraph.autograd.function import Op
from dygraph.static.backward import append_backward
from dygraph.tensor import _new_tensor

__all__ = ["minimize_static"]


def _fusable(optimizer, params):
    """Plain SGD or Adam over one group without clipping, decay or per-parameter rates:
    its update is elementwise, so it can run once over all parameters in one flat array."""
    from dygraph.optimizer.adam import Adam
    from dygraph.optimizer.sgd import SGD

    if type(optimizer) not in (SGD, Adam) or len(optimizer._param_groups) != 1:
        return False
    group = optimizer._param_groups[0]
    if group["grad_clip"] is not None or group["weight_decay"] is not None:
        return False
    if getattr(optimizer, "_amsgrad", False) or optimizer._multi_precision:
        return False
    dtypes = {p._data.dtype for p in params}
    return len(dtypes) == 1 and dtypes.pop().kind == "f" and all(
        getattr(p, "regularizer", None) is None and
        p.optimize_attr.get("learning_rate", 1.0) == 1.0 for p in params)


class _FlatState:
    """One flat buffer holding every parameter (the program's parameter arrays become views
    of it) and the fused optimizer's accumulators."""

    def __init__(self, arrays, optimizer):
        sizes = [a.size for a in arrays]
        self.offsets = np.cumsum([0] + sizes)
        self.flat = np.concatenate([a.reshape(-1) for a in arrays])
        self.views = tuple(self.flat[s:e].reshape(a.shape) for s, e, a in
                           zip(self.offsets[:-1], self.offsets[1:], arrays))
        self.acc = None
        group = optimizer._param_groups[0]
        if "beta1" in group:
            self.acc = {"moment1": np.zeros_like(self.flat), "moment2": np.zeros_like(self.flat),
                        "beta1_pow_acc": np.array([float(group["beta1"])]),
                        "beta2_pow_acc": np.array([float(group["beta2"])])}

    def owns(self, arrays):
        return all(a is v for a, v in zip(arrays, self.views))


class ParamUpdate(Op):
    """Inputs: parameter arrays then their gradients; updates the parameters in place.

    Plain SGD and Adam run fused: one elementwise update over a flat buffer of all
    parameters (the same formula, element for element, as the eager per-parameter update)
    instead of a dozen small NumPy calls per parameter. Other optimizers run their eager
    `apply_gradients` on the program's arrays."""

    differentiable = False

    def __init__(self, optimizer, params):
        self.optimizer, self.params = optimizer, params
        self.fused = _fusable(optimizer, params)
        self.flat = None
        self.grad_flat = self.grad_views = None

    def gradient_views(self):
        """Views of one flat gradient buffer, one per parameter. A plan copies each
        gradient into its view as soon as it is computed (and frees it), as the eager
        engine accumulates into .grad; forward then gets the parameters only."""
        if self.grad_views is None:
            dtype = self.params[0]._data.dtype
            sizes = [p._data.size for p in self.params]
            ends = np.cumsum(sizes)
            self.grad_flat = np.empty(int(ends[-1]), dtype)
            self.grad_views = tuple(self.grad_flat[e - n:e].reshape(p._data.shape)
                                    for p, n, e in zip(self.params, sizes, ends))
        return self.grad_views

    def _fused_update(self, arrays):
        from dygraph.optimizer.adam import _adam_update

        n = len(self.params)
        data, grads = arrays[:n], arrays[n:]
        if self.flat is None or not self.flat.owns(data):
            self.flat = _FlatState(data, self.optimizer)
        state = self.flat
        self.gradient_views()
        if grads:  # not gathered by the plan already
            np.concatenate([g.reshape(-1) for g in grads], out=self.grad_flat)
        lr = self.optimizer.get_lr() * self.optimizer._param_groups[0]["learning_rate"]
        if state.acc is None:
            state.flat -= self.grad_flat * lr
        else:
            group = self.optimizer._param_groups[0]
            _adam_update(state.flat, self.grad_flat, lr, float(group["beta1"]),
                         float(group["beta2"]), float(group["epsilon"]), state.acc)
        return state.views if n > 1 else state.views[0]

    def forward(self, xp, *arrays):
        if self.fused and xp is np:
            return self._fused_update(arrays)
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
