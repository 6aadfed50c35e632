"""Parameter initializers (`dygraph.nn.initializer`), with Paddle 2.x names and arguments.

Each initializer is called on a Parameter and fills it in place, drawing from the global
generator so `dygraph.seed(n)` makes initialization reproducible.

Example:
    >>> import dygraph
    >>> from dygraph.nn.initializer import KaimingNormal
    >>> _ = dygraph.seed(0)
    >>> w = KaimingNormal()(dygraph.zeros([8, 4]))
    >>> w.shape
    [8, 4]
"""

from dygraph.nn.initializer.base import Initializer, calculate_gain, set_global_initializer
from dygraph.nn.initializer.basic import Assign, Constant, Normal, TruncatedNormal, Uniform
from dygraph.nn.initializer.fan import KaimingNormal, KaimingUniform, XavierNormal, XavierUniform
from dygraph.nn.initializer.structured import Bilinear, Dirac, Orthogonal

__all__ = ["Initializer", "Constant", "Assign", "Normal", "TruncatedNormal", "Uniform",
           "XavierNormal", "XavierUniform", "KaimingNormal", "KaimingUniform", "Orthogonal",
           "Dirac", "Bilinear", "calculate_gain", "set_global_initializer"]
