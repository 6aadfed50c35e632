"""The run-time side of converted `and`/`or`/`not`, `print`, `for` over an iterable, the
range of a `for i in range(...)`, and the final return value.

`and`/`or` get their operands as functions, so Python values keep short-circuiting. Once an
operand is a static Variable the result is `logical_and`/`logical_or` of the operands made
bool (as Python's truth test of one-element tensors would make them). Where the result is a
value rather than a condition (`y = a or b`), Python returns an operand, not a bool: there
only bool tensors are accepted.

Example:
    >>> import dygraph
    >>> convert_and(lambda: 0, lambda: 1 / 0)
    0
    >>> convert_not(dygraph.to_tensor([0.0]))
    True
"""

import builtins
import operator

from dygraph.framework.free_dim import FreeDim
from dygraph.jit.dy2static.errors import Dy2StaticUnsupported
from dygraph.jit.dy2static.run_if import branch_condition, in_static_flow
from dygraph.jit.dy2static.values import RETURN_UNSET, as_pred, is_static, number_tensor
from dygraph.tensor.tensor import Tensor

__all__ = ["convert_and", "convert_or", "convert_not", "convert_print", "convert_iter",
           "range_args", "range_cond", "return_value", "convert_assert", "convert_shape",
           "FreeDim"]


def _as_bool(value, op, test, where):
    import dygraph

    if not isinstance(value, Tensor):
        return number_tensor(bool(value))
    if value.dtype == dygraph.bool:
        return value
    if not test:
        raise Dy2StaticUnsupported(f"`{op}` on a non-bool static tensor used as a value",
                                   where, "Python would return one of the operands; use "
                                   "it as a condition, or compare first")
    return as_pred(value, f"`{op}`", where)


def _logical(op, fns, test, where):
    import dygraph

    combine = dygraph.logical_and if op == "and" else dygraph.logical_or
    stop = (lambda v: not v) if op == "and" else bool
    value = fns[0]()
    for k, fn in enumerate(fns[1:], 1):
        if not is_static(value):
            if stop(value):
                return value
            value = fn()
            continue
        left = _as_bool(value, op, test, where)
        rest = fns[k:]
        right = rest[0]() if len(rest) == 1 else _logical(op, rest, test, where)
        return combine(left, _as_bool(right, op, test, where))
    return value


def convert_and(*fns, test=False, where=""):
    """`a and b and ...` with each operand given as a function (see the module
    docstring)."""
    return _logical("and", fns, test, where)


def convert_or(*fns, test=False, where=""):
    """`a or b or ...` with each operand given as a function."""
    return _logical("or", fns, test, where)


def convert_not(value, where=""):
    """`not value`: logical_not of a static tensor made bool, Python's `not` otherwise."""
    import dygraph

    if is_static(value):
        return dygraph.logical_not(as_pred(value, "`not`", where))
    return not value


def convert_print(*args, **kwargs):
    """print(...): at once, unless an argument is a static Variable or the print is in a
    static branch or loop; then an op of the program prints the run's values (only when
    the branch it is in is taken)."""
    if not in_static_flow() and not any(is_static(a) for a in args):
        builtins.print(*args, **kwargs)
        return None
    from dygraph.static.print_op import print_call

    print_call(list(args), kwargs, branch_condition())
    return None


def convert_iter(iterable, where=""):
    """The iterable of a `for` that stays a Python loop: a static tensor is iterated
    row by row only when its first dimension is known."""
    if is_static(iterable) and (not iterable.shape or iterable.shape[0] == -1):
        raise Dy2StaticUnsupported("`for` over a static tensor with a free first "
                                   "dimension", where, f"its shape is {list(iterable.shape)}")
    return iterable


def convert_shape(value):
    """`value.shape`: a static Variable's free dimensions are FreeDims already (runtime
    sizes in tensor arithmetic: dygraph/framework/free_dim.py)."""
    return value.shape


def _bound(value, where):
    if isinstance(value, FreeDim):
        raise Dy2StaticUnsupported("range() over a free (-1) dimension of a static tensor",
                                   where)
    if is_static(value):
        return value
    return operator.index(value)  # Python's range() does the same (an eager int tensor too)


def range_args(*args, where=""):
    """(start, stop, step) of range(*args); static bounds stay tensors."""
    if not 1 <= len(args) <= 3:
        raise TypeError(f"range expected 1 to 3 arguments, got {len(args)}")
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (
        args[0], args[1], args[2] if len(args) == 3 else 1)
    if is_static(step):
        raise Dy2StaticUnsupported("a range() whose step is a static tensor", where)
    start, stop, step = _bound(start, where), _bound(stop, where), _bound(step, where)
    if step == 0:
        raise ValueError("range() arg 3 must not be zero")
    return start, stop, step


def range_cond(index, stop, step):
    """Whether `index` is still inside the range."""
    return index < stop if step > 0 else index > stop


def return_value(value):
    """The function's result (None where no `return` ran)."""
    return None if value is RETURN_UNSET else value


def convert_assert(test, message_fn, where):
    """`assert test, message`: Python's assert, unless test is a static tensor (then the
    check would need a run-time op: refused)."""
    if is_static(test):
        raise Dy2StaticUnsupported("`assert` on a static tensor", where)
    if not test:
        raise AssertionError(message_fn()) if message_fn is not None else AssertionError()
