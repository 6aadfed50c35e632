"""Every activation of dygraph.nn.functional as a Layer, with Paddle's constructor arguments
and repr ('LeakyReLU(negative_slope=0.01)').

An activation layer holds its settings and calls its functional op; only PReLU has a
parameter (its slopes, initialized to `init`).
"""

from dygraph.framework.dtype import get_default_dtype
from dygraph.nn import functional as F
from dygraph.nn.initializer import Constant
from dygraph.nn.layer.layers import Layer
from dygraph.ops.inplace import run_inplace

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "ELU", "CELU", "SELU", "GELU", "Silu", "Swish", "Sigmoid",
           "LogSigmoid", "Hardsigmoid", "Hardswish", "Hardtanh", "Hardshrink", "Softshrink",
           "Softplus", "Softsign", "Mish", "Tanh", "Tanhshrink", "ThresholdedReLU", "PReLU", "GLU",
           "Softmax", "Softmax2D", "LogSoftmax", "Maxout", "RReLU", "SiLU"]


class _Activation(Layer):
    """An activation layer: `_op(x, **settings)`, settings shown in the repr."""

    _op = None

    def __init__(self, name=None, **settings):
        super().__init__()
        self._name = name
        self._settings = settings

    def forward(self, x):
        return self._op(x, **self._settings)

    def extra_repr(self):
        parts = [f"{key}={value}" for key, value in self._settings.items()]
        if self._name:
            parts.append(f"name={self._name}")
        return ", ".join(parts)


class ReLU(_Activation):
    """max(0, x).

    Example:
        >>> import dygraph
        >>> dygraph.nn.ReLU()(dygraph.to_tensor([-1.0, 2.0])).numpy()
        array([0., 2.], dtype=float32)
    """

    _op = staticmethod(F.relu)


class ReLU6(_Activation):
    """min(max(0, x), 6).

    Example:
        >>> import dygraph
        >>> dygraph.nn.ReLU6()(dygraph.to_tensor([-1.0, 8.0])).numpy()
        array([0., 6.], dtype=float32)
    """

    _op = staticmethod(F.relu6)


class LeakyReLU(_Activation):
    """x for x >= 0, negative_slope * x otherwise.

    Example:
        >>> import dygraph
        >>> dygraph.nn.LeakyReLU(0.1)(dygraph.to_tensor([-2.0, 1.0])).numpy()
        array([-0.2,  1. ], dtype=float32)
    """

    _op = staticmethod(F.leaky_relu)

    def __init__(self, negative_slope=0.01, name=None):
        super().__init__(name, negative_slope=negative_slope)


class ELU(_Activation):
    """x for x > 0, alpha * (exp(x) - 1) otherwise.

    Example:
        >>> import dygraph
        >>> dygraph.nn.ELU()(dygraph.to_tensor([1.0, 0.0])).numpy()
        array([1., 0.], dtype=float32)
    """

    _op = staticmethod(F.elu)

    def __init__(self, alpha=1.0, name=None):
        super().__init__(name, alpha=alpha)


