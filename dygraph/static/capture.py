"""Static capture: the third behaviour of `apply` (beside eager and create_graph recording).

While static mode is on, `apply` hands each op here. An op with a static Variable among its
inputs is appended to the current program: its output shapes and dtypes come from running
its own forward on small stand-in arrays twice, with the free (-1) dimensions at two
different sizes; an output dimension that differs between the runs is free. A wrapper or
layer that baked a stand-in size into an op attribute fails the second run, loudly, at the
user's line. Parameters (eager Parameter objects) become persistable variables of the
program, whose start values the startup program assigns; other eager tensors become
constants. An op without Variable inputs runs eagerly as usual.

Example:
    >>> import dygraph
    >>> from dygraph import static
    >>> dygraph.enable_static()
    >>> with static.program_guard(static.Program(), static.Program()):
    ...     x = static.data('x', [None, 4])
    ...     y = dygraph.nn.Linear(4, 2)(x)
    >>> dygraph.disable_static()
    >>> y.shape
    [-1, 2]
"""

import numpy as np

from dygraph.autograd import grad_mode
from dygraph.autograd.complex_grad import involves_complex, record_complex
from dygraph.autograd.function import _FORWARD_ERRORS, Op, apply, declared_attrs
from dygraph.autograd.interpreters import RECORD, below, handing_down, push, remove
from dygraph.backend import as_numpy, is_gpu_array
from dygraph.framework.errors import forward_error, user_frame
from dygraph.framework.parameter import Parameter
from dygraph.static.program import (
    PROBES,
    StandIn,
    ValueDependentError,
    Variable,
    default_startup_program,
    is_stand_in,
)

__all__ = ["capture", "enable_static", "disable_static", "in_dynamic_mode", "Slot",
           "Constant", "program_constant"]


class Slot:
    """Stands where an op's input Tensor stood: the Executor puts each run's array in
    `_data`, so the op's own backward reads the values of that run."""

    __slots__ = ("_data", "_version", "_sg")

    def __init__(self, stop_gradient):
        self._data, self._version, self._sg = None, [0], stop_gradient


class Constant(Op):
    """Produces a fixed array: parameter start values in the startup program, eager
    tensors used by a static program."""

    attrs = ("value",)

    differentiable = False

    def __init__(self, value):
        self.value = value

    def forward(self, xp, *unused):
        if xp is np or type(self.value) is not np.ndarray:
            return self.value.copy()
        # A GPU run: the value goes to the device once, so each run is a device copy (which
        # a CUDA graph can hold) rather than a transfer from the host.
        on_device = self.__dict__.get("_on_device")
        if on_device is None:
            on_device = self._on_device = xp.asarray(self.value)
        return on_device.copy()

    def backward(self, m, *grads):
        return ()


def _host_copy(array):
    """A NumPy copy of `array` (a GPU tensor's too: programs are traced on host
    stand-ins, and start values are stored on the host)."""
    return as_numpy(array) if is_gpu_array(array) else np.array(array, copy=True)


