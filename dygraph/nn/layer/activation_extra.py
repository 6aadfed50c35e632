"""More activation layers: Maxout, RReLU (random slopes while training) and SiLU (Paddle
3's spelling of Silu, with torch's `inplace` flag)."""

from dygraph.nn import functional as F
from dygraph.nn.layer.activation import _Activation
from dygraph.nn.layer.layers import Layer
from dygraph.ops.inplace import run_inplace

__all__ = ["Maxout", "RReLU", "SiLU"]


class Maxout(_Activation):
    """The maximum over each run of `groups` consecutive channels (see F.maxout).

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([1.0, 3.0, 2.0, 0.0]).reshape([1, 4, 1, 1])
        >>> dygraph.nn.Maxout(2)(x).numpy().ravel()
        array([3., 2.], dtype=float32)
    """

    _op = staticmethod(F.maxout)

    def __init__(self, groups, axis=1, name=None):
        super().__init__(name, groups=groups, axis=axis)


class RReLU(Layer):
    """Randomized leaky ReLU: slopes drawn from [lower, upper] while training, their mean
    after eval().

    Example:
        >>> import dygraph
        >>> layer = dygraph.nn.RReLU(0.2, 0.4)
        >>> layer.eval()(dygraph.to_tensor([-1.0, 2.0])).numpy()
        array([-0.3,  2. ], dtype=float32)
    """

    def __init__(self, lower=1.0 / 8.0, upper=1.0 / 3.0, name=None):
        super().__init__()
        self._lower, self._upper, self._name = lower, upper, name

    def forward(self, x):
        return F.rrelu(x, self._lower, self._upper, training=self.training)

    def extra_repr(self):
        return f"lower={self._lower}, upper={self._upper}"


class SiLU(_Activation):
    """x * sigmoid(x); with inplace=True x itself is overwritten.

    Example:
        >>> import dygraph
        >>> dygraph.nn.SiLU()(dygraph.to_tensor([0.0])).numpy()
        array([0.], dtype=float32)
    """

    def __init__(self, inplace=False, name=None):
        super().__init__(name)
        self._inplace = inplace

    def forward(self, x):
        if self._inplace:
            return run_inplace("silu_", F.silu, x)
        return F.silu(x)

    def extra_repr(self):
        return "inplace=True" if self._inplace else ""
