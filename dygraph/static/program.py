"""Programs: what static mode records instead of computing.

A Program holds Blocks (block 0 is the global block); a Block holds Variables (name,
shape with -1 for a free dimension, dtype, persistable, stop_gradient) and Operators. An
Operator keeps the very Op instance that eager mode runs (its attributes live on the
instance), so a program has no op library of its own: the Executor calls the same forward,
and the gradient ops call the same backward.

Example:
    >>> import dygraph
    >>> dygraph.enable_static()
    >>> main = Program()
    >>> with program_guard(main, Program()):
    ...     x = data('x', [None, 3])
    ...     y = dygraph.nn.functional.relu(x)
    >>> dygraph.disable_static()
    >>> x.shape, y.shape, main.global_block().ops[0].type
    ([-1, 3], [-1, 3], 'relu')
"""

import contextlib
import itertools

import numpy as np

from dygraph.autograd import grad_mode
from dygraph.autograd.function import Op
from dygraph.framework import dtype as _dt
from dygraph.framework.free_dim import FreeDim
from dygraph.framework.stand_in import StandIn, is_stand_in
from dygraph.tensor.tensor import Tensor, _init_from

__all__ = ["Program", "Block", "Variable", "Operator", "program_guard",
           "default_main_program", "default_startup_program", "data", "ValueDependentError",
           "StandIn", "is_stand_in"]

# The stand-in sizes a free (-1) dimension takes while shapes are inferred: an op runs on
# both, and an output dimension that differs between the two runs is free too.
PROBES = (3, 5)
_names = itertools.count()


class ValueDependentError(RuntimeError):
    """Python code asked for the value of a static Variable (bool() for an `if`, float(),
    .numpy(), len() of a free dimension...) while a program was being built: the value
    exists only when the program runs, so the program cannot record that code."""


def _value_needed(var, what):
    import linecache
    import sys

    frame = sys._getframe(2)  # the code that asked: an `if`, a float() call...
    line = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
    return ValueDependentError(
        f"{what} of static Variable {var._name} (shape {list(var.static_shape)}) at "
        f"{frame.f_code.co_filename}:{frame.f_lineno} `{line}`: it has no value until an "
        "Executor runs its program, so Python code cannot branch on it or read it while the "
        "program is built (use static.nn.cond, fetch it with exe.run(fetch_list=...), or run "
        "this code eagerly)")


class _Detached(Op):
    """Variable.detach: the value itself, with no gradient."""

    differentiable = False

    def forward(self, xp, x):
        return x

    def backward(self, m, g):
        raise NotImplementedError("detach has no gradient")


