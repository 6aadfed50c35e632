"""fluid.layers: the 1.x functional API, in dygraph mode."""

from dygraph.fluid.layers.control_flow import *
from dygraph.fluid.layers.io import *
from dygraph.fluid.layers.math_op import *
from dygraph.fluid.layers.nn import *
from dygraph.fluid.layers.tensor_op import *
