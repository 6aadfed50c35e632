"""`optimizer.minimize(loss)` in static mode: gradient ops, then one update op that runs the
eager optimizer's own update (clipping, weight decay, learning-rate schedule) on the
program's parameter arrays. The accumulators (moments, beta powers, velocities) are
persistable program variables that the startup program initialises, so they live in the
scope and static.save keeps them.

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

import operator

import numpy as np

from dygraph.autograd.function import Op
from dygraph.static.backward import append_backward
from dygraph.tensor.tensor import _new_tensor

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
    """One flat buffer holding every parameter and one per accumulator kind (the program's
    arrays become views of them), so the fused update is one elementwise pass."""

    def __init__(self, data, accs, n):
        sizes = [a.size for a in data]
        self.offsets = np.cumsum([0] + sizes)
        self.flat, self.views = self._flat(data)
        self.acc, acc_views = None, []
        if accs:  # Adam: moment1, moment2, beta1_pow_acc, beta2_pow_acc per parameter
            by_kind = [accs[k::4] for k in range(4)]
            m1, v1 = self._flat(by_kind[0])
            m2, v2 = self._flat(by_kind[1])
            # The powers of beta are equal for every parameter: one array serves them all.
            b1, b2 = by_kind[2][0].copy(), by_kind[3][0].copy()
            self.acc = {"moment1": m1, "moment2": m2, "beta1_pow_acc": b1,
                        "beta2_pow_acc": b2}
            for k in range(n):
                acc_views += [v1[k], v2[k], b1, b2]
        self.outputs = tuple(self.views) + tuple(acc_views)

    def _flat(self, arrays):
        flat = np.concatenate([a.reshape(-1) for a in arrays])
        return flat, [flat[s:e].reshape(a.shape) for s, e, a in
                      zip(self.offsets[:-1], self.offsets[1:], arrays)]

    def owns(self, arrays):
        return len(arrays) == len(self.outputs) and all(
            map(operator.is_, arrays, self.outputs))


class ParamUpdate(Op):
    """Inputs: the parameter arrays, their gradients, then the optimizer's accumulators
    (`acc_keys`, program variables); outputs: the parameters and accumulators, updated.

    Plain SGD and Adam run fused: one elementwise update over a flat buffer of all
    parameters (the same formula, element for element, as the eager per-parameter update)
    instead of a dozen small NumPy calls per parameter. Other optimizers run their eager
    `apply_gradients` (clipping, regularization, per-parameter rates) on the program's
    arrays."""

    attrs = ("acc_keys", "fused", "grad_flat", "grad_views", "n", "optimizer", "params")
    saveable = False  # holds live objects; never in a saved program

    differentiable = False

    def __init__(self, optimizer, params, acc_keys):
        self.optimizer, self.params, self.acc_keys = optimizer, params, acc_keys
        self.n = len(params)
        self.fused = _fusable(optimizer, params)
        self.flat = None
        self.grad_flat = self.grad_views = None

    def gradient_views(self):
        """Views of one flat gradient buffer, one per parameter. A plan copies each
        gradient into its view as soon as it is computed (and frees it), as the eager
        engine accumulates into .grad; forward then gets no gradients."""
        if self.grad_views is None:
            dtype = self.params[0]._data.dtype
            sizes = [p._data.size for p in self.params]
            ends = np.cumsum(sizes)
            self.grad_flat = np.empty(int(ends[-1]), dtype)
            self.grad_views = tuple(self.grad_flat[e - k:e].reshape(p._data.shape)
                                    for p, k, e in zip(self.params, sizes, ends))
        return self.grad_views

    def _fused_update(self, arrays, gathered):
        from dygraph.optimizer.adam import _adam_update

        n = self.n
        data = arrays[:n]
        grads = () if gathered else arrays[n:2 * n]
        held = arrays[:n] + arrays[n if gathered else 2 * n:]
        if self.flat is None or not self.flat.owns(held):
            self.flat = _FlatState(data, held[n:], n)
        state = self.flat
        self.gradient_views()
        if grads:
            np.concatenate([g.reshape(-1) for g in grads], out=self.grad_flat)
        group = self.optimizer._param_groups[0]
        lr = self.optimizer.get_lr() * group["learning_rate"]
        if state.acc is None:
            state.flat -= self.grad_flat * lr
        else:
            _adam_update(state.flat, self.grad_flat, lr, float(group["beta1"]),
                         float(group["beta2"]), float(group["epsilon"]), state.acc)
        return state.outputs if len(state.outputs) > 1 else state.outputs[0]

    def forward(self, xp, *arrays):
        """arrays: parameters, gradients, accumulators; or, when the plan gathered the
        gradients already (gradient_views), parameters and accumulators."""
        n = self.n
        gathered = len(arrays) == n + len(self.acc_keys)
        if self.fused and xp is np:
            return self._fused_update(arrays, gathered)
        grads = self.grad_views if gathered else arrays[n:2 * n]
        accs = arrays[n if gathered else 2 * n:]
        opt = self.optimizer
        saved = [p._data for p in self.params]
        saved_acc = {id(p): opt._acc.get(id(p)) for p in self.params}
        try:
            for p, data in zip(self.params, arrays[:n]):
                p._data = data  # the update writes into the program's array
            for (i, name), value in zip(self.acc_keys, accs):
                opt._acc.setdefault(id(self.params[i]), {})[name] = value
            opt.apply_gradients(
                [(p, _new_tensor(g, None, 0, True)) for p, g in zip(self.params, grads)])
            out = tuple(arrays[:n]) + tuple(opt._acc[id(self.params[i])][name]
                                            for i, name in self.acc_keys)
            return out if len(out) > 1 else out[0]
        finally:
            for p, data in zip(self.params, saved):
                p._data = data
            if self.acc_keys:  # the program's variables hold them, not the optimizer
                for p in self.params:
                    if saved_acc[id(p)] is None:
                        opt._acc.pop(id(p), None)
                    else:
                        opt._acc[id(p)] = saved_acc[id(p)]

    def backward(self, m, *grads):
        raise NotImplementedError


def _accumulators(optimizer, block, params):
    """Persistable variables for the optimizer's accumulators ('<param>_<name>_0', as
    Paddle names them), initialised by the startup program; [(param index, name)], [var
    names]. None with multi_precision (its master weights stay in the optimizer)."""
    from dygraph.optimizer.state import _HOST, compute_dtype
    from dygraph.static.capture import Constant
    from dygraph.static.program import default_startup_program

    if optimizer._multi_precision:
        return [], []
    startup = default_startup_program().global_block()
    keys, names = [], []
    for i, p in enumerate(params):
        dtype = compute_dtype(p._data.dtype)
        specs = optimizer._accumulator_specs(p, optimizer._group_of[id(p)])
        for acc_name, (fill, kind) in specs.items():
            value = np.full((1,) if kind == _HOST else p._data.shape, fill, dtype)
            name = optimizer._state_key(p, acc_name)
            if name not in block.vars:
                block.create_var(name, value.shape, dtype, persistable=True,
                                 stop_gradient=True, stand_ins=(value, value))
            if name not in startup.vars:
                startup.create_var(name, value.shape, dtype, True, True, (value, value))
                startup.append_op(Constant(value), [], [name], role="init")
            keys.append((i, acc_name))
            names.append(name)
    return keys, names


def minimize_static(optimizer, loss, parameters=None, no_grad_set=None):
    """Append backward and the update of `optimizer` for static `loss`; returns
    (update ops, [(param var, grad var)])."""
    block = loss.block
    # (only parameters are updated: append_backward also lists other persistable
    # variables that need a gradient)
    pairs = [(v, g) for v, g in append_backward(loss, parameters, no_grad_set)
             if v.is_parameter]
    program = block.program
    params = [program.parameters[v.name] for v, _ in pairs]
    new = [p for p in params if id(p) not in optimizer._group_of]
    if new and optimizer._adopts_parameters and optimizer._param_groups:
        optimizer._adopt(new)  # made without parameters: the program's, in one group
    elif new:
        optimizer._add_param_group({"params": new})
    if not pairs:
        return [], []
    keys, acc_names = _accumulators(optimizer, block, params)
    op = ParamUpdate(optimizer, params, keys)
    names = [v.name for v, _ in pairs]
    update = block.append_op(op, names + [g.name for _, g in pairs] + acc_names,
                             names + acc_names, role="optimize")
    return [update], pairs
