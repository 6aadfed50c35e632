"""Building a conv Geometry in tests from Paddle-style arguments (ints for every dim)."""

from dygraph.ops.conv.im2col import Geometry


def geometry(stride, padding, dilation, groups, d):
    """Geometry of a d-dim conv: stride and dilation an int or a tuple per dim; padding an
    int or ((low, high), ...) per dim."""
    pads = padding if isinstance(padding, tuple) else ((padding, padding),) * d
    return Geometry((stride,) * d if isinstance(stride, int) else stride,
                    (dilation,) * d if isinstance(dilation, int) else dilation, pads, groups)
