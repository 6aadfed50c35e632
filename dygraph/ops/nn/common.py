"""The common ops of dygraph.nn.functional (Paddle's paddle.nn.functional.common and friends).

The ops live in one module per concept and this module gathers them into one family:
linear maps and embeddings (linear.py), the dropout family (dropout.py), resizing
(interpolate.py, on the AxisMap engine of resample.py), pixel shuffles and im2col
(vision.py), grid_sample (grid_sample.py), norms and similarity (distance.py) and
attention (attention.py). `pad` is dygraph.pad, whose signature is already
nn.functional's, and `zeropad2d` its zero-padding form.
"""

from dygraph.ops.manipulation.pad import pad, zeropad2d
from dygraph.ops.nn import attention as nn_attention
from dygraph.ops.nn import distance as nn_distance
from dygraph.ops.nn import dropout as nn_dropout
from dygraph.ops.nn import grid_sample as nn_grid_sample
from dygraph.ops.nn import interpolate as nn_interpolate
from dygraph.ops.nn import linear as nn_linear
from dygraph.ops.nn import vision as nn_vision
from dygraph.ops.nn.attention import *  # noqa: F401,F403
from dygraph.ops.nn.distance import *  # noqa: F401,F403
from dygraph.ops.nn.dropout import *  # noqa: F401,F403
from dygraph.ops.nn.grid_sample import *  # noqa: F401,F403
from dygraph.ops.nn.interpolate import *  # noqa: F401,F403
from dygraph.ops.nn.linear import *  # noqa: F401,F403
from dygraph.ops.nn.vision import *  # noqa: F401,F403

_PARTS = (nn_linear, nn_dropout, nn_interpolate, nn_vision, nn_grid_sample, nn_distance,
          nn_attention)
__all__ = ["pad", "zeropad2d", *(name for part in _PARTS for name in part.__all__)]
NONDIFF = set().union(*(part.NONDIFF for part in _PARTS))
