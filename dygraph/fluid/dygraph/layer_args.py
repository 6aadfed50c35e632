"""Argument binding for the 1.x layers, whose signatures changed between releases.

1.4/1.5 layers take a `name_scope` string first; 1.6 dropped it, so `Conv2D(3, 8, 5)` means
(num_channels, num_filters, filter_size). A layer lists its signatures as functions and
`bind` picks the one that fits the first argument.

Example:
    >>> def v15(name_scope, size): pass
    >>> def v16(size): pass
    >>> bind((v15, v16), ('fc', 4), {})
    {'name_scope': 'fc', 'size': 4}
    >>> bind((v15, v16), (4,), {})
    {'size': 4, 'name_scope': None}
"""

import inspect

__all__ = ["bind", "pair"]


def bind(signatures, args, kwargs):
    """Bind args/kwargs to `signatures` = (with_name_scope, without_name_scope): the first
    when the first argument is a str (or `name_scope` is given by keyword), the second
    otherwise (its result gets name_scope=None). Returns the arguments with defaults filled.
    """
    with_scope, without_scope = signatures
    first = args[0] if args else None
    if "name_scope" in kwargs or isinstance(first, str) or without_scope is None:
        chosen = with_scope
    else:
        chosen = without_scope
    bound = inspect.signature(chosen).bind(*args, **kwargs)
    bound.apply_defaults()
    values = dict(bound.arguments)
    values.setdefault("name_scope", None)
    return values


def pair(value, what, owner):
    """An int or a 2-sequence as a list of two ints.

    Example:
        >>> pair(3, 'filter_size', 'Conv2D'), pair((1, 2), 'stride', 'Conv2D')
        ([3, 3], [1, 2])
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return [value, value]
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        return list(value)
    raise TypeError(f"{owner}: {what} must be an int or two ints, got {value!r}")
