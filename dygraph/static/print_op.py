"""Printing at run time: Paddle's `static.Print`, and the op behind a converted `print(...)`.

In a static program a value exists only while the Executor runs it, so printing it is an
op. Both ops here have the role "effect": the Executor runs them even though no fetch
needs their (dummy) output. `PrintCall` runs Python's own `print` with the run's values in
place of the Variables, so a converted function prints what it prints eagerly; an optional
last input, one bool, says whether the print is on the branch taken this run.

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph import static
    >>> dygraph.enable_static()
    >>> main = static.Program()
    >>> with static.program_guard(main, static.Program()):
    ...     x = static.data('x', [2])
    ...     y = Print(x * 2, message='double', print_tensor_name=False)
    >>> dygraph.disable_static()
    >>> _ = static.Executor().run(main, feed={'x': np.array([1., 2.], np.float32)})
    double  shape: [2]  dtype: float32  data: [2. 4.]
"""

import numpy as np

from dygraph.autograd import grad_mode
from dygraph.autograd.function import Op, apply
from dygraph.ops.common import as_tensor
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["Print", "PrintCall", "print_call"]


def _effect_op(op, inputs):
    """Record op(*inputs) into the current program with the role "effect"."""
    block = grad_mode.state.static_program.current_block()
    out = apply(op, *inputs)
    block.ops[-1].role = "effect"
    return out


class _PrintTensor(Op):
    """Prints its input at run time and passes it on (gradient: identity)."""

    attrs = ("message", "name_", "summarize")

    def __init__(self, message, summarize, name):
        self.message, self.summarize, self.name_ = message, summarize, name

    def forward(self, xp, x):
        if not getattr(self, "probing", False):
            flat = np.asarray(x).reshape(-1)
            shown = flat if self.summarize < 0 else flat[:self.summarize]
            head = " ".join(p for p in (self.message, self.name_) if p)
            print(f"{head}  shape: {list(np.shape(x))}  dtype: {np.asarray(x).dtype.name}  "
                  f"data: {shown}")
        return x.copy()

    def backward(self, m, g):
        return (g,)


def Print(input, first_n=-1, message=None, summarize=20, print_tensor_name=True,
          print_tensor_type=True, print_tensor_shape=True, print_tensor_lod=True,
          print_phase="both"):
    """Print `input` (its message, shape, dtype and first `summarize` values) when it is
    computed: at once eagerly, at each run in a static program. Returns `input`.

    Example:
        >>> import dygraph
        >>> _ = Print(dygraph.to_tensor([1.0, 2.0]), message='x')
        x  shape: [2]  dtype: float32  data: [1. 2.]
    """
    from dygraph.static.program import Variable

    x = as_tensor(input, "Print")
    name = x.name if isinstance(x, Variable) and print_tensor_name else None
    op = _PrintTensor(message or "", int(summarize), name)
    if isinstance(x, Variable):
        return _effect_op(op, [x])
    return apply(op, x)


class PrintCall(Op):
    """print(*args, **kwargs) with the inputs' run-time values where Variables stood."""

    attrs = ("args", "guarded", "kwargs", "slots", "stops")

    differentiable = False

    def __init__(self, args, kwargs, slots, stops, guarded):
        self.args, self.kwargs = args, kwargs  # Variables replaced by None
        self.slots, self.stops = slots, stops  # which args are inputs, their stop_gradient
        self.guarded = guarded  # a last input says whether to print

    def forward(self, xp, *arrays):
        if not getattr(self, "probing", False) and (
                not self.guarded or bool(np.asarray(arrays[-1]).reshape(-1)[0])):
            args = list(self.args)
            for i, a, stop in zip(self.slots, arrays, self.stops):
                args[i] = _new_tensor(np.asarray(a), None, 0, stop)
            print(*args, **self.kwargs)
        return np.zeros((), np.bool_)

    def backward(self, m, *grads):
        return (None,) * len(self.inputs)


def print_call(args, kwargs, when=None):
    """Record print(*args, **kwargs) as a PrintCall op of the current program (the args
    that are Variables print their run-time values); `when`: a bool Variable that must
    hold for the print to happen."""
    from dygraph.static.capture import _register
    from dygraph.static.program import Variable

    slots = [i for i, a in enumerate(args) if isinstance(a, Variable)]
    template = [None if i in slots else a for i, a in enumerate(args)]
    inputs = [args[i] for i in slots]
    if when is None and not inputs:  # an op needs a program input to be recorded
        block = grad_mode.state.static_program.current_block()
        when = block.vars[_register(block, as_tensor(True, "print"))]
    if when is not None:
        inputs.append(when if isinstance(when, Tensor) else as_tensor(when, "print"))
    op = PrintCall(template, dict(kwargs), slots, [args[i]._sg for i in slots],
                   when is not None)
    return _effect_op(op, inputs)
