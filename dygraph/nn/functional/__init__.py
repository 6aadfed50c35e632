"""dygraph.nn.functional: the neural-network ops as functions (Paddle's paddle.nn.functional).

The ops live in dygraph/ops (one module per family); this package gathers them.
"""

from dygraph.ops import activation, conv, loss, nn_common, norm, pooling
from dygraph.ops.activation import *  # noqa: F401,F403
from dygraph.ops.conv import *  # noqa: F401,F403
from dygraph.ops.loss import *  # noqa: F401,F403
from dygraph.ops.nn_common import *  # noqa: F401,F403
from dygraph.ops.norm import *  # noqa: F401,F403
from dygraph.ops.pooling import *  # noqa: F401,F403

_MODULES = (activation, conv, pooling, norm, loss, nn_common)
__all__ = sorted({name for m in _MODULES for name in m.__all__})
NONDIFF = {name for m in _MODULES for name in m.NONDIFF}
