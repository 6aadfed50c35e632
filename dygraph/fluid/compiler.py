"""fluid.compiler (and paddle.base.compiler): CompiledProgram, BuildStrategy and
ExecutionStrategy, the carriers of dygraph.static.compiler.

Example:
    >>> from dygraph.fluid.compiler import CompiledProgram
    >>> import dygraph
    >>> CompiledProgram is dygraph.static.CompiledProgram
    True
"""

from dygraph.static.compiler import BuildStrategy, CompiledProgram, ExecutionStrategy

__all__ = ["CompiledProgram", "BuildStrategy", "ExecutionStrategy"]
