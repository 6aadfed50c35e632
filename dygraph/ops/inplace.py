"""In-place forms of ops (`x.add_(y)`, `x.scale_(2)`, `x.zero_()`), returning x.

Outside a recorded graph the new values are written into x's own buffer. When the change
must be recorded (x or an argument needs gradients), x is rebound to the result's node, and
its version is bumped so that any op which saved the old x for backward raises a clear error
at backward instead of using the changed values.
"""

from dygraph.autograd import grad_mode
from dygraph.framework.errors import NotTensorError, op_error
from dygraph.tensor.tensor import Tensor, _new_tensor


def _needs_record(x, args):
    if not grad_mode.state.grad_on:
        return False
    if not x._sg:
        return True
    return any(isinstance(a, Tensor) and not a._sg for a in args)


def run_inplace(name, fn, x, /, *args, **kwargs):
    """Compute fn(x, *args) and make it x's new value in place (the leading parameters are
    positional-only, so that a `name=` keyword reaches fn)."""
    if grad_mode.state.static_program is not None:
        from dygraph.static.program import Variable

        if isinstance(x, Variable):  # a program value: the op is recorded, x takes it
            return x._take(fn(x, *args, **kwargs), name)
    if not isinstance(x, Tensor):
        raise op_error(name, f"x must be a Tensor, got {type(x).__name__}", NotTensorError)
    if _needs_record(x, args):
        # An op that saves its input for backward must keep the old value, but x is about
        # to take the result's data and node: give it the old value under its own Tensor.
        x._bump_version(name)
        src = x if x._node is None else _new_tensor(x._data, x._node, x._idx, x._sg)
        out = _checked(name, x, fn(src, *args, **kwargs))
        x._data, x._node, x._idx, x._sg = out._data, out._node, out._idx, out._sg
        return x
    with grad_mode.no_grad():
        out = _checked(name, x, fn(x, *args, **kwargs))
    x._bump_version(name)
    if out._data.shape == x._data.shape and out._data.dtype == x._data.dtype:
        x._data[...] = out._data
    else:  # a view op's new shape, or a promoted dtype (an int x.log_() is float, as Paddle)
        x._data = out._data
    return x


def _checked(name, x, out):
    """The result, refused (ValueError, as Paddle) when it was broadcast beyond x: an
    in-place op keeps x's number of elements (view ops such as reshape_ rearrange them)."""
    if out._data.size != x._data.size:
        from dygraph.framework.errors import op_error

        raise op_error(name, f"the result's shape {list(out._data.shape)} is broadcast "
                       f"beyond x's shape {list(x._data.shape)}; an in-place op cannot "
                       "change x's shape")
    return out


def make_inplace(name, fn):
    """The Tensor method `name` (ending in '_') for the out-of-place op `fn`."""

    def method(self, *args, **kwargs):
        return run_inplace(name, fn, self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place `{fn.__name__}`: x's values are replaced; returns x."
    return method
