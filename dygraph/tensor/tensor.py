"""Tensor: an n-d array (NumPy or CuPy) plus what autograd needs to know about it.

Operators and most methods (`x + y`, `x.sum()`, `x.matmul(y)`) are attached by
`dygraph.ops` so that this file holds only the data model. A tensor made by an op that
recorded a graph has `_node` (the op) and `_idx` (which of its outputs); leaves have none.

Example:
    >>> import dygraph
    >>> x = dygraph.to_tensor([[1.0, 2.0]], stop_gradient=False)
    >>> x.shape, x.dtype, x.stop_gradient
    ([1, 2], dygraph.float32, False)
"""

import numpy as np

from dygraph.framework import dtype as _dt
from dygraph.framework.errors import InplaceLeafError, op_error
from dygraph.framework.step_calls import made_at_each_run
from dygraph.tensor.deferred_grads import PENDING
from dygraph.tensor.deferred_grads import flush as flush_deferred_grads

__all__ = ["Tensor", "to_tensor"]

_FLOAT_KINDS = frozenset("fc")
_name_counter = [0]


class Tensor:
    """A multi-dimensional array that can record operations for automatic differentiation."""

    __slots__ = ("_data", "_node", "_idx", "_sg", "_grad_slot", "_grad_stale", "_version",
                 "_name", "persistable", "_hooks", "__weakref__")
    __array_priority__ = 100  # `ndarray + Tensor` defers to Tensor.__radd__

    def __init__(self, data=None, dtype=None, place=None, stop_gradient=True):
        src = to_tensor(data if data is not None else [], dtype, place, stop_gradient)
        _init_from(self, src._data, None, 0, src._sg)

    # -- basic properties ------------------------------------------------------------------
    @property
    def shape(self):
        return list(self._data.shape)

    @property
    def dtype(self):
        return _dt.to_dtype_object(self._data.dtype)

    @property
    def place(self):
        from dygraph.backend import place_of

        return place_of(self._data)

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    ndimension = dim

    @property
    def size(self):
        return int(self._data.size)

    @property
    def is_leaf(self):
        return self._node is None

    @property
    def stop_gradient(self):
        return self._sg

    @stop_gradient.setter
    def stop_gradient(self, value):
        # Integer and bool tensors never take part in differentiation.
        self._sg = bool(value) or self._data.dtype.kind not in _FLOAT_KINDS
        if self._sg and self._node is not None:
            self._node = None  # a stopped tensor is a leaf of any later graph

    @property
    def name(self):
        if self._name is None:
            self._name = f"generated_tensor_{_name_counter[0]}"
            _name_counter[0] += 1
        return self._name

    @name.setter
    def name(self, value):
        self._name = value

    # -- gradients -------------------------------------------------------------------------
    @property
    def _grad(self):
        """The gradient tensor or None. clear_grad() zeroes it lazily (`_grad_stale`): the
        next backward writes its gradient over the old values instead of zero-filling
        them and adding (a kernel saved per parameter and step, on a GPU a launch), and
        any other reader gets the zeros here."""
        if PENDING:  # a backward pass's copies into gradients on a GPU, not made yet
            flush_deferred_grads()
        grad = self._grad_slot
        if self._grad_stale:
            grad._data[...] = 0
            self._grad_stale = False
        return grad

    @_grad.setter
    def _grad(self, value):
        self._grad_slot = value
        self._grad_stale = False

    @property
    def grad(self):
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is None:
            self._grad = None
            return
        value = value if isinstance(value, Tensor) else to_tensor(value)
        if list(value._data.shape) != list(self._data.shape):
            raise op_error("Tensor.grad", f"gradient shape {value.shape} does not match "
                           f"tensor shape {self.shape}")
        self._grad = value

    def gradient(self):
        """The gradient as a NumPy array, or None (the 1.x name)."""
        if self._grad is None:
            return None
        return self._grad.numpy()

    @made_at_each_run(drops=lambda self, set_to_zero: () if set_to_zero else [self])
    def clear_grad(self, set_to_zero=True):
        """Reset the gradient: zero it in place (default) or drop it."""
        self._reset_grad(set_to_zero)

    def _reset_grad(self, set_to_zero):
        """clear_grad, now (optimizers and layers check for a to_static trace once)."""
        if self._grad_slot is None:
            return
        if set_to_zero:
            self._grad_stale = True  # zero at the next read (see _grad)
        else:
            self._grad = None

    def clear_gradient(self, set_to_zero=True):
        """1.x name of clear_grad."""
        self.clear_grad(set_to_zero)

    def backward(self, grad_tensor=None, retain_graph=False):
        """Accumulate d(self)/d(leaf) into every leaf's `.grad` (ones as the seed gradient).

        Example:
            >>> import dygraph
            >>> x = dygraph.to_tensor([3.0], stop_gradient=False)
            >>> (x * x).backward(); x.grad.numpy()
            array([6.], dtype=float32)
        """
        from dygraph.autograd.engine import run_backward

        run_backward([self], [grad_tensor], retain_graph)

    def register_hook(self, hook):
        """Call `hook(grad)` when this tensor's gradient is computed; a returned Tensor
        replaces the gradient. Returns a handle whose `remove()` unregisters it."""
        from dygraph.autograd.tensor_hooks import register_tensor_hook

        return register_tensor_hook(self, hook)

    def retain_grads(self):
        """Keep this intermediate tensor's gradient in `.grad` after backward."""
        from dygraph.autograd.tensor_hooks import retain_tensor_grad

        retain_tensor_grad(self)

    def detach(self):
        """The same data, cut off from the graph (stop_gradient=True)."""
        t = _new_tensor(self._data, None, 0, True)
        t._version = self._version  # one buffer, one version: in-place changes are seen
        return t

    # -- conversion ------------------------------------------------------------------------
    def numpy(self):
        """The values as a NumPy array: a copy, as in Paddle, so a value read now does not
        change when the tensor is later updated in place (an optimizer step)."""
        data = self._data
        if type(data) is np.ndarray:
            return data.copy()
        from dygraph.backend import as_numpy

        return as_numpy(data)

    def _host(self):
        """The values on the host without a copy where possible (internal, read-only use)."""
        data = self._data
        if type(data) is np.ndarray:
            return data
        from dygraph.backend import as_numpy

        return as_numpy(data)

    def __array__(self, dtype=None, copy=None):
        # A copy, as Paddle's: writes through the array would bypass version tracking.
        data = self._host() if copy is False else self.numpy()
        return data if dtype is None else data.astype(dtype, copy=False)

    def item(self, *index):
        """The value of a one-element tensor (or of one element) as a Python number."""
        data = self._host()
        if not index and data.size != 1:
            raise op_error("Tensor.item", f"only one-element tensors convert to a Python "
                           f"number; this one has shape {self.shape}")
        return data.item(*index)

    def tolist(self):
        return self._host().tolist()

    def _scalar(self, kind):
        if self._data.size != 1:
            raise op_error(f"Tensor.__{kind}__", f"only one-element tensors can be used as a "
                           f"Python {kind}; this one has shape {self.shape}", TypeError)
        return self._host().reshape(()).item()

    def __bool__(self):
        return bool(self._scalar("bool"))

    def __float__(self):
        return float(self._scalar("float"))

    def __int__(self):
        return int(self._scalar("int"))

    def __index__(self):
        if self._data.dtype.kind not in "iu":
            raise TypeError("only integer tensors can be used as an index")
        return int(self._scalar("index"))

    def __complex__(self):
        return complex(self._scalar("complex"))

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-D tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-D tensor")
        for i in range(self._data.shape[0]):
            yield self[i]

    __hash__ = object.__hash__

    def __repr__(self):
        from dygraph.tensor.printing import format_tensor

        return format_tensor(self)

    __str__ = __repr__

    def __format__(self, spec):
        if self._data.size == 1 and spec:
            return format(self.item(), spec)
        return format(str(self), spec)

    def __deepcopy__(self, memo):
        copied = _new_tensor(self._data.copy(), None, 0, self._sg)
        copied._name = self._name
        copied.persistable = self.persistable
        memo[id(self)] = copied
        return copied

    def __reduce__(self):
        return (to_tensor, (self.numpy(), None, None, self._sg))

    # -- in-place value changes ------------------------------------------------------------
    def _bump_version(self, op_name):
        """Mark an in-place change; refuse it on a leaf that needs gradients."""
        from dygraph.autograd.grad_mode import state

        if state.static_program is not None:
            self._refuse_in_trace(op_name)
        if state.grad_on and self._node is None and not self._sg:
            raise op_error(op_name, "a leaf tensor that requires grad (stop_gradient=False) "
                           "cannot be changed in place while gradients are recorded; wrap "
                           "the change in `with dygraph.no_grad():`", InplaceLeafError)
        self._version[0] += 1
        if self._node is not None and self._node.save_output:
            self._node.out_dirty = True

    def _refuse_in_trace(self, op_name):
        """While jit.to_static traces, an in-place change of a parameter or of a tensor the
        program reads at each call would happen once, at trace time (with stand-in values
        where it reads program values): the function is unconvertible, so to_static runs
        it eagerly instead, with a warning that quotes this message."""
        from dygraph.autograd.grad_mode import state
        from dygraph.framework.parameter import Parameter
        from dygraph.jit.train_step import refuse_in_trace
        from dygraph.static.program import Variable

        live = getattr(state.static_program, "live_tensors", None)
        if live is None or isinstance(self, Variable):
            return
        if isinstance(self, Parameter) or any(t is self for t in live.values()):
            refuse_in_trace(op_name, "changes a parameter or buffer in place, which a "
                            "program would do once, while tracing, not at each call; an "
                            "optimizer's step() is converted (made at each call)")

    def set_value(self, value):
        """Overwrite the values in place (shape and dtype kept), as Paddle's set_value."""
        from dygraph.autograd.grad_mode import state

        if state.static_program is not None:
            self._refuse_in_trace("set_value")
        data = value._data if isinstance(value, Tensor) else value
        data = np.asarray(data) if type(self._data) is np.ndarray else data
        if tuple(data.shape) != self._data.shape:
            raise op_error("set_value", f"value shape {list(data.shape)} does not match "
                           f"tensor shape {self.shape}")
        self._data[...] = data
        self._version[0] += 1
        return self

    def copy_(self, other, blocking=True):
        return self.set_value(other)