def _register(block, tensor):
    """The program variable standing for an eager Tensor input."""
    program = block.program
    live = program.live_tensors
    if isinstance(tensor, Parameter):
        block = program.global_block()  # a loop body reads parameters from outside
        name = tensor.name
        known = program.parameters.get(name)
        if known is not None and known is not tensor:
            raise ValueError(f"static capture: two different parameters are both named "
                             f"{name!r}; give them distinct names (ParamAttr(name=...))")
        if name not in block.vars:
            # Tracing for to_static runs ops on copies: batch norm's running statistics
            # (parameters too) must not move while the program is built.
            value = tensor._data if live is None else _host_copy(tensor._data)
            var = block.create_var(name, value.shape, value.dtype, persistable=True,
                                   stop_gradient=tensor._sg, stand_ins=(value, value))
            var.is_parameter = True
            program.parameters[name] = tensor
            startup = default_startup_program().global_block()
            if live is None and name not in startup.vars:
                startup.create_var(name, tensor._data.shape, tensor._data.dtype, True, True,
                                   (tensor._data, tensor._data))
                startup.append_op(Constant(_host_copy(tensor._data)), [], [name],
                                  role="init")
        return name
    if is_stand_in(tensor._data):
        raise _baked(f"a constant of shape {list(tensor._data.shape)}")
    if live is not None:
        # A buffer (running statistics) or a tensor from outside the traced function: an
        # input of each run, read then. Its stand-ins are copies, so ops that update it in
        # place (batch norm while training) leave it alone while the program is built.
        block = program.global_block()
        name = f"live_{id(tensor)}"
        if name not in block.vars:
            copy = _host_copy(tensor._data)
            block.create_var(name, copy.shape, copy.dtype, persistable=True,
                             stop_gradient=tensor._sg, stand_ins=(copy, copy))
            live[name] = tensor
        return name
    var = block.create_var(None, tensor._data.shape, tensor._data.dtype, stop_gradient=True,
                           stand_ins=(tensor._data, tensor._data))
    block.append_op(Constant(_host_copy(tensor._data)), [], [var.name], role="const")
    return var.name


def _baked(what):
    return ValueDependentError(
        f"{what} was computed in Python from the build-time stand-in of a static Variable "
        f"(called at {user_frame()}): a program would repeat the stand-in's values on every "
        "run instead of computing from each run's data. Compute it with ops (or decorate the "
        "function with dygraph.autograd.whole_call.captured_whole), or run this code eagerly")


def _check_configuration(op):
    """Refuse an op whose configuration holds arrays computed from stand-ins (an index
    that a wrapper computed from x._data, say)."""
    values = op.__dict__
    for name in declared_attrs(type(op)):
        if name in values and is_stand_in(values[name]):
            raise _baked(f"{op.name}: its attribute {name!r}")


def program_constant(tensor):
    """`tensor` (a creation op's eager result) as a constant of the program being built: a
    variable that can be fetched, differentiated against and used in branches."""
    program = grad_mode.state.static_program
    return _var_of(program, _register(program.current_block(), tensor))


def _var_of(program, name):
    """The variable `name` of the innermost block that has it."""
    for block in reversed(program.blocks):
        if name in block.vars:
            return block.vars[name]
    raise KeyError(name)


def _in_program(tensors, live):
    """Whether an op on `tensors` belongs in the program: it reads a program Variable or a
    parameter (an op on parameters alone, such as auto_cast's cast of a weight, must run
    again at each run, not once while building), or, while jit.to_static traces, a tensor
    that needs a gradient."""
    for t in tensors:
        if isinstance(t, (Variable, Parameter)) or live and not t._sg:
            return True
    return False


def _conditioned(array):
    """A stand-in of `array`'s shape and dtype that value checks accept: integers 1 (no zero
    divisor), floats 3 plus 3n on the diagonal of square trailing n x n matrices (symmetric,
    diagonally dominant: positive definite and far from singular; above multigammaln's
    (p - 1) / 2 for p < 7)."""
    if array.dtype.kind in "iu":  # a divisor (floor_divide checks for zero)
        return np.ones(array.shape, array.dtype).view(StandIn)
    if array.dtype.kind not in "fc":
        return array
    out = np.full(array.shape, 3.0, array.dtype)
    if array.ndim >= 2 and array.shape[-1] == array.shape[-2]:
        out += 3.0 * array.shape[-1] * np.eye(array.shape[-1], dtype=array.dtype)
    return out.view(StandIn)


def _run_probe(op, arrays, inputs):
    try:
        with np.errstate(all="ignore"):  # stand-in zeros: log(0) is no news to the user
            outs = op.forward(np, *arrays)
    except _FORWARD_ERRORS as exc:
        raise forward_error(op.name, inputs, exc) from None
    return outs if type(outs) is tuple else (outs,)


