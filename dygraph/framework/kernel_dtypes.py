"""The input dtypes Paddle 3.3 refuses, refused here too, at the public names.

Paddle registers each CPU kernel for a list of dtypes (``max`` has no bool kernel, ``relu``
no integer one) and some of its Python functions check the dtype (``trapezoid`` of int64).
DyGraph's NumPy kernels would compute most of these; refusing them as Paddle does keeps a
program that runs here running on Paddle, which is what a Paddle-compatible framework is
for. The table (paddle_kernel_dtypes.py) is generated from Paddle's recorded answers.

The check wraps the public function, not the op: DyGraph's own code calls the ops with any
dtype it needs. Layers call the public functions (nn.functional), so they check too; the
check is one attribute read and one set lookup per call of a listed name (its cost is in
docs/PERFORMANCE.md).

Example:
    >>> import dygraph
    >>> try:
    ...     dygraph.max(dygraph.to_tensor([True, False]))
    ... except RuntimeError as e:
    ...     print(str(e).split(",")[0])
    max: Paddle has no kernel of this op for bool input
"""

import functools
import inspect

import numpy as np

from dygraph.framework.errors import (
    AssertedTypeError,
    UnsupportedDTypeError,
    ValueTypeError,
    op_error,
)
from dygraph.framework.paddle_kernel_dtypes import REFUSED

# Paddle's exception -> DyGraph's, which is also a TypeError (DyGraph's type for a dtype
# an op cannot take)
_ERRORS = {"RuntimeError": UnsupportedDTypeError, "TypeError": UnsupportedDTypeError,
           "ValueError": ValueTypeError, "AssertionError": AssertedTypeError}


# Names whose `dtype` argument casts x before Paddle's kernel runs (cumsum(x, dtype='int64')
# of a bool x is computed): with a dtype given, x's own dtype is not checked.
_CAST_FIRST = frozenset(["cumsum", "cumprod", "prod", "softmax", "softmax_", "log_softmax",
                         "logcumsumexp", "rand_like", "randn_like", "vector_norm", "norm"])


def _dtypes(names):
    return frozenset(np.dtype(n) for n in names.split())


def _refuse(op, dtype, error, when=""):
    raise op_error(op, f"Paddle has no kernel of this op for {dtype} input{when}, and "
                   f"DyGraph refuses it too so that the program runs on Paddle as well; "
                   f"cast it first (x.astype('float32'))", error)


def refuse_dtypes(op, x, dtypes, when=""):
    """Refuse a tensor `x` whose dtype is named in `dtypes`, as Paddle does, where the
    refusal depends on the other arguments (the kernel Paddle's function reaches): the
    caller checks them, `when` says which (" with correction 1").

    Example:
        >>> import dygraph
        >>> refuse_dtypes("split", dygraph.ones([2]), ("complex64",))  # float32: passes
    """
    from dygraph.backend import dtype_name

    name = dtype_name(x._data.dtype)
    if name in dtypes:
        _refuse(op, name, UnsupportedDTypeError, when)


def refusing(op, function, param, dtypes, error):
    """`function` with a check that its tensor parameter `param` has none of `dtypes`
    (a frozenset of NumPy dtypes); None where `function` has no such parameter.

    Example:
        >>> import numpy as np, dygraph
        >>> f = refusing("neg", lambda x: -x, "x", frozenset([np.dtype(bool)]), TypeError)
        >>> f(dygraph.to_tensor([1.0])).numpy()
        array([-1.], dtype=float32)
    """
    try:
        params = list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return None
    if param not in params:
        return None
    position = params.index(param)
    # where a given dtype casts x first, its position (past every argument otherwise)
    cast_at = params.index("dtype") if op in _CAST_FIRST and "dtype" in params else None

    @functools.wraps(function)
    def checked(*args, **kwargs):
        x = args[position] if len(args) > position else kwargs.get(param)
        data = getattr(x, "_data", None)
        if data is not None and data.dtype in dtypes and (cast_at is None or (
                args[cast_at] if len(args) > cast_at else kwargs.get("dtype")) is None):
            _refuse(op, data.dtype, error)
        return function(*args, **kwargs)

    checked.refused_dtypes = dtypes
    return checked


def guard_namespace(namespace, prefix):
    """Wrap the listed functions of a module's globals, `prefix` being the table's name of
    the module ("paddle", "nn.functional", "linalg", "fft")."""
    start = prefix + "."
    for qualified, (param, dtypes, error) in REFUSED.items():
        name = qualified[len(start):]
        if not qualified.startswith(start) or "." in name:
            continue
        function = namespace.get(name)
        if function is None or getattr(function, "refused_dtypes", None) is not None:
            continue
        wrapped = refusing(name, function, param, _dtypes(dtypes), _ERRORS[error])
        if wrapped is not None:
            namespace[name] = wrapped


def guard_methods(tensor_cls):
    """Wrap the Tensor methods: a method refuses what its `Tensor.` entry lists and what
    the function of the same name refuses for its first parameter."""
    refused = {}
    for qualified, (param, dtypes, error) in REFUSED.items():
        namespace, _, name = qualified.rpartition(".")
        if namespace == "Tensor" or namespace == "paddle":
            known, old_error = refused.get(name, ("", None))
            refused[name] = (known + " " + dtypes if param in ("self", "x") else known,
                             old_error or error)
    for name, (dtypes, error) in refused.items():
        method = tensor_cls.__dict__.get(name)
        if not dtypes.strip() or not inspect.isfunction(method) \
                or getattr(method, "refused_dtypes", None) is not None:
            continue
        first = next(iter(inspect.signature(method).parameters), None)
        wrapped = refusing(name, method, first, _dtypes(dtypes), _ERRORS[error])
        if wrapped is not None:
            setattr(tensor_cls, name, wrapped)
