"""dygraph.static.nn: control flow and layer builders for static programs (Paddle's
paddle.static.nn: cond, while_loop, case, switch_case, fc).

Example:
    >>> import dygraph
    >>> cond(dygraph.to_tensor(True), lambda: 1, lambda: 2)
    1
"""

from dygraph.static.branches import case, switch_case
from dygraph.static.builders import fc
from dygraph.static.control_flow import IfElse, cond
from dygraph.static.while_loop import while_loop

__all__ = ["cond", "IfElse", "while_loop", "case", "switch_case", "fc"]
