"""Gradient recording switches: no_grad, enable_grad, set_grad_enabled, is_grad_enabled.

Example:
    >>> import dygraph
    >>> with dygraph.no_grad():
    ...     dygraph.is_grad_enabled()
    False
"""

import functools
import threading

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled"]


class _ThreadState(threading.local):
    """Switches that `apply` reads on every op, one set per thread.

    Each thread starts from the class attributes, so `no_grad` in one thread (an inference
    thread, or the `no_grad` inside another thread's `optimizer.step()`) never changes what a
    second thread records. Reading an attribute of a `threading.local` costs about what the
    list cell it replaces did (benchmarks/op_overhead.py).
    """

    grad_on = True  # new ops record a graph for backward
    retain_all_grads = False  # 1.x guard(): every intermediate keeps its gradient
    amp = None  # the active dygraph.amp.auto_cast settings, or None
    # The program ops are captured into while static mode is on (dygraph.static), or None.
    static_program = None
    # The interpreters installed above eager execution, as (level, function) from the
    # lowest (dygraph.autograd.interpreters), and `intercept`, the top one's function or
    # None: what `apply` hands every op to; one attribute read on the eager path decides.
    interpreters = ()
    intercept = None
    # (pack_hook, unpack_hook) of the innermost autograd.saved_tensors_hooks, or None.
    saved_hooks = None


state = _ThreadState()


def is_grad_enabled():
    """True when new ops record a graph for backward."""
    return state.grad_on


class _GradSwitch:
    """Context manager and decorator that sets grad recording to `self.mode` inside."""

    mode = True

    def __enter__(self):
        self._prev = state.grad_on
        state.grad_on = self.mode
        return self

    def __exit__(self, *exc):
        state.grad_on = self._prev
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return func(*args, **kwargs)

        return wrapper


class no_grad(_GradSwitch):  # noqa: N801 - Paddle's public name
    """Turn gradient recording off, as `with no_grad():` or as `@no_grad()` / `@no_grad`.

    Example:
        >>> with no_grad():
        ...     pass
    """

    mode = False

    def __new__(cls, func=None):
        self = super().__new__(cls)
        if callable(func):  # used as a bare decorator: @no_grad
            return self(func)
        return self

    def __init__(self, func=None):
        pass


class enable_grad(no_grad):  # noqa: N801
    """Turn gradient recording back on inside a no_grad region.

    Example:
        >>> with enable_grad():
        ...     pass
    """

    mode = True


class set_grad_enabled(_GradSwitch):  # noqa: N801
    """Set recording on or off; works as a call, a context manager or a decorator.

    Example:
        >>> with set_grad_enabled(False):
        ...     is_grad_enabled()
        False
    """

    def __init__(self, mode):
        self.mode = bool(mode)
        self._prev = state.grad_on
        state.grad_on = self.mode

    def __enter__(self):
        return self

    def __call__(self, func):
        state.grad_on = self._prev
        mode = self.mode

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return func(*args, **kwargs)

        return wrapper
