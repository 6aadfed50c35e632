"""fluid.layers control flow and comparisons: IfElse, cond, while_loop, case,
switch_case, less_than and friends.

Example:
    >>> import numpy as np, dygraph.fluid as fluid
    >>> fluid.layers.less_than(np.array([1.0]), np.array([2.0])).numpy()
    array([ True])
"""

import dygraph
from dygraph.fluid.dygraph.base import to_variable
from dygraph.static.branches import case, switch_case
from dygraph.static.control_flow import IfElse, cond
from dygraph.static.while_loop import while_loop
from dygraph.tensor.tensor import Tensor

__all__ = ["IfElse", "cond", "while_loop", "case", "switch_case", "less_than", "less_equal",
           "greater_than", "greater_equal", "equal", "not_equal"]


def _var(x):
    return x if isinstance(x, Tensor) else to_variable(x)


def _compare(fn):
    def compare(x, y, force_cpu=None, cond=None, name=None):
        return fn(_var(x), _var(y))

    compare.__doc__ = f"Elementwise {fn.__name__} (1.x form).\n"
    compare.__name__ = fn.__name__
    return compare


less_than = _compare(dygraph.less_than)
less_equal = _compare(dygraph.less_equal)
greater_than = _compare(dygraph.greater_than)
greater_equal = _compare(dygraph.greater_equal)
equal = _compare(dygraph.equal)
not_equal = _compare(dygraph.not_equal)
