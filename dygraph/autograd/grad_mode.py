"""Gradient recording switches: no_grad, enable_grad, set_grad_enabled, is_grad_enabled.

Example:
    >>> import dygraph
    >>> with dygraph.no_grad():
    ...     dygraph.is_grad_enabled()
    False
"""

import functools

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled"]

# One mutable cell read by `apply` on every op; a list avoids a global statement there.
state = [True]


def is_grad_enabled():
    """True when new ops record a graph for backward."""
    return state[0]


class _GradSwitch:
    """Context manager and decorator that sets grad recording to `self.mode` inside."""

    mode = True

    def __enter__(self):
        self._prev = state[0]
        state[0] = self.mode
        return self

    def __exit__(self, *exc):
        state[0] = self._prev
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
        self._prev = state[0]
        state[0] = self.mode

    def __enter__(self):
        return self

    def __call__(self, func):
        state[0] = self._prev
        mode = self.mode

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return func(*args, **kwargs)

        return wrapper
