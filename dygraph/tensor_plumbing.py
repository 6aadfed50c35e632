"""Tensor plumbing methods of Paddle 3.x: dtype shorthands (`x.float()`, `x.long()`...),
`new_zeros/new_full/...`, `requires_grad`, `type_as`, torch-style `repeat`, memory layout
queries (strides, data_ptr, is_contiguous), device queries, in-place storage changes
(`set_`, `resize_`, `detach_`, `cast_`), `apply/apply_`, the diagonal fills and `mT`; and
the top-level `clone`, `cast_`, `is_tensor`, `is_integer`, `is_floating_point`, `is_empty`,
`check_shape`.

Importing this module attaches the methods to Tensor (dygraph/__init__.py does).
"""

import numpy as np

from dygraph.autograd import grad_mode
from dygraph.autograd.function import Op, apply
from dygraph.framework import dtype as _dt
from dygraph.framework.errors import op_error
from dygraph.ops import creation
from dygraph.ops.common import as_tensor, cast, shape_list
from dygraph.ops.manipulation import tile
from dygraph.ops.shape import transpose
from dygraph.tensor import Tensor, _new_tensor

__all__ = ["clone", "cast_", "is_tensor", "is_integer", "is_floating_point", "is_empty",
           "check_shape"]

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


def fill_diagonal_(self, value, offset=0, wrap=False, name=None):
    """Set the main diagonal (of a matrix, shifted by `offset`, or of an N-d tensor whose
    dimensions are all equal) to `value` in place; `wrap` restarts a tall matrix's
    diagonal every ncols + 1 rows. Returns self.

    Example:
        >>> import dygraph
        >>> dygraph.zeros([2, 3]).fill_diagonal_(1.0, offset=1).tolist()
        [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    data = self._data
    if data.ndim < 2:
        raise op_error("fill_diagonal_", f"needs at least 2 dimensions, got shape {self.shape}")
    if data.ndim > 2 and len(set(data.shape)) != 1:
        raise op_error("fill_diagonal_", f"all dimensions must be equal for a tensor of more "
                       f"than 2 dimensions, got shape {self.shape}")
    self._bump_version("fill_diagonal_")
    if not data.flags.c_contiguous:
        xp = np if type(data) is np.ndarray else _xp(data)
        data = self._data = xp.ascontiguousarray(data)
    flat = data.reshape(-1)  # a view: writes reach self
    if data.ndim > 2:
        step = int(sum(s // data.itemsize for s in data.strides))
        flat[::step] = value
        return self
    rows, cols = data.shape
    step = cols + 1
    start = offset if offset >= 0 else -offset * cols
    end = flat.size if wrap else min(flat.size, cols * cols)
    positions = np.arange(start, end, step)
    if not wrap:
        # Stop where the shifted diagonal leaves the matrix.
        count = min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols)
        positions = positions[:max(count, 0)]
    flat[positions] = value
    return self


def _diagonal_positions(shape, offset, dim1, dim2):
    n1, n2 = shape[dim1], shape[dim2]
    start1, start2 = (0, offset) if offset >= 0 else (-offset, 0)
    length = max(0, min(n1 - start1, n2 - start2))
    rows = np.arange(length) + start1
    return rows, rows - start1 + start2


class _FillDiagonalTensor(Op):
    """x with the (dim1, dim2) diagonal replaced by y; y's last dimension runs along the
    diagonal and its others are x's remaining dimensions."""

    def __init__(self, offset, dim1, dim2):
        self.offset, self.dim1, self.dim2 = offset, dim1, dim2

    def _perm(self, ndim):
        rest = [d for d in range(ndim) if d not in (self.dim1, self.dim2)]
        return rest + [self.dim1, self.dim2]

    def forward(self, xp, x, y):
        self.perm = self._perm(x.ndim)
        self.rows, self.cols = _diagonal_positions(x.shape, self.offset, self.dim1, self.dim2)
        out = x.copy()
        view = out.transpose(self.perm)  # shares out's memory
        view[..., self.rows, self.cols] = y
        keep = xp.ones(x.shape, dtype=x.dtype)
        keep.transpose(self.perm)[..., self.rows, self.cols] = 0
        self.keep = keep
        return out

    def backward(self, m, g):
        gx = g * self.keep if self.edges[0] is not None else None
        gy = None
        if self.edges[1] is not None:
            gy = m.transpose(g, self.perm)[..., self.rows, self.cols]
        return gx, gy


def fill_diagonal_tensor(self, y, offset=0, dim1=0, dim2=1, name=None):
    """A copy of self with the diagonal over (dim1, dim2) (shifted by `offset`) replaced
    by y; differentiable in both.

    Example:
        >>> import dygraph
        >>> dygraph.zeros([2, 2]).fill_diagonal_tensor(dygraph.to_tensor([1.0, 2.0])).tolist()
        [[1.0, 0.0], [0.0, 2.0]]
    """
    x = as_tensor(self, "fill_diagonal_tensor")
    ndim = x._data.ndim
    if ndim < 2:
        raise op_error("fill_diagonal_tensor", f"needs at least 2 dimensions, got {x.shape}")
    dim1, dim2 = dim1 % ndim, dim2 % ndim
    if dim1 == dim2:
        raise op_error("fill_diagonal_tensor", f"dim1 and dim2 must differ, got {dim1}")
    y = cast(as_tensor(y, "fill_diagonal_tensor"), x._data.dtype)
    rows, _ = _diagonal_positions(x._data.shape, offset, dim1, dim2)
    rest = [x._data.shape[d] for d in range(ndim) if d not in (dim1, dim2)]
    expected = rest + [len(rows)]
    if y._data.size != int(np.prod(expected)):
        raise op_error("fill_diagonal_tensor", f"y must have shape {expected} (or as many "
                       f"elements), got {y.shape}")
    return apply(_FillDiagonalTensor(offset, dim1, dim2), x, y.reshape(expected))


