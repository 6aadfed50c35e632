"""The run-time side of a converted `while` (and of `for i in range(...)`, which the
conversion turns into a `while`).

`convert_while_loop(cond_fn, body_fn, args, names, effect, where)`: both functions take
the current values of the variables the body assigns (`names`); the body returns their new
values. While the condition is a Python value or an eager Tensor the loop is plain Python.
As soon as it is a static Variable (at the start, or after some unrolled iterations), the
rest of the loop becomes one `while_loop` of the program:

- tensors are loop variables; so are Python numbers (flags, counters) and the pending
  return value, made tensors of the shape and dtype the body gives them (found by building
  the body once in a scratch block; a free dimension starts at 1);
- a variable first assigned inside the loop is local to an iteration; using it after the
  loop raises Dy2StaticUnsupported;
- other Python values (None, objects) must come out of the body unchanged;
- a body with side effects outside its variables cannot run as a program loop.

Example:
    >>> import dygraph
    >>> n = dygraph.to_tensor(3)
    >>> convert_while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i), (0, 0),
    ...                    ('i', 's'), None, 'f.py:1')
    (3, 3)
"""

from dygraph.autograd import grad_mode
from dygraph.jit.dy2static.errors import Dy2StaticUnsupported, Undefined
from dygraph.jit.dy2static.run_if import static_flow
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

__all__ = ["convert_while_loop"]


def convert_while_loop(cond_fn, body_fn, args, names, effect, where):
    """See the module docstring; returns the final values of `names`."""
    args = tuple(args)
    while True:
        pred = cond_fn(*args)
        if is_static(pred):
            return _static_loop(cond_fn, body_fn, args, names, effect, where)
        if not pred:
            return args
        args = tuple(body_fn(*args))


def _trial(body_fn, args, names, where):
    """The body's outputs when built once in a scratch block of the program (discarded:
    no op of the program reads that block)."""
    program = grad_mode.state.static_program
    before = snapshot(args)
    with program.sub_block(), static_flow():
        out = tuple(body_fn(*args))
    check_unchanged(names, args, before, "a `while` on a static tensor", where)
    return out


def _start(fill, like):
    """A start value for a loop variable the body makes like `like` (static): `fill` in
    every element; a free dimension has size 1 at run time, so that the start broadcasts
    as the Python number would (it is a free dimension of the program as well)."""
    import numpy as np

    from dygraph.static.capture import Constant

    shape = tuple(like.shape)
    if -1 not in shape:
        return number_tensor(fill, shape=shape, dtype=like.dtype)
    block = grad_mode.state.static_program.current_block()
    var = block.create_var(None, shape, like._data.dtype, stop_gradient=True)
    value = np.full([1 if d == -1 else d for d in shape], fill, like._data.dtype)
    block.append_op(Constant(value), [], [var.name], role="const")
    return var


def _loop_starts(body_fn, args, names, where):
    """Which variables the program loop carries, and their start tensors."""
    carried = [i for i, v in enumerate(args) if isinstance(v, Tensor)]
    guess = [i for i, v in enumerate(args) if is_number(v) or isinstance(v, ReturnUnset)]
    starts = dict((i, args[i]) for i in carried)
    if guess:
        trial_args = list(args)
        for i in guess:
            if is_number(args[i]):
                trial_args[i] = number_tensor(args[i])
        out = _trial(body_fn, trial_args, names, where)
        for i in guess:
            value, made = args[i], out[i]
            if isinstance(made, Tensor):
                fill = 0 if isinstance(value, ReturnUnset) else value
                starts[i] = _start(fill, made)
            elif is_number(value):
                starts[i] = number_tensor(value)
            elif isinstance(made, ReturnUnset):
                continue  # no return inside: the placeholder passes through
            else:
                raise Dy2StaticUnsupported(
                    "a `return` inside a `while` on a static tensor", where,
                    f"it returns {describe(made)}; only one tensor can be returned there")
            carried.append(i)
    carried.sort()
    return carried, [starts[i] for i in carried]


def _carry_out(name, start, value, where):
    """A body output as the next value of a loop variable."""
    if isinstance(value, ReturnUnset):
        return start
    if is_number(value) and (start._data.dtype.kind not in "iub" or float(value) == int(value)):
        return number_tensor(value, like=start)
    if not isinstance(value, Tensor):
        raise Dy2StaticUnsupported(f"{display(name)} in a `while` on a static tensor",
                                   where, f"the loop starts it as {describe(start)} and the "
                                   f"body makes it {describe(value)}")
    if value.dtype != start.dtype or len(value.shape) != len(start.shape):
        raise Dy2StaticUnsupported(f"{display(name)} in a `while` on a static tensor",
                                   where, f"the loop starts it as {describe(start)} and the "
                                   f"body makes it {describe(value)}; a loop variable keeps "
                                   "its dtype and rank")
    return value


def _static_loop(cond_fn, body_fn, args, names, effect, where):
    from dygraph.static.while_loop import while_loop

    if effect:
        raise Dy2StaticUnsupported(f"{effect} inside a `while` on a static tensor", where,
                                   "the body is built once, so it would happen once")
    carried, starts = _loop_starts(body_fn, args, names, where)
    if not carried:
        raise Dy2StaticUnsupported("a `while` on a static tensor that changes no tensor",
                                   where, "its condition could never change")
    born = set()  # variables first assigned in the loop

    def full(values):
        current = list(args)
        for i, v in zip(carried, values):
            current[i] = v
        return current

    def cond(*values):
        return as_pred(cond_fn(*full(values)), "a `while`", where)

    def body(*values):
        current = full(values)
        before = snapshot(current)
        out = tuple(body_fn(*current))
        check_unchanged(names, current, before, "a `while` on a static tensor", where)
        for i, (old, new) in enumerate(zip(args, out)):
            if i in carried or new is old:
                continue
            if not isinstance(old, Undefined):
                raise Dy2StaticUnsupported(
                    f"{display(names[i])} in a `while` on a static tensor", where,
                    f"the body changes it from {describe(old)} to {describe(new)}")
            born.add(i)
        return [_carry_out(names[i], v, out[i], where) for i, v in zip(carried, values)]

    with static_flow():
        finals = while_loop(cond, body, starts)
    result = list(full(finals))
    for i in born:
        result[i] = Undefined(names[i], where)
    return tuple(result)
