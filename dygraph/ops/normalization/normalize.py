"""The op behind batch_norm, layer_norm, group_norm and instance_norm
(ops/normalization/norms.py): y = (x - mean) / sqrt(var + eps) * weight + bias, with the
statistics taken over some axes of x (or fixed, as batch_norm's running statistics in eval
mode). Its gradient is the closed form

    dx = rstd * (g' - mean(g') - xhat * mean(g' * xhat)),   g' = g * weight

written with `m.`, so the gradient of the gradient comes for free. Faster paths, chosen per
call: layer norm's rows (layer_rows.py), cuDNN on a GPU, compiled kernels on the CPU, and
per-channel statistics as BLAS products (sums.py).
"""

import math

import numpy as np

from dygraph.autograd.function import Op
from dygraph.backend import compiled, cudnn, get_array_module
from dygraph.backend.workspace import workspace
from dygraph.ops.normalization import layer_rows
from dygraph.ops.normalization.sums import axis_dots, axis_sums

__all__ = ["Normalize", "BLAS_FLOATS"]

# Dtypes whose statistics are sums in BLAS products (ops/normalization/sums.py);
# float16/bfloat16 keep NumPy's mean, which accumulates in float32.
BLAS_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


class Normalize(Op):
    """Standardize x over `axes` of x viewed as `nshape` (None: x's own shape; a -1 in it,
    never the batch size, so that static programs keep a free batch), then scale and shift
    by w and b (broadcast as `pshape`). `fixed` = (mean, rstd) arrays replace the batch
    statistics.

    Example:
        >>> import dygraph
        >>> from dygraph.autograd.function import apply
        >>> x = dygraph.to_tensor([[1.0, 3.0]])
        >>> apply(Normalize((1,), 0.0, (1, 2), (1, 2)), x).numpy()
        array([[-1.,  1.]], dtype=float32)
    """

    attrs = ("axes", "eps", "fixed", "pshape", "template")

    save_inputs = True

    def __init__(self, axes, eps, nshape, pshape, fixed=None):
        self.axes, self.eps, self.template, self.pshape, self.fixed = (
            axes, eps, nshape, pshape, fixed)

    def _trailing_rows(self, x):
        """The size n of the normalized trailing axes when this is a layer norm (statistics
        and parameters over the same trailing axes, float32/64 data), else 0."""
        k = len(self.axes)
        if (self.template is not None or self.fixed is not None or x.dtype not in BLAS_FLOATS
                or self.axes != tuple(range(x.ndim - k, x.ndim))
                or tuple(self.pshape) != (1,) * (x.ndim - k) + x.shape[x.ndim - k:]):
            return 0
        return math.prod(x.shape[x.ndim - k:])

    def _forward_rows(self, xp, x, w, b, n):
        """Layer norm on x as [rows, n] (ops/normalization/layer_rows.py)."""
        y, self.xhat, self.rstd = layer_rows.forward(xp, x, w, b, n, self.eps)
        return y

    def _backward_rows(self, xp, g, w):
        """dx, dw, db of `_forward_rows` on arrays."""
        b_shape = self.inputs[2]._data.shape if len(self.edges) > 2 else None
        return layer_rows.backward(xp, g, self.xhat, self.rstd, w, self.edges, self.shape,
                                   b_shape)

    def forward(self, xp, x, w=None, b=None):
        self.shape = x.shape
        self.rows = self._trailing_rows(x)
        if self.rows:
            self.nshape = x.shape
            return self._forward_rows(xp, x, w, b, self.rows)
        xs = x if self.template is None else x.reshape(self.template)
        self.nshape = xs.shape  # this run's (resolves a -1)
        self.stats = self.cudnn_stats = None
        axis = self._channel_axis(x) if xp is not np and self.fixed is None else None
        if axis is not None:
            y = self._forward_cudnn(xp, x, w, b, axis)
            if y is not None:
                return y
        kernel = self._compiled(xp, x)
        if kernel is not None:
            return self._forward_compiled(kernel, x, w, b)
        if self.fixed is None:
            blas_floats = x.dtype in BLAS_FLOATS
            if blas_floats:
                # Channel sums as products with ones (ops/normalization/sums.py): several
                # times faster than NumPy's reductions over (0, 2, 3).
                n = float(self.count)
                mean = axis_sums(xp, xs, self.axes) / n
                xhat = xp.subtract(xs, mean, out=workspace.result(xp, xs.shape, xs.dtype))
                var = axis_dots(xp, xhat, xhat, self.axes) / n
            else:  # float16/bfloat16: NumPy's mean keeps float32 sums
                mean = xs.mean(axis=self.axes, keepdims=True)
                xhat = xs - mean
                var = xp.mean(xhat * xhat, axis=self.axes, keepdims=True)
            rstd = (1.0 / xp.sqrt(var + self.eps)).astype(x.dtype, copy=False)
            self.batch_mean, self.batch_var = mean, var
            if blas_floats and self._per_channel():
                return self._scale_centered(xp, xhat, rstd, w, b)
            xhat *= rstd
        else:
            mean, rstd = self.fixed
            xhat = (xs - mean) * rstd
        self.xhat, self.rstd, self.centered = xhat, rstd, None
        y = xhat.reshape(x.shape)
        y = y * w.reshape(self.pshape) if w is not None else y.copy()
        if b is not None:
            y += b.reshape(self.pshape)
        return y

    def _channel_axis(self, x):
        """The channel axis of a batch norm (statistics over every other axis, per-channel
        parameters), else None."""
        if self.template is not None or len(self.axes) != x.ndim - 1 or not self._per_channel():
            return None
        return next(i for i in range(x.ndim) if i not in self.axes)

    def _forward_cudnn(self, xp, x, w, b, axis):
        """Batch norm on batch statistics by cuDNN on CuPy arrays (dygraph/backend/cudnn/),
        None where it does not run it. Backward reads cuDNN's float32 mean and rstd (neither
        xhat nor x - mean is kept)."""
        out = cudnn.batch_norm(xp, x, w, b, self.eps, axis)
        if out is None:
            return None
        y, mean, rstd = out
        self.cudnn_stats, self.xhat, self.centered = (mean, rstd, axis), None, None
        # In x's dtype and the parameters' shape only where read (_statistics_from_cudnn):
        # the running statistics' update (running.updated_statistics) takes cuDNN's arrays
        # as they are.
        self.batch_mean = self.rstd = self.batch_var = None
        self.dtype = x.dtype
        return y

    def _statistics_from_cudnn(self, xp):
        """batch_mean, rstd and batch_var from cuDNN's float32 mean and rstd."""
        if self.batch_mean is None:
            mean, rstd, _ = self.cudnn_stats
            var = cudnn.batch_variance(xp, rstd, self.eps)
            self.batch_mean, self.rstd, self.batch_var = (
                s.astype(self.dtype).reshape(self.pshape) for s in (mean, rstd, var))

    def _backward_cudnn(self, m, g, w):
        """dx, dw, db of a cuDNN forward by cuDNN, None where it does not run them."""
        mean, rstd, axis = self.cudnn_stats
        out = cudnn.batch_norm_grads(m.xp, g, m.data(self.x(0, m)), w, mean, rstd, axis)
        if out is None:
            return None
        e = self.edges
        grads = [out[0] if e[0] is not None else None] + [None] * (len(e) - 1)
        if w is not None and e[1] is not None:
            grads[1] = _as_array(out[1], g.dtype, w.shape)
        if len(e) > 2 and e[2] is not None:
            grads[2] = _as_array(out[2], g.dtype, self.inputs[2]._data.shape)
        return tuple(grads)

    def _compiled(self, xp, x):
        """The compiled batch norm (dygraph.kernels.numba.batch_norm) when it takes this op: batch
        statistics over every axis but the channels' (axis 1), per-channel parameters."""
        if self.fixed is not None or self.template is not None or not self._per_channel():
            return None
        kernel = compiled.kernels("batch_norm", xp, x)
        return kernel if kernel is not None and kernel.fits(x, self.axes) else None

    def _forward_compiled(self, kernel, x, w, b):
        """Batch norm in two passes over x; backward reads x and the float64 statistics
        (neither xhat nor x - mean is kept)."""
        y, mean, var = kernel.forward(x, None if w is None else w.reshape(-1),
                                      None if b is None else b.reshape(-1), self.eps)
        rstd = 1.0 / np.sqrt(var + self.eps)
        self.stats = (mean, rstd)
        self.xhat = self.centered = None
        self.rstd = rstd.astype(x.dtype).reshape(self.pshape)
        self.batch_mean = mean.astype(x.dtype).reshape(self.pshape)
        self.batch_var = var.astype(x.dtype).reshape(self.pshape)
        return y

    def _backward_compiled(self, kernel, m, g, w):
        """dx, dw, db from the compiled kernel's two passes over g and x."""
        e = self.edges
        mean, rstd = self.stats
        dx, sum_g, sum_gx = kernel.backward(g, self.x(0, m), mean, rstd,
                                            None if w is None else w.reshape(-1),
                                            e[0] is not None)
        grads = [dx] + [None] * (len(e) - 1)
        if w is not None and e[1] is not None:
            grads[1] = sum_gx.astype(g.dtype).reshape(w.shape)
        if len(e) > 2 and e[2] is not None:
            grads[2] = sum_g.astype(g.dtype).reshape(self.inputs[2]._data.shape)
        return tuple(grads)

    def _scale_centered(self, xp, centered, rstd, w, b):
        """y = (x - mean) * (rstd * w) + b with per-channel factors: xhat is never formed
        (a pass fewer over x); backward reads x - mean and folds rstd into its own
        per-channel factors."""
        self.xhat, self.rstd, self.centered = None, rstd, centered
        scale = rstd if w is None else rstd * w.reshape(self.pshape)
        y = xp.multiply(centered, scale, out=workspace.result(xp, self.shape, centered.dtype))
        if b is not None:
            y += b.reshape(self.pshape)
        return y

    def _recompute(self, m):
        """xhat and rstd as functions of x, so that create_graph differentiates through them."""
        xs = m.reshape(self.x(0, m), self.nshape)
        if self.fixed is not None:
            mean, rstd = self.fixed
            return (xs - mean) * rstd, rstd
        n = float(self.count)
        xc = xs - m.sum(xs, axis=self.axes, keepdims=True) / n
        rstd = 1.0 / m.sqrt(m.sum(xc * xc, axis=self.axes, keepdims=True) / n + self.eps)
        return xc * rstd, rstd

    @property
    def count(self):
        return math.prod(self.nshape[a] for a in self.axes)

    def _per_channel(self):
        """True when weight and bias are constant over the normalized axes (batch and
        instance norm): then the sums the gradient needs are shared between dx, dw and db."""
        return self.nshape == self.shape and all(self.pshape[a] == 1 for a in self.axes)

    def _backward_per_channel(self, g, w):
        """Plain-backward form of the gradient with the weight taken out of the sums:
        7 passes over x instead of 11 (the general formula stays for create_graph)."""
        e, n = self.edges, float(self.count)
        xp = get_array_module(g)
        # xhat = base * fold: the forward kept either xhat or x - mean (and rstd).
        base, fold = (self.xhat, 1.0) if self.centered is None else (self.centered, self.rstd)
        if g.dtype in BLAS_FLOATS and g.shape == base.shape:
            sum_g = axis_sums(xp, g, self.axes)
            # sum(g * base) as sum((g - mean(g)) * base): equal for base = x - mean, which
            # sums to 0, and for base = x minus the mean rounded to x's dtype (what the
            # forward has) still sum(g * (x - mean)), where sum(g * base) is off by the
            # rounding times sum(g): a float32 weight gradient then errs far more than its
            # sum does.
            centered_g = xp.subtract(g, sum_g / n, out=workspace.take(xp, g.shape, g.dtype))
            sum_gx = axis_dots(xp, centered_g, base, self.axes) * fold
            workspace.give(centered_g)
        else:
            sum_g = g.sum(axis=self.axes, keepdims=True)
            sum_gx = (g * base).sum(axis=self.axes, keepdims=True) * fold
        grads = [None] * len(e)
        if e[0] is not None:
            scale = self.rstd if w is None else self.rstd * w.reshape(self.pshape)
            dx = xp.multiply(base, sum_gx * (fold / n),
                             out=workspace.result(xp, base.shape, base.dtype))
            dx -= g
            dx += sum_g / n
            dx *= -scale
            grads[0] = dx
        rest = tuple(i for i, s in enumerate(self.pshape) if s == 1 and i not in self.axes)
        if w is not None and e[1] is not None:
            grads[1] = sum_gx.sum(axis=rest).reshape(w.shape)
        if len(e) > 2 and e[2] is not None:
            grads[2] = sum_g.sum(axis=rest).reshape(self.inputs[2]._data.shape)
        return tuple(grads)

    def backward(self, m, g):
        e = self.edges
        w = self.x(1, m) if len(e) > 1 and self.inputs[1] is not None else None
        if not m.tensor_mode and self.rows:
            return self._backward_rows(m.xp, g, w)
        if not m.tensor_mode and self.fixed is None and self._per_channel():
            if self.cudnn_stats is not None:
                grads = self._backward_cudnn(m, g, w)
                if grads is not None:
                    return grads
            elif self.stats is not None:
                kernel = compiled.kernels("batch_norm", m.xp, g, m.data(self.x(0, m)))
                if kernel is not None:
                    return self._backward_compiled(kernel, m, g, w)
            if self.xhat is None and self.centered is None:
                # The kernels turned off since the forward, or cuDNN declined the backward:
                # the NumPy path's x - mean.
                if self.cudnn_stats is not None:
                    self._statistics_from_cudnn(m.xp)
                self.centered = m.data(self.x(0, m)) - self.batch_mean
            return self._backward_per_channel(g, w)
        xhat, rstd = self._recompute(m) if m.tensor_mode else (self.xhat, self.rstd)
        grads = [None] * len(e)
        if e[0] is not None:
            gh = m.reshape(g * m.reshape(w, self.pshape) if w is not None else g, self.nshape)
            if self.fixed is not None:
                grads[0] = m.reshape(gh * rstd, self.shape)
            else:
                n = float(self.count)
                mg = m.sum(gh, axis=self.axes, keepdims=True) / n
                mgx = m.sum(gh * xhat, axis=self.axes, keepdims=True) / n
                grads[0] = m.reshape((gh - mg - xhat * mgx) * rstd, self.shape)
        param_axes = tuple(i for i, s in enumerate(self.pshape) if s == 1)
        if w is not None and e[1] is not None:
            prod = g * m.reshape(xhat, self.shape)
            grads[1] = m.reshape(m.sum(prod, axis=param_axes), m.data(w).shape)
        if len(e) > 2 and e[2] is not None:
            # (inputs[2] is the bias Tensor, or in a static program its Slot)
            grads[2] = m.reshape(m.sum(g, axis=param_axes), self.inputs[2]._data.shape)
        return tuple(grads)


def _as_array(a, dtype, shape):
    """`a` in `dtype` and `shape`, with no call where it has them (on a GPU each call, a
    view's too, costs microseconds of host time)."""
    if a.dtype != dtype:
        a = a.astype(dtype)
    return a if a.shape == tuple(shape) else a.reshape(shape)
