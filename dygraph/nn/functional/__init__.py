"""dygraph.nn.functional: the neural-network ops as functions (Paddle's paddle.nn.functional).

The ops live in dygraph/ops (one module per family); this package gathers them.
"""

import importlib as _importlib

from dygraph.ops.activation import *  # noqa: F401,F403
from dygraph.ops.conv import *  # noqa: F401,F403
from dygraph.ops.loss import *  # noqa: F401,F403
from dygraph.ops.nn_common import *  # noqa: F401,F403
from dygraph.ops.norm import *  # noqa: F401,F403
from dygraph.ops.pooling import *  # noqa: F401,F403

# By module path: `dygraph.ops.norm` as an attribute is the norm *function* (ops exports it).
_MODULES = tuple(_importlib.import_module(f"dygraph.ops.{name}") for name in
                 ("activation", "conv", "pooling", "norm", "loss", "nn_common"))
__all__ = sorted({name for m in _MODULES for name in m.__all__})
NONDIFF = {name for m in _MODULES for name in m.NONDIFF}
