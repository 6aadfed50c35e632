"""dygraph.static.nn: control flow for static programs (Paddle's paddle.static.nn.cond).

Example:
    >>> import dygraph
    >>> cond(dygraph.to_tensor(True), lambda: 1, lambda: 2)
    1
"""

from dygraph.static.control_flow import IfElse, cond

__all__ = ["cond", "IfElse"]
