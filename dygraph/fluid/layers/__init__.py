"""fluid.layers: the 1.x functional API, in static programs and in dygraph mode."""

from dygraph.fluid.layers.activation import *
from dygraph.fluid.layers.array_shape import *
from dygraph.fluid.layers.control_flow import *
from dygraph.fluid.layers.conv_pool import *
from dygraph.fluid.layers.io import *
from dygraph.fluid.layers.loss import *
from dygraph.fluid.layers.math_op import *
from dygraph.fluid.layers.nn import *
from dygraph.fluid.layers.tensor_op import *
