"""Fan-scaled initializers: XavierNormal, XavierUniform, KaimingNormal, KaimingUniform.

Fans follow Paddle (see `compute_fans`): a Linear weight is [in, out]; a conv kernel is
[out_channels, in_channels, *kernel], so both fans include the receptive field size.

Example:
    >>> import dygraph
    >>> from dygraph.nn.initializer import XavierUniform
    >>> w = XavierUniform()(dygraph.zeros([30, 70])).numpy()   # limit sqrt(6 / 100)
    >>> bool(abs(w).max() <= 0.245)
    True
"""

import math

from dygraph.nn.initializer.base import (
    Initializer,
    calculate_gain,
    compute_fans,
    draw_normal,
    draw_uniform,
)

__all__ = ["XavierNormal", "XavierUniform", "KaimingNormal", "KaimingUniform"]


class _FanInitializer(Initializer):
    def __init__(self, fan_in, fan_out):
        self._fan_in = fan_in
        self._fan_out = fan_out

    def _fans(self, shape):
        fan_in, fan_out = compute_fans(shape)
        fan_in = fan_in if self._fan_in is None else self._fan_in
        fan_out = fan_out if self._fan_out is None else self._fan_out
        return fan_in, fan_out

    def _xavier_fans(self, shape):
        fan_in, fan_out = self._fans(shape)
        if fan_in + fan_out <= 0:
            raise ValueError(f"{type(self).__name__}: fan_in + fan_out must be positive, got "
                             f"{fan_in} + {fan_out} for shape {list(shape)}")
        return fan_in + fan_out

    def _kaiming_fan_in(self, shape):
        fan_in = self._fans(shape)[0]
        if fan_in <= 0:
            raise ValueError(f"{type(self).__name__}: fan_in must be positive, got {fan_in} "
                             f"for shape {list(shape)}")
        return fan_in


class XavierNormal(_FanInitializer):
    """Glorot normal: N(0, std**2) with std = gain * sqrt(2 / (fan_in + fan_out)).

    Example:
        >>> import dygraph
        >>> w = XavierNormal(fan_in=100, fan_out=100)(dygraph.zeros([100, 100])).numpy()
        >>> bool(abs(w.std() - 0.1) < 0.005)
        True
    """

    def __init__(self, fan_in=None, fan_out=None, gain=1.0, name=None):
        super().__init__(fan_in, fan_out)
        self._gain = float(gain)

    def _values(self, shape, dtype):
        std = self._gain * math.sqrt(2.0 / self._xavier_fans(shape))
        return draw_normal(0.0, std, shape, dtype)


class XavierUniform(_FanInitializer):
    """Glorot uniform: U(-limit, limit) with limit = gain * sqrt(6 / (fan_in + fan_out)).
    Paddle's default initializer for weights.

    Example:
        >>> import dygraph
        >>> w = XavierUniform()(dygraph.zeros([3, 3])).numpy()
        >>> bool(abs(w).max() <= 1.0)
        True
    """

    def __init__(self, fan_in=None, fan_out=None, gain=1.0, name=None):
        super().__init__(fan_in, fan_out)
        self._gain = float(gain)

    def _values(self, shape, dtype):
        limit = self._gain * math.sqrt(6.0 / self._xavier_fans(shape))
        return draw_uniform(-limit, limit, shape, dtype)


class KaimingNormal(_FanInitializer):
    """He normal: N(0, std**2) with std = gain / sqrt(fan_in),
    gain = calculate_gain(nonlinearity, negative_slope).

    Example:
        >>> import dygraph
        >>> w = KaimingNormal()(dygraph.zeros([200, 100])).numpy()   # std sqrt(2/200) = 0.1
        >>> bool(abs(w.std() - 0.1) < 0.005)
        True
    """

    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu"):
        super().__init__(fan_in, None)
        self._negative_slope = negative_slope
        self._nonlinearity = nonlinearity

    def _values(self, shape, dtype):
        gain = calculate_gain(self._nonlinearity, self._negative_slope)
        std = gain / math.sqrt(self._kaiming_fan_in(shape))
        return draw_normal(0.0, std, shape, dtype)


class KaimingUniform(_FanInitializer):
    """He uniform: U(-limit, limit) with limit = gain * sqrt(3 / fan_in).

    Example:
        >>> import dygraph
        >>> w = KaimingUniform()(dygraph.zeros([6, 10])).numpy()   # limit sqrt(6/6) = 1
        >>> bool(abs(w).max() <= 1.0)
        True
    """

    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu"):
        super().__init__(fan_in, None)
        self._negative_slope = negative_slope
        self._nonlinearity = nonlinearity

    def _values(self, shape, dtype):
        gain = calculate_gain(self._nonlinearity, self._negative_slope)
        limit = gain * math.sqrt(3.0 / self._kaiming_fan_in(shape))
        return draw_uniform(-limit, limit, shape, dtype)
