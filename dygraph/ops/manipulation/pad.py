"""pad: constant, reflect, replicate and circular padding with Paddle's argument layout.

Constant padding is one op that writes x into a filled array (its gradient is a slice).
The other modes are gathers: each padded dim picks source positions (np.pad of an arange
gives them), so the gradient scatter-adds back and double backward comes for free.
"""

import builtins

import numpy as np

from dygraph.autograd.function import Op, apply
from dygraph.framework.errors import AssertedValueError, op_error
from dygraph.ops.common import as_tensor
from dygraph.ops.manipulation.args import int_list, xp_of
from dygraph.ops.manipulation.indexing import GetItem

__all__ = ["pad", "zeropad2d"]

_NUMPY_MODE = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


class ConstantPad(Op):
    attrs = ("value", "widths")

    complex_grad = "same"

    def __init__(self, widths, value):
        self.widths, self.value = widths, value

    def forward(self, xp, x):
        shape = tuple(n + a + b for n, (a, b) in zip(x.shape, self.widths))
        out = xp.full(shape, self.value, dtype=x.dtype)
        self.inner = tuple(builtins.slice(a, a + n) for n, (a, _) in zip(x.shape, self.widths))
        out[self.inner] = x
        return out

    def backward(self, m, g):
        return (m.getitem(g, self.inner),)


def _widths(pad_list, nd, data_format, op):
    """Per-dim (before, after) pairs from Paddle's pad list."""
    if len(pad_list) % 2:
        raise op_error(op, f"pad must have an even length, got {pad_list}")
    if len(pad_list) == 2 * nd:
        # As many pairs as dims: they apply from the first dim on.
        return [(pad_list[2 * d], pad_list[2 * d + 1]) for d in range(nd)]
    spatial = nd - 2
    if spatial < 1 or len(pad_list) != 2 * spatial:
        raise op_error(op, f"pad {pad_list} (length {len(pad_list)}) does not fit a tensor of "
                       f"{nd} dims: give 2*{nd} values for every dim, or 2*{max(spatial, 1)} "
                       "for the spatial dims of a 3-D, 4-D or 5-D input")
    fmt = str(data_format).upper()
    if fmt not in ("NCL", "NLC", "NCHW", "NHWC", "NCDHW", "NDHWC"):
        raise op_error(op, f"data_format must be one of NCL, NLC, NCHW, NHWC, NCDHW, NDHWC; "
                       f"got {data_format!r}")
    first = 1 if fmt.endswith("C") else 2  # first spatial dim
    widths = [(0, 0)] * nd
    # Pairs run from the last spatial dim backwards: (left, right, top, bottom, front, back).
    for i in range(spatial):
        widths[first + spatial - 1 - i] = (pad_list[2 * i], pad_list[2 * i + 1])
    return widths


def pad(x, pad, mode="constant", value=0.0, data_format="NCHW", name=None):
    """Pad x. With len(pad) == 2 * x.ndim the pairs pad every dim from the first; otherwise
    pad holds (left, right[, top, bottom[, front, back]]) for the spatial dims of a 3/4/5-D
    input in `data_format`. mode: 'constant' (fill with value), 'reflect', 'replicate' or
    'circular'.

    Example:
        >>> import dygraph
        >>> dygraph.pad(dygraph.to_tensor([[1.0, 2.0]]), [0, 0, 1, 1]).numpy()
        array([[0., 1., 2., 0.]], dtype=float32)
        >>> x = dygraph.to_tensor([[[1.0, 2.0, 3.0]]])
        >>> dygraph.pad(x, [2, 1], mode='reflect', data_format='NCL').numpy()
        array([[[3., 2., 1., 2., 3., 2.]]], dtype=float32)
    """
    x = as_tensor(x, "pad")
    if mode != "constant" and mode not in _NUMPY_MODE:  # Paddle asserts the mode
        raise op_error("pad", f"mode must be 'constant', 'reflect', 'replicate' or "
                       f"'circular', got {mode!r}", AssertedValueError)
    nd = x._data.ndim
    pad_list = int_list(pad, "pad", "pad")
    widths = _widths(pad_list, nd, data_format, "pad")
    if any(a < 0 or b < 0 for a, b in widths):
        raise op_error("pad", f"pad values must be >= 0, got {pad_list}")
    if mode == "constant":
        return apply(ConstantPad(tuple(widths), value), x)
    xp = xp_of(x._data)
    out = x
    for d, (a, b) in enumerate(widths):
        if not a and not b:
            continue
        n = x._data.shape[d]
        limit = n - 1 if mode == "reflect" else n
        if n == 0 or max(a, b) > limit:
            raise op_error("pad", f"{mode} padding of ({a}, {b}) is too large for dim {d} of "
                           f"size {n} (x shape {x.shape}); at most {limit} per side")
        src = np.pad(np.arange(n), (a, b), mode=_NUMPY_MODE[mode])
        out = apply(GetItem((builtins.slice(None),) * d + (xp.asarray(src),)), out)
    return out if out is not x else apply(ConstantPad(tuple(widths), 0), x)


def zeropad2d(x, padding, data_format="NCHW", name=None):
    """Zero padding of H and W; padding is [left, right, top, bottom] (or an int).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.zeropad2d(dygraph.ones([1, 1, 1, 1]), [1, 0, 0, 1]).numpy()
        array([[[[0., 1.],
                 [0., 0.]]]], dtype=float32)
    """
    if isinstance(padding, (int, np.integer)):
        padding = [int(padding)] * 4
    return pad(x, padding, mode="constant", value=0.0, data_format=data_format)
