"""`saved_tensors_hooks`: transform the tensors that ops keep for backward.

Inside the context, each op recorded for backward passes every tensor it saves (its inputs
when it has `save_inputs`, its outputs when it has `save_output`, and the tensors of a
PyLayer's `ctx.save_for_backward`) through `pack_hook`, and keeps what that returns; backward
hands the kept object to `unpack_hook` and uses the Tensor it returns. Ops recorded outside
the context are untouched, and with no hooks set `apply` pays one attribute read per op
that saves something.

The engine still holds each input tensor to know its shape and dtype, so hooks change which
values backward sees (and let users count, cast or check saved tensors); they do not by
themselves free the saved arrays.

Example:
    >>> import dygraph
    >>> packed = []
    >>> def pack(t):
    ...     packed.append(t.shape)
    ...     return t.numpy()
    >>> def unpack(a):
    ...     return dygraph.to_tensor(a)
    >>> x = dygraph.to_tensor([1.0, 2.0], stop_gradient=False)
    >>> with dygraph.autograd.saved_tensors_hooks(pack, unpack):
    ...     y = (x * x).sum()
    >>> y.backward(); packed, x.grad.numpy()
    ([[2], [2]], array([2., 4.], dtype=float32))
"""

from dygraph.autograd import grad_mode
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["saved_tensors_hooks"]


class saved_tensors_hooks:  # noqa: N801 - Paddle's name
    """Context manager that sets (pack_hook, unpack_hook) for tensors saved for backward;
    nested contexts use the innermost pair. See the module docstring."""

    def __init__(self, pack_hook, unpack_hook):
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("saved_tensors_hooks: pack_hook and unpack_hook must be callable, "
                            f"got {type(pack_hook).__name__} and {type(unpack_hook).__name__}")
        self.hooks = (pack_hook, unpack_hook)

    def __enter__(self):
        self._previous = grad_mode.state.saved_hooks
        grad_mode.state.saved_hooks = self.hooks
        return self

    def __exit__(self, *exc):
        grad_mode.state.saved_hooks = self._previous
        return False


class Packed:
    """What an op keeps of one saved tensor while hooks are on: the packed object and the
    unpack hook that turns it back into a Tensor."""

    __slots__ = ("value", "unpack")

    def __init__(self, value, unpack):
        self.value, self.unpack = value, unpack

    def tensor(self, what):
        result = self.unpack(self.value)
        if not isinstance(result, Tensor):
            raise TypeError(f"saved_tensors_hooks: unpack_hook must return a Tensor for {what},"
                            f" got {type(result).__name__}")
        return result


def pack_saved(op, inputs, outs, multi):
    """Called by `apply` when hooks are on: pack what `op` saves."""
    pack, unpack = grad_mode.state.saved_hooks
    if op.save_inputs:
        op.packed_inputs = tuple(Packed(pack(t), unpack) for t in inputs)
    if op.save_output:
        arrays = outs if multi else (outs,)
        op.packed_outputs = tuple(Packed(pack(_new_tensor(a, None, 0, True)), unpack)
                                  for a in arrays)


def pack_tensors(tensors):
    """PyLayer's save_for_backward under hooks: Packed objects for the Tensors."""
    pack, unpack = grad_mode.state.saved_hooks
    return tuple(Packed(pack(t), unpack) if isinstance(t, Tensor) else t for t in tensors)


def unpack_tensors(saved):
    return tuple(p.tensor("a PyLayer saved tensor") if isinstance(p, Packed) else p
                 for p in saved)
