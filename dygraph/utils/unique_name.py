"""dygraph.utils.unique_name: the name generator behind layer and parameter names.

`generate('fc')` gives 'fc_0', 'fc_1', ...; `guard()` starts a fresh numbering for its block
and restores the outer one afterwards, so a model built inside it gets the same names each
time (1.x code rebuilt a model under a new guard to load a checkpoint into it). The counters
are the ones `dygraph.framework.parameter.unique_name` uses, so 2.x layers share them.

Example:
    >>> import dygraph
    >>> with dygraph.utils.unique_name.guard():
    ...     dygraph.utils.unique_name.generate('doc_fc')
    'doc_fc_0'
"""

import contextlib

from dygraph.framework import parameter as _parameter

__all__ = ["generate", "guard", "switch"]


def generate(key):
    """The next unique name for `key`: 'key_0', 'key_1', ...

    Example:
        >>> with guard():
        ...     generate('doc_key'), generate('doc_key')
        ('doc_key_0', 'doc_key_1')
    """
    return _parameter.unique_name(str(key))


def switch(new_generator=None):
    """Replace the numbering state by `new_generator` (a dict that a previous `switch`
    returned, or None for a fresh one); returns the old state.

    Example:
        >>> old = switch()
        >>> generate('doc_switch')
        'doc_switch_0'
        >>> _ = switch(old)
    """
    old = _parameter._counters
    _parameter._counters = {} if new_generator is None else new_generator
    return old


@contextlib.contextmanager
def guard(new_generator=None):
    """Number names afresh inside the block, or continue `new_generator`'s numbering (a
    state that `switch` returned).

    Example:
        >>> with guard():
        ...     a = generate('doc_guard')
        >>> with guard():
        ...     b = generate('doc_guard')
        >>> a == b
        True
    """
    if new_generator is not None and not isinstance(new_generator, dict):
        raise TypeError(f"unique_name.guard: new_generator must be a state from switch() or "
                        f"None, got {type(new_generator).__name__}")
    old = switch(new_generator)
    try:
        yield
    finally:
        switch(old)
