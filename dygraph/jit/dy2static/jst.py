"""`_jst`: the run-time functions that converted code calls (one namespace, bound into
every converted function as the free variable `_jst`).

Example:
    >>> convert_and(lambda: 1, lambda: 2)
    2
"""

from dygraph.jit.dy2static.run_call import convert_call
from dygraph.jit.dy2static.run_if import convert_ifelse, convert_ifexp
from dygraph.jit.dy2static.run_loop import convert_while_loop
from dygraph.jit.dy2static.run_ops import (
    convert_and,
    convert_assert,
    convert_iter,
    convert_not,
    convert_or,
    convert_print,
    convert_shape,
    range_args,
    range_cond,
    return_value,
)
from dygraph.jit.dy2static.values import RETURN_UNSET, load_vars

__all__ = ["convert_ifelse", "convert_ifexp", "convert_while_loop", "convert_and",
           "convert_or", "convert_not", "convert_print", "convert_iter", "convert_assert",
           "range_args", "range_cond", "return_value", "RETURN_UNSET", "load_vars",
           "convert_call", "convert_shape"]
