"""Variables a static program holds across runs, made by the user: `create_parameter`
(trainable) and `create_global_var` (persistable state such as a step counter). Both are
variables of the program from the moment they are made: they can be fetched, used in
branches and differentiated against before any op reads them, and the startup program
gives them their start values.

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph import static
    >>> dygraph.enable_static()
    >>> main, startup = static.Program(), static.Program()
    >>> with static.program_guard(main, startup):
    ...     step = create_global_var([1], 5.0, 'float32', persistable=True, name='step')
    >>> dygraph.disable_static()
    >>> exe = static.Executor(); _ = exe.run(startup)
    >>> exe.run(main, fetch_list=[step])[0]
    array([5.], dtype=float32)
"""

import numpy as np

from dygraph.autograd import grad_mode
from dygraph.framework import dtype as _dt
from dygraph.nn.param_attr import create_parameter as _create_parameter
from dygraph.utils.unique_name import generate

__all__ = ["create_parameter", "create_global_var"]


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False,
                     default_initializer=None):
    """A trainable parameter; in static mode also a persistable variable of the program
    (initialised by the startup program).

    Example:
        >>> w = create_parameter([3, 2], 'float32')
        >>> w.shape, w.stop_gradient
        ([3, 2], False)
    """
    param = _create_parameter(shape, dtype, name, attr, is_bias, default_initializer)
    if param is not None and grad_mode.state.static_program is not None:
        from dygraph.static.capture import program_constant

        program_constant(param)  # a parameter registers as a persistable variable
    return param


def create_global_var(shape, value, dtype, persistable=False, force_cpu=False, name=None):
    """A variable filled with `value` at the start: in static mode a variable of the
    program that the startup program assigns and the scope keeps between runs (so it is
    held like a persistable one whatever `persistable` says; `force_cpu` changes nothing on
    the CPU), in dynamic mode a Tensor.

    Example:
        >>> create_global_var([2], 1.5, 'float32').tolist()
        [1.5, 1.5]
    """
    np_dtype = _dt.convert_dtype(dtype).np_dtype
    array = np.full([int(d) for d in shape], value, np_dtype)
    state = grad_mode.state
    if state.static_program is None:
        from dygraph.tensor.tensor import to_tensor

        return to_tensor(array)
    from dygraph.static.capture import Constant
    from dygraph.static.program import default_startup_program

    name = name or generate("global_var")
    block = state.static_program.global_block()
    var = block.create_var(name, array.shape, np_dtype, persistable=True, stop_gradient=True,
                           stand_ins=(array, array))
    startup = default_startup_program().global_block()
    if name not in startup.vars:
        startup.create_var(name, array.shape, np_dtype, True, True, (array, array))
        startup.append_op(Constant(array.copy()), [], [name], role="init")
    return var
