"""Tensor.register_hook and Tensor.retain_grads: where hooks and retained gradients are
recorded for the backward engine (dygraph.autograd.engine runs them).

Hooks get increasing ids; `retain_grads()` records the id reached so far, so that a
retained `.grad` holds the gradient as changed by the hooks registered before it (as
Paddle, which keeps retain_grads as one more hook in the same ordered list).

Example:
    >>> import dygraph
    >>> x = dygraph.to_tensor([1.0], stop_gradient=False)
    >>> handle = x.register_hook(lambda g: g * 2)
    >>> handle.remove(), handle.remove()
    (True, False)
"""

import weakref

from dygraph.framework.errors import op_error

__all__ = ["register_tensor_hook", "retain_tensor_grad"]


class _HookHandle:
    """Returned by register_hook; `remove()` unregisters the hook."""

    def __init__(self, table, key):
        self._table = table
        self._key = key

    def remove(self):
        """Unregister the hook: True, or False when it was already removed (as Paddle)."""
        return self._table.pop(self._key, None) is not None


_hook_ids = [0]


def register_tensor_hook(t, hook):
    if t._sg:
        raise op_error("register_hook", "cannot register a hook on a tensor that stops "
                       "gradients (stop_gradient=True)", RuntimeError)
    _hook_ids[0] += 1
    if t._node is None:
        if t._hooks is None:
            t._hooks = {}
        table = t._hooks
    else:
        node = t._node
        if node.hooks is None:
            node.hooks = {}
        table = node.hooks.setdefault(t._idx, {})
    table[_hook_ids[0]] = hook
    return _HookHandle(table, _hook_ids[0])


def retain_tensor_grad(t):
    if t._node is None or t._sg:
        return
    node = t._node
    if node.retained is None:
        node.retained = {}
    # with the hook count so far: hooks registered earlier change what `.grad` holds
    node.retained[t._idx] = (weakref.ref(t), _hook_ids[0])
