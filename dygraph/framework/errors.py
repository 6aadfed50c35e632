"""Error messages that name the op, what it got, what it expected and the user's line.

Paddle rewrote thousands of messages because users could not read them; every check in
DyGraph goes through `op_error` so the message shape is the same everywhere.
"""

import math
import os
import sys
import warnings

import numpy as np

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def user_frame():
    """`file:line` of the innermost frame outside the dygraph package (the user's call)."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not os.path.abspath(filename).startswith(_PKG_DIR + os.sep):
            return f"{filename}:{frame.f_lineno}"
        frame = frame.f_back
    return "<unknown>"


def describe(value):
    """'Tensor(shape=[2, 3], dtype=float32)' for tensors, the type name otherwise."""
    shape = getattr(value, "shape", None)
    dtype = getattr(value, "dtype", None)
    if shape is not None and dtype is not None:
        return f"Tensor(shape={list(shape)}, dtype={getattr(dtype, 'name', dtype)})"
    return type(value).__name__


class AssertedValueError(ValueError, AssertionError):
    """A bad argument that Paddle rejects with an `assert` (AssertionError): this is both a
    ValueError, as DyGraph's argument errors are, and an AssertionError, so code written
    against either catches it.

    Example:
        >>> issubclass(AssertedValueError, AssertionError)
        True
    """


class AssertedTypeError(TypeError, AssertionError):
    """As AssertedValueError, for an argument of the wrong type.

    Example:
        >>> issubclass(AssertedTypeError, TypeError)
        True
    """


class ValueTypeError(TypeError, ValueError):
    """An argument of the wrong type (a string where a Tensor goes) that Paddle refuses with
    a ValueError: both, so code written against either catches it.

    Example:
        >>> issubclass(ValueTypeError, ValueError) and issubclass(ValueTypeError, TypeError)
        True
    """


class NotTensorError(ValueTypeError, AttributeError):
    """A value that is not a Tensor (a string) where a Tensor goes. Paddle refuses it with
    ValueError or TypeError where it checks, and with AttributeError where it first reads
    an attribute of the value (``x.shape``): this is all three, so code written against
    any of them catches it.

    Example:
        >>> issubclass(NotTensorError, AttributeError) and issubclass(NotTensorError, TypeError)
        True
    """


class UnsupportedDTypeError(TypeError, RuntimeError):
    """An input dtype the op has no kernel for (bitwise ops on floats): Paddle raises
    RuntimeError when it finds no kernel; DyGraph's TypeError is kept as the other base.

    Example:
        >>> issubclass(UnsupportedDTypeError, RuntimeError)
        True
    """


class InplaceLeafError(RuntimeError, ValueError):
    """An in-place change of a leaf tensor that requires grad: Paddle raises ValueError;
    DyGraph's RuntimeError (PyTorch's type for it) is kept as the other base.

    Example:
        >>> issubclass(InplaceLeafError, ValueError)
        True
    """


class EnforceNotMet(Exception):
    """Paddle's error for a check that failed inside its C++ core (`base.core.EnforceNotMet`,
    an Exception only), raised where Paddle raises it instead of one of its typed errors.

    Example:
        >>> import dygraph
        >>> dygraph.base.core.EnforceNotMet is EnforceNotMet
        True
    """


class IntegerDivisionByZero(ZeroDivisionError, ValueError):
    """Integer division by zero: Paddle raises its InvalidArgumentError, a ValueError;
    Python's ZeroDivisionError is kept as the other base.

    Example:
        >>> issubclass(IntegerDivisionByZero, ValueError)
        True
    """



class BoolDivisionByZero(IntegerDivisionByZero, EnforceNotMet):
    """A False divisor of bool tensors: Paddle's core refuses it with EnforceNotMet; DyGraph's
    integer division by zero is kept as the other base.

    Example:
        >>> issubclass(BoolDivisionByZero, ZeroDivisionError)
        True
    """


class IndexValueError(IndexError, ValueError):
    """A value out of its range (an index, an axis, a probability). Paddle raises
    IndexError (its OutOfRange) for some ops (gather, diagonal, bernoulli) and ValueError
    (InvalidArgument) for others (index_select, take): this is both, so code written
    against either catches it.

    Example:
        >>> issubclass(IndexValueError, ValueError) and issubclass(IndexValueError, IndexError)
        True
    """


class UnsupportedIdsError(TypeError, NotImplementedError):
    """Ids of a float or complex dtype: Paddle's embedding kernel refuses them as
    unimplemented (NotImplementedError); DyGraph's TypeError is kept as the other base.

    Example:
        >>> issubclass(UnsupportedIdsError, NotImplementedError)
        True
    """


class ShapeRuntimeError(ValueError, RuntimeError):
    """Input shapes an op cannot take, where Paddle raises RuntimeError (its
    PreconditionNotMet): both, so code written against either catches it.

    Example:
        >>> issubclass(ShapeRuntimeError, RuntimeError)
        True
    """


class RankIndexError(ValueError, IndexError):
    """An input with too few dimensions, where Paddle raises IndexError (its OutOfRange):
    both, so code written against either catches it.

    Example:
        >>> issubclass(RankIndexError, IndexError)
        True
    """

def op_error(op, message, exc_type=ValueError):
    """Build the exception for a bad call of `op`; the caller raises it.

    Example:
        >>> str(op_error('matmul', 'bad'))[:12]
        'matmul: bad '
    """
    text = f"{op}: {message} (called at {user_frame()})"
    try:
        err = exc_type(text)
    except TypeError:  # a type whose constructor wants more (NumPy's casting errors)
        base = next(k for k in exc_type.__mro__ if k.__module__ == "builtins")
        err = base(text)
    err.dygraph_op = op  # marks a message already in this format (see forward_error)
    return err


# What the array library says when it has no kernel for the input dtypes (NumPy's three
# wordings, then CuPy's): Paddle raises RuntimeError there, so the op raises
# UnsupportedDTypeError, which is also the TypeError the array library raised.
_NO_KERNEL = ("not supported for the input types", "did not contain a loop with signature",
              "numpy boolean subtract", "Wrong type (")


def forward_error(op_name, inputs, exc):
    """Re-express an array-library error raised inside an op's forward in our format."""
    if getattr(exc, "dygraph_op", None):
        return exc
    got = ", ".join(describe(t) for t in inputs)
    kind = type(exc)
    if isinstance(exc, TypeError) and any(text in str(exc) for text in _NO_KERNEL):
        kind = UnsupportedDTypeError
    elif kind.__module__.startswith("numpy._core"):
        # NumPy's private subclasses (e.g. _ArrayMemoryError) need extra constructor
        # arguments; raise the public built-in they derive from.
        kind = next(c for c in kind.__mro__ if c.__module__ == "builtins")
    tensors = [t for t in inputs if hasattr(t, "_data")]
    # Mixed devices show as a TypeError (CuPy refuses a NumPy operand) or a ValueError
    # naming the device; an op may take a host constant on purpose, so another error keeps
    # its own message.
    mixed = isinstance(exc, TypeError) or (isinstance(exc, ValueError)
                                            and "device" in str(exc))
    if mixed and len({str(t.place) for t in tensors}) > 1:  # the library's message would not say
        on = ", ".join(f"{describe(t)} on {t.place}" for t in tensors)
        err = op_error(op_name, f"the inputs are on different devices ({on}); move them to "
                       "one first, with tensor.cuda() or tensor.cpu()", kind)
    else:
        err = op_error(op_name, f"{exc} (inputs: {got})", kind)
    err.dygraph_cause = exc  # the array library's own message, for callers that rephrase
    return err


