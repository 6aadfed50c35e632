"""The interpreters `apply` hands ops to, as a per-thread stack.

Eager execution is the bottom of the stack: `apply` runs an op itself when no interpreter
is installed. Above it sit interpreters, each a function `(op, inputs) -> result` that may
transform the call and hand it down to the one below (as JAX's traces do):

- RECORD (static capture, dygraph.static.capture): records the op into a program;
- TRANSFORM (mixed precision, dygraph.amp.auto_cast): casts the inputs, hands the op and
  the casts down, so that under capture they are recorded and in eager mode they run.

The stack is ordered by level, not by the order the contexts were entered, so
`auto_cast` inside `program_guard` and `program_guard` inside `auto_cast` both record the
casts. `apply` reads only `state.intercept`, the top of the stack: eager code pays one
attribute read, as before.

Example:
    >>> import dygraph
    >>> from dygraph.autograd.function import apply
    >>> seen = []
    >>> def spy(op, inputs):
    ...     seen.append(op.name)
    ...     with handing_down(spy):
    ...         return apply(op, *inputs)
    >>> with installed(spy, TRANSFORM):
    ...     y = dygraph.ones([2]) * 3
    >>> seen, y.tolist()
    (['multiply'], [3.0, 3.0])
"""

import contextlib

from dygraph.autograd.grad_mode import state

__all__ = ["RECORD", "TRANSFORM", "push", "remove", "below", "handing_down", "installed",
           "snapshot", "restore"]

RECORD = 10
TRANSFORM = 20


def _refresh():
    stack = state.interpreters
    state.intercept = stack[-1][1] if stack else None


def push(fn, level):
    """Install interpreter `fn` at `level` (once: a second push of the same fn is a no-op).

    Example:
        >>> def noop(op, inputs): ...
        >>> push(noop, TRANSFORM); state.intercept is noop
        True
        >>> remove(noop); state.intercept is None
        True
    """
    if any(f is fn for _, f in state.interpreters):
        return
    state.interpreters = tuple(sorted(state.interpreters + ((level, fn),),
                                      key=lambda entry: entry[0]))
    _refresh()


def remove(fn):
    """Uninstall interpreter `fn` (nothing happens when it is not installed)."""
    state.interpreters = tuple(e for e in state.interpreters if e[1] is not fn)
    _refresh()


def below(fn):
    """The interpreter under `fn` on this thread's stack, or None (eager execution).

    Example:
        >>> below(print) is None
        True
    """
    previous = None
    for _, f in state.interpreters:
        if f is fn:
            return previous
        previous = f
    return None


@contextlib.contextmanager
def handing_down(fn):
    """Inside the block, `apply` goes to the interpreter under `fn`; after it, to `fn`
    again. An interpreter wraps its own calls of `apply` in this."""
    state.intercept = below(fn)
    try:
        yield
    finally:
        state.intercept = fn


@contextlib.contextmanager
def installed(fn, level):
    """`fn` on the stack inside the block, and the stack as it was after it.

    Example:
        >>> with installed(print, RECORD):
        ...     state.intercept is print
        True
    """
    saved = snapshot()
    push(fn, level)
    try:
        yield
    finally:
        restore(saved)


def snapshot():
    """The thread's stack, for `restore`."""
    return state.interpreters


def restore(saved):
    """Put back a stack taken by `snapshot`."""
    state.interpreters = saved
    _refresh()
