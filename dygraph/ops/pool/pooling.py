"""Pooling ops of dygraph.nn.functional: max/avg pooling in 1-3 D, adaptive pooling.

Max pooling keeps the winning tap of every window; its gradient scatters to those taps and
the gradient of that scatter gathers from them, so double backward reuses the same kernels
(ops/pool/windows.py). Average pooling and its gradient are each other's adjoints likewise.
"""

from dygraph.autograd import grad_mode
from dygraph.autograd.backward_math import register
from dygraph.autograd.function import Op, apply
from dygraph.backend import get_array_module
from dygraph.framework.errors import UnsupportedDTypeError, op_error
from dygraph.ops.common import as_tensor
from dygraph.ops.conv.spatial_args import (
    channel_last,
    conv_padding,
    ntuple,
    to_channels_first,
    to_channels_last,
)
from dygraph.ops.pool.windows import (
    PoolGeometry,
    avg_divisor,
    avg_pool,
    avg_scatter,
    max_gather,
    max_mask,
    max_pool,
    max_scatter,
)
from dygraph.tensor.tensor import _new_tensor

__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d"]
NONDIFF = set()


class MaxPool(Op):
    """Max pooling; the winning taps are kept only when a gradient or a mask needs them."""

    attrs = ("geo", "need_arg")

    def __init__(self, geo, need_arg=True):
        self.geo, self.need_arg = geo, need_arg

    def forward(self, xp, x):
        y, self.arg = max_pool(xp, x, self.geo, self.need_arg)
        return y

    def backward(self, m, g):
        return (m.max_pool_scatter(g, self.arg, self.geo),)


class MaxScatter(Op):
    """The gradient of MaxPool as an op of its own (linear in g), for double backward."""

    attrs = ("geo",)

    def __init__(self, arg, geo):
        self.arg, self.geo = arg, geo

    def forward(self, xp, g):
        return max_scatter(xp, g, self.arg, self.geo)

    def backward(self, m, gg):
        return (m.max_pool_gather(gg, self.arg, self.geo),)


class MaxGather(MaxScatter):
    def forward(self, xp, gx):
        return max_gather(xp, gx, self.arg, self.geo)

    def backward(self, m, g):
        return (m.max_pool_scatter(g, self.arg, self.geo),)


class AvgPool(Op):
    attrs = ("divisor", "geo")

    complex_grad = "same"

    def __init__(self, geo, divisor):
        self.geo, self.divisor = geo, divisor

    def forward(self, xp, x):
        return avg_pool(xp, x, self.geo, self.divisor)

    def backward(self, m, g):
        return (m.avg_pool_scatter(g, self.geo, self.divisor),)


class AvgScatter(AvgPool):
    def forward(self, xp, g):
        return avg_scatter(xp, g, self.geo, self.divisor)

    def backward(self, m, gg):
        return (m.avg_pool(gg, self.geo, self.divisor),)


register("max_pool_scatter", array_fn=lambda xp: lambda g, arg, geo: max_scatter(xp, g, arg, geo),
         tensor_fn=lambda g, arg, geo: apply(MaxScatter(arg, geo), g))
register("max_pool_gather", array_fn=lambda xp: lambda g, arg, geo: max_gather(xp, g, arg, geo),
         tensor_fn=lambda g, arg, geo: apply(MaxGather(arg, geo), g))
register("avg_pool", array_fn=lambda xp: lambda g, geo, div: avg_pool(xp, g, geo, div),
         tensor_fn=lambda g, geo, div: apply(AvgPool(geo, div), g))
register("avg_pool_scatter", array_fn=lambda xp: lambda g, geo, div: avg_scatter(xp, g, geo, div),
         tensor_fn=lambda g, geo, div: apply(AvgScatter(geo, div), g))


def _input(x, d, data_format, op):
    x = as_tensor(x, op)
    last = channel_last(data_format, d, op)
    if x._data.ndim != d + 2:
        raise op_error(op, f"x must be {d + 2}-D ({data_format}), got shape {x.shape}")
    if x._data.dtype.kind != "f":
        raise op_error(op, f"x must be a float tensor, got {x._data.dtype}",
                       UnsupportedDTypeError)
    return (to_channels_first(x, d) if last else x), last


