"""`captured_whole`: a function that static mode records as one op, not op by op.

Some functions keep part of their input as op attributes (the class losses keep the labels
as index arrays, for speed): recorded op by op, a static program would freeze the labels of
the stand-in it was built with. In static mode such a function becomes one op of the
program (dygraph.static.eager_call.EagerCall) that runs the function eagerly on each run's
arrays, with its gradient from the eager engine. Outside static mode it costs one
attribute read.

Example:
    >>> @captured_whole
    ... def double(x):
    ...     return x * 2
    >>> import dygraph
    >>> double(dygraph.ones([2])).tolist()
    [2.0, 2.0]
"""

import functools

from dygraph.autograd.grad_mode import state as _state

__all__ = ["captured_whole"]


def captured_whole(fn):
    """Decorate `fn` (Tensors in, Tensors out) to be one op in static programs."""

    fn.static_whole_call = True  # saved programs may call it (dygraph.static.io)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if _state.static_program is not None:
            from dygraph.static.eager_call import capture_call

            captured = capture_call(fn, args, kwargs)
            if captured is not NotImplemented:
                return captured
        return fn(*args, **kwargs)

    return wrapper
