"""fluid.layers.data: an input of a 1.x static program.

Example:
    >>> import dygraph.fluid as fluid
    >>> import dygraph
    >>> with fluid.program_guard(fluid.Program(), fluid.Program()):
    ...     img = fluid.layers.data(name='pixel', shape=[1, 28, 28], dtype='float32')
    >>> dygraph.disable_static()
    >>> img.shape
    [-1, 1, 28, 28]
"""

from dygraph.autograd.grad_mode import state as _thread_state
from dygraph.static import program as _program
from dygraph.static.capture import enable_static

__all__ = ["data"]


def data(name, shape, append_batch_size=True, dtype="float32", lod_level=0, type=None,  # noqa: A002
         stop_gradient=True):
    """A feed variable `name`; with `append_batch_size` (1.x's default) a free batch
    dimension goes in front. Outside `fluid.dygraph.guard()` this turns static mode on for
    the thread, as 1.x programs are static."""
    if _thread_state.retain_all_grads:
        raise RuntimeError("fluid.layers.data: inside fluid.dygraph.guard() inputs are "
                           "arrays (fluid.dygraph.to_variable); data() builds static programs")
    if _thread_state.static_program is None:
        enable_static()
    _thread_state.static_program = _program.default_main_program()
    shape = list(shape)
    if append_batch_size and (not shape or shape[0] not in (-1, None)):
        shape = [-1] + shape
    var = _program.data(name, shape, dtype)
    var.stop_gradient = stop_gradient
    return var
