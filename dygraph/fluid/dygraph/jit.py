"""fluid.dygraph.jit: the 1.8 names of dynamic-to-static (declarative is to_static).

Example:
    >>> import dygraph
    >>> @declarative
    ... def f(x):
    ...     return x + 1
    >>> f(dygraph.ones([2])).tolist()
    [2.0, 2.0]
"""

from dygraph.jit import ProgramTranslator, load, save, set_code_level, set_verbosity
from dygraph.jit import to_static as declarative
from dygraph.jit.traced_layer import TracedLayer

__all__ = ["declarative", "TracedLayer", "ProgramTranslator", "save", "load",
           "set_code_level", "set_verbosity"]
