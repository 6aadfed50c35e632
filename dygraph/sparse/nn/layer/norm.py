"""Batch norm of sparse tensors: BatchNorm and SyncBatchNorm normalise the stored values
[nnz, C] per channel (the last dim of channels-last point sets), with the parameters,
running statistics and options of the dense layers they extend.

Example:
    >>> import dygraph
    >>> x = dygraph.sparse.sparse_coo_tensor([[0, 0], [0, 1], [0, 0], [0, 0]],
    ...                                      [[1.0], [3.0]], [1, 2, 1, 1, 1])
    >>> dygraph.sparse.nn.BatchNorm(1)(x).values().numpy().round(3).tolist()
    [[-1.0], [1.0]]
"""

from dygraph.framework.errors import op_error
from dygraph.nn import functional as F
from dygraph.nn.layer import norm as _dense
from dygraph.sparse.formats import check_sparse

__all__ = ["BatchNorm", "SyncBatchNorm"]

_FORMATS = ("NDHWC", "NHWC")


def _values_of(x, op):
    x = check_sparse(x, op)
    if x._values.ndim != 2:
        raise op_error(op, f"expects a sparse tensor whose values are [nnz, C] (channels "
                       f"last, the only dense dim), got values of shape {x._values.shape}")
    return x


class BatchNorm(_dense.BatchNorm1D):
    """Batch norm over the stored values [nnz, C] of a sparse tensor: batch statistics in
    training mode (updating the running ones), running statistics in eval mode.

    Example:
        >>> import dygraph
        >>> dygraph.sparse.nn.BatchNorm(3)
        BatchNorm(num_features=3, momentum=0.9, epsilon=1e-05, data_format=NDHWC)
    """

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NDHWC", use_global_stats=None, name=None):
        if data_format not in _FORMATS:
            raise op_error("BatchNorm", f"data_format must be one of {_FORMATS}, got "
                           f"{data_format!r}")
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr,
                         data_format, use_global_stats, name)

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        x = _values_of(input, "BatchNorm")
        out = F.batch_norm(x._values, self._mean, self._variance, self.weight, self.bias,
                           training=self.training, momentum=self._momentum,
                           epsilon=self._epsilon, data_format="NC",
                           use_global_stats=self._use_global_stats)
        return x._with_values(out)


class SyncBatchNorm(_dense.SyncBatchNorm):
    """BatchNorm over the stored values of the sparse tensors of every process of a
    data-parallel job (one process: BatchNorm).

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_coo_tensor([[0, 1]], [[1.0], [3.0]], [2, 1])
        >>> dygraph.sparse.nn.SyncBatchNorm(1)(x).values().numpy().round(3).tolist()
        [[-1.0], [1.0]]
    """

    def forward(self, x):
        x = _values_of(x, "SyncBatchNorm")
        return x._with_values(super().forward(x._values))

    @classmethod
    def convert_sync_batchnorm(cls, layer):
        """Replace every sparse BatchNorm in `layer` (itself included) by a SyncBatchNorm
        with the same parameters and statistics; returns the converted layer.

        Example:
            >>> import dygraph
            >>> net = dygraph.nn.Sequential(dygraph.sparse.nn.BatchNorm(3))
            >>> type(dygraph.sparse.nn.SyncBatchNorm.convert_sync_batchnorm(net)[0]).__name__
            'SyncBatchNorm'
        """
        if isinstance(layer, BatchNorm):
            new = cls(layer._num_features, layer._momentum, layer._epsilon,
                      data_format=layer._data_format, name=layer._name)
            for attr in ("weight", "bias", "_mean", "_variance"):
                setattr(new, attr, getattr(layer, attr))
            return new
        for name, sub in list(layer._sub_layers.items()):
            layer._sub_layers[name] = cls.convert_sync_batchnorm(sub)
        return layer
