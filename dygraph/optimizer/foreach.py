"""Multi-tensor ("foreach") optimizer steps: one update over flat arrays for a whole group.

A small model's eager step spends most of its optimizer time in per-parameter overhead: a
dozen NumPy calls of a few microseconds each, per parameter. When every parameter of a
group is a dense float32 (or float64) NumPy array of one dtype with no per-parameter twist
(own regularizer, learning-rate multiplier that differs, master weight, amsgrad, lr_ratio),
the update rule is elementwise with the same scalars everywhere, so it runs once over flat
buffers instead; the group's L1/L2 weight decay is elementwise too and is gathered along.
Only small parameters are gathered (see _MAX_PARAM_SIZE): for large ones the per-parameter
overhead is negligible and the extra gathering pass costs more than it saves.

The group's accumulators live in flat buffers whose per-parameter views ARE the arrays in
`_acc` (so `state_dict` and the per-parameter path see and update the same memory); the
gradients are gathered into one reusable flat buffer, the step is computed there, and each
parameter's data is updated in place by its slice of the step (`data -= step`, as the
per-parameter path does). The element-wise operations and their order are those of the
per-parameter `_update`, so both paths give bit-identical results.

The flat state is rebuilt whenever it no longer matches: `set_state_dict` (new accumulator
dicts), another set of parameters with gradients, or a step that took the per-parameter
path (its per-parameter powers of beta may then differ).

Example:
    >>> import numpy as np
    >>> from dygraph.framework.parameter import Parameter
    >>> from dygraph.optimizer import Adam
    >>> a = Parameter(np.array([1.0, -1.0], np.float32), name="a")
    >>> b = Parameter(np.array([[2.0]], np.float32), name="b")
    >>> opt = Adam(learning_rate=0.1, parameters=[a, b])
    >>> ((a * a).sum() + (b * b).sum()).backward(); opt.step()
    >>> a.numpy().round(4), b.numpy().round(4)  # the first step moves by lr
    (array([ 0.9, -0.9], dtype=float32), array([[1.9]], dtype=float32))
    >>> opt._acc[id(b)]["moment1"].base is opt._acc[id(a)]["moment1"].base  # one flat buffer
    True
"""

import numpy as np

from dygraph.backend import is_gpu_array
from dygraph.optimizer import device_flat
from dygraph.optimizer.optimizer import Optimizer, defines_both
from dygraph.optimizer.state import _HOST
from dygraph.regularizer import L1Decay, L2Decay, WeightDecayRegularizer

__all__ = ["ForeachMixin"]

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
# Gathering costs a pass over the gradients and flat buffers fall out of cache, while the
# saving is a fixed per-parameter overhead (a dozen NumPy calls). So the flat path wins
# on small models and loses from a few hundred thousand elements: only parameters up to
# 32k elements, up to 256k in all, are gathered; larger ones keep the per-parameter path.
# Figures: docs/PERFORMANCE.md#optimizer-updates.
_MAX_PARAM_SIZE = 1 << 15
_MAX_FLAT_SIZE = 1 << 18


class _FlatGroup:
    """Flat accumulators (the parameters' accumulators become views of them), a gradient
    buffer and a step buffer for one fixed list of parameters."""

    def __init__(self, group, params, accs, specs):
        self.params = tuple(params)
        self.accs = tuple(accs)
        dtype = params[0]._data.dtype
        shapes = [p._data.shape for p in params]
        sizes = [p._data.size for p in params]
        ends = np.cumsum(sizes).tolist()
        bounds = [(e - n, e) for n, e in zip(sizes, ends)]
        self.grad = np.empty(ends[-1], dtype)
        self.data = None  # the gathered parameters, for a group's weight decay
        self.step = np.empty(ends[-1], dtype)
        self.step_views = tuple(self.step[s:e].reshape(shape)
                                for (s, e), shape in zip(bounds, shapes))
        self.acc = {}
        for name, (_, kind) in specs.items():
            if kind == _HOST:  # one element per parameter, e.g. beta1**t
                flat = np.concatenate([a[name] for a in accs])
                for i, a in enumerate(accs):
                    a[name] = flat[i:i + 1]
            else:
                flat = np.concatenate([a[name].reshape(-1) for a in accs])
                for (s, e), shape, a in zip(bounds, shapes, accs):
                    a[name] = flat[s:e].reshape(shape)
            self.acc[name] = flat

    @classmethod
    def build(cls, optimizer, group, params):
        """The flat state for `params`, or None when their accumulators are not of the
        expected kinds or their host values (powers of beta, which differ once a parameter
        skipped a step) disagree: one scalar per group must give every parameter's step.

        Missing accumulators are created first, as the per-parameter path would."""
        acc = optimizer._acc
        accs = [acc[id(p)] if id(p) in acc else optimizer._create_accumulators(p)
                for p in params]
        specs = optimizer._accumulator_specs(params[0], group)
        host = [name for name, (_, kind) in specs.items() if kind == _HOST]
        first = [a[name] for name in host for a in accs[:1]]
        for a in accs:
            if a.keys() != specs.keys():
                return None
            if any(a[name].shape != (1,) or a[name][0] != f[0] for name, f in
                   zip(host, first)):
                return None
        return cls(group, params, accs, specs)

    def matches(self, optimizer, params):
        if len(params) != len(self.params):
            return False
        acc = optimizer._acc
        for p, q, a in zip(params, self.params, self.accs):
            if p is not q or acc.get(id(p)) is not a:
                return False
        return True