class CELU(_Activation):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).

    Example:
        >>> import dygraph
        >>> dygraph.nn.CELU(0.5)
        CELU(alpha=0.5)
    """

    _op = staticmethod(F.celu)

    def __init__(self, alpha=1.0, name=None):
        super().__init__(name, alpha=alpha)


class SELU(_Activation):
    """scale * (x if x > 0 else alpha * (exp(x) - 1)).

    Example:
        >>> import dygraph
        >>> dygraph.nn.SELU()(dygraph.to_tensor([1.0])).numpy()
        array([1.050701], dtype=float32)
    """

    _op = staticmethod(F.selu)

    def __init__(self, scale=1.0507009873554804934193349852946,
                 alpha=1.6732632423543772848170429916717, name=None):
        super().__init__(name, scale=scale, alpha=alpha)

    def extra_repr(self):
        s = self._settings
        name = f", name={self._name}" if self._name else ""
        return f"scale={s['scale']:.16f}, alpha={s['alpha']:.16f}{name}"


class GELU(_Activation):
    """x * Phi(x) (exact, through erf) or its tanh approximation.

    Example:
        >>> import dygraph
        >>> dygraph.nn.GELU(approximate=True)
        GELU(approximate=True)
    """

    _op = staticmethod(F.gelu)

    def __init__(self, approximate=False, name=None):
        super().__init__(name, approximate=approximate)


class Silu(_Activation):
    """x * sigmoid(x).

    Example:
        >>> import dygraph
        >>> dygraph.nn.Silu()(dygraph.to_tensor([0.0])).numpy()
        array([0.], dtype=float32)
    """

    _op = staticmethod(F.silu)


class Swish(_Activation):
    """x * sigmoid(x) (the same function as Silu).

    Example:
        >>> import dygraph
        >>> dygraph.nn.Swish()(dygraph.to_tensor([0.0])).numpy()
        array([0.], dtype=float32)
    """

    _op = staticmethod(F.swish)


class Sigmoid(_Activation):
    """1 / (1 + exp(-x)).

    Example:
        >>> import dygraph
        >>> dygraph.nn.Sigmoid()(dygraph.to_tensor([0.0])).numpy()
        array([0.5], dtype=float32)
    """

    _op = staticmethod(F.sigmoid)


class LogSigmoid(_Activation):
    """log(sigmoid(x)).

    Example:
        >>> import dygraph
        >>> dygraph.nn.LogSigmoid()(dygraph.to_tensor([-100.0])).numpy()
        array([-100.], dtype=float32)
    """

    _op = staticmethod(F.log_sigmoid)


class Hardsigmoid(_Activation):
    """max(0, min(1, x / 6 + 1 / 2)).

    Example:
        >>> import dygraph
        >>> dygraph.nn.Hardsigmoid()(dygraph.to_tensor([-4.0, 0.0, 4.0])).numpy()
        array([0. , 0.5, 1. ], dtype=float32)
    """

    _op = staticmethod(F.hardsigmoid)


class Hardswish(_Activation):
    """x * min(max(0, x + 3), 6) / 6.

    Example:
        >>> import dygraph
        >>> dygraph.nn.Hardswish()(dygraph.to_tensor([-4.0, 5.0])).numpy()
        array([-0.,  5.], dtype=float32)
    """

    _op = staticmethod(F.hardswish)


class Hardtanh(_Activation):
    """x clamped into [min, max].

    Example:
        >>> import dygraph
        >>> dygraph.nn.Hardtanh()(dygraph.to_tensor([-3.0, 0.5])).numpy()
        array([-1. ,  0.5], dtype=float32)
    """

    _op = staticmethod(F.hardtanh)

    def __init__(self, min=-1.0, max=1.0, name=None):  # noqa: A002 - Paddle's names
        super().__init__(name, min=min, max=max)


class Hardshrink(_Activation):
    """x where |x| > threshold, else 0.

    Example:
        >>> import dygraph
        >>> dygraph.nn.Hardshrink()(dygraph.to_tensor([-1.0, 0.3])).numpy()
        array([-1.,  0.], dtype=float32)
    """

    _op = staticmethod(F.hardshrink)

    def __init__(self, threshold=0.5, name=None):
        super().__init__(name, threshold=threshold)


class Softshrink(_Activation):
    """x moved toward 0 by threshold where |x| > threshold, else 0.

    Example:
        >>> import dygraph
        >>> dygraph.nn.Softshrink()(dygraph.to_tensor([-1.0, 0.3])).numpy()
        array([-0.5,  0. ], dtype=float32)
    """

    _op = staticmethod(F.softshrink)

    def __init__(self, threshold=0.5, name=None):
        super().__init__(name, threshold=threshold)


class Softplus(_Activation):
    """log(1 + exp(beta * x)) / beta, and x where beta * x > threshold.

    Example:
        >>> import dygraph
        >>> dygraph.nn.Softplus()
        Softplus(beta=1, threshold=20)
    """

    _op = staticmethod(F.softplus)

    def __init__(self, beta=1, threshold=20, name=None):
        super().__init__(name, beta=beta, threshold=threshold)


class Softsign(_Activation):
    """x / (1 + |x|).

    Example:
        >>> import dygraph
        >>> dygraph.nn.Softsign()(dygraph.to_tensor([1.0])).numpy()
        array([0.5], dtype=float32)
    """

    _op = staticmethod(F.softsign)


class Mish(_Activation):
    """x * tanh(softplus(x)).

    Example:
        >>> import dygraph
        >>> dygraph.nn.Mish()(dygraph.to_tensor([0.0])).numpy()
        array([0.], dtype=float32)
    """

    _op = staticmethod(F.mish)


class Tanh(_Activation):
    """The hyperbolic tangent.

    Example:
        >>> import dygraph
        >>> dygraph.nn.Tanh()(dygraph.to_tensor([0.0])).numpy()
        array([0.], dtype=float32)
    """

    _op = staticmethod(F.tanh)


class Tanhshrink(_Activation):
    """x - tanh(x).

    Example:
        >>> import dygraph
        >>> dygraph.nn.Tanhshrink()(dygraph.to_tensor([0.0])).numpy()
        array([0.], dtype=float32)
    """

    _op = staticmethod(F.tanhshrink)


class ThresholdedReLU(_Activation):
    """x where x > threshold, else value.

    Example:
        >>> import dygraph
        >>> dygraph.nn.ThresholdedReLU()(dygraph.to_tensor([2.0, 0.5])).numpy()
        array([2., 0.], dtype=float32)
    """

    _op = staticmethod(F.thresholded_relu)

    def __init__(self, threshold=1.0, value=0.0, name=None):
        super().__init__(name, threshold=threshold, value=value)


class GLU(_Activation):
    """a * sigmoid(b), a and b the two halves of x along `axis`.

    Example:
        >>> import dygraph
        >>> dygraph.nn.GLU()(dygraph.to_tensor([[2.0, 0.0]])).numpy()
        array([[1.]], dtype=float32)
    """

    _op = staticmethod(F.glu)

    def __init__(self, axis=-1, name=None):
        super().__init__(name, axis=axis)


class Softmax(_Activation):
    """exp(x) / sum(exp(x)) along `axis`.

    Example:
        >>> import dygraph
        >>> dygraph.nn.Softmax()(dygraph.to_tensor([0.0, 0.0])).numpy()
        array([0.5, 0.5], dtype=float32)
    """

    _op = staticmethod(F.softmax)

    def __init__(self, axis=-1, name=None):
        super().__init__(name, axis=axis)


class Softmax2D(_Activation):
    """Softmax over the channels (axis -3) of a [C, H, W] or [N, C, H, W] input.

    Example:
        >>> import dygraph
        >>> dygraph.nn.Softmax2D()(dygraph.zeros([1, 2, 1, 1])).numpy().ravel()
        array([0.5, 0.5], dtype=float32)
    """

    def forward(self, x):
        if x.ndim not in (3, 4):
            raise ValueError(f"Softmax2D: expected a 3-D or 4-D input, got shape {x.shape}")
        return F.softmax(x, axis=-3)


class LogSoftmax(_Activation):
    """log(softmax(x)) along `axis`.

    Example:
        >>> import dygraph
        >>> dygraph.nn.LogSoftmax()(dygraph.to_tensor([0.0, 0.0])).numpy()
        array([-0.6931472, -0.6931472], dtype=float32)
    """

    _op = staticmethod(F.log_softmax)

    def __init__(self, axis=-1, name=None):
        super().__init__(name, axis=axis)


class PReLU(Layer):
    """max(0, x) + weight * min(0, x) with learned slopes: one shared (num_parameters=1) or
    one per channel (channel axis from data_format), initialized to `init`. The parameter
    is `_weight`, as in Paddle.

    Example:
        >>> import dygraph
        >>> act = dygraph.nn.PReLU()
        >>> act(dygraph.to_tensor([-2.0, 3.0])).numpy()
        array([-0.5,  3. ], dtype=float32)
        >>> act
        PReLU(num_parameters=1, data_format=NCHW, init=0.25, dtype=float32)
    """

    def __init__(self, num_parameters=1, init=0.25, weight_attr=None, data_format="NCHW",
                 name=None):
        super().__init__(dtype=get_default_dtype())
        self._num_parameters, self._init = num_parameters, init
        self._data_format, self._name = data_format, name
        self._weight = self.create_parameter([num_parameters], attr=weight_attr,
                                             default_initializer=Constant(init))

    def forward(self, x):
        return F.prelu(x, self._weight, data_format=self._data_format)

    def extra_repr(self):
        name = f", name={self._name}" if self._name else ""
        return (f"num_parameters={self._num_parameters}, data_format={self._data_format}, "
                f"init={self._init}, dtype={self._dtype}{name}")


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
