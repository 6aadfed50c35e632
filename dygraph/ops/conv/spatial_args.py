"""Argument handling shared by the conv and pooling ops: int-or-tuple sizes, Paddle's padding
forms, data formats (channels first or last).

Example:
    >>> conv_padding([1, 2], 2, False, (8, 8), (3, 3), (1, 1), (1, 1), 'conv2d')
    ((1, 1), (2, 2))
"""

from dygraph.framework.errors import op_error
from dygraph.tensor.tensor import Tensor

__all__ = ["ntuple", "channel_last", "conv_padding", "same_padding", "to_channels_first",
           "to_channels_last"]

_FORMATS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _as_int(v):
    return int(v.item()) if isinstance(v, Tensor) else int(v)


def ntuple(value, d, name, op):
    """An int or a sequence of d ints -> tuple of d ints.

    Example:
        >>> ntuple(2, 3, 'stride', 'conv3d')
        (2, 2, 2)
    """
    if isinstance(value, Tensor):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        if len(value) == 1:
            value = list(value) * d
        if len(value) != d:
            raise op_error(op, f"{name} must be an int or a list of {d} ints, got {value!r}")
        return tuple(_as_int(v) for v in value)
    try:
        return (_as_int(value),) * d
    except (TypeError, ValueError) as exc:
        raise op_error(op, f"{name} must be an int or a list of {d} ints, got {value!r}",
                       TypeError) from exc


def channel_last(data_format, d, op):
    """True for NLC/NHWC/NDHWC, False for NCL/NCHW/NCDHW; anything else is an error.

    Example:
        >>> channel_last('NHWC', 2, 'conv2d')
        True
    """
    first, last = _FORMATS[d]
    if data_format == first:
        return False
    if data_format == last:
        return True
    raise op_error(op, f"data_format must be '{first}' or '{last}', got {data_format!r}")


def same_padding(in_sizes, ksize, stride, dilation):
    """TensorFlow-style 'SAME': output ceil(in / stride), the extra pixel at the end.

    Example:
        >>> same_padding((6,), (3,), (2,), (1,))
        ((0, 1),)
    """
    pads = []
    for s, k, st, dil in zip(in_sizes, ksize, stride, dilation):
        out = -(-s // st)
        total = max((out - 1) * st + (k - 1) * dil + 1 - s, 0)
        pads.append((total // 2, total - total // 2))
    return tuple(pads)


def conv_padding(padding, d, last, in_sizes, ksize, stride, dilation, op):
    """Paddle's padding forms -> ((lo, hi),) * d.

    Accepts 'same'/'valid' (any case), an int, d ints (symmetric), 2*d ints
    (before/after per dim) and d + 2 pairs including zero pairs for batch and channels.
    """
    if isinstance(padding, str):
        mode = padding.upper()
        if mode == "VALID":
            return ((0, 0),) * d
        if mode == "SAME":
            return same_padding(in_sizes, ksize, stride, dilation)
        raise op_error(op, f"padding must be 'SAME', 'VALID', an int or a list, got {padding!r}")
    if isinstance(padding, Tensor):
        padding = padding.tolist()
    if isinstance(padding, (list, tuple)):
        if padding and all(isinstance(p, (list, tuple)) for p in padding):
            pairs = [tuple(_as_int(v) for v in p) for p in padding]
            if len(pairs) == d + 2 and all(len(p) == 2 for p in pairs):
                skip = (0, d + 1) if last else (0, 1)
                if any(pairs[i] != (0, 0) for i in skip):
                    raise op_error(op, f"padding {padding!r} pads the batch or channel dim; "
                                   "only spatial dims can be padded")
                spatial = [p for i, p in enumerate(pairs) if i not in skip]
                return _checked(tuple(spatial), op)
            if len(pairs) == d and all(len(p) == 2 for p in pairs):
                return _checked(tuple(pairs), op)
            raise op_error(op, f"padding {padding!r} must have {d + 2} (or {d}) pairs")
        values = [_as_int(v) for v in padding]
        if len(values) == 1:
            values = values * d
        if len(values) == d:
            return _checked(tuple((v, v) for v in values), op)
        if len(values) == 2 * d:
            return _checked(tuple((values[2 * i], values[2 * i + 1]) for i in range(d)), op)
        raise op_error(op, f"padding must have 1, {d} or {2 * d} ints, got {padding!r}")
    v = _as_int(padding)
    return _checked(((v, v),) * d, op)


def _checked(pads, op):
    if any(lo < 0 or hi < 0 for lo, hi in pads):
        raise op_error(op, f"padding must be non-negative, got {[list(p) for p in pads]}")
    return pads


def to_channels_first(x, d):
    """(N, *S, C) -> (N, C, *S) as a differentiable op.

    Example:
        >>> import dygraph
        >>> to_channels_first(dygraph.ones([1, 4, 5, 3]), 2).shape
        [1, 3, 4, 5]
    """
    from dygraph.ops.manipulation.shape import transpose

    return transpose(x, [0, d + 1] + list(range(1, d + 1)))


def to_channels_last(x, d):
    """(N, C, *S) -> (N, *S, C) as a differentiable op.

    Example:
        >>> import dygraph
        >>> to_channels_last(dygraph.ones([1, 3, 4, 5]), 2).shape
        [1, 4, 5, 3]
    """
    from dygraph.ops.manipulation.shape import transpose

    return transpose(x, [0] + list(range(2, d + 2)) + [1])
