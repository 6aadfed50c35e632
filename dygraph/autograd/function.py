"""The one entry point every operation goes through (`apply`) and the Op base class.

An Op is both the forward computation and, once it has run with gradients on, the node of
the graph that backward walks. Its `forward(xp, *arrays)` computes on raw arrays (NumPy or
CuPy, whichever `xp` is); its `backward(m, *grads)` returns one gradient per input using the
namespace `m`. In plain backward `m` works on arrays, so the gradient costs only NumPy
calls; with `create_graph=True` `m` works on Tensors, so the same formula records a graph
and backward of backward comes for free.

Example (a user-level op; library ops look the same):

    >>> import numpy as np, dygraph
    >>> from dygraph.autograd.function import Op, apply
    >>> class Cube(Op):
    ...     save_inputs = True
    ...     def forward(self, xp, x):
    ...         return x ** 3
    ...     def backward(self, m, gy):
    ...         x = self.x(0, m)
    ...         return (gy * 3 * x * x,)
    >>> t = dygraph.to_tensor([2.0], stop_gradient=False)
    >>> apply(Cube(), t).backward(); t.grad.numpy()
    array([12.], dtype=float32)
"""

import weakref

import numpy as np

from dygraph.autograd import grad_mode
from dygraph.autograd.complex_grad import involves_complex, record_complex
from dygraph.autograd.saved_hooks import pack_saved
from dygraph.backend import get_array_module as _xp_of
from dygraph.framework.errors import forward_error, op_error
from dygraph.tensor.tensor import _new_tensor

# Per-thread switches (grad recording; the 1.x guard's "every intermediate keeps its
# gradient", because the 1.x examples read `.gradient()` of intermediates after backward).
_state = grad_mode.state

_FLOAT_KINDS = frozenset("fc")
# Errors an array library raises for bad shapes, dtypes or indices; apply re-raises them
# naming the op, the inputs' shapes and dtypes and the user's line.
_FORWARD_ERRORS = (ValueError, TypeError, IndexError, MemoryError, np.linalg.LinAlgError)


class Op:
    """Base of every differentiable operation; see the module docstring.

    Class attributes a subclass may set:
      save_inputs  -- backward reads inputs through `self.x(i, m)`; in-place changes to them
                      after the forward are detected and reported.
      save_output  -- backward reads outputs through `self.y(m)` / `self.y(m, i)`.
      differentiable -- False for ops whose outputs never carry gradients (argmax, compare).
      complex_grad -- how backward stands with complex data: "same", "holomorphic" or None
                      (refused); see dygraph/autograd/complex_grad.py.
      attrs       -- the names of the op's configuration (what its __init__ sets): what a
                      saved program stores and what a loaded one may set, and nothing else.
      attr_kinds  -- for attributes that hold more than plain data: BLOCK, FUNCTION or a
                      closed table of names (dygraph/static/program_format.py).
      saveable    -- False for ops that hold live objects (an optimizer, a process group, a
                      bound method): a saved program never contains them.
      capturable  -- False for ops that must run on the host at every run of a program on
                      a GPU, between CUDA graphs (dygraph/jit/cuda_graph.py): the optimizer
                      calls of a training step, which read the learning rate on the host.
    """

    __slots__ = ("inputs", "edges", "__dict__", "__weakref__")
    attrs = ("n_outputs",)
    attr_kinds = None
    saveable = True
    capturable = True
    # Rarely set per node, so class-level defaults save work on every op.
    versions = ()
    out_data = None
    out_dirty = False
    hooks = None
    retained = None
    save_inputs = False
    save_output = False
    differentiable = True
    complex_grad = None
    n_outputs = 1  # multi-output ops get the real count when recorded
    packed_inputs = None  # set under autograd.saved_tensors_hooks (saved_hooks.py)
    packed_outputs = None

    @property
    def name(self):
        return type(self).__name__.lower()

    def forward(self, xp, *arrays):
        raise NotImplementedError

    def backward(self, m, *grads):
        raise NotImplementedError

    # -- saved values --------------------------------------------------------------------
    def x(self, i, m):
        """Input `i` as an array (plain backward) or as the Tensor (create_graph)."""
        t = self.inputs[i]
        if t._version[0] != self.versions[i]:
            raise RuntimeError(
                f"{self.name}: one of the tensors it saved for backward (input {i}, "
                f"shape {list(t._data.shape)}) was modified by an in-place operation after "
                "it was used; compute the in-place result out of place (e.g. `x = x + y` "
                "instead of `x.add_(y)`) or clone the tensor before modifying it")
        if self.packed_inputs is not None:
            t = self.packed_inputs[i].tensor(f"input {i} of {self.name}")
        return t if m.tensor_mode else t._data

    def y(self, m, i=0):
        """Output `i` as an array (plain backward) or as a Tensor on this node (create_graph)."""
        if self.out_dirty:
            raise RuntimeError(
                f"{self.name}: its output was modified by an in-place operation but backward "
                "needs its value; use the out-of-place form of that operation")
        data = self.out_data[i]
        if self.packed_outputs is not None:
            data = self.packed_outputs[i].tensor(f"output {i} of {self.name}")._data
        if not m.tensor_mode:
            return data
        return _new_tensor(data, self, i, False)

    def __repr__(self):
        return f"<{type(self).__name__} node>"

    def __copy__(self):
        """A shallow copy, as copy.copy makes one (programs run copies of their ops); an
        op whose forward and backward run with bfloat16 operands
        (backend/product_precision.py) holds them bound to itself, so its copy gets its
        own."""
        cls = type(self)
        new = cls.__new__(cls)
        try:  # slots set only once the op is recorded
            new.inputs = self.inputs
            new.edges = self.edges
        except AttributeError:
            pass
        new.__dict__.update(self.__dict__)
        if self.__dict__.get("_bfloat16_operands"):
            from dygraph.backend.product_precision import for_bfloat16_operands

            for_bfloat16_operands(new)
        return new


