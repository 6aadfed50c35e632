"""SyncBatchNorm and SpectralNorm.

SyncBatchNorm is BatchNorm whose batch statistics, while training under an initialised
dygraph.distributed job of several ranks, are the statistics of the whole global batch: each
rank's per-channel sum, sum of squares and count go through one all_reduce, which is
differentiable (its backward all-reduces the gradient), so every rank's gradient includes
the other ranks' terms. On one process it is BatchNorm.
"""

import numpy as np

from dygraph import ops as P
from dygraph.autograd import grad_mode
from dygraph.framework.errors import op_error
from dygraph.nn.functional._device import const
from dygraph.nn.initializer import Normal
from dygraph.nn.layer.layers import Layer
from dygraph.nn.layer.norm import _BatchNormBase

__all__ = ["SyncBatchNorm", "SpectralNorm"]


def _world():
    from dygraph import distributed

    if not distributed.is_initialized():
        return 1
    return distributed.get_world_size()


class SyncBatchNorm(_BatchNormBase):
    """Batch norm over the global batch of a data-parallel job (see the module doc).

    Example:
        >>> import dygraph
        >>> bn = dygraph.nn.SyncBatchNorm(2)
        >>> bn(dygraph.to_tensor([[1.0, 2.0], [3.0, 6.0]])).numpy().round(3)
        array([[-1., -1.],
               [ 1.,  1.]], dtype=float32)
    """

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCHW", name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         None, name)

    def forward(self, x):
        if not self.training or _world() == 1:
            return super().forward(x)
        return self._synced(x)

    def _synced(self, x):
        from dygraph import distributed

        nd = x.ndim
        channel = nd - 1 if self._data_format[-1] == "C" and nd > 2 else 1
        axes = [a for a in range(nd) if a != channel]
        count = float(np.prod([x.shape[a] for a in axes]))
        stats = P.concat([P.sum(x, axis=axes), P.sum(x * x, axis=axes),
                          const([count], x)])
        distributed.all_reduce(stats)
        c = self._num_features
        total = stats[2 * c]
        mean, mean_sq = stats[:c] / total, stats[c:2 * c] / total
        var = mean_sq - mean * mean
        shape = [1] * nd
        shape[channel] = c
        out = (x - P.reshape(mean, shape)) * P.reshape(P.rsqrt(var + self._epsilon), shape)
        if self.weight is not None:
            out = out * P.reshape(self.weight, shape)
        if self.bias is not None:
            out = out + P.reshape(self.bias, shape)
        m = self._momentum
        with grad_mode.no_grad():
            for running, batch in ((self._mean, mean), (self._variance, var)):
                running.set_value(running.numpy() * m + batch.numpy() * (1.0 - m))
        return out

    @classmethod
    def convert_sync_batchnorm(cls, layer):
        """Replace every BatchNorm*D in `layer` (itself included) by a SyncBatchNorm with the
        same parameters and statistics; returns the converted layer.

        Example:
            >>> import dygraph
            >>> net = dygraph.nn.Sequential(dygraph.nn.BatchNorm2D(3))
            >>> type(dygraph.nn.SyncBatchNorm.convert_sync_batchnorm(net)[0]).__name__
            'SyncBatchNorm'
        """
        if isinstance(layer, _BatchNormBase) and not isinstance(layer, SyncBatchNorm):
            new = cls(layer._num_features, layer._momentum, layer._epsilon,
                      data_format=layer._data_format, name=layer._name)
            for attr in ("weight", "bias", "_mean", "_variance"):
                if getattr(layer, attr, None) is not None:
                    setattr(new, attr, getattr(layer, attr))
            return new
        for name, sub in list(layer._sub_layers.items()):
            layer._sub_layers[name] = cls.convert_sync_batchnorm(sub)
        return layer


class SpectralNorm(Layer):
    """Divide a weight by its largest singular value, estimated by power iteration from the
    vectors weight_u, weight_v (the weight reshaped to a matrix with dim `dim` first).

    As in Paddle, weight_u and weight_v are not updated by the call, and the estimated
    singular vectors are treated as constants in the gradient.

    Example:
        >>> import dygraph
        >>> sn = dygraph.nn.SpectralNorm([2, 2], power_iters=20)
        >>> sn(dygraph.to_tensor([[2.0, 0.0], [0.0, 1.0]])).numpy().round(3)
        array([[1. , 0. ],
               [0. , 0.5]], dtype=float32)
    """

    def __init__(self, weight_shape, dim=0, power_iters=1, eps=1e-12, dtype="float32"):
        super().__init__(dtype=dtype)
        self._weight_shape = [int(s) for s in weight_shape]
        if not self._weight_shape or min(self._weight_shape) <= 0:
            raise op_error("SpectralNorm", f"weight_shape must have positive dims, got "
                           f"{self._weight_shape}")
        if not -len(self._weight_shape) <= dim < len(self._weight_shape):
            raise op_error("SpectralNorm", f"dim {dim} is out of range for weight_shape "
                           f"{self._weight_shape}")
        self._dim, self._power_iters, self._eps = dim % len(self._weight_shape), power_iters, eps
        h = self._weight_shape[self._dim]
        w = int(np.prod(self._weight_shape)) // h
        self.weight_u = self.create_parameter([h], dtype=dtype, default_initializer=Normal())
        self.weight_v = self.create_parameter([w], dtype=dtype, default_initializer=Normal())
        self.weight_u.stop_gradient = True
        self.weight_v.stop_gradient = True

    def forward(self, x):
        if list(x.shape) != self._weight_shape:
            raise op_error("SpectralNorm", f"expects a weight of shape {self._weight_shape}, "
                           f"got {list(x.shape)}")
        perm = [self._dim] + [a for a in range(x.ndim) if a != self._dim]
        mat = P.reshape(P.transpose(x, perm), [self._weight_shape[self._dim], -1])
        w = np.asarray(mat.numpy(), dtype=np.float64)
        u = np.asarray(self.weight_u.numpy(), dtype=np.float64)
        v = np.asarray(self.weight_v.numpy(), dtype=np.float64)
        for _ in range(self._power_iters):
            v = w.T @ u
            v /= np.linalg.norm(v) + self._eps
            u = w @ v
            u /= np.linalg.norm(u) + self._eps
        outer = const(np.outer(u, v), x)
        sigma = P.sum(mat * outer)
        return x / sigma

    def extra_repr(self):
        return (f"weight_shape={self._weight_shape}, dim={self._dim}, "
                f"power_iters={self._power_iters}, eps={self._eps}")
