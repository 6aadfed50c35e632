"""paddle.static.nn.control_flow: the control flow of static programs under the module name
Paddle's tests import it from (`from paddle.static.nn.control_flow import cond`).

Example:
    >>> import dygraph
    >>> cond(dygraph.to_tensor(True), lambda: 1, lambda: 2)
    1
"""

from dygraph.static.branches import case, switch_case
from dygraph.static.control_flow import cond
from dygraph.static.print_op import Print
from dygraph.static.while_loop import while_loop

__all__ = ["cond", "while_loop", "case", "switch_case", "Print"]