def _common_lr(params, grads, group_lr):
    """The learning rate shared by all parameters, or None when the group is not plain:
    not all dense NumPy float arrays of one dtype with gradient arrays of that dtype and
    shape, a per-parameter regularizer, or per-parameter learning rates that differ."""
    dtype = lr = None
    for p, grad in zip(params, grads):
        if grad is None:
            return None
        data = p._data
        if type(data) is not np.ndarray or type(grad) is not np.ndarray:
            return None
        if dtype is None:
            dtype = data.dtype
            if dtype not in _FLOATS:
                return None
        if data.dtype != dtype or grad.dtype != dtype or grad.shape != data.shape:
            return None
        if getattr(p, "regularizer", None) is not None:
            return None
        plr = Optimizer._param_lr(p, group_lr)
        if lr is None:
            lr = plr
        elif plr != lr:
            return None
    return lr


class ForeachMixin:
    """Gives an Optimizer subclass the multi-tensor step for a group's small parameters
    (the rest stay with the per-parameter loop). The subclass provides
    `_foreach_ready(group)` (whether its options allow it) and
    `_foreach_update(flat, group, lr)`, which fills `flat.step` from `flat.grad` and
    `flat.acc` exactly as `_update` does per parameter, and may return a per-parameter
    factor function for decoupled weight decay (see AdamW).

    Example:
        >>> from dygraph.optimizer import SGD, Adam
        >>> issubclass(Adam, ForeachMixin), issubclass(SGD, ForeachMixin)
        (True, False)
    """

    def _foreach_step(self, group, params_grads, lr, decay):
        if params_grads and is_gpu_array(params_grads[0][0]._data):
            # On a GPU: one kernel for the group where it applies (optimizer/device_flat.py)
            done = device_flat.step(self, group, params_grads, lr, decay)
            return [] if done else params_grads
        small, rest, total = [], [], 0
        for pair in params_grads:
            n = pair[0]._data.size
            if n <= _MAX_PARAM_SIZE and total + n <= _MAX_FLAT_SIZE:
                small.append(pair)
                total += n
            else:
                rest.append(pair)
        if (len(small) > 1 and defines_both(type(self))
                and self._foreach_apply(group, small, lr, decay)):
            return rest
        self.__dict__.get("_foreach_flat", {}).pop(id(group), None)
        return params_grads

    def _foreach_apply(self, group, params_grads, lr, decay):
        params = [p for p, _ in params_grads]
        grads = [None if g is None else g._data for _, g in params_grads]
        plr = _common_lr(params, grads, lr) if params else None
        return self._foreach_run(group, params, grads, plr, decay)

    def _step_arrays(self, params, grads):
        """`step()` when exactly `params` (trainable, all of the one group) have
        gradients, given as the arrays `grads` of their dtypes and shapes, as a training
        step's program hands them over: the multi-tensor update without building the
        pairs and checks of the general path. False, changing nothing, where that path
        does not apply."""
        if params and is_gpu_array(params[0]._data):
            return device_flat.step_arrays(self, params, grads)
        if len(self._param_groups) != 1 or not defines_both(type(self)):
            return False
        group = self._param_groups[0]
        decay = group["weight_decay"]
        if not isinstance(decay, WeightDecayRegularizer):
            decay = None  # AdamW's decoupled coefficient is applied by _foreach_update
        if group["grad_clip"] is not None or len(params) < 2 or any(p._sg for p in params):
            return False
        sizes = [p._data.size for p in params]
        if max(sizes) > _MAX_PARAM_SIZE or sum(sizes) > _MAX_FLAT_SIZE:
            return False  # what _foreach_step leaves to the per-parameter loop
        lr = _common_lr(params, grads, self.get_lr() * group["learning_rate"])
        return self._foreach_run(group, params, grads, lr, decay)

    def _foreach_run(self, group, params, grads, plr, decay):
        """The multi-tensor update of `params` with gradient arrays `grads` at learning
        rate `plr`; False (nothing changed) where it does not apply."""
        cache = self.__dict__.setdefault("_foreach_flat", {})
        flat = cache.get(id(group))
        # L1/L2 decay terms are elementwise in the parameter, so they gather too; a
        # user-defined regularizer may not be.
        if (plr is None or not self._foreach_ready(group)
                or decay is not None and type(decay) not in (L1Decay, L2Decay)):
            cache.pop(id(group), None)
            return False
        if flat is None or not flat.matches(self, params):
            flat = _FlatGroup.build(self, group, params)
            if flat is None:
                cache.pop(id(group), None)
                return False
            cache[id(group)] = flat
        np.concatenate([g.reshape(-1) for g in grads], out=flat.grad)
        grad = self._prepare_grad(flat.grad, group)
        if grad is not flat.grad:
            flat.grad[...] = grad
        if decay is not None:  # the same operations as decay.apply_to_array
            if flat.data is None:
                flat.data = np.empty_like(flat.grad)
            np.concatenate([p._data.reshape(-1) for p in flat.params], out=flat.data)
            flat.grad += decay.decay_term(flat.data, np)
        decoupled = self._foreach_update(flat, group, plr)
        for p, step in zip(flat.params, flat.step_views):
            data = p._data
            if decoupled is not None:
                factor = decoupled(p)
                if factor is not None:
                    data *= factor
            data -= step
            p._version[0] += 1
        return True

    def _foreach_ready(self, group):
        return True
