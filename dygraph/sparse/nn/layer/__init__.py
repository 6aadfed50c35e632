"""The sparse layers by concept: activation.py, conv.py, norm.py, pooling.py.

Example:
    >>> import dygraph
    >>> dygraph.sparse.nn.layer.ReLU is dygraph.sparse.nn.ReLU
    True
"""

from dygraph.sparse.nn.layer.activation import LeakyReLU, ReLU, ReLU6, Softmax
from dygraph.sparse.nn.layer.conv import Conv2D, Conv3D, SubmConv2D, SubmConv3D
from dygraph.sparse.nn.layer.norm import BatchNorm, SyncBatchNorm
from dygraph.sparse.nn.layer.pooling import MaxPool3D

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "Softmax", "BatchNorm", "SyncBatchNorm", "Conv2D",
           "Conv3D", "SubmConv2D", "SubmConv3D", "MaxPool3D"]
