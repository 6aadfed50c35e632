"""The common ops of dygraph.nn.functional (Paddle's paddle.nn.functional.common and friends).

The ops live in one module per concept and this module gathers them into one family:
linear maps and embeddings (nn_linear), the dropout family (nn_dropout), resizing
(nn_interpolate, on the AxisMap engine of nn_resample), pixel shuffles and im2col
(nn_vision), grid_sample (nn_grid_sample), norms and similarity (nn_distance) and
attention (nn_attention). `pad` is dygraph.pad, whose signature is already
nn.functional's.
"""

from dygraph.ops import (
    nn_attention,
    nn_distance,
    nn_dropout,
    nn_grid_sample,
    nn_interpolate,
    nn_linear,
    nn_vision,
)
from dygraph.ops.manipulation_pad import pad
from dygraph.ops.nn_attention import *  # noqa: F401,F403
from dygraph.ops.nn_distance import *  # noqa: F401,F403
from dygraph.ops.nn_dropout import *  # noqa: F401,F403
from dygraph.ops.nn_grid_sample import *  # noqa: F401,F403
from dygraph.ops.nn_interpolate import *  # noqa: F401,F403
from dygraph.ops.nn_linear import *  # noqa: F401,F403
from dygraph.ops.nn_vision import *  # noqa: F401,F403

_PARTS = (nn_linear, nn_dropout, nn_interpolate, nn_vision, nn_grid_sample, nn_distance,
          nn_attention)
__all__ = ["pad", *(name for part in _PARTS for name in part.__all__)]
NONDIFF = set().union(*(part.NONDIFF for part in _PARTS))
