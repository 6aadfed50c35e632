"""paddle.sparse.nn.functional: activations, softmax, convolutions and pooling of sparse
tensors (activation.py, conv.py with rulebook.py, pooling.py).

Example:
    >>> import dygraph
    >>> import dygraph.sparse.nn.functional as F
    >>> x = dygraph.sparse.sparse_coo_tensor([[0, 1]], [-2.0, 3.0], [2])
    >>> F.relu(x).values().numpy().tolist()
    [0.0, 3.0]
"""

from dygraph.sparse.nn.functional.activation import leaky_relu, relu, relu6, softmax
from dygraph.sparse.nn.functional.conv import (
    conv2d,
    conv3d,
    subm_conv2d,
    subm_conv2d_igemm,
    subm_conv3d,
    subm_conv3d_igemm,
)
from dygraph.sparse.nn.functional.pooling import max_pool3d

__all__ = ["relu", "relu6", "leaky_relu", "softmax", "conv2d", "conv3d", "subm_conv2d",
           "subm_conv3d", "subm_conv2d_igemm", "subm_conv3d_igemm", "max_pool3d"]
