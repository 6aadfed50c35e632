"""py_func (Paddle's paddle.static.nn.py_func): a Python function on NumPy arrays as one op
of a static program, with an optional Python gradient function.

At each run the op calls `func` with the inputs' arrays and takes what it returns as the
values of the `out` variables (made beforehand, as in Paddle, with
`program.current_block().create_var(name=..., dtype=..., shape=...)`). Its gradient calls
`backward_func` with the inputs, the outputs and the outputs' gradients (less
`skip_vars_in_backward_input`), which returns one gradient (or None) per input. The op holds
live functions, so a program with it cannot be saved as a file.

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph import static
    >>> dygraph.enable_static()
    >>> main = static.Program()
    >>> with static.program_guard(main, static.Program()):
    ...     x = static.data('x', [2])
    ...     y = main.current_block().create_var(name='y', dtype='float32', shape=[2])
    ...     _ = py_func(lambda a: np.asarray(a) * 3, x, y)
    >>> dygraph.disable_static()
    >>> static.Executor().run(main, feed={'x': np.ones(2, np.float32)}, fetch_list=[y])
    [array([3., 3.], dtype=float32)]
"""

import numpy as np

from dygraph.autograd import grad_mode
from dygraph.autograd.function import Op
from dygraph.framework.errors import op_error

__all__ = ["py_func", "PyFunc"]


class PyFunc(Op):
    """Calls `func` forward and `backward_func` backward (see the module docstring)."""

    attrs = ("backward_func", "differentiable", "func", "out_dtypes", "skip")
    saveable = False  # holds the user's live functions

    def __init__(self, func, backward_func, skip, out_dtypes):
        self.func, self.backward_func = func, backward_func
        self.skip, self.out_dtypes = skip, out_dtypes  # (inputs, outputs) to leave out
        self.differentiable = backward_func is not None

    def forward(self, xp, *arrays):
        outs = self.func(*arrays)
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        if len(outs) != len(self.out_dtypes):
            raise op_error("py_func", f"func returned {len(outs)} values for "
                           f"{len(self.out_dtypes)} output variables")
        self.saved = (arrays, outs)
        result = tuple(np.asarray(o, dtype=d) for o, d in zip(outs, self.out_dtypes))
        return result if len(result) > 1 else result[0]

    def backward(self, m, *grads):
        arrays, outs = self.saved
        skip_in, skip_out = self.skip
        args = [a for i, a in enumerate(arrays) if i not in skip_in]
        args += [o for i, o in enumerate(outs) if i not in skip_out]
        args += list(grads)
        result = self.backward_func(*args)
        result = list(result) if isinstance(result, (list, tuple)) else [result]
        if len(result) != len(arrays):
            raise op_error("py_func", f"backward_func returned {len(result)} gradients for "
                           f"{len(arrays)} inputs")
        return tuple(None if g is None else np.asarray(g, dtype=a.dtype).reshape(a.shape)
                     for g, a in zip(result, arrays))


def _variables(value, what):
    from dygraph.static.program import Variable

    items = [] if value is None else list(value) if isinstance(value, (list, tuple)) else [value]
    if not all(isinstance(v, Variable) for v in items):
        raise TypeError(f"py_func: {what} must be static Variables (a list, a tuple or one), "
                        f"got {[type(v).__name__ for v in items]}")
    return items


def py_func(func, x, out, backward_func=None, skip_vars_in_backward_input=None):
    """Run `func` on the arrays of `x` as one op whose results are the `out` variables
    (see the module docstring); returns `out`."""
    from dygraph.static.capture import Slot

    if grad_mode.state.static_program is None:
        raise RuntimeError("py_func: only a static program can hold it (call "
                           "dygraph.enable_static() first)")
    if not callable(func) or backward_func is not None and not callable(backward_func):
        raise TypeError("py_func: func and backward_func must be callable")
    xs, outs = _variables(x, "x"), _variables(out, "out")
    skipped = {v.name for v in _variables(skip_vars_in_backward_input, "skip_vars_in_"
                                                                         "backward_input")}
    names_in, names_out = [v.name for v in xs], [v.name for v in outs]
    unknown = skipped - set(names_in) - set(names_out)
    if unknown:
        raise ValueError(f"py_func: skip_vars_in_backward_input names {sorted(unknown)}, "
                         "which are neither inputs nor outputs")
    skip = ({i for i, n in enumerate(names_in) if n in skipped},
            {i for i, n in enumerate(names_out) if n in skipped})
    op = PyFunc(func, backward_func, skip, [v._data.dtype for v in outs])
    op.inputs = tuple(Slot(v._sg) for v in xs)
    op.versions = (0,) * len(xs)
    needs = backward_func is not None
    op.edges = tuple(True if needs and not v._sg else None for v in xs)
    op.n_outputs = len(outs)
    for v in outs:
        v.stop_gradient = not (needs and any(e is not None for e in op.edges))
    block = grad_mode.state.static_program.current_block()
    block.append_op(op, names_in, names_out)
    return out
