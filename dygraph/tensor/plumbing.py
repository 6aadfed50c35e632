"""Tensor plumbing methods of Paddle 3.x: dtype shorthands (`x.float()`, `x.long()`...),
`new_zeros/new_full/...`, `requires_grad`, `type_as`, torch-style `repeat`, memory layout
queries (strides, data_ptr, is_contiguous), device queries, in-place storage changes
(`set_`, `resize_`, `detach_`, `cast_`), `apply/apply_`, the diagonal fills
(tensor/diagonal.py), `mT` and `sigmoid(_)`.

Importing this module attaches the methods to Tensor (dygraph/__init__.py does); it
exports nothing itself.
"""

import enum

import numpy as np

from dygraph.autograd import grad_mode
from dygraph.autograd.function import Op, apply
from dygraph.framework import dtype as _dt
from dygraph.framework.errors import op_error
from dygraph.ops.common import as_tensor, cast, shape_list
from dygraph.ops.creation import constructors as creation
from dygraph.ops.manipulation.rearrange import tile
from dygraph.ops.manipulation.shape import transpose
from dygraph.tensor.checks import cast_, is_empty, is_integer, is_tensor
from dygraph.tensor.diagonal import fill_diagonal_, fill_diagonal_tensor, fill_diagonal_tensor_
from dygraph.tensor.tensor import Tensor


class VarType(enum.IntEnum):
    """Paddle's variable kinds (`x.type`); every DyGraph tensor is a dense tensor, which
    Paddle 1.x called LOD_TENSOR (the same value)."""

    DENSE_TENSOR = 7
    LOD_TENSOR = 7

    __str__ = enum.Enum.__str__  # 'VarType.DENSE_TENSOR', as Paddle prints it


# Method name -> dtype name, for x.float(), x.long(), x.cfloat()...
_DTYPE_METHODS = {
    "float": "float32", "double": "float64", "half": "float16", "int": "int32",
    "long": "int64", "short": "int16", "bool": "bool", "byte": "uint8", "char": "int8",
    "bfloat16": "bfloat16", "float16": "float16", "float32": "float32",
    "float64": "float64", "int8": "int8", "int16": "int16", "int32": "int32",
    "int64": "int64", "uint8": "uint8", "complex64": "complex64",
    "complex128": "complex128", "cfloat": "complex64", "cdouble": "complex128",
}


def _dtype_method(method, dtype):
    def convert(self):
        return cast(self, dtype)

    convert.__name__ = convert.__qualname__ = method
    convert.__doc__ = f"A copy cast to {dtype} (no copy when it already is)."
    return convert


def _new(fill):
    def make(self, size, *args, dtype=None, device=None, requires_grad=False,
             pin_memory=False):
        np_dtype = _dt.convert_dtype(dtype).np_dtype if dtype is not None else self._data.dtype
        shape = shape_list(size, f"new_{fill}")
        if fill == "full":
            if not args:
                raise op_error("new_full", "missing fill_value", TypeError)
            out = creation.full(shape, args[0], dtype=np_dtype)
        else:
            out = getattr(creation, fill)(shape, dtype=np_dtype)
        if device is not None:
            out = out.to(device)
        out.stop_gradient = not requires_grad
        return out

    make.__name__ = make.__qualname__ = f"new_{fill}"
    make.__doc__ = (f"A new tensor of the given size filled like `{fill}`, with self's dtype "
                    "unless dtype is given.")
    return make


def _requires_grad_get(self):
    return not self._sg


def _requires_grad_set(self, value):
    self.stop_gradient = not value


def requires_grad_(self, requires_grad=True):
    """Set whether gradients are recorded for this tensor (stop_gradient = not it); returns self.

    Example:
        >>> import dygraph
        >>> dygraph.ones([2]).requires_grad_().requires_grad
        True
    """
    self.stop_gradient = not requires_grad
    return self


def type_as(self, other):
    """A copy cast to other's dtype.

    Example:
        >>> import dygraph
        >>> dygraph.ones([2]).type_as(dygraph.to_tensor([1])).dtype
        dygraph.int64
    """
    return cast(self, other._data.dtype)


