"""dygraph.nn: Layer, the layer library, functional ops, initializers and ParamAttr."""

from dygraph.nn import functional, initializer, utils  # noqa: F401
from dygraph.nn.clip import (  # noqa: F401
    ClipGradBase,
    ClipGradByGlobalNorm,
    ClipGradByNorm,
    ClipGradByValue,
)
from dygraph.nn.decode import BeamSearchDecoder, Decoder, dynamic_decode  # noqa: F401
from dygraph.nn.layer.activation import *  # noqa: F401,F403
from dygraph.nn.layer.aliases import *  # noqa: F401,F403
from dygraph.nn.layer.common import *  # noqa: F401,F403
from dygraph.nn.layer.container import *  # noqa: F401,F403
from dygraph.nn.layer.conv import *  # noqa: F401,F403
from dygraph.nn.layer.distance import *  # noqa: F401,F403
from dygraph.nn.layer.layers import *  # noqa: F401,F403
from dygraph.nn.layer.loss import *  # noqa: F401,F403
from dygraph.nn.layer.loss_tree import *  # noqa: F401,F403
from dygraph.nn.layer.norm import *  # noqa: F401,F403
from dygraph.nn.layer.padding import *  # noqa: F401,F403
from dygraph.nn.layer.pooling import *  # noqa: F401,F403
from dygraph.nn.layer.rnn import *  # noqa: F401,F403
from dygraph.nn.layer.transformer import *  # noqa: F401,F403
from dygraph.nn.layer.vision import *  # noqa: F401,F403
from dygraph.nn.param_attr import ParamAttr  # noqa: F401
