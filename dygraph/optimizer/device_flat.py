"""A group's optimizer step on a GPU as one kernel: parameters, gradients and moments
live in flat device buffers, each parameter's array a view of its slice.

On a GPU a step is bound by launches: Adam's fused kernel per parameter is still one
launch per parameter (62 for ResNet-18, 158 for MobileNetV2), each costing host time
whatever its size. Here the first step of a group on the GPU moves every parameter,
gradient and moment into one flat buffer per kind (the tensors' arrays become views of
it, so models, `state_dict` and the per-parameter path see the same memory), and each
step is then one kernel over the buffers. Backward writes gradients in place into the
views (autograd's accumulation into an existing gradient), so nothing is gathered; a
gradient given as another array (a clipped one, or a training step program's) is copied
in with one concatenate.

The group qualifies when its parameters are float arrays of one dtype on one GPU, all
with gradients, with the same learning rate and no per-parameter regularizer, and the
optimizer's options allow it (`_device_update`; Adam and AdamW without amsgrad or
master weights). The flat state is rebuilt when its parameters, their arrays or the
accumulator arrays change (set_state_dict, another set of parameters with gradients).

Example (on CPU arrays there is nothing to do):
    >>> import numpy as np
    >>> from dygraph.framework.parameter import Parameter
    >>> from dygraph.optimizer import Adam
    >>> w = Parameter(np.ones(2, np.float32))
    >>> opt = Adam(0.1, parameters=[w])
    >>> (w * w).sum().backward()
    >>> step(opt, opt._param_groups[0], [(w, w.grad)], 0.1, None)
    False
"""

import numpy as np

from dygraph.backend import get_array_module, is_gpu_array
from dygraph.optimizer.optimizer import Optimizer, defines_both
from dygraph.optimizer.state import _HOST
from dygraph.regularizer import L1Decay, L2Decay

__all__ = ["step", "step_arrays"]

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


class _DeviceFlat:
    """Flat device buffers for one list of parameters: `param`, `grad` and one per
    device accumulator (in `acc`, with the host ones, each one flat array whose
    one-element views are the parameters' own)."""

    def __init__(self, xp, params, accs, specs):
        self.params, self.accs = tuple(params), tuple(accs)
        sizes = [p._data.size for p in params]
        ends = np.cumsum(sizes).tolist()
        self.bounds = [(e - n, e) for n, e in zip(sizes, ends)]
        self.param = self._flat(xp, [p._data for p in params])
        self.param_views = self._views(self.param)
        for p, view in zip(params, self.param_views):
            p._data = view
        self.grad = xp.zeros_like(self.param)
        self.grad_views = self._views(self.grad)
        self.gathered = ((), [])  # (gradient arrays, their flat views) of the last gather
        self.acc = {}
        for name, (_, kind) in specs.items():
            if kind == _HOST:  # one element per parameter on the host, e.g. beta1**t
                flat = np.concatenate([a[name] for a in accs])
                for i, a in enumerate(accs):
                    a[name] = flat[i:i + 1]
            else:
                flat = self._flat(xp, [a[name] for a in accs])
                for a, view in zip(accs, self._views(flat)):
                    a[name] = view
            self.acc[name] = flat
        self.acc_views = tuple(dict(a) for a in accs)

    def _views(self, flat):
        return tuple(flat[s:e].reshape(p._data.shape)
                     for (s, e), p in zip(self.bounds, self.params))

    @staticmethod
    def _flat(xp, arrays):
        return xp.concatenate([a.reshape(-1) for a in arrays])

    def matches(self, optimizer, params):
        if len(params) != len(self.params):
            return False
        acc = optimizer._acc
        for p, q, view, a, kept in zip(params, self.params, self.param_views, self.accs,
                                       self.acc_views):
            if p is not q or p._data is not view or acc.get(id(p)) is not a:
                return False
            if any(a.get(name) is not array for name, array in kept.items()):
                return False
        return True

    def gather(self, xp, grads, leaves):
        """Bring the gradient arrays into `grad`: nothing for the views backward wrote
        into, else kernels of ours, eight arrays a launch, up to
        deferred_grads.FLAT_COPIES arrays (kernels/cuda/flat_copies.py), one concatenate
        past that; leaf gradients then become views of `grad`."""
        if all(g is v for g, v in zip(grads, self.grad_views)):
            return
        from dygraph.tensor.deferred_grads import FLAT_COPIES

        if len(grads) <= FLAT_COPIES:
            from dygraph.kernels.cuda import flat_copies

            flat_copies.copy_into_flat(self.grad, grads)
        else:
            # A replayed CUDA graph hands over the same arrays at every step: the flat
            # views of the C-ordered ones are kept (a view is a CuPy call too; the others'
            # flat rows are copies, made again at each step).
            seen, rows = self.gathered
            if len(seen) != len(grads) or any(g is not s for g, s in zip(grads, seen)):
                rows = [g.reshape(-1) if g.flags.c_contiguous else None for g in grads]
                self.gathered = (tuple(grads), rows)
            xp.concatenate([g.reshape(-1) if r is None else r for g, r in zip(grads, rows)],
                           out=self.grad)
        for tensor, view in zip(leaves, self.grad_views):
            if tensor is not None:
                tensor._data = view


