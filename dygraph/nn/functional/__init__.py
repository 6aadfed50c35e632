"""dygraph.nn.functional: the neural-network ops as functions (Paddle's paddle.nn.functional).

A facade: every function lives in its op family under dygraph/ops (activation/, conv/,
pool/, normalization/, loss/, nn/); this package gathers their public names.

Example:
    >>> import dygraph
    >>> import dygraph.nn.functional as F
    >>> F.relu(dygraph.to_tensor([-1.0, 2.0])).numpy()
    array([0., 2.], dtype=float32)
"""

from dygraph.framework.kernel_dtypes import guard_namespace as _guard_namespace
from dygraph.ops import loss as _loss
from dygraph.ops.activation import gated as _gated
from dygraph.ops.activation import inplace as _inplace_activations
from dygraph.ops.activation import piecewise as _activation
from dygraph.ops.conv import convolution as _conv
from dygraph.ops.nn import common as _common
from dygraph.ops.nn import sequence as _sequence
from dygraph.ops.normalization import norms as _norms
from dygraph.ops.normalization import rms_norm as _rms_norm
from dygraph.ops.pool import lp_unpool_fractional as _lp_unpool_fractional
from dygraph.ops.pool import pooling as _pooling

_MODULES = (_activation, _gated, _inplace_activations, _conv, _pooling, _lp_unpool_fractional,
            _norms, _rms_norm, _loss, _common, _sequence)
for _module in _MODULES:
    globals().update({_n: getattr(_module, _n) for _n in _module.__all__})
__all__ = sorted({name for m in _MODULES for name in m.__all__})
NONDIFF = {name for m in _MODULES for name in getattr(m, "NONDIFF", ())}
_guard_namespace(globals(), "nn.functional")  # the dtypes Paddle refuses
