"""More creation and shape-query functions: tril_indices, triu_indices, logspace, range,
from_numpy, asarray, as_tensor, to_dlpack, from_dlpack, shape, numel, rank, Size,
broadcast_shape, broadcast_shapes. None has a gradient.
"""

import numpy as np

from dygraph.framework import dtype as _dt
from dygraph.framework.errors import op_error
from dygraph.ops.common import as_tensor as _as_tensor
from dygraph.ops.common import shape_list
from dygraph.ops.creation.constructors import _float_dtype, _wrap, arange
from dygraph.ops.manipulation.shape import shape_of
from dygraph.tensor.tensor import Tensor, _new_tensor, to_tensor

__all__ = ["tril_indices", "triu_indices", "logspace", "from_numpy", "asarray",
           "as_tensor", "to_dlpack", "from_dlpack", "numel", "rank", "Size",
           "broadcast_shape", "broadcast_shapes"]
# `shape` and `range` are exported by dygraph/__init__ directly: in dygraph.ops `shape` is
# the shape-op module, and dygraph.ops' own code uses the builtin range.
NONDIFF = set(__all__)
NOT_METHODS = {"tril_indices", "triu_indices", "logspace", "from_numpy", "asarray",
               "as_tensor", "from_dlpack", "Size"}


class Size(list):
    """A shape: a list of ints (Paddle's `paddle.Size`).

    Example:
        >>> import dygraph
        >>> dygraph.Size([2, 3])
        Size([2, 3])
    """

    def __repr__(self):
        return f"Size({list(self)})"

    def numel(self):
        """The product of the dims."""
        out = 1
        for s in self:
            out *= int(s)
        return out


def _index_dtype(dtype):
    np_dtype = _dt.convert_dtype(dtype).np_dtype
    if np_dtype.kind not in "iu":
        raise op_error("tril_indices", f"dtype must be an integer type, got {np_dtype.name}",
                       TypeError)
    return np_dtype


def tril_indices(row, col, offset=0, dtype="int64"):
    """[2, K] row and column indices of the lower triangle (on and below diagonal
    `offset`) of a row x col matrix.

    Example:
        >>> import dygraph
        >>> dygraph.tril_indices(2, 2).numpy()
        array([[0, 1, 1],
               [0, 0, 1]])
    """
    rows, cols = np.tril_indices(int(row), int(offset), int(col))
    return _wrap(np.stack([rows, cols]).astype(_index_dtype(dtype)))


def triu_indices(row, col=None, offset=0, dtype="int64"):
    """[2, K] row and column indices of the upper triangle (on and above diagonal
    `offset`) of a row x col matrix (col defaults to row).

    Example:
        >>> import dygraph
        >>> dygraph.triu_indices(2, 2).numpy()
        array([[0, 0, 1],
               [0, 1, 1]])
    """
    col = row if col is None else col
    rows, cols = np.triu_indices(int(row), int(offset), int(col))
    return _wrap(np.stack([rows, cols]).astype(_index_dtype(dtype)))


def _number(v):
    return v.item() if isinstance(v, Tensor) else v


def logspace(start, stop, num, base=10.0, dtype=None, name=None):
    """`num` values base ** t for t evenly spaced from start to stop (both included).

    Example:
        >>> import dygraph
        >>> dygraph.logspace(0, 2, 3).numpy()
        array([  1.,  10., 100.], dtype=float32)
    """
    num = int(_number(num))
    if num < 0:
        raise op_error("logspace", f"num must be >= 0, got {num}")
    values = np.logspace(float(_number(start)), float(_number(stop)), num,
                         base=float(_number(base)))
    np_dtype = _float_dtype(dtype)
    if np_dtype.kind in "iu":
        values = np.floor(values + 1e-9)  # integer results truncate, as Paddle's kernel does
    return _wrap(values.astype(np_dtype))


def range(start=0, end=None, step=1, dtype=None, *, requires_grad=False,  # noqa: A001
          name=None, **kwargs):
    """Values from start to end INCLUSIVE every `step` (Paddle's deprecated range; arange
    excludes the end); range(n) counts 0..n. The dtype defaults to the default float.

    Example:
        >>> import dygraph
        >>> dygraph.range(0, 3).numpy()
        array([0., 1., 2., 3.], dtype=float32)
    """
    if end is None:
        start, end = 0, start
    start, end, step = (_number(v) for v in (start, end, step))
    if step == 0:
        raise op_error("range", "step must not be 0")
    count = int(np.floor((end - start) / step)) + 1
    out = arange(start, start + max(count, 0) * step, step,
                 dtype=dtype if dtype is not None else _dt.get_default_dtype())
    if out._data.size > max(count, 0):  # float steps can leave one value past the end
        out = _wrap(out._data[:max(count, 0)].copy())
    out.stop_gradient = not requires_grad
    return out