class Variable(Tensor):
    """A value of a program: known shape (-1 where free) and dtype, no data.

    `_data` and `_alt` hold small stand-in arrays (free dims of PROBES[0] and PROBES[1]
    elements) so that op wrappers and layer code, which read shapes and dtypes, run
    unchanged while a program is built.
    """

    __slots__ = ("block", "static_shape", "_alt", "is_parameter", "__dict__")

    def __init__(self, block, name, shape, dtype, persistable=False, stop_gradient=False,
                 stand_ins=None):
        dtype = np.dtype(dtype)
        if stand_ins is None:
            # Zero-strided views of one zero: a declared shape allocates nothing (a file or
            # a user may declare [1<<20, 1<<20]); only what ops compute from them is real.
            zero = np.zeros((), dtype)
            stand_ins = tuple(np.broadcast_to(zero, [p if d == -1 else int(d) for d in shape])
                              for p in PROBES)
        _init_from(self, stand_ins[0].view(StandIn), None, 0, stop_gradient)
        self._alt = stand_ins[1].view(StandIn)
        self._name = name
        self.persistable = persistable
        self.block = block
        self.static_shape = tuple(-1 if type(d) is FreeDim else int(d) for d in shape)
        self.is_parameter = False

    @property
    def shape(self):
        """The declared shape; a free dimension is a FreeDim (-1 as a shape entry, the
        run's size in tensor arithmetic: dygraph/framework/free_dim.py)."""
        return [FreeDim(self, i) if d == -1 else d for i, d in enumerate(self.static_shape)]

    def __repr__(self):
        kind = "persistable " if self.persistable else ""
        return (f"{kind}var {self._name} : shape {list(self.static_shape)}, "
                f"dtype {self._data.dtype.name}, stop_gradient {self._sg}")

    __str__ = __repr__

    def numpy(self):
        raise _value_needed(self, "numpy()")

    def is_same(self, other):
        """Whether `other` is this variable of this program (Paddle's Value.is_same, with
        which tests find a variable's pair in append_backward's list).

        Example:
            >>> import dygraph
            >>> dygraph.enable_static()
            >>> with program_guard(Program(), Program()):
            ...     x = data('x', [2])
            ...     y = x + 1.0
            >>> dygraph.disable_static()
            >>> x.is_same(x), x.is_same(y)
            (True, False)
        """
        if other is self:
            return True
        if not isinstance(other, Variable) or other.block.program is not self.block.program:
            return False
        # an in-place op (increment, array_write, a while_loop over it) rebinds a variable
        # to its result: it is still the same variable
        mine = {self._name, *self.__dict__.get("former_names", ())}
        theirs = {other._name, *other.__dict__.get("former_names", ())}
        return bool(mine & theirs)

    def detach(self):
        """The same value as a new program variable that needs no gradient (the eager
        detach would hand out the stand-in array as a constant)."""
        from dygraph.autograd.function import apply

        return apply(_Detached(), self)

    def _take(self, result, op_name):
        """An in-place op on this Variable (x.scale_(2), x[0] = 1): the op was recorded
        with its result as a new variable; this object stands for that one from now on
        (ops recorded before keep reading the old value, by name). Two cases are not
        converted, and a to_static function runs eagerly instead: a parameter's gradient
        in a training step (the eager .grad itself, which the optimizer reads), and a
        change under no_grad of a value that needs a gradient (eagerly, its gradient
        passes the change as if it were not there, which a program cannot record)."""
        from dygraph.autograd.grad_mode import state
        from dygraph.framework.errors import op_error
        from dygraph.jit.config import Unconvertible
        from dygraph.jit.train_step import tracing_step

        step = tracing_step(create=False)
        if step is not None and self._name in step.grad_views:
            raise op_error(op_name, "changes a parameter's gradient in place inside a "
                           "converted training step (the optimizer reads .grad itself); "
                           "use the optimizer's grad_clip instead", Unconvertible)
        if not state.grad_on and not self._sg:
            raise op_error(op_name, "changes a value that needs a gradient in place under "
                           "no_grad, which a program cannot record", Unconvertible)
        # The program knows the old value by this name: a copy of this object keeps it.
        old = object.__new__(Variable)
        for cls in (Tensor, Variable):
            for slot in cls.__slots__:
                if slot not in ("__dict__", "__weakref__") and hasattr(self, slot):
                    setattr(old, slot, getattr(self, slot))
        old.__dict__.update(self.__dict__)
        self.block.vars[self._name] = old
        self.former_names = self.__dict__.get("former_names", ()) + (self._name,)
        self._name, self._data, self._alt = result._name, result._data, result._alt
        self.static_shape, self.block = result.static_shape, result.block
        self._node, self._idx, self._sg = result._node, result._idx, result._sg
        return self

    def backward(self, grad_tensor=None, retain_graph=False):
        """Inside a function jit.to_static converts: append this loss's gradient ops
        (dygraph.jit.train_step). A plain static program gets its gradients from
        static.append_backward or optimizer.minimize(loss) instead."""
        from dygraph.jit.train_step import record_backward

        if not record_backward(self, grad_tensor):
            raise RuntimeError(
                f"backward() of static Variable {self._name}: a static program gets its "
                "gradients from static.append_backward or optimizer.minimize(loss)")

    # Reading a value while building would silently read the stand-in: refuse instead.
    def __bool__(self):
        raise _value_needed(self, "bool() (an if/while/and/or/not on a tensor)")

    def __float__(self):
        raise _value_needed(self, "float()")

    def __int__(self):
        raise _value_needed(self, "int()")

    def __index__(self):
        raise _value_needed(self, "use as an index")

    def __complex__(self):
        raise _value_needed(self, "complex()")

    def __array__(self, dtype=None, copy=None):
        raise _value_needed(self, "conversion to a NumPy array")

    def item(self, *index):
        raise _value_needed(self, "item()")

    def tolist(self):
        raise _value_needed(self, "tolist()")

    def __len__(self):
        if self.static_shape and self.static_shape[0] == -1:
            raise _value_needed(self, "len() of a free dimension")
        return Tensor.__len__(self)

    def __iter__(self):
        if self.static_shape and self.static_shape[0] == -1:
            raise _value_needed(self, "iteration over a free dimension")
        return Tensor.__iter__(self)


