"""1.x dygraph basics: guard, enabled, to_variable, no_grad.

Inside `guard()` every intermediate result keeps its gradient after backward, because 1.x
code reads `.gradient()` of intermediate variables (`loss.gradient()` is `[1.]`).

Example:
    >>> import numpy as np
    >>> import dygraph.fluid as fluid
    >>> with fluid.dygraph.guard():
    ...     x = fluid.dygraph.to_variable(np.ones([2], np.float32))
    ...     x.stop_gradient
    False
"""

import contextlib

import numpy as np

from dygraph.autograd import interpreters
from dygraph.autograd.engine import grad
from dygraph.autograd.grad_mode import no_grad
from dygraph.autograd.grad_mode import state as _thread_state
from dygraph.framework import place as _place
from dygraph.tensor.tensor import Tensor, to_tensor

__all__ = ["guard", "enabled", "to_variable", "no_grad", "grad"]


@contextlib.contextmanager
def guard(place=None):
    """Run the block in 1.x dygraph mode, optionally on `place` (CPUPlace/CUDAPlace(i)).

    Example:
        >>> import dygraph.fluid as fluid
        >>> with fluid.dygraph.guard(fluid.CPUPlace()):
        ...     fluid.dygraph.enabled()
        True
    """
    from dygraph.utils import unique_name

    previous_place = _place.current_place()
    previous_retain = _thread_state.retain_all_grads
    if place is not None:
        _place.set_device(place)
    _thread_state.retain_all_grads = True
    # Dygraph inside, even in a thread that 1.x static code put in static mode.
    from dygraph.static.capture import capture

    previous_static = _thread_state.static_program, interpreters.snapshot()
    if previous_static[0] is not None:
        _thread_state.static_program = None
        interpreters.remove(capture)
    try:
        # Fresh layer/parameter numbering per guard, as 1.x: a model rebuilt in a new guard
        # gets the same names, so checkpoints and optimizer state keyed by name load into it.
        with unique_name.guard():
            yield
    finally:
        _thread_state.retain_all_grads = previous_retain
        if previous_static[0] is not None:
            _thread_state.static_program = previous_static[0]
            interpreters.restore(previous_static[1])
        _place._current[0] = previous_place


def enabled():
    """True inside `guard()`.

    Example:
        >>> enabled()
        False
    """
    return _thread_state.retain_all_grads


def to_variable(value, name=None, zero_copy=None):
    """A NumPy array (or Tensor) as a variable that takes part in autograd (1.x:
    stop_gradient=False for float data; set `.stop_gradient = True` for labels).

    Example:
        >>> import numpy as np
        >>> to_variable(np.ones([2], np.float32)).stop_gradient
        False
    """
    if isinstance(value, Tensor):
        return value
    if not isinstance(value, np.ndarray):
        value = np.asarray(value)
    t = to_tensor(value, stop_gradient=False)
    if name is not None:
        t.name = name
    return t