def _init_from(t, data, node, idx, sg):
    """Set every field of an existing Tensor (or Parameter) object. `_new_tensor` repeats
    these lines on purpose: it runs once per op, and a call into this function would add
    a measurable share to the cost of a small op (figures:
    docs/PERFORMANCE.md#small-ops-and-reductions)."""
    t._data = data
    t._node = node
    t._idx = idx
    t._sg = sg
    t._grad_slot = None
    t._grad_stale = False
    t._version = [0]
    t._name = None
    t.persistable = False
    t._hooks = None


def _new_tensor(data, node, idx, sg):
    """Fast internal constructor: no conversion, no checks."""
    t = object.__new__(Tensor)
    t._data = data
    t._node = node
    t._idx = idx
    t._sg = sg
    t._grad_slot = None
    t._grad_stale = False
    t._version = [0]
    t._name = None
    t.persistable = False
    t._hooks = None
    return t


def _infer_array(data, dtype):
    """Convert Python data to an array with Paddle's default dtypes."""
    if isinstance(data, Tensor):
        data = data._data
    if dtype is not None:
        np_dtype = _dt.convert_dtype(dtype).np_dtype
        if type(data) is np.ndarray or not hasattr(data, "__cuda_array_interface__"):
            return np.array(data, dtype=np_dtype)
        return data.astype(np_dtype)
    if hasattr(data, "__cuda_array_interface__"):
        return data.copy()
    array = np.array(data)
    kind = array.dtype.kind
    if kind == "f" and not isinstance(data, np.ndarray) and not isinstance(data, np.generic):
        array = array.astype(_dt.default_float().np_dtype)  # Python floats -> default float
    elif kind == "c" and not isinstance(data, (np.ndarray, np.generic)):
        array = array.astype(np.complex64)
    elif kind == "O" or kind == "U" or kind == "S":
        raise op_error("to_tensor", f"cannot make a tensor from {type(data).__name__} "
                       f"holding {array.dtype} values; expected numbers", TypeError)
    if not _dt.is_supported(array.dtype):
        raise op_error("to_tensor", f"dtype {array.dtype} is not supported; expected one of "
                       "bool, uint8, int8/16/32/64, float16/32/64, complex64/128", TypeError)
    return array


def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    """Make a Tensor from a list, number, NumPy array or Tensor (always a copy).

    Python floats become the default float dtype (float32), Python ints int64, NumPy arrays
    keep their dtype.

    Example:
        >>> import dygraph
        >>> dygraph.to_tensor([1, 2, 3]).dtype
        dygraph.int64
        >>> dygraph.to_tensor([1.0], place="cpu").place
        CPUPlace
    """
    array = _infer_array(data, dtype)
    from dygraph.framework.place import current_place

    target = place if place is not None else current_place()
    if isinstance(target, str):  # "cpu", "gpu", "gpu:1", as Paddle takes them
        from dygraph.framework.place import _parse_device

        target = _parse_device(target)
    if target.is_gpu_place() or type(array) is not np.ndarray:
        from dygraph.backend import to_place

        array = to_place(array, target)
    sg = bool(stop_gradient) or array.dtype.kind not in _FLOAT_KINDS
    return _new_tensor(array, None, 0, sg)