class Operator:
    """One op of a block: `op` (the Op instance), input and output variable names."""

    __slots__ = ("op", "type", "inputs", "outputs", "attrs", "role")

    def __init__(self, op, inputs, outputs, role="forward"):
        self.op, self.type = op, type(op).__name__.lower()
        self.inputs, self.outputs = list(inputs), list(outputs)
        self.attrs = {k: v for k, v in vars(op).items() if not k.startswith("_")} \
            if hasattr(op, "__dict__") else {}
        self.role = role  # forward, backward, optimize, init

    def __repr__(self):
        return f"{{{', '.join(self.outputs)}}} = {self.type}({', '.join(self.inputs)})"


class Block:
    """Variables and ops in program order."""

    def __init__(self, program, idx, parent_idx=-1):
        self.program, self.idx, self.parent_idx = program, idx, parent_idx
        self.vars, self.ops = {}, []

    def var(self, name):
        """The variable called `name` (KeyError naming it otherwise)."""
        try:
            return self.vars[name]
        except KeyError:
            raise KeyError(f"block {self.idx} has no variable {name!r}") from None

    def has_var(self, name):
        return name in self.vars

    def create_var(self, name=None, shape=(), dtype="float32", persistable=False,
                   stop_gradient=False, stand_ins=None):
        name = name or f"tmp_{next(_names)}"
        var = Variable(self, name, shape, dtype, persistable, stop_gradient, stand_ins)
        self.vars[name] = var
        return var

    def append_op(self, op, inputs, outputs, role="forward"):
        operator = Operator(op, inputs, outputs, role)
        self.ops.append(operator)
        self.program._bump()
        return operator

    def all_parameters(self):
        return [v for v in self.vars.values() if v.is_parameter]

    def __repr__(self):
        lines = [f"block {self.idx} {{"]
        for v in self.vars.values():
            lines.append(f"  {v!r}")
        for o in self.ops:
            shapes = ", ".join(f"{n}{list(self.vars[n].static_shape)}" for n in o.outputs
                               if n in self.vars)
            lines.append(f"  {o!r}  # {o.role}; {shapes}")
        return "\n".join(lines + ["}"])


