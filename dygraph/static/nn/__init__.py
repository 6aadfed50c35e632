"""dygraph.static.nn: control flow and layer builders of static programs (Paddle's
paddle.static.nn). A builder call (`fc`, `conv2d`, `batch_norm`, ...) makes its layer's
parameters, named as Paddle names them (`fc_0.w_0`), and applies the functional op; it
works in a static program and eagerly.

`nce` is Paddle 2.x's layer (Paddle 3.3's default static mode refuses it). The `sequence_*`
builders (sequence_conv, sequence_expand, sequence_first_step, sequence_last_step,
sequence_pool, sequence_softmax) warn and refuse with AssertionError, as in Paddle 3.3's
default static mode: they work on LoD tensors (variable-length sequences packed with
offsets), which DyGraph does not have.

Example:
    >>> import dygraph
    >>> cond(dygraph.to_tensor(True), lambda: 1, lambda: 2)
    1
"""

from dygraph.static.control_flow import IfElse
from dygraph.static.nn import control_flow
from dygraph.static.nn.control_flow import case, cond, switch_case, while_loop
from dygraph.static.nn.conv import (
    conv2d,
    conv2d_transpose,
    conv3d,
    conv3d_transpose,
    deform_conv2d,
)
from dygraph.static.nn.dense import bilinear_tensor_product, fc, prelu, row_conv
from dygraph.static.nn.embedding import embedding, sparse_embedding
from dygraph.static.nn.loss import nce
from dygraph.static.nn.norm import (
    batch_norm,
    group_norm,
    instance_norm,
    layer_norm,
    spectral_norm,
)
from dygraph.static.nn.py_func import py_func
from dygraph.static.nn.sequence import (
    sequence_conv,
    sequence_expand,
    sequence_first_step,
    sequence_last_step,
    sequence_pool,
    sequence_softmax,
)
from dygraph.static.nn.static_pylayer import static_pylayer
from dygraph.static.parameters import create_parameter

__all__ = ["cond", "IfElse", "while_loop", "case", "switch_case", "control_flow", "fc",
           "bilinear_tensor_product", "prelu", "row_conv", "conv2d", "conv2d_transpose",
           "conv3d", "conv3d_transpose", "deform_conv2d", "embedding", "sparse_embedding",
           "batch_norm", "group_norm", "instance_norm", "layer_norm", "spectral_norm",
           "py_func", "static_pylayer", "create_parameter", "nce", "sequence_conv",
           "sequence_expand", "sequence_first_step", "sequence_last_step", "sequence_pool",
           "sequence_softmax"]