def _regular(x, d, kernel_size, stride, padding, ceil_mode, last, op):
    ksize = ntuple(kernel_size, d, "kernel_size", op)
    stride = ksize if stride is None else ntuple(stride, d, "stride", op)
    if min(ksize) < 1 or min(stride) < 1:
        raise op_error(op, f"kernel_size {list(ksize)} and stride {list(stride)} must be "
                       "positive")
    in_sizes = x._data.shape[2:]
    pads = conv_padding(padding, d, last, in_sizes, ksize, stride, (1,) * d, op)
    geo = PoolGeometry.regular(in_sizes, ksize, stride, pads, ceil_mode)
    if min(geo.out_sizes) < 1:
        raise op_error(op, f"the output would be empty: input size {list(in_sizes)} with "
                       f"padding {[list(p) for p in pads]} is smaller than the kernel "
                       f"{list(ksize)}")
    return geo


def _with_mask(x, op_obj, y, return_mask, last, d):
    if last:
        y = to_channels_last(y, d)
    if not return_mask:
        return y
    xp = get_array_module(x._data)
    return y, _new_tensor(max_mask(xp, op_obj.arg, op_obj.geo), None, 0, True)


def _max_pool(x, kernel_size, stride, padding, return_mask, ceil_mode, data_format, d, op):
    x, last = _input(x, d, data_format, op)
    if return_mask and last:
        raise op_error(op, "return_mask=True needs channels-first data_format, got "
                       f"{data_format!r}")
    geo = _regular(x, d, kernel_size, stride, padding, ceil_mode, last, op)
    pool = MaxPool(geo, _need_arg(x, return_mask))
    return _with_mask(x, pool, apply(pool, x), return_mask, last, d)


def _need_arg(x, return_mask):
    return return_mask or (grad_mode.state.grad_on and not x._sg)


def _avg_pool(x, kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
              data_format, d, op):
    x, last = _input(x, d, data_format, op)
    geo = _regular(x, d, kernel_size, stride, padding, ceil_mode, last, op)
    y = apply(AvgPool(geo, avg_divisor(geo, exclusive, divisor_override)), x)
    return to_channels_last(y, d) if last else y


def _adaptive_geometry(x, output_size, d, op):
    in_sizes = x._data.shape[2:]
    if isinstance(output_size, (list, tuple)):
        output_size = [s if s is not None else in_sizes[i] for i, s in enumerate(output_size)]
    out = ntuple(output_size, d, "output_size", op)
    if min(out) < 1:
        raise op_error(op, f"output_size must be positive, got {list(out)}")
    return PoolGeometry.adaptive(in_sizes, out)


def _adaptive_max(x, output_size, return_mask, d, op):
    x, _ = _input(x, d, _FIRST[d], op)
    pool = MaxPool(_adaptive_geometry(x, output_size, d, op), _need_arg(x, return_mask))
    return _with_mask(x, pool, apply(pool, x), return_mask, False, d)


def _adaptive_avg(x, output_size, data_format, d, op):
    x, last = _input(x, d, data_format, op)
    geo = _adaptive_geometry(x, output_size, d, op)
    y = apply(AvgPool(geo, avg_divisor(geo, True, None)), x)
    return to_channels_last(y, d) if last else y


_FIRST = {1: "NCL", 2: "NCHW", 3: "NCDHW"}


def max_pool1d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               name=None):
    """Max over windows of x (N, C, L); with return_mask also the flat index of each max.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.max_pool1d(dygraph.to_tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2).numpy()
        array([[[3., 2.]]], dtype=float32)
    """
    return _max_pool(x, kernel_size, stride, padding, return_mask, ceil_mode, "NCL", 1,
                     "max_pool1d")


def max_pool2d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               data_format="NCHW", name=None):
    """Max over kernel_size windows (stride defaults to kernel_size). Ties give the first.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x = dygraph.arange(16, dtype='float32').reshape([1, 1, 4, 4])
        >>> F.max_pool2d(x, 2).numpy()[0, 0]
        array([[ 5.,  7.],
               [13., 15.]], dtype=float32)
    """
    return _max_pool(x, kernel_size, stride, padding, return_mask, ceil_mode, data_format, 2,
                     "max_pool2d")


