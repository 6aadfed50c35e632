"""paddle.sparse.nn: layers of sparse tensors (layer/) and their functions (functional/):
activations and softmax, batch norm over the stored values, sparse convolutions of COO
point sets (Conv2D/Conv3D and the submanifold SubmConv2D/SubmConv3D) and max pooling.

Example:
    >>> import dygraph
    >>> net = dygraph.nn.Sequential(dygraph.sparse.nn.SubmConv3D(1, 2, 3, padding=1),
    ...                             dygraph.sparse.nn.BatchNorm(2), dygraph.sparse.nn.ReLU())
    >>> x = dygraph.sparse.sparse_coo_tensor([[0, 0], [0, 1], [0, 1], [0, 1]],
    ...                                      [[1.0], [2.0]], [1, 2, 2, 2, 1])
    >>> net(x).shape
    [1, 2, 2, 2, 2]
"""

from dygraph.sparse.nn import functional
from dygraph.sparse.nn.layer import (
    BatchNorm,
    Conv2D,
    Conv3D,
    LeakyReLU,
    MaxPool3D,
    ReLU,
    ReLU6,
    Softmax,
    SubmConv2D,
    SubmConv3D,
    SyncBatchNorm,
)

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "Softmax", "BatchNorm", "SyncBatchNorm", "Conv2D",
           "Conv3D", "SubmConv2D", "SubmConv3D", "MaxPool3D", "functional"]