def from_numpy(ndarray):
    """A Tensor on the NumPy array's memory when it is C-contiguous (changes to one show in
    the other); otherwise a copy.

    Example:
        >>> import numpy as np, dygraph
        >>> a = np.zeros(2, dtype=np.float32)
        >>> t = dygraph.from_numpy(a)
        >>> a[0] = 5.0; t.numpy()
        array([5., 0.], dtype=float32)
    """
    if not isinstance(ndarray, np.ndarray):
        raise op_error("from_numpy", f"expected a numpy.ndarray, got "
                       f"{type(ndarray).__name__}", TypeError)
    return _new_tensor(np.ascontiguousarray(ndarray), None, 0, True)


def as_tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A Tensor from data (Tensor, array, list or number), converted to `dtype`.

    Example:
        >>> import dygraph
        >>> dygraph.as_tensor([1, 2], dtype='float32').numpy()
        array([1., 2.], dtype=float32)
    """
    if isinstance(data, Tensor):
        out = data if dtype is None else data.astype(dtype)
        if device is not None:
            out = out.to(device)
        return out
    return to_tensor(data, dtype=dtype, place=device, stop_gradient=not requires_grad)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """A Tensor from obj (Tensor, array, list or number), as as_tensor.

    Example:
        >>> import dygraph
        >>> dygraph.asarray([[1.0, 2.0]]).shape
        [1, 2]
    """
    if isinstance(obj, Tensor) and copy:
        obj = obj.clone()
    return as_tensor(obj, dtype=dtype, device=device, requires_grad=requires_grad)


def to_dlpack(x):
    """A DLPack capsule of x's data (for from_dlpack of NumPy, PyTorch, CuPy, ...).

    Example:
        >>> import dygraph
        >>> type(dygraph.to_dlpack(dygraph.ones([2]))).__name__
        'PyCapsule'
    """
    return _as_tensor(x, "to_dlpack")._data.__dlpack__()


class _Capsule:
    """A bare DLPack capsule dressed as an object NumPy's from_dlpack accepts."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU


def from_dlpack(dlpack, *, device=None, copy=None):
    """A Tensor from a DLPack capsule or any object with __dlpack__ (a NumPy array, a
    PyTorch tensor, ...).

    Example:
        >>> import numpy as np, dygraph
        >>> dygraph.from_dlpack(np.arange(3)).numpy()
        array([0, 1, 2])
    """
    if hasattr(dlpack, "__dlpack__"):
        device_type = dlpack.__dlpack_device__()[0] if hasattr(
            dlpack, "__dlpack_device__") else 1
        if device_type != 1:
            import cupy

            return _new_tensor(cupy.from_dlpack(dlpack), None, 0, True)
        array = np.from_dlpack(dlpack)
    elif type(dlpack).__name__ == "PyCapsule":
        array = np.from_dlpack(_Capsule(dlpack))
    else:
        raise op_error("from_dlpack", f"expected a DLPack capsule or an object with "
                       f"__dlpack__, got {type(dlpack).__name__}", TypeError)
    out = _new_tensor(array.copy() if copy else array, None, 0, True)
    return out.to(device) if device is not None else out


def shape(input):  # noqa: A002 - Paddle's argument name
    """The shape of input as a 1-D int64 tensor.

    Example:
        >>> import dygraph
        >>> dygraph.shape(dygraph.ones([2, 3])).numpy()
        array([2, 3])
    """
    return shape_of(_as_tensor(input, "shape"))


def numel(x, name=None):
    """The number of elements as a 0-D int64 tensor.

    Example:
        >>> import dygraph
        >>> dygraph.numel(dygraph.ones([2, 3])).item()
        6
    """
    return shape_of(_as_tensor(x, "numel"), "numel")


def rank(input):  # noqa: A002 - Paddle's argument name
    """The number of dims as a 0-D int32 tensor.

    Example:
        >>> import dygraph
        >>> dygraph.rank(dygraph.ones([2, 3])).item()
        2
    """
    return _wrap(np.asarray(_as_tensor(input, "rank")._data.ndim, dtype=np.int32))


def broadcast_shape(x_shape, y_shape):
    """The shape two shapes broadcast to.

    Example:
        >>> import dygraph
        >>> dygraph.broadcast_shape([2, 1], [3])
        [2, 3]
    """
    return broadcast_shapes(x_shape, y_shape)


def broadcast_shapes(*shapes):
    """The shape all the given shapes broadcast to.

    Example:
        >>> import dygraph
        >>> dygraph.broadcast_shapes([2, 1], [3], [1, 1, 1])
        [1, 2, 3]
    """
    tuples = [shape_list(s, "broadcast_shapes") for s in shapes]
    try:
        return list(np.broadcast_shapes(*tuples))
    except ValueError:
        raise op_error("broadcast_shapes", f"shapes {[list(t) for t in tuples]} do not "
                       "broadcast together") from None
