"""Tracing a Python function into a static Program: its tensor arguments become program
inputs (`static.data`), the function runs under static capture, and what it returns
becomes the program's outputs. Parameters and the other eager tensors it reads (buffers,
tensors from outside) are live inputs, read at each run.

Example:
    >>> import dygraph
    >>> structure, _ = tensor_args([dygraph.ones([2, 3])], {})
    >>> concrete = trace(lambda x: dygraph.nn.functional.relu(x) * 2, structure,
    ...                  [Arg((-1, 3), 'float32', True, 'x')])
    >>> [v.shape for v in concrete.inputs], [v.shape for v in concrete.outputs]
    ([[-1, 3]], [[-1, 3]])
"""

import operator

import numpy as np

from dygraph.autograd import grad_mode, interpreters
from dygraph.autograd.grad_mode import enable_grad
from dygraph.framework.random import get_rng_state, set_rng_state
from dygraph.jit.run_program import CompiledProgram
from dygraph.static.capture import capture
from dygraph.static.program import Program, Variable, data, program_guard
from dygraph.tensor.tensor import Tensor, to_tensor

__all__ = ["Arg", "flatten", "unflatten", "trace", "tensor_args", "ConcreteProgram"]

_LEAF = "T"
_stop = operator.attrgetter("_sg")


class Arg:
    """A tensor argument as tracing sees it: shape (-1 where free), dtype, stop_gradient,
    the name of its program input."""

    __slots__ = ("shape", "dtype", "stop_gradient", "name")

    def __init__(self, shape, dtype, stop_gradient, name=None):
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)
        self.stop_gradient, self.name = stop_gradient, name


def flatten(value, leaves, is_leaf):
    """A hashable description of `value`'s structure; its leaves (is_leaf) go to `leaves`.

    Example:
        >>> leaves = []
        >>> s = flatten((1, [2.5, 'a']), leaves, lambda v: isinstance(v, float))
        >>> leaves, unflatten(s, iter([7.0]))
        ([2.5], (1, [7.0, 'a']))
    """
    if is_leaf(value):
        leaves.append(value)
        return _LEAF
    if isinstance(value, (list, tuple)):
        return (type(value), tuple(flatten(v, leaves, is_leaf) for v in value))
    if isinstance(value, dict):
        keys = tuple(value)
        return (dict, keys, tuple(flatten(value[k], leaves, is_leaf) for k in keys))
    try:
        hash(value)
    except TypeError:
        return ("id", id(value), value)  # unhashable constants match by identity
    return ("c", type(value), value)


def unflatten(structure, leaves):
    """Rebuild what flatten described, taking leaves in order from iterator `leaves` (see
    flatten's example)."""
    if structure == _LEAF:
        return next(leaves)
    kind = structure[0]
    if kind in ("c", "id"):
        return structure[2]
    if kind is dict:
        return {k: unflatten(s, leaves) for k, s in zip(structure[1], structure[2])}
    items = [unflatten(s, leaves) for s in structure[1]]
    if hasattr(kind, "_fields"):  # a namedtuple
        return kind(*items)
    return kind(items)


class ConcreteProgram:
    """One traced program: `main_program`, its `inputs` (data Variables) and `outputs`
    (Variables), the `parameters` it reads, and the compiled op that runs it."""

    def __init__(self, program, inputs, outputs, out_structure, function):
        self.main_program = program
        self.startup_program = Program()
        self.inputs, self.outputs = inputs, outputs
        self.out_structure = out_structure
        self.function = function
        self.parameters = list(program.parameters.values())
        self._watched = self.parameters + list(program.live_tensors.values())
        self._stops = list(map(_stop, self._watched))
        self.compiled = CompiledProgram(program, [v.name for v in inputs],
                                        [v.name for v in outputs])

    def stale(self):
        """Whether a parameter or live input changed stop_gradient since tracing (its
        gradient program would be wrong)."""
        return list(map(_stop, self._watched)) != self._stops

    def __call__(self, tensors):
        outs = self.compiled(tensors)
        return unflatten(self.out_structure, iter(outs))


def _is_variable(value):
    return isinstance(value, Variable)


def trace(function, structure, args):
    """Run `function` under static capture on the call described by `structure` (from
    flatten of (args tuple, kwargs dict)), each Arg of `args` standing for a program input;
    returns a ConcreteProgram. Draws from the random generator while tracing (dropout's
    stand-in runs) do not disturb the eager random stream."""
    program = Program()
    program.live_tensors = {}
    state = grad_mode.state
    saved = (state.static_program, interpreters.snapshot())
    rng = get_rng_state()
    state.static_program = program
    interpreters.push(capture, interpreters.RECORD)
    try:
        with program_guard(program, Program()), enable_grad():
            variables, used = [], set()
            for i, arg in enumerate(args):
                name = arg.name if arg.name and arg.name not in used else f"input_{i}"
                used.add(name)
                var = data(name, arg.shape, arg.dtype)
                var.stop_gradient = arg.stop_gradient
                variables.append(var)
            feed_names = [v.name for v in variables]
            call_args, call_kwargs = unflatten(structure, iter(variables))
            result = function(*call_args, **call_kwargs)
            # An input changed in place (x.scale_(2)) now stands for the op's result; the
            # program's inputs are the values as fed, under their own names.
            block = program.global_block()
            variables = [block.vars[name] for name in feed_names]
    finally:
        step = getattr(program, "train_step", None)
        if step is not None:  # the function ran a training step: .grad back to eager
            step.finish()
        state.static_program = saved[0]
        interpreters.restore(saved[1])
        set_rng_state(rng)
    outputs = []
    out_structure = flatten(result, outputs, _is_variable)
    return ConcreteProgram(program, variables, outputs, out_structure, function)


def tensor_args(args, kwargs):
    """(structure, tensor leaves) of a call's arguments; NumPy arrays become tensors (program
    inputs, as in Paddle), not constants keyed by identity."""
    leaves = []
    structure = flatten((tuple(args), dict(kwargs)), leaves,
                        lambda v: isinstance(v, (Tensor, np.ndarray)))
    return structure, [v if isinstance(v, Tensor) else to_tensor(v) for v in leaves]