def max_pool3d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               data_format="NCDHW", name=None):
    """Max over windows of x (N, C, D, H, W).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.max_pool3d(dygraph.ones([1, 1, 4, 4, 4]), 2).shape
        [1, 1, 2, 2, 2]
    """
    return _max_pool(x, kernel_size, stride, padding, return_mask, ceil_mode, data_format, 3,
                     "max_pool3d")


def avg_pool1d(x, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False,
               name=None):
    """Mean over windows of x (N, C, L); exclusive=True leaves padding out of the count.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.avg_pool1d(dygraph.to_tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2).numpy()
        array([[[2., 1.]]], dtype=float32)
    """
    return _avg_pool(x, kernel_size, stride, padding, ceil_mode, exclusive, None, "NCL", 1,
                     "avg_pool1d")


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCHW", name=None):
    """Mean over kernel_size windows; divisor_override replaces the window count.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x = dygraph.arange(16, dtype='float32').reshape([1, 1, 4, 4])
        >>> F.avg_pool2d(x, 2).numpy()[0, 0]
        array([[ 2.5,  4.5],
               [10.5, 12.5]], dtype=float32)
    """
    return _avg_pool(x, kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
                     data_format, 2, "avg_pool2d")


def avg_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCDHW", name=None):
    """Mean over windows of x (N, C, D, H, W).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.avg_pool3d(dygraph.ones([1, 1, 2, 2, 2]), 2).numpy().ravel()
        array([1.], dtype=float32)
    """
    return _avg_pool(x, kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
                     data_format, 3, "avg_pool3d")


def adaptive_max_pool1d(x, output_size, return_mask=False, name=None):
    """Max over output_size bins covering x (N, C, L): bin i is [floor(iL/O), ceil((i+1)L/O)).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.adaptive_max_pool1d(dygraph.to_tensor([[[1.0, 3.0, 2.0]]]), 2).numpy()
        array([[[3., 3.]]], dtype=float32)
    """
    return _adaptive_max(x, output_size, return_mask, 1, "adaptive_max_pool1d")


def adaptive_max_pool2d(x, output_size, return_mask=False, name=None):
    """Max over an output_size grid of bins (None in output_size keeps that input size).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.adaptive_max_pool2d(dygraph.ones([1, 3, 5, 7]), [2, 3]).shape
        [1, 3, 2, 3]
    """
    return _adaptive_max(x, output_size, return_mask, 2, "adaptive_max_pool2d")


def adaptive_max_pool3d(x, output_size, return_mask=False, name=None):
    """Max over an output_size grid of bins of x (N, C, D, H, W).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.adaptive_max_pool3d(dygraph.ones([1, 1, 4, 4, 4]), 1).shape
        [1, 1, 1, 1, 1]
    """
    return _adaptive_max(x, output_size, return_mask, 3, "adaptive_max_pool3d")


def adaptive_avg_pool1d(x, output_size, name=None):
    """Mean over output_size bins covering x (N, C, L).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.adaptive_avg_pool1d(dygraph.to_tensor([[[1.0, 3.0, 2.0]]]), 2).numpy()
        array([[[2. , 2.5]]], dtype=float32)
    """
    return _adaptive_avg(x, output_size, "NCL", 1, "adaptive_avg_pool1d")


def adaptive_avg_pool2d(x, output_size, data_format="NCHW", name=None):
    """Mean over an output_size grid of bins; output_size 1 is global average pooling.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.adaptive_avg_pool2d(dygraph.ones([2, 3, 7, 7]), 1).shape
        [2, 3, 1, 1]
    """
    return _adaptive_avg(x, output_size, data_format, 2, "adaptive_avg_pool2d")


def adaptive_avg_pool3d(x, output_size, data_format="NCDHW", name=None):
    """Mean over an output_size grid of bins of x (N, C, D, H, W).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.adaptive_avg_pool3d(dygraph.ones([1, 1, 4, 4, 4]), 2).shape
        [1, 1, 2, 2, 2]
    """
    return _adaptive_avg(x, output_size, data_format, 3, "adaptive_avg_pool3d")