def repeat(self, *repeats):
    """Torch-style repeat: tile self `repeats` times along each dimension
    (`x.repeat(2, 1)` or `x.repeat([2, 1])`).

    Example:
        >>> import dygraph
        >>> dygraph.ones([2, 3]).repeat(2, 1).shape
        [4, 3]
    """
    if len(repeats) == 1 and not isinstance(repeats[0], (int, np.integer)):
        repeats = repeats[0]
    return tile(self, shape_list(repeats, "repeat"))


def _strides(self):
    return [s // self._data.itemsize for s in self._data.strides]


def stride(self, dim=None):
    """The step in elements between neighbours along each dimension (or along `dim`).

    Example:
        >>> import dygraph
        >>> dygraph.ones([2, 3]).stride()
        [3, 1]
    """
    steps = _strides(self)
    return steps if dim is None else steps[dim]


def data_ptr(self):
    """The address of the first element."""
    data = self._data
    return data.ctypes.data if type(data) is np.ndarray else data.data.ptr


def _offset(self):
    """Elements between the start of the underlying buffer and the first element."""
    data = self._data
    base = getattr(data, "base", None)
    if type(data) is not np.ndarray or not isinstance(base, np.ndarray):
        return 0
    return (data.ctypes.data - base.ctypes.data) // data.itemsize


def is_contiguous(self):
    return bool(self._data.flags.c_contiguous)


class _Contiguous(Op):
    complex_grad = "same"

    def forward(self, xp, x):
        return xp.ascontiguousarray(x)

    def backward(self, m, g):
        return (g,)


def contiguous(self):
    """self when its elements are laid out row-major without gaps, else such a copy (the
    copy stays in the graph).

    Example:
        >>> import dygraph
        >>> dygraph.ones([2, 3]).t().contiguous().is_contiguous()
        True
    """
    return self if self._data.flags.c_contiguous else apply(_Contiguous(), self)


def _is_gpu(self):
    return type(self._data) is not np.ndarray


def _device(self):
    place = self.place
    return f"gpu:{place.get_device_id()}" if place.is_gpu_place() else "cpu"


def get_device(self):
    """The GPU index holding the tensor, or -1 on the CPU.

    Example:
        >>> import dygraph
        >>> dygraph.ones([1]).get_device()
        -1
    """
    place = self.place
    return place.get_device_id() if place.is_gpu_place() else -1


def _data_get(self):
    return self.detach()


def _data_set(self, value):
    value = as_tensor(value, "data")
    self._bump_version("data")
    self._data = value._data


def detach_(self):
    """Cut self off from the graph in place (stop_gradient becomes True); returns self."""
    self._node, self._idx, self._sg = None, 0, True
    return self


def pin_memory(self, blocking=True):
    """A host copy (page-locked memory has no meaning for NumPy arrays)."""
    return self.cpu()


def _self(self):
    return self


def set_(self, source=None, shape=None, stride=None, offset=0, name=None):
    """Make self a view of source's buffer in place: with shape/stride (in elements) and
    offset it views that window; with no source it becomes empty. Returns self.

    Example:
        >>> import dygraph
        >>> x = dygraph.zeros([2])
        >>> x.set_(dygraph.arange(6, dtype='float32'), [2, 2], [1, 2], 1).tolist()
        [[1.0, 3.0], [2.0, 4.0]]
    """
    self._bump_version("set_")
    if source is None:
        self._data = self._data.reshape(-1)[:0]
        return self
    data = source._data
    if shape is None and stride is None and not offset:
        self._data = data
        return self
    shape = list(data.shape) if shape is None else shape_list(shape, "set_")
    if stride is None:
        stride = [int(np.prod(shape[i + 1:])) for i in range(len(shape))]
    flat = data.reshape(-1)
    needed = offset + sum((n - 1) * s for n, s in zip(shape, stride)) + 1
    if any(n == 0 for n in shape):
        needed = 0
    if needed > flat.size or offset < 0:
        raise op_error("set_", f"shape {shape} with stride {list(stride)} and offset "
                       f"{offset} reaches past the {flat.size} elements of source")
    xp = np if type(flat) is np.ndarray else _xp(flat)
    strides = [s * flat.itemsize for s in stride]
    self._data = xp.lib.stride_tricks.as_strided(flat[offset:], shape, strides)
    return self


def _xp(array):
    from dygraph.backend import get_array_module

    return get_array_module(array)


def resize_(self, shape, fill_zero=False, name=None):
    """Change the shape in place, keeping the elements in row-major order; new elements
    are zero. Returns self.

    Example:
        >>> import dygraph
        >>> dygraph.arange(3, dtype='float32').resize_([2, 2]).tolist()
        [[0.0, 1.0], [2.0, 0.0]]
    """
    shape = shape_list(shape, "resize_")
    self._bump_version("resize_")
    flat = self._data.reshape(-1)
    xp = np if type(flat) is np.ndarray else _xp(flat)
    out = xp.zeros(int(np.prod(shape)), dtype=flat.dtype)
    keep = min(out.size, flat.size)
    out[:keep] = flat[:keep]
    self._data = out.reshape(shape)
    return self


def _apply_check(self, op):
    if not self._sg and grad_mode.is_grad_enabled():
        raise op_error(op, "cannot run on a tensor that requires grad (stop_gradient=False)",
                       RuntimeError)


def apply_method(self, func):
    """func(self) computed without recording gradients; self must not require grad.

    Example:
        >>> import dygraph
        >>> dygraph.ones([2]).apply(lambda t: t * 3).tolist()
        [3.0, 3.0]
    """
    _apply_check(self, "apply")
    with grad_mode.no_grad():
        return func(self)


def apply_(self, func):
    """Replace self's values by func(self) in place; returns self.

    Example:
        >>> import dygraph
        >>> dygraph.ones([2]).apply_(lambda t: t + 1).tolist()
        [2.0, 2.0]
    """
    _apply_check(self, "apply_")
    with grad_mode.no_grad():
        out = func(self)
    self._bump_version("apply_")
    self._data = as_tensor(out, "apply_")._data.astype(self._data.dtype, copy=False)
    return self


def _matrix_transpose(self):
    ndim = self._data.ndim
    if ndim < 2:
        raise op_error("mT", f"needs at least 2 dimensions, got shape {self.shape}")
    return transpose(self, list(range(ndim - 2)) + [ndim - 1, ndim - 2])


def _sigmoid(self, name=None):
    from dygraph.ops.activation.smooth import sigmoid

    return sigmoid(self)


def attach():
    """Set the plumbing methods and properties above on Tensor (called by methods.py)."""
    T = Tensor
    for method, dtype in _DTYPE_METHODS.items():
        setattr(T, method, _dtype_method(method, dtype))
    for fill in ("empty", "full", "ones", "zeros"):
        setattr(T, f"new_{fill}", _new(fill))
    T.requires_grad = property(_requires_grad_get, _requires_grad_set)
    T.itemsize = property(lambda self: self._data.itemsize)
    T.strides = property(_strides)
    T.offset = property(_offset)
    T.is_cuda = property(_is_gpu)
    T.device = property(_device)
    T.grad_fn = property(lambda self: self._node)
    T.grad_ = property(lambda self: self.grad)  # Paddle's alias of `grad`
    T.inplace_version = property(lambda self: self._version[0])
    T.type = property(lambda self: VarType.DENSE_TENSOR)
    T.layout = property(lambda self: "NCHW")  # Paddle's label for a dense tensor
    T.data = property(_data_get, _data_set)
    T.mT = property(_matrix_transpose)
    T.get_strides = _strides
    T.is_dense = lambda self: True
    T.is_same_shape = lambda self, y: self._data.shape == as_tensor(y)._data.shape
    T.apply = apply_method
    T.value = T.get_tensor = _self
    T.sigmoid = _sigmoid
    for fn in (requires_grad_, type_as, repeat, stride, data_ptr, is_contiguous, contiguous,
               get_device, detach_, pin_memory, set_, resize_, apply_, fill_diagonal_,
               fill_diagonal_tensor, fill_diagonal_tensor_, cast_, is_tensor, is_integer,
               is_empty):
        setattr(T, fn.__name__, fn)
    from dygraph.ops.inplace import make_inplace

    T.sigmoid_ = make_inplace("sigmoid_", _sigmoid)
