"""dygraph.jit: dynamic-to-static (Paddle's paddle.jit). `to_static` runs a function or a
Layer as a traced static program (one differentiable op in the eager graph); `save` and
`load` write and read it as an inference model.

Example:
    >>> import dygraph
    >>> net = dygraph.jit.to_static(dygraph.nn.Linear(2, 1))
    >>> net(dygraph.ones([3, 2])).shape
    [3, 1]
"""

from dygraph.jit.config import (
    ProgramTranslator,
    enable_to_static,
    ignore_module,
    not_to_static,
    set_code_level,
    set_verbosity,
)
from dygraph.jit.save_load import TranslatedLayer, load, save
from dygraph.jit.static_function import StaticFunction, to_static
from dygraph.jit.traced_layer import TracedLayer

__all__ = ["to_static", "not_to_static", "ignore_module", "enable_to_static",
           "set_code_level", "set_verbosity", "StaticFunction", "save", "load",
           "TranslatedLayer", "TracedLayer", "ProgramTranslator"]
