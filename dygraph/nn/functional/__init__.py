"""dygraph.nn.functional: the neural-network ops as functions (Paddle's paddle.nn.functional).

The ops live in dygraph/ops (one module per family); this package gathers them, plus the
composite functions of its own modules (activation_extra, ...).
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
_EXTRA = tuple(_importlib.import_module(f"dygraph.nn.functional.{name}") for name in
               ("activation_extra", "loss_extra", "loss_margin_extra", "pooling_extra",
                "vision_extra", "common_extra", "loss_tree", "loss_rnnt"))
for _module in _EXTRA:
    globals().update({_n: getattr(_module, _n) for _n in _module.__all__})
__all__ = sorted({name for m in _MODULES + _EXTRA for name in m.__all__})
NONDIFF = {name for m in _MODULES + _EXTRA for name in m.NONDIFF}
