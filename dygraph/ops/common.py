"""Helpers shared by the op families: argument coercion, dtype promotion, axis checks."""

import numpy as np

from dygraph.autograd.function import Op, apply
from dygraph.autograd.grad_mode import state as _grad_state
from dygraph.backend import is_gpu_array
from dygraph.framework import dtype as _dt
from dygraph.framework.errors import NotTensorError, op_error
from dygraph.framework.free_dim import FreeDim
from dygraph.tensor.tensor import Tensor, _new_tensor, to_tensor

_FLOAT_KINDS = frozenset("fc")


def as_tensor(x, op="op"):
    """Accept a Tensor, NumPy array or number (the 1.x API passes arrays straight in)."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, (np.ndarray, np.generic, int, float, bool, complex, list, tuple)):
        return to_tensor(x)
    if is_gpu_array(x):  # a gradient formula's constant, on the GPU (create_graph)
        return _new_tensor(x.copy(), None, 0, True)
    raise op_error(op, f"expected a Tensor, got {type(x).__name__}", NotTensorError)


def scalar_operand(value, like):
    """A Python number as a 0-d constant, with Paddle's scalar rules: it takes the tensor's
    dtype, except that a float with an integer tensor gives the default float."""
    if type(value) is FreeDim:  # a static Variable's free dimension: its size per run
        size = value.tensor()
        return size if like._data.dtype == size._data.dtype else cast(size, like._data.dtype)
    kind = like._data.dtype.kind
    if isinstance(value, bool) or kind in _FLOAT_KINDS:
        dtype = like._data.dtype if not (isinstance(value, bool) and kind == "b") else np.bool_
    elif isinstance(value, int):
        dtype = like._data.dtype if kind != "b" else np.int64
    elif isinstance(value, float):
        dtype = _dt.default_float().np_dtype
    else:
        dtype = None
    if type(like._data) is np.ndarray:
        return _new_tensor(np.asarray(value, dtype=dtype), None, 0, True)
    # On a GPU a fill, whose value goes with the kernel's launch: asarray would copy it from
    # the host (a transfer at each call, which a CUDA graph cannot hold).
    xp = _xp(like._data)
    return _new_tensor(xp.full((), value, dtype=dtype or np.result_type(value)), None, 0, True)


def _xp(array):
    from dygraph.backend import get_array_module

    return get_array_module(array)


def promote_dtype(a, b):
    """Paddle's promotion of two tensor dtypes: floats win over ints, wider wins."""
    if a == b:
        return a
    ka, kb = a.kind, b.kind
    if ka in _FLOAT_KINDS and kb not in _FLOAT_KINDS:
        return a
    if kb in _FLOAT_KINDS and ka not in _FLOAT_KINDS:
        return b
    return np.promote_types(a, b)


def binary_operands(x, y, op):
    """Two Tensors of one dtype from (Tensor|number|array, Tensor|number|array)."""
    if isinstance(x, Tensor):
        if not isinstance(y, Tensor):
            y = (scalar_operand(y, x) if isinstance(y, (int, float, bool, complex))
                 else as_tensor(y, op))
    elif isinstance(y, Tensor):
        x = (scalar_operand(x, y) if isinstance(x, (int, float, bool, complex))
             else as_tensor(x, op))
    else:
        x, y = as_tensor(x, op), as_tensor(y, op)
    dx, dy = x._data.dtype, y._data.dtype
    if dx != dy:
        target = promote_dtype(dx, dy)
        if dx != target:
            x = cast(x, target)
        if dy != target:
            y = cast(y, target)
    return x, y


def float_operand(x, op):
    """Tensor input of a float-only op: integers are cast to the default float first."""
    x = as_tensor(x, op)
    if x._data.dtype.kind not in _FLOAT_KINDS:
        return cast(x, _dt.default_float().np_dtype)
    return x


def check_axis(axis, ndim, op):
    """Normalise an int axis into range, with a clear error otherwise."""
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        axis = int(axis.item())
    if not -max(ndim, 1) <= axis < max(ndim, 1):
        raise op_error(op, f"axis {axis} is out of range for a tensor of {ndim} dimension(s); "
                       f"expected -{max(ndim, 1)} <= axis < {max(ndim, 1)}")
    return axis % ndim if ndim else 0


def norm_axes(axis, ndim, op):
    """None, int or sequence -> tuple of non-negative axes (None means all). A 0-D tensor
    takes axis -1 or 0 (Paddle's rule), which mean all of it: None.

    Example:
        >>> norm_axes(-1, 3, "sum"), norm_axes([0, -1], 3, "sum"), norm_axes(-1, 0, "sum")
        ((2,), (0, 2), None)
    """
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        axis = axis.tolist()
    if isinstance(axis, (list, tuple)):
        if len(axis) == 0:
            return None
        axes = tuple(sorted({check_axis(int(a), ndim, op) for a in axis}))
    else:
        axes = (check_axis(int(axis), ndim, op),)
    return axes if ndim else None


def shape_list(shape, op):
    """A shape given as list/tuple/int/Tensor -> tuple of ints."""
    if isinstance(shape, Tensor):
        return tuple(int(v) for v in shape.numpy().reshape(-1))
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    try:
        return tuple(int(s.item()) if isinstance(s, Tensor) else int(s) for s in shape)
    except TypeError as exc:
        raise op_error(op, f"shape must be a list of ints, got {shape!r}", TypeError) from exc


class Cast(Op):
    attrs = ("dtype",)

    complex_grad = "same"

    def __init__(self, dtype):
        self.dtype = dtype

    def forward(self, xp, x):
        self.in_dtype = x.dtype
        return x.astype(self.dtype)

    def backward(self, m, g):
        if self.in_dtype.kind not in _FLOAT_KINDS:
            return (None,)
        if self.in_dtype.kind == "f" and np.dtype(self.dtype).kind == "c":
            g = m.real(g)  # a real input's gradient is the real part (complex.py)
        return (m.astype(g, self.in_dtype),)


def cast(x, dtype):
    """Convert to another dtype; gradients flow back between float types.

    Example:
        >>> import dygraph
        >>> dygraph.cast(dygraph.to_tensor([1.7]), 'int32').numpy()
        array([1], dtype=int32)
    """
    x = as_tensor(x, "cast")
    np_dtype = _dt.convert_dtype(dtype).np_dtype
    if x._data.dtype == np_dtype:
        return apply(_Identity(), x)
    return apply(Cast(np_dtype), x)


class _Identity(Op):
    complex_grad = "same"

    def forward(self, xp, x):
        return x.copy()

    def backward(self, m, g):
        return (g,)


def amp_casts():
    """True inside dygraph.amp.auto_cast, where `apply` itself casts an op's float inputs to
    one dtype: op wrappers then skip their "inputs must share a dtype" checks.

    Example:
        >>> amp_casts()
        False
    """
    return _grad_state.amp is not None