def as_number(value, what, owner):
    """`value` as a float, or a TypeError naming `owner` and `what` (text is refused: float()
    would accept '1').

    Example:
        >>> as_number(2, 'learning_rate', 'SGD')
        2.0
    """
    if value is None:  # Paddle checks for None first, with a ValueError ("... is not set")
        raise op_error(owner, f"{what} is not set (got None); it must be a number",
                       ValueTypeError)
    if isinstance(value, (bool, str, bytes)):
        raise op_error(owner, f"{what} must be a number, got {type(value).__name__}",
                       TypeError)
    try:
        return float(value)
    except (TypeError, ValueError):
        raise op_error(owner, f"{what} must be a number, got {type(value).__name__}",
                       TypeError) from None


def check_learning_rate(value, owner):
    """`value` as a float, refused (ValueError) unless finite and >= 0.

    A NaN or infinite rate turns every weight into NaN/inf in one step, and a negative one
    climbs the loss; Paddle accepts both, PyTorch refuses them, and so do we.

    Example:
        >>> check_learning_rate(0.1, 'SGD')
        0.1
    """
    rate = as_number(value, "learning_rate", owner)
    if not math.isfinite(rate) or rate < 0:
        raise op_error(owner, f"learning_rate must be a finite number >= 0, got {rate}")
    return rate


# -- floating-point warnings at the user's line ------------------------------------------
_NUMPY_DIR = os.path.dirname(os.path.abspath(np.__file__))


def _internal(filename):
    path = os.path.abspath(filename)
    return path.startswith(_PKG_DIR + os.sep) or path.startswith(_NUMPY_DIR + os.sep)


def _floating_point_warning(kind, _flag):
    """numpy's error callback: a RuntimeWarning naming the op, at the user's line.

    NumPy warns at the Python line that called the ufunc, which inside an op is a line of
    dygraph/; this re-issues the warning one level up, at the first frame outside dygraph
    and NumPy, and names the op whose forward or backward was running.
    """
    frame, level, op = sys._getframe(1), 2, None
    while frame is not None and _internal(frame.f_code.co_filename):
        owner = frame.f_locals.get("self")
        if op is None and owner is not None and hasattr(owner, "backward") and \
                hasattr(owner, "forward"):
            op = getattr(owner, "name", type(owner).__name__)
        frame, level = frame.f_back, level + 1
    where = f"{op}: " if op else ""
    warnings.warn(f"{where}{kind} encountered (NaN or infinity in the result)",
                  RuntimeWarning, stacklevel=level)


def install_floating_point_warnings():
    """Route NumPy's floating-point warnings (divide by zero, overflow, invalid value)
    through `_floating_point_warning` in the calling thread; underflow stays ignored.

    Called once when dygraph is imported. It changes NumPy's error mode for the importing
    thread (np.geterr() reports 'call'); a later np.seterr or np.errstate of the user's
    takes precedence, and other threads keep NumPy's own warnings.

    Example:
        >>> import numpy as np
        >>> np.geterr()["invalid"]
        'call'
    """
    np.seterrcall(_floating_point_warning)
    np.seterr(divide="call", over="call", invalid="call")


install_floating_point_warnings()
