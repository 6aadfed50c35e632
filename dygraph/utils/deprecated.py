"""`paddle.utils.deprecated`: mark an API as deprecated.

Example:
    >>> @deprecated(update_to="dygraph.add", since="0.1", level=1)
    ... def plus(a, b):
    ...     return a + b
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     plus(1, 2), "deprecated" in str(caught[0].message)
    (3, True)
"""

import functools
import inspect
import warnings

__all__ = ["deprecated", "VisibleDeprecationWarning"]


class VisibleDeprecationWarning(UserWarning):
    """Shown by default, unlike DeprecationWarning (as Paddle's)."""


def deprecated(update_to="", since="", reason="", level=0):
    """A decorator noting the deprecation in the docstring; on calls, `level` 0 says
    nothing more, 1 warns (VisibleDeprecationWarning), 2 raises RuntimeError.

    Example:
        >>> @deprecated(level=2)
        ... def old():
        ...     pass
        >>> old()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        RuntimeError: API "...old" has been deprecated.
    """
    for name, value in (("update_to", update_to), ("since", since), ("reason", reason)):
        if not isinstance(value, str):
            raise TypeError(f"deprecated: {name} should be a str, but got "
                            f"{type(value).__name__}")
    if level not in (0, 1, 2):
        raise ValueError(f"deprecated: level should be 0, 1 or 2, but got {level!r}")

    def decorator(func):
        api = f"{func.__module__}.{func.__qualname__}"
        message = f'API "{api}" is deprecated'
        message += f" since {since.strip()}" if since.strip() else ""
        message += ", and will be removed in future versions."
        if update_to.strip():
            message += f' Please use "{update_to.strip()}" instead.'
        if reason.strip():
            message += f"\n    Reason: {reason.strip()}"
        func.__doc__ = f"\n\nWarning:\n    {message}\n\n" + inspect.cleandoc(func.__doc__ or "")
        if level == 0:
            return func

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if level == 2:
                raise RuntimeError(f'API "{api}" has been deprecated.')
            warnings.warn(message, VisibleDeprecationWarning, stacklevel=2)
            return func(*args, **kwargs)

        return wrapper

    return decorator
