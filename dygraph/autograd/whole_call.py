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

__all__ = ["captured_whole", "register_whole_call", "WHOLE_CALLS"]

# The functions a saved program may call, by `module:qualname` (dygraph.static.program_format
# refuses any other name a file gives).
WHOLE_CALLS = {}


def register_whole_call(fn):
    """Let saved programs call `fn` (an EagerCall op of a program runs it whole); returns fn.

    Example:
        >>> def triple(x):
        ...     return x * 3
        >>> register_whole_call(triple) is WHOLE_CALLS[f"{__name__}:triple"]
        True
    """
    WHOLE_CALLS[f"{fn.__module__}:{fn.__qualname__}"] = fn
    return fn


def captured_whole(fn=None, *, static_op=None, free_dims=(), always=False, when=None):
    """Decorate `fn` (Tensors in, Tensors out) to be one op in static programs.

    `static_op(*args, **kwargs)`, when given, is tried first in static mode: an op built for
    programs (its data-dependent parts as inputs) for the common arguments, or
    NotImplemented to fall back to the whole-function op. `free_dims` are the output
    dimensions whose size depends on the input's values (nonzero's count): free (-1) in the
    program whatever the build-time stand-ins gave. `always` is for creation ops, whose
    results belong to the program even when no static Variable is among the arguments:
    "per_run" records an op drawn at each run (randn), "constant" a constant of the program
    (zeros, arange), or an op computed per run when a size comes from a Variable. `when`,
    given fn's arguments, says whether this call needs the whole-function op (a random
    function draws only while training): where it says no, the call is recorded op by op,
    as any function (and stays exportable to ONNX).
    """
    if fn is None:
        return functools.partial(captured_whole, static_op=static_op, free_dims=free_dims,
                                 always=always, when=when)
    register_whole_call(fn)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if _state.static_program is not None and (when is None or when(*args, **kwargs)):
            from dygraph.static.eager_call import capture_call

            if static_op is not None:
                result = static_op(*args, **kwargs)
                if result is not NotImplemented:
                    return result

            captured = capture_call(fn, args, kwargs, free_dims, always == "per_run")
            if captured is not NotImplemented:
                return captured
            if always == "constant":
                from dygraph.static.capture import program_constant

                return program_constant(fn(*args, **kwargs))
        return fn(*args, **kwargs)

    return wrapper
