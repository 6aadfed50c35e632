"""StandIn: the arrays static Variables hold while their program is built.

A Variable has no data until an Executor runs its program; while the program is built it
holds zeros of its shape (free dimensions at a probe size), so that op wrappers and layer
code, which read shapes and dtypes, run unchanged. Those zeros are a StandIn: NumPy keeps
the subclass through ufuncs and most functions, so what Python computes from a stand-in
stays marked, and static capture refuses a marked array that would become part of the
program (dygraph/static/capture.py).

Example:
    >>> import numpy as np
    >>> stand_in = np.zeros(3).view(StandIn)
    >>> is_stand_in(np.argsort(stand_in)), is_stand_in(np.zeros(3))
    (True, False)
"""

import numpy as np

__all__ = ["StandIn", "is_stand_in"]


class StandIn(np.ndarray):
    """The array a Variable holds while its program is built: zeros with the Variable's
    shape, marked so that what Python computes from it stays marked (NumPy keeps the
    subclass through ufuncs and most functions). Capture refuses a marked array that would
    become part of the program (an op's configuration, a constant): it was computed from a
    build-time stand-in, not from the data of a run. Ops themselves run on stand-ins freely
    while capture probes their output shapes."""


def is_stand_in(value):
    """Whether `value` (an array, or a tuple/list/dict nesting arrays) holds an array
    computed from a build-time stand-in.

    Example:
        >>> is_stand_in(np.zeros(3).view(StandIn) + 1), is_stand_in((np.zeros(3), 1))
        (True, False)
    """
    if isinstance(value, StandIn):
        return True
    if isinstance(value, (tuple, list)):
        return any(is_stand_in(v) for v in value)
    if isinstance(value, dict):
        return any(is_stand_in(v) for v in value.values())
    return False