def capture(op, inputs):
    """`apply` in static mode (see the module docstring)."""
    state = grad_mode.state
    program = state.static_program
    live = program.live_tensors is not None
    if not (_in_program(inputs, live) or getattr(op, "always", False)):
        with handing_down(capture):  # no program value involved: an ordinary eager op
            return apply(op, *inputs)
    _check_configuration(op)
    block = state.static_program.current_block()
    names = [t.name if isinstance(t, Variable) else _register(block, t) for t in inputs]
    # Ops whose output size depends on data (IfElse's rows) may meet stand-ins that do not
    # fit each other; `probing` lets them shape a placeholder result instead. The probes
    # run eagerly: a whole-function op's inner ops must not land in the program.
    op.probing = True
    state.intercept = below(capture)
    try:
        variables = [t if isinstance(t, Variable) else _var_of(program, n)
                     for t, n in zip(inputs, names)]
        probes = [v._data for v in variables], [v._alt for v in variables]
        try:
            first = _run_probe(op, probes[0], inputs)
        except (ValueError, np.linalg.LinAlgError, ZeroDivisionError):
            # An op that checks values (an inverse, a Cholesky factor, multigammaln's
            # domain) refuses zeros: probe again with well-conditioned stand-ins; a
            # second refusal is about the call itself and is raised.
            probes = tuple([_conditioned(a) for a in arrays] for arrays in probes)
            first = _run_probe(op, probes[0], inputs)
        try:
            second = _run_probe(op, probes[1], inputs)
        except (ValueError, TypeError, IndexError) as exc:
            kind = next(k for k in (ValueError, TypeError, IndexError) if isinstance(exc, k))
            raise kind(
                f"{op.name}: this op ran with the build-time stand-in of a free (-1) "
                "dimension but not with another size: the op, or the code that called it, "
                "fixed that size. Give the dimension a size "
                f"in data(...) to build this program. ({exc})") from None
    finally:
        state.intercept = capture
        del op.probing
    if involves_complex(inputs, first):  # complex data: the complex gradient rule, as apply
        record_complex(op)
    # jit.to_static honours no_grad() inside the traced function, as eager mode does.
    needs_grad = [not t._sg and (state.grad_on or not live) for t in inputs]
    stop = not (op.differentiable and any(needs_grad))
    outputs = []
    for a, b in zip(first, second):
        if a.ndim != b.ndim:
            raise ValueError(f"{op.name}: the output's rank depends on the batch size "
                             f"({a.shape} vs {b.shape}); such an op cannot be in a static "
                             "program")
        shape = [d if d == e else -1 for d, e in zip(a.shape, b.shape)]
        data_sized = [d for d in getattr(op, "free_dims", ()) if d < len(shape)]
        if data_sized:  # sizes that depend on the data itself: free, and probed as such
            for d in data_sized:
                shape[d] = -1
            a, b = (np.zeros([p if i in data_sized else n for i, n in enumerate(x.shape)],
                             x.dtype) for p, x in zip(PROBES, (a, b)))
        outputs.append(block.create_var(None, shape, a.dtype,
                                        stop_gradient=stop or a.dtype.kind not in "fc",
                                        stand_ins=(a, b)))
    # The op's backward reads its inputs through these slots (filled at run time) and
    # knows from `edges` which gradients are wanted.
    op.inputs = tuple(Slot(t._sg) for t in inputs)
    op.versions = (0,) * len(inputs)
    op.edges = tuple(True if need else None for need in needs_grad)
    op.n_outputs = len(outputs)
    block.append_op(op, names, [v.name for v in outputs])
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


def enable_static():
    """Switch this thread to static mode: ops on program Variables are recorded into the
    default main program (or the one of program_guard) instead of running.

    Example:
        >>> enable_static(); in_dynamic_mode()
        False
        >>> disable_static(); in_dynamic_mode()
        True
    """
    from dygraph.static.program import default_main_program

    grad_mode.state.static_program = default_main_program()
    push(capture, RECORD)


def disable_static(place=None):
    """Back to dynamic (eager) mode in this thread."""
    grad_mode.state.static_program = None
    remove(capture)


def in_dynamic_mode():
    """True unless static mode is on in this thread."""
    return grad_mode.state.static_program is None
