"""Tensor arrays (Paddle's `paddle.tensor.create_array`, `array_write`, `array_read`,
`array_length`, and the 1.x `fluid.layers` forms): a growing sequence of tensors that a
loop writes one step at a time.

Eagerly an array is a Python list, as in Paddle's dynamic mode. In a static program it is
one Variable holding the elements stacked along a leading free dimension (its length),
written by ops: `array_write(x, i, array)` records an op whose result the array Variable
stands for from then on (the write is in place, as Paddle's), `array_read` an op reading
element i. Being ordinary ops on ordinary arrays, they run inside `while_loop` bodies and
`cond` branches, and gradients flow through them to what was written. The elements of
one array share a shape (an array of steps of one size, as loops write them); Paddle's
arrays may mix shapes, which a stacked array refuses with ValueError.

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph import static
    >>> dygraph.enable_static()
    >>> main = static.Program()
    >>> with static.program_guard(main, static.Program()):
    ...     x = static.data('x', [2])
    ...     arr = create_array('float32')
    ...     i = dygraph.zeros([1], 'int64')
    ...     _ = array_write(x, i, arr)
    ...     _ = array_write(x * 10.0, dygraph.increment(i), arr)
    ...     last, n = array_read(arr, i), array_length(arr)
    >>> dygraph.disable_static()
    >>> static.Executor().run(main, feed={'x': np.array([1., 2.], np.float32)},
    ...                       fetch_list=[last, n])
    [array([10., 20.], dtype=float32), array([2])]
"""

import numpy as np

from dygraph.autograd import grad_mode
from dygraph.autograd.function import Op, apply
from dygraph.framework.errors import op_error
from dygraph.ops.common import as_tensor
from dygraph.tensor.tensor import Tensor

__all__ = ["create_array", "array_write", "array_read", "array_length", "ArrayWrite",
           "ArrayRead", "ArrayLength"]


def _position(i, what):
    """The one integer an index array holds."""
    if i.size != 1 or i.dtype.kind not in "iu":
        raise op_error(what, f"the index must be one integer, got shape {list(i.shape)} and "
                       f"dtype {i.dtype.name}")
    return int(i.reshape(-1)[0])


class ArrayWrite(Op):
    """The array with element i set to x (appended when i is its length)."""

    free_dims = (0,)  # the array's length is known at run time only

    def forward(self, xp, array, i, x):
        n, k = array.shape[0], _position(i, "array_write")
        self.n, self.k = n, k
        if n and x.shape != array.shape[1:]:
            raise op_error("array_write", f"the elements of a tensor array share one shape: "
                           f"writing {list(x.shape)} into an array of "
                           f"{list(array.shape[1:])}")
        x = x.astype(array.dtype, copy=False)
        if getattr(self, "probing", False):  # building: the stand-ins' length is free
            k = min(k, n)
        if k < n:
            out = array.copy()
            out[k] = x
            return out
        if k == n:
            return xp.concatenate([array.reshape((0,) + x.shape) if n == 0 else array,
                                   x[None]])
        raise op_error("array_write", f"index {k} is beyond the array's length {n}",
                       IndexError)

    def backward(self, m, g):
        n, k = self.n, self.k
        g_x = m.getitem(g, k) if self.edges[2] is not None else None
        if self.edges[0] is None or n == 0:
            return None, None, g_x
        if k == n:  # appended: the old elements are the leading ones
            return m.getitem(g, slice(0, n)), None, g_x
        data = m.data(g)
        keep = np.ones(data.shape[:1] + (1,) * (data.ndim - 1), dtype=data.dtype)
        keep[k] = 0  # the overwritten element no longer depends on the old array
        return g * keep, None, g_x


class ArrayRead(Op):
    """Element i of the array."""

    def forward(self, xp, array, i):
        k = _position(i, "array_read")
        self.shape = array.shape
        if getattr(self, "probing", False):  # building: any element has the shape
            k = 0 if array.shape[0] else k
        if not -array.shape[0] <= k < array.shape[0]:
            raise op_error("array_read", f"index {k} is out of range for an array of "
                           f"length {array.shape[0]}", IndexError)
        self.k = k
        return array[k].copy()

    def backward(self, m, g):
        if m.tensor_mode:
            raise NotImplementedError("array_read: a gradient of its gradient "
                                      "(create_graph=True) is not supported")
        full = m.zeros(self.shape, dtype=g.dtype)
        full[self.k] = g
        return full, None


