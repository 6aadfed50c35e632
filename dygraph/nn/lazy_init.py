"""LazyGuard: parameters created inside it are not initialised until asked.

Inside `with LazyGuard():` a layer's parameters get their shape, dtype and name, but their
initializer does not run: their values stay zero and no random numbers are drawn.
`param.initialize()` runs the initializer (once). This matches Paddle's LazyGuard, except
that the zero-filled storage is allocated (NumPy has no unallocated arrays).

Example:
    >>> import dygraph
    >>> with dygraph.LazyGuard():
    ...     net = dygraph.nn.Linear(3, 2)
    >>> float(net.weight.abs().sum())
    0.0
    >>> for p in net.parameters():
    ...     _ = p.initialize()
    >>> float(net.weight.abs().sum()) > 0
    True
"""

import threading

from dygraph.framework.parameter import Parameter

__all__ = ["LazyGuard", "lazy_init_enabled", "defer_initializer"]

_state = threading.local()


def lazy_init_enabled():
    """True inside a `with LazyGuard():` block."""
    return getattr(_state, "depth", 0) > 0


def defer_initializer(param, init):
    """Keep `init` on the parameter, to run on `param.initialize()`."""
    param._lazy_initializer = init


class LazyGuard:
    """Context manager that defers parameter initialisation (see the module docstring)."""

    def __enter__(self):
        _state.depth = getattr(_state, "depth", 0) + 1
        return self

    def __exit__(self, *exc):
        _state.depth -= 1
        return False


def _initialize(self):
    """Run the initializer a LazyGuard deferred (nothing when there is none); returns self."""
    init = self.__dict__.pop("_lazy_initializer", None)
    if init is not None:
        init(self)
    return self


Parameter.initialize = _initialize