class Program:
    """A list of blocks; block 0 is global. `random_seed` seeds parameter initialisation
    when set (parameters are drawn from dygraph's generator as layers build them)."""

    def __init__(self):
        self.blocks = [Block(self, 0)]
        self._current = 0  # the block ops are recorded into (a loop body while it is built)
        self._version = 0
        self._seed = 0
        self.parameters = {}  # name -> the eager Parameter whose value it starts from
        # {name: eager Tensor} while jit.to_static traces: eager tensors the program reads
        # become inputs that see their current value at each run (None: constants).
        self.live_tensors = None

    def _bump(self):
        self._version += 1

    @property
    def random_seed(self):
        return self._seed

    @random_seed.setter
    def random_seed(self, seed):
        from dygraph.framework.random import seed as set_seed

        self._seed = int(seed)
        set_seed(self._seed)

    @property
    def num_blocks(self):
        return len(self.blocks)

    def global_block(self):
        """Block 0."""
        return self.blocks[0]

    def current_block(self):
        """The block ops are being recorded into."""
        return self.blocks[self._current]

    @contextlib.contextmanager
    def sub_block(self):
        """Record into a new block (a child of the current one) inside the `with`."""
        parent = self._current
        block = Block(self, len(self.blocks), parent)
        self.blocks.append(block)
        self._current = block.idx
        try:
            yield block
        finally:
            self._current = parent

    def list_vars(self):
        """Every variable of every block."""
        return [v for b in self.blocks for v in b.vars.values()]

    def all_parameters(self):
        """The parameter variables."""
        return self.global_block().all_parameters()

    def clone(self, for_test=False):
        """A copy, sub-blocks included; `for_test` drops backward and optimizer ops and
        runs dropout and batch norm in inference mode (ops with a `training` attribute get
        False), inside loop bodies and branches too."""
        new = Program()
        new._seed, new.parameters = self._seed, dict(self.parameters)
        for src in self.blocks[1:]:
            new.blocks.append(Block(new, src.idx, src.parent_idx))
        for src, dst in zip(self.blocks, new.blocks):
            for name, var in src.vars.items():
                clone = Variable(dst, name, var.static_shape, var._data.dtype,
                                 var.persistable, var._sg, (var._data, var._alt))
                clone.is_parameter = var.is_parameter
                dst.vars[name] = clone
            for o in src.ops:
                if for_test and o.role in ("backward", "optimize"):
                    continue
                dst.ops.append(Operator(_cloned_op(o.op, new, for_test), o.inputs,
                                        o.outputs, o.role))
        if for_test:
            dst = new.global_block()
            used = {n for o in dst.ops for n in o.inputs + o.outputs}
            dst.vars = {k: v for k, v in dst.vars.items() if k in used or v.persistable}
        return new

    def __repr__(self):
        return "\n".join(repr(b) for b in self.blocks)

    __str__ = __repr__


def _cloned_op(op, program, for_test):
    """A copy of `op` for a clone of its program: sub-blocks it holds are the clone's."""
    import copy

    op = copy.copy(op)
    for key, value in list(vars(op).items()):
        if isinstance(value, Block):
            setattr(op, key, program.blocks[value.idx])
        elif isinstance(value, tuple) and value and all(isinstance(b, Block) for b in value):
            setattr(op, key, tuple(program.blocks[b.idx] for b in value))
    if for_test and hasattr(op, "training"):
        op.training = False
    if for_test and "training" in (getattr(op, "kwargs", None) or {}):
        op.kwargs = {**op.kwargs, "training": False}  # a whole-function op
    return op


_default = {"main": Program(), "startup": Program()}


def default_main_program():
    """The program static-mode ops go to outside program_guard.

    Example:
        >>> isinstance(default_main_program(), Program)
        True
    """
    return _default["main"]


def default_startup_program():
    """The program that initialises the parameters of the default main program.

    Example:
        >>> isinstance(default_startup_program(), Program)
        True
    """
    return _default["startup"]


@contextlib.contextmanager
def program_guard(main_program, startup_program=None):
    """Build into `main_program` (and `startup_program`) inside the block."""
    if not isinstance(main_program, Program):
        raise TypeError(f"program_guard: main_program must be a Program, got "
                        f"{type(main_program).__name__}")
    previous = dict(_default)
    _default["main"] = main_program
    if startup_program is not None:
        _default["startup"] = startup_program
    state = grad_mode.state
    was = state.static_program
    if was is not None:
        state.static_program = main_program
    try:
        yield
    finally:
        _default.update(previous)
        if was is not None:
            state.static_program = was


def data(name, shape, dtype="float32", lod_level=0):
    """An input of the program, fed by name at run time; None or -1 marks a free dim.

    Example:
        >>> import dygraph
        >>> dygraph.enable_static()
        >>> with program_guard(Program(), Program()):
        ...     data('img', [None, 1, 28, 28]).shape
        [-1, 1, 28, 28]
        >>> dygraph.disable_static()
    """
    if grad_mode.state.static_program is None:
        raise RuntimeError("static.data: static mode is off; call dygraph.enable_static() "
                           "first (or use fluid.layers.data outside fluid.dygraph.guard())")
    shape = [-1 if d is None else int(d) for d in shape]
    block = default_main_program().global_block()
    var = block.create_var(name, shape, _dt.convert_dtype(dtype).np_dtype,
                           stop_gradient=True)
    var.is_feed = True
    return var