def fill_diagonal_tensor_(self, y, offset=0, dim1=0, dim2=1, name=None):
    """In-place `fill_diagonal_tensor`; returns self."""
    from dygraph.ops.inplace import run_inplace

    return run_inplace("fill_diagonal_tensor_", fill_diagonal_tensor, self, y, offset, dim1,
                       dim2)


def _matrix_transpose(self):
    ndim = self._data.ndim
    if ndim < 2:
        raise op_error("mT", f"needs at least 2 dimensions, got shape {self.shape}")
    return transpose(self, list(range(ndim - 2)) + [ndim - 1, ndim - 2])


def _sigmoid(self, name=None):
    from dygraph.ops.activation_smooth import sigmoid

    return sigmoid(self)


def clone(x, name=None):
    """A copy of x that stays in the graph (gradients flow back to x).

    Example:
        >>> import dygraph
        >>> dygraph.clone(dygraph.to_tensor([1.0])).tolist()
        [1.0]
    """
    return as_tensor(x, "clone").clone()


def cast_(x, dtype):
    """Convert x to `dtype` in place; returns x.

    Example:
        >>> import dygraph
        >>> dygraph.cast_(dygraph.to_tensor([1.5]), 'int32').dtype
        dygraph.int32
    """
    out = cast(x, dtype)
    x._bump_version("cast_")
    x._data, x._node, x._idx, x._sg = out._data, out._node, out._idx, out._sg
    return x


def is_tensor(x):
    """True for a Tensor (Parameters included).

    Example:
        >>> import dygraph
        >>> dygraph.is_tensor(dygraph.ones([1])), dygraph.is_tensor([1])
        (True, False)
    """
    return isinstance(x, Tensor)


def is_integer(x):
    """True when x holds integers (uint8, int8, int16, int32, int64).

    Example:
        >>> import dygraph
        >>> dygraph.is_integer(dygraph.to_tensor([1])), dygraph.is_integer(dygraph.ones([1]))
        (True, False)
    """
    return as_tensor(x, "is_integer")._data.dtype.kind in "iu"


def is_floating_point(x):
    """True when x holds floats (float16/32/64, bfloat16).

    Example:
        >>> import dygraph
        >>> dygraph.is_floating_point(dygraph.ones([1]))
        True
    """
    return as_tensor(x, "is_floating_point")._data.dtype.kind == "f"


def is_empty(x, name=None):
    """A bool 0-d tensor: True when x has no elements.

    Example:
        >>> import dygraph
        >>> bool(dygraph.is_empty(dygraph.zeros([0, 2])))
        True
    """
    x = as_tensor(x, "is_empty")
    return _new_tensor(np.asarray(x._data.size == 0), None, 0, True)


def check_shape(shape, op_name, expected_shape_type=(list, tuple, Tensor),
                expected_element_type=(int, Tensor), expected_tensor_dtype=("int32", "int64")):
    """In static mode, raise TypeError unless `shape` is a list/tuple of ints (or int
    Tensors) or an int Tensor, and ValueError for a dimension below -1. In dynamic mode it
    checks nothing, as in Paddle (the op itself reports a bad shape). Returns None.

    Example:
        >>> import dygraph
        >>> dygraph.check_shape([2, -1], 'reshape') is None
        True
    """
    from dygraph.static.capture import in_dynamic_mode

    if in_dynamic_mode():
        return None
    if not isinstance(shape, expected_shape_type):
        raise op_error(op_name, f"shape must be a list, tuple or Tensor, got "
                       f"{type(shape).__name__}", TypeError)
    if isinstance(shape, Tensor):
        if shape.dtype.name not in expected_tensor_dtype:
            raise op_error(op_name, f"a shape tensor must be {' or '.join(expected_tensor_dtype)}"
                           f", got {shape.dtype.name}", TypeError)
        return None
    for dim in shape:
        if isinstance(dim, Tensor):
            if dim.dtype.name not in expected_tensor_dtype:
                raise op_error(op_name, f"a shape element tensor must be "
                               f"{' or '.join(expected_tensor_dtype)}, got {dim.dtype.name}",
                               TypeError)
            continue
        if isinstance(dim, bool) or not isinstance(dim, (*expected_element_type, np.integer)):
            raise op_error(op_name, f"every shape element must be an int, got {dim!r} in "
                           f"{list(shape)}", TypeError)
        if dim < -1:
            raise op_error(op_name, f"shape elements must be >= -1, got {dim} in {list(shape)}")
    return None


def _attach():
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
    T.inplace_version = property(lambda self: self._version[0])
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


_attach()