def declared_attrs(cls):
    """The attribute names an Op class declares along its bases (Op declares `n_outputs`).

    Example:
        >>> class Scale(Op):
        ...     attrs = ("factor",)
        >>> sorted(declared_attrs(Scale))
        ['factor', 'n_outputs']
    """
    names = set()
    for base in cls.__mro__:
        names.update(base.__dict__.get("attrs", ()))
    return names


def _edge(t):
    """Where input `t`'s gradient goes: (producer node, output index) or (None, leaf)."""
    if t._sg:
        return None
    return (t._node, t._idx) if t._node is not None else (None, t)


def _plain(outs):
    if type(outs) is tuple:
        return tuple(_new_tensor(o, None, 0, True) for o in outs)
    return _new_tensor(outs, None, 0, True)


def apply(op, *inputs):
    """Run `op` on Tensors `inputs`; record it for backward when any input needs a gradient.

    Returns a Tensor, or a tuple of Tensors when the forward returns a tuple. This is the
    hottest function of the framework: the one- and two-input cases are spelled out.
    """
    if _state.intercept is not None:
        return _state.intercept(op, inputs)
    n = len(inputs)
    if n == 1:
        x = inputs[0]
        d = x._data
        try:
            outs = op.forward(np if type(d) is np.ndarray else _xp_of(d), d)
        except _FORWARD_ERRORS as exc:
            raise forward_error(op.name, inputs, exc) from None
        if x._sg or not _state.grad_on or not op.differentiable:
            return _plain(outs)
        edges = ((x._node, x._idx) if x._node is not None else (None, x),)
    elif n == 2:
        x, y = inputs
        d = x._data
        try:
            outs = op.forward(np if type(d) is np.ndarray else _xp_of(d), d, y._data)
        except _FORWARD_ERRORS as exc:
            raise forward_error(op.name, inputs, exc) from None
        if (x._sg and y._sg) or not _state.grad_on or not op.differentiable:
            return _plain(outs)
        # _edge inlined: this is the path of every binary op that records a gradient.
        edges = (None if x._sg else (x._node, x._idx) if x._node is not None else (None, x),
                 None if y._sg else (y._node, y._idx) if y._node is not None else (None, y))
    else:
        arrays = [t._data for t in inputs]
        d = arrays[0] if arrays else None
        xp = np if d is None or type(d) is np.ndarray else _xp_of(d)
        try:
            outs = op.forward(xp, *arrays)
        except _FORWARD_ERRORS as exc:
            raise forward_error(op.name, inputs, exc) from None
        if not _state.grad_on or not op.differentiable or all(t._sg for t in inputs):
            return _plain(outs)
        edges = tuple(_edge(t) for t in inputs)
    multi = type(outs) is tuple
    if not multi:
        od = outs.dtype
        # One test passes the real case: a float output of the dtype of each of one or two
        # inputs. Anything else (other kinds, casts, complex data, more inputs) is sorted
        # out below, so real ops pay no more for complex support than this line.
        if od.kind != "f" or od is not d.dtype or (n != 1 and (n > 2 or y._data.dtype is not od)):
            if od.kind not in _FLOAT_KINDS:
                return _new_tensor(outs, None, 0, True)
            if involves_complex(inputs, outs):
                record_complex(op)
    elif involves_complex(inputs, outs):
        record_complex(op)
    op.inputs = inputs
    op.edges = edges
    if op.save_inputs:
        op.versions = ((x._version[0],) if n == 1 else (x._version[0], y._version[0]) if n == 2
                       else tuple(t._version[0] for t in inputs))
    if multi:
        op.n_outputs = len(outs)
        if op.save_output:
            op.out_data = outs
        result = tuple(
            _new_tensor(o, op, i, False) if o.dtype.kind in _FLOAT_KINDS else
            _new_tensor(o, None, 0, True) for i, o in enumerate(outs))
    else:
        if op.save_output:
            op.out_data = (outs,)
        result = _new_tensor(outs, op, 0, False)
    if _state.saved_hooks is not None and (op.save_inputs or op.save_output):
        pack_saved(op, inputs, outs, multi)
    if _state.retain_all_grads:
        op.retained = {i: (weakref.ref(r), 0) for i, r in
                       enumerate(result if multi else (result,)) if r._node is op}
    return result


def _apply_mixed_precision(op, inputs):
    """`apply` inside dygraph.amp.auto_cast (an interpreter of the TRANSFORM level): cast the
    inputs as the op's list says and hand the op (and the casts) to the interpreter below,
    which runs them eagerly or records them into a program; round bfloat16 outputs."""
    from dygraph.amp.auto_cast import cast_inputs, round_outputs
    from dygraph.autograd.interpreters import below
    from dygraph.backend.product_precision import for_bfloat16_operands

    # interpreters.handing_down, spelled out: this runs for every op under auto_cast.
    _state.intercept = below(_apply_mixed_precision)
    try:
        inputs, rounded = cast_inputs(_state.amp, op, inputs)
        if rounded:  # its products' operands are bfloat16 values: on a GPU, Tensor Cores
            for_bfloat16_operands(op)
        result = apply(op, *inputs)
        return round_outputs(result) if rounded else result
    finally:
        _state.intercept = _apply_mixed_precision




def check_same_place(op_name, inputs):
    """Raise when inputs live on different devices (a CPU tensor mixed with a GPU one)."""
    kinds = {type(t._data) for t in inputs}
    if len(kinds) > 1:
        raise op_error(op_name, "inputs are on different devices "
                       f"({', '.join(str(t.place) for t in inputs)}); move them with .to()")
