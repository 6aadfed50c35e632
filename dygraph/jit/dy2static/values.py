"""What converted control flow needs to know about values: static or not, Python numbers
made tensors, a condition made one bool, and the placeholders for unset variables.

Example:
    >>> import dygraph
    >>> is_static(dygraph.to_tensor([1.0])), is_number(True), is_number(None)
    (False, True, False)
"""

import numpy as np

from dygraph.jit.dy2static.errors import Dy2StaticUnsupported, Undefined
from dygraph.static.program import Variable
from dygraph.tensor.tensor import Tensor

__all__ = ["is_static", "is_number", "number_tensor", "as_pred", "ReturnUnset",
           "RETURN_UNSET", "describe", "display", "load_vars", "snapshot", "check_unchanged"]


class ReturnUnset:
    """The return value before a `return` ran: where the return flag says "not returned
    yet", the value does not matter, so a branch merge takes the other side's value."""

    def __repr__(self):
        return "<no return value yet>"


RETURN_UNSET = ReturnUnset()


def is_static(value):
    return isinstance(value, Variable)


def is_number(value):
    return isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating))


def _number_dtype(value):
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    return "int64" if isinstance(value, (int, np.integer)) else "float32"


def number_tensor(value, like=None, shape=(), dtype=None):
    """A Python number as a tensor: shaped and typed like `like` when given (its dims
    need not be known), else of `shape` (free dims: 1) and the number's own dtype."""
    import dygraph

    if like is not None:
        return dygraph.full_like(like, value, dtype=like.dtype)
    shape = [1 if d == -1 else d for d in shape]
    return dygraph.full(shape, value, dtype=dtype or _number_dtype(value))


def as_pred(value, construct, where):
    """The condition of a static `if`/`while` as one bool tensor (non-bool: != 0, as
    Python's truth test of a one-element tensor)."""
    import dygraph

    if not isinstance(value, Tensor):
        return number_tensor(bool(value))
    shape = list(value.shape)
    if -1 in shape:
        raise Dy2StaticUnsupported(f"the condition of {construct}", where,
                                   f"its shape {shape} has a free dimension; the condition "
                                   "must be one value")
    if int(np.prod(shape)) != 1:
        raise TypeError(f"the condition of {construct} at {where} is a tensor of shape "
                        f"{shape}; only one-element tensors have a truth value")
    return value if value.dtype == dygraph.bool else dygraph.cast(value, "bool")


def display(name):
    """A variable's name for messages (the conversion's own flags by their role)."""
    if name.startswith("_jst_"):
        role = {"rv": "the return value", "rf": "the return flag", "brk": "a break flag",
                "cont": "a continue flag", "i": "a range index"}
        return role.get(name.split("_")[2].split("[")[0], name)
    return f"variable {name!r}"


def describe(value):
    """A short description of a value for messages."""
    if isinstance(value, Tensor):
        kind = "static tensor" if is_static(value) else "tensor"
        return f"a {kind} of shape {list(value.shape)} and dtype {value._data.dtype.name}"
    if isinstance(value, Undefined):
        return "unassigned"
    return f"{type(value).__name__} {value!r}"[:80]


def load_vars(frame_locals, names):
    """The current values of `names` in a function's locals(); Undefined where unset."""
    return tuple(frame_locals[n] if n in frame_locals else Undefined(n) for n in names)


def _content(value):
    if isinstance(value, (list, set)):
        return [id(v) for v in value]
    if isinstance(value, dict):
        return [(k, id(v)) for k, v in value.items()]
    return None


def snapshot(args):
    """The identity of the items of each list, set or dict among `args`."""
    return [_content(v) for v in args]


def check_unchanged(names, args, before, construct, where):
    """Refuse a container changed in place (`lst += [x]`) while a static branch or loop
    body was built: built once, it would not change as often as Python would change it."""
    for name, value, old in zip(names, args, before):
        if old is not None and _content(value) != old:
            raise Dy2StaticUnsupported(f"changing the {type(value).__name__} in "
                                       f"{display(name)} in place inside {construct}", where)