def _plain_lr(params, grads, group_lr, xp):
    """The learning rate shared by the group's parameters when they qualify (see the
    module's text), else None."""
    dtype = params[0]._data.dtype
    if dtype not in _FLOATS:
        return None
    lr = None
    for p, g in zip(params, grads):
        data = p._data
        if (g is None or not isinstance(data, xp.ndarray) or not isinstance(g, xp.ndarray)
                or data.dtype != dtype or g.dtype != dtype or g.shape != data.shape
                or data.device != params[0]._data.device
                or getattr(p, "regularizer", None) is not None):
            return None
        plr = Optimizer._param_lr(p, group_lr)
        if lr is None:
            lr = plr
        elif plr != lr:
            return None
    return lr


def _flat_for(optimizer, group, params, xp):
    cache = optimizer.__dict__.setdefault("_device_flat", {})
    flat = cache.get(id(group))
    if flat is not None and flat.matches(optimizer, params):
        return flat
    acc = optimizer._acc
    accs = [acc[id(p)] if id(p) in acc else optimizer._create_accumulators(p)
            for p in params]
    specs = optimizer._accumulator_specs(params[0], group)
    host = [name for name, (_, kind) in specs.items() if kind == _HOST]
    for a in accs:  # the host values (powers of beta) must agree: one scalar serves all
        if a.keys() != specs.keys() or any(
                a[name].shape != (1,) or a[name][0] != accs[0][name][0] for name in host):
            cache.pop(id(group), None)
            return None
        dtype = params[0]._data.dtype
        if any(not isinstance(a[name], xp.ndarray) or a[name].dtype != dtype
               for name in specs if name not in host):
            cache.pop(id(group), None)
            return None
    flat = cache[id(group)] = _DeviceFlat(xp, params, accs, specs)
    return flat


def _run(optimizer, group, params, grads, leaves, lr, decay):
    """The one-kernel step of `params` with gradient arrays `grads` (leaf gradient
    tensors `leaves`, or None each); False, changing nothing, where it does not apply."""
    update = getattr(optimizer, "_device_update", None)
    if (update is None or len(params) < 2 or not is_gpu_array(params[0]._data)
            or not defines_both(type(optimizer), "_device_update")
            or not optimizer._device_ready(group)
            or decay is not None and type(decay) not in (L1Decay, L2Decay)):
        return False
    xp = get_array_module(params[0]._data)
    plr = _plain_lr(params, grads, lr, xp)
    if plr is None:
        return False
    flat = _flat_for(optimizer, group, params, xp)
    if flat is None:
        return False
    flat.gather(xp, grads, leaves)
    grad = optimizer._prepare_grad(flat.grad, group)
    if grad is not flat.grad:
        flat.grad[...] = grad
    if decay is not None:  # the same operations as decay.apply_to_array
        flat.grad += decay.decay_term(flat.param, xp)
    update(flat, group, plr)
    for p in flat.params:
        p._version[0] += 1
    return True


def step(optimizer, group, params_grads, lr, decay):
    """Optimizer.step's update of a group (pairs of parameter and gradient tensor) as one
    kernel where it applies (see the module's text); returns whether it did.

    Example: see the module's text.
    """
    params = [p for p, _ in params_grads]
    grads = [None if g is None else g._data for _, g in params_grads]
    leaves = [g if g is p._grad_slot else None for p, g in params_grads]
    return _run(optimizer, group, params, grads, leaves, lr, decay)


def step_arrays(optimizer, params, grads):
    """A training step program's update (gradient arrays in the parameters' order) as
    one kernel where it applies; returns whether it did.

    Example:
        >>> import numpy as np
        >>> from dygraph.framework.parameter import Parameter
        >>> from dygraph.optimizer import Adam
        >>> w = Parameter(np.ones(2, np.float32))
        >>> step_arrays(Adam(0.1, parameters=[w]), [w], [np.ones(2, np.float32)])
        False
    """
    if len(optimizer._param_groups) != 1:
        return False
    group = optimizer._param_groups[0]
    decay = group["weight_decay"]
    if group["grad_clip"] is not None or any(p._sg for p in params):
        return False
    lr = optimizer.get_lr() * group["learning_rate"]
    return _run(optimizer, group, params, grads, [None] * len(params),
                lr, decay if type(decay) in (L1Decay, L2Decay) else None)