class ArrayLength(Op):
    """The array's length as an int64 [1] tensor."""

    differentiable = False

    def forward(self, xp, array):
        return xp.asarray([array.shape[0]], dtype=np.int64)

    def backward(self, m, g):
        raise NotImplementedError("array_length has no gradient")


def _static():
    return grad_mode.state.static_program is not None


def _eager_index(i, api):
    if not isinstance(i, Tensor):
        raise AssertionError(f"The index 'i' in {api} must be Variable in dygraph mode")
    if list(i.shape) != [1]:
        raise AssertionError("The shape of index 'i' should be [1] in dygraph mode")
    return int(i._data.reshape(-1)[0])


def _check_static_index(i, api):
    i = as_tensor(i, api)
    if i._data.dtype != np.int64:
        raise TypeError(f"The data type of 'i' in {api} must be int64, but received "
                        f"{i._data.dtype.name}")
    return i


def create_array(dtype, initialized_list=None):
    """An array of `dtype` elements, holding `initialized_list` (Tensors) if given: eagerly
    a Python list, in a static program a Variable.

    Example:
        >>> import dygraph
        >>> create_array('float32', [dygraph.ones([2]), dygraph.zeros([2])])[1].tolist()
        [0.0, 0.0]
    """
    items = []
    if initialized_list is not None:
        if not isinstance(initialized_list, (list, tuple)):
            raise TypeError(f"Require type(initialized_list) should be list/tuple, but "
                            f"received {type(initialized_list)}")
        items = list(initialized_list)
    for value in items:
        if not isinstance(value, Tensor):
            raise TypeError(f"All values in `initialized_list` should be Variable or "
                            f"pir.Value, but received {type(value)}.")
    if not _static():
        return items
    from dygraph.ops.creation.constructors import zeros

    array = zeros([0], dtype)  # a program constant: the empty array
    for value in items:
        array_write(value, array_length(array), array)
    return array


def array_write(x, i, array=None):
    """Write `x` at position `i` (an int64 [1] tensor) of `array` (a new one if None),
    appending when i is its length; returns the array, which is changed in place.

    Example:
        >>> import dygraph
        >>> arr = array_write(dygraph.ones([2]), dygraph.zeros([1], 'int64'))
        >>> len(arr), arr[0].tolist()
        (1, [1.0, 1.0])
    """
    if not _static():
        if not isinstance(x, Tensor):
            raise AssertionError("The input data 'x' in array_write must be Variable in "
                                 "dygraph mode")
        k = _eager_index(i, "array_write")
        array = [] if array is None else array
        if not isinstance(array, list):
            raise AssertionError("The 'array' in array_write must be a list in dygraph mode")
        if k > len(array):
            raise AssertionError("The index 'i' should not be greater than the length of "
                                 "'array' in dygraph mode")
        if k < len(array):
            array[k] = x
        else:
            array.append(x)
        return array
    i = _check_static_index(i, "array_write")
    if not isinstance(x, Tensor):
        raise TypeError(f"x should be a Tensor, but received {type(x)}.")
    if array is None:
        array = create_array(x.dtype)
    result = apply(ArrayWrite(), as_tensor(array, "array_write"), i, x)
    return array._take(result, "array_write")


def array_read(array, i):
    """Element `i` (an int64 [1] tensor) of `array`.

    Example:
        >>> import dygraph
        >>> arr = create_array('float32', [dygraph.ones([2]), dygraph.zeros([2])])
        >>> array_read(arr, dygraph.to_tensor([0])).tolist()
        [1.0, 1.0]
    """
    if not _static():
        if not isinstance(array, list):
            raise AssertionError("The 'array' in array_read must be list in dygraph mode")
        return array[_eager_index(i, "array_read")]
    return apply(ArrayRead(), as_tensor(array, "array_read"),
                 _check_static_index(i, "array_read"))


def array_length(array):
    """The number of elements of `array`: an int eagerly, an int64 [1] tensor in a static
    program.

    Example:
        >>> import dygraph
        >>> array_length(create_array('float32', [dygraph.ones([2])]))
        1
    """
    if not _static():
        if not isinstance(array, list):
            raise AssertionError("The 'array' in array_write must be a list in dygraph mode")
        return len(array)
    return apply(ArrayLength(), as_tensor(array, "array_length"))
