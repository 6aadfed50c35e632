"""The run-time side of a converted `if` (and `x if c else y`).

`convert_ifelse(pred, true_fn, false_fn, args, names, effect, where)`: the branch functions
take the current values of the variables the `if` assigns (`names`) and return their new
values. A Python or eager `pred` runs the chosen branch only (plain Python; an eager
one-element Tensor is bool()'ed). A static `pred` (a program Variable) builds both branches
and merges each variable with `cond`:

- the same object on both sides: kept (nothing to choose);
- tensors on both sides: chosen at run time; Python numbers become tensors (shaped like
  the other side's tensor, or one-element);
- assigned in one branch only: the variable is left unset, and using it later raises
  Dy2StaticUnsupported; the pending return value takes the side that set it;
- anything else (None against a tensor, other Python objects that differ, tensors whose
  shape or dtype differ): Dy2StaticUnsupported naming the variable and the line.

A branch that has side effects outside its variables (`effect`: attribute or item
assignment, a call made for its effect) cannot be built both ways: Dy2StaticUnsupported.
While a branch is built, its condition is on a stack so that a converted `print` in it
prints only when the branch is taken.

Example:
    >>> import dygraph
    >>> x = dygraph.to_tensor([2.0])
    >>> convert_ifelse(x > 1, lambda y: (y * 3,), lambda y: (y - 1,), (x,), ('y',), None,
    ...                'f.py:1')[0].tolist()
    [6.0]
"""

import contextlib
import threading

from dygraph.jit.dy2static.errors import Dy2StaticUnsupported, Undefined
from dygraph.jit.dy2static.values import (
    ReturnUnset,
    as_pred,
    check_unchanged,
    describe,
    display,
    is_number,
    is_static,
    number_tensor,
    snapshot,
)
from dygraph.tensor.tensor import Tensor

__all__ = ["convert_ifelse", "convert_ifexp", "branch_condition", "static_flow",
           "in_static_flow"]

_local = threading.local()  # .taken: per thread, as static building is


def _taken():
    """The conditions of the static branches being built, outermost first (None for a
    static loop body)."""
    if not hasattr(_local, "taken"):
        _local.taken = []
    return _local.taken


@contextlib.contextmanager
def _branch(pred):
    taken = _taken()
    taken.append(pred)
    try:
        yield
    finally:
        taken.pop()


def static_flow():
    """While a static loop body is built (its ops run as often as the loop does)."""
    return _branch(None)


def in_static_flow():
    """Whether a static branch or loop body is being built."""
    return bool(_taken())


def branch_condition():
    """The bool tensor that holds when the branch now being built is the one taken
    (None outside static branches)."""
    import dygraph

    result = None
    for pred in _taken():
        if pred is not None:
            result = pred if result is None else dygraph.logical_and(result, pred)
    return result


class _Pick:
    """Where a merged value is the i-th output of the Select."""

    def __init__(self, i):
        self.i = i


def _tensor_pair(name, a, b, where):
    """Both sides as tensors of one shape and dtype, or Dy2StaticUnsupported."""
    if not isinstance(a, Tensor):
        a = _number_like(name, a, b, where)
    if not isinstance(b, Tensor):
        b = _number_like(name, b, a, where)
    if a.dtype != b.dtype or tuple(a.shape) != tuple(b.shape):
        raise Dy2StaticUnsupported(f"{display(name)} after the `if` on a tensor", where,
                                   f"it is {describe(a)} in one branch and {describe(b)} "
                                   "in the other; they must match")
    return a, b


def _number_like(name, number, tensor, where):
    kind = tensor._data.dtype.kind
    fits = isinstance(number, bool) or kind == "f" or (kind in "iu" and
                                                      float(number) == int(number))
    if not is_number(number) or not fits:
        raise Dy2StaticUnsupported(f"{display(name)} after the `if` on a tensor", where,
                                   f"it is {describe(number)} in one branch and "
                                   f"{describe(tensor)} in the other")
    return number_tensor(number, like=tensor)


def _same(a, b):
    if a is b:
        return True
    if type(a) is not type(b) or isinstance(a, Tensor):
        return False
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 (an object without a plain equality: not the same)
        return False


def _pair(name, a, b, picks, where):
    """The merged value of one variable; tensors to choose go to `picks`."""
    if _same(a, b):
        return a
    if isinstance(a, ReturnUnset):
        return b
    if isinstance(b, ReturnUnset):
        return a
    if isinstance(a, Undefined) or isinstance(b, Undefined):
        return Undefined(name, where)
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        picks.append(_tensor_pair(name, a, b, where))
        return _Pick(len(picks) - 1)
    if isinstance(a, (list, tuple)) and type(a) is type(b) and len(a) == len(b):
        return type(a)(_pair(f"{name}[{i}]", x, y, picks, where)
                       for i, (x, y) in enumerate(zip(a, b)))
    if is_number(a) and is_number(b):
        kind = "bool" if isinstance(a, bool) and isinstance(b, bool) else (
            "int64" if not isinstance(a, float) and not isinstance(b, float) else "float32")
        picks.append((number_tensor(a, dtype=kind), number_tensor(b, dtype=kind)))
        return _Pick(len(picks) - 1)
    raise Dy2StaticUnsupported(f"{display(name)} after the `if` on a tensor", where,
                               f"it is {describe(a)} in one branch and {describe(b)} in "
                               "the other")


def _place(value, chosen):
    if isinstance(value, _Pick):
        return chosen[value.i]
    if isinstance(value, (list, tuple)) and not isinstance(value, Tensor):
        return type(value)(_place(v, chosen) for v in value)
    return value


def _merge(pred, true_out, false_out, names, where):
    from dygraph.static.control_flow import cond

    picks = []
    merged = [_pair(n, a, b, picks, where) for n, a, b in zip(names, true_out, false_out)]
    if not picks:
        return tuple(merged)
    chosen = cond(pred, lambda: [a for a, _ in picks], lambda: [b for _, b in picks])
    return tuple(_place(v, chosen) for v in merged)


def _static_branches(pred, true_fn, false_fn, args, names, effect, where):
    import dygraph

    if effect:
        raise Dy2StaticUnsupported(f"{effect} inside an `if` on a static tensor", where,
                                   "both branches are built, so it would happen in both")
    pred = as_pred(pred, "an `if`", where)
    before = snapshot(args)
    construct = "an `if` on a static tensor"
    with _branch(pred):
        true_out = true_fn(*args)
    check_unchanged(names, args, before, construct, where)
    with _branch(dygraph.logical_not(pred)):
        false_out = false_fn(*args)
    check_unchanged(names, args, before, construct, where)
    return pred, true_out, false_out


def convert_ifelse(pred, true_fn, false_fn, args, names, effect, where):
    """See the module docstring; returns the new values of `names`."""
    if not is_static(pred):
        return true_fn(*args) if pred else false_fn(*args)
    pred, true_out, false_out = _static_branches(pred, true_fn, false_fn, args, names,
                                                 effect, where)
    return _merge(pred, tuple(true_out), tuple(false_out), names, where)


def convert_ifexp(pred, true_fn, false_fn, where):
    """`a if pred else b`; both sides are built when pred is static.

    Example:
        >>> convert_ifexp(0, lambda: 'yes', lambda: 'no', 'f.py:1')
        'no'
    """
    if not is_static(pred):
        return true_fn() if pred else false_fn()
    pred, a, b = _static_branches(pred, true_fn, false_fn, (), (), None, where)
    return _merge(pred, (a,), (b,), ("the value of `x if c else y`",), where)[0]
