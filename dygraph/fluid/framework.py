"""The 1.x program/framework namespace, on dygraph.static.

Outside `fluid.dygraph.guard()`, 1.x code is static: `fluid.layers.data` switches the thread
into static mode, model code then builds the default main program, and `fluid.Executor`
runs it. Inside `guard()` everything runs eagerly.

Example:
    >>> default_main_program().random_seed = 90
    >>> in_dygraph_mode()
    False
"""

from dygraph.autograd.grad_mode import state as _thread_state
from dygraph.framework import in_pir_mode
from dygraph.static.program import (
    Program,
    Variable,
    default_main_program,
    default_startup_program,
    program_guard,
)

__all__ = ["Program", "Variable", "default_main_program", "default_startup_program",
           "in_dygraph_mode", "in_pir_mode", "program_guard"]


def in_dygraph_mode():
    """True inside `fluid.dygraph.guard()`.

    Example:
        >>> in_dygraph_mode()
        False
    """
    return _thread_state.retain_all_grads
