"""Every activation Layer of dygraph.nn against a NumPy reference, its constructor arguments
and repr; PReLU (the one with a parameter) also gets a float64 gradient check."""

import math

import numpy as np
import pytest

import dygraph
from dygraph import nn
from dygraph.autograd import gradcheck

X = np.random.default_rng(0).uniform(-3, 3, (4, 6))
SELU_SCALE, SELU_ALPHA = 1.0507009873554804934193349852946, 1.6732632423543772848170429916717


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _softplus(x, beta=1.0, threshold=20.0):
    return np.where(beta * x > threshold, x, np.log1p(np.exp(beta * x)) / beta)


def _softmax(x, axis):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


_ERF = np.vectorize(math.erf)

# (layer, NumPy reference, repr)
CASES = [
    (nn.ReLU(), lambda x: np.maximum(x, 0), "ReLU()"),
    (nn.ReLU6(), lambda x: np.clip(x, 0, 6), "ReLU6()"),
    (nn.LeakyReLU(0.2), lambda x: np.where(x > 0, x, 0.2 * x), "LeakyReLU(negative_slope=0.2)"),
    (nn.ELU(0.5), lambda x: np.where(x > 0, x, 0.5 * np.expm1(x)), "ELU(alpha=0.5)"),
    (nn.CELU(2.0), lambda x: np.maximum(x, 0) + np.minimum(0, 2 * np.expm1(x / 2)),
     "CELU(alpha=2.0)"),
    (nn.SELU(), lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(x)),
     "SELU(scale=1.0507009873554805, alpha=1.6732632423543772)"),
    (nn.GELU(), lambda x: 0.5 * x * (1 + _ERF(x / math.sqrt(2))), "GELU(approximate=False)"),
    (nn.GELU(approximate=True),
     lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))),
     "GELU(approximate=True)"),
    (nn.Silu(), lambda x: x * _sigmoid(x), "Silu()"),
    (nn.Swish(), lambda x: x * _sigmoid(x), "Swish()"),
    (nn.Sigmoid(), _sigmoid, "Sigmoid()"),
    (nn.LogSigmoid(), lambda x: np.log(_sigmoid(x)), "LogSigmoid()"),
    # Paddle's slope is the rounded 0.1666667, not 1/6.
    (nn.Hardsigmoid(), lambda x: np.clip(x * 0.1666667 + 0.5, 0, 1), "Hardsigmoid()"),
    (nn.Hardswish(), lambda x: x * np.clip(x + 3, 0, 6) / 6, "Hardswish()"),
    (nn.Hardtanh(-0.5, 2.0), lambda x: np.clip(x, -0.5, 2.0), "Hardtanh(min=-0.5, max=2.0)"),
    (nn.Hardshrink(1.0), lambda x: np.where(np.abs(x) > 1.0, x, 0),
     "Hardshrink(threshold=1.0)"),
    (nn.Softshrink(1.0), lambda x: np.where(np.abs(x) > 1.0, x - np.sign(x), 0),
     "Softshrink(threshold=1.0)"),
    (nn.Softplus(2, 4), lambda x: _softplus(x, 2.0, 4.0), "Softplus(beta=2, threshold=4)"),
    (nn.Softsign(), lambda x: x / (1 + np.abs(x)), "Softsign()"),
    (nn.Mish(), lambda x: x * np.tanh(_softplus(x)), "Mish()"),
    (nn.Tanh(), np.tanh, "Tanh()"),
    (nn.Tanhshrink(), lambda x: x - np.tanh(x), "Tanhshrink()"),
    (nn.ThresholdedReLU(0.5, -1.0), lambda x: np.where(x > 0.5, x, -1.0),
     "ThresholdedReLU(threshold=0.5, value=-1.0)"),
    (nn.GLU(axis=1), lambda x: x[:, :3] * _sigmoid(x[:, 3:]), "GLU(axis=1)"),
    (nn.Softmax(axis=0), lambda x: _softmax(x, 0), "Softmax(axis=0)"),
    (nn.LogSoftmax(), lambda x: np.log(_softmax(x, -1)), "LogSoftmax(axis=-1)"),
]


@pytest.mark.parametrize("layer, ref, text", CASES, ids=[c[2] for c in CASES])
def test_activation_layer_matches_numpy(layer, ref, text):
    out = layer(dygraph.to_tensor(X))
    np.testing.assert_allclose(out.numpy(), ref(X), rtol=1e-6, atol=1e-8)
    assert repr(layer) == text
    assert not list(layer.parameters())


def test_every_activation_is_exported():
    # PReLU has parameters and Softmax2D a 4-D input; Maxout, RReLU and SiLU are tested in
    # test_common_layers.py.
    names = {type(layer).__name__ for layer, _, _ in CASES} | {"PReLU", "Softmax2D", "Maxout",
                                                                "RReLU", "SiLU"}
    assert names == set(nn.layer.activation.__all__)


def test_activation_layers_keep_their_name_and_grad_flow():
    layer = nn.LeakyReLU(name="act")
    assert repr(layer) == "LeakyReLU(negative_slope=0.01, name=act)"
    assert repr(nn.Tanh(name="t")) == "Tanh(name=t)"
    x = dygraph.to_tensor([-1.0, 2.0], stop_gradient=False)
    layer(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.01, 1.0])


def test_softmax2d_uses_the_channel_axis():
    x = np.random.default_rng(1).standard_normal((2, 3, 2, 2))
    out = nn.Softmax2D()(dygraph.to_tensor(x)).numpy()
    np.testing.assert_allclose(out, _softmax(x, 1), rtol=1e-10)
    with pytest.raises(ValueError, match="3-D or 4-D"):
        nn.Softmax2D()(dygraph.ones([2, 2]))


def test_prelu_shared_and_per_channel():
    act = nn.PReLU()
    assert act._weight.shape == [1] and float(act._weight) == 0.25
    x = X.astype(np.float32)
    np.testing.assert_allclose(act(dygraph.to_tensor(x)).numpy(), np.where(x > 0, x, 0.25 * x))
    assert repr(act) == "PReLU(num_parameters=1, data_format=NCHW, init=0.25, dtype=float32)"
    per_channel = nn.PReLU(3, init=0.1, data_format="NHWC")
    with dygraph.no_grad():
        per_channel._weight.set_value(np.array([0.1, 0.2, 0.3], np.float32))
    x = np.random.default_rng(2).standard_normal((2, 2, 2, 3)).astype(np.float32)
    want = np.where(x > 0, x, np.array([0.1, 0.2, 0.3], np.float32) * x)
    np.testing.assert_allclose(per_channel(dygraph.to_tensor(x)).numpy(), want, rtol=1e-6)
    assert [n for n, _ in per_channel.named_parameters()] == ["_weight"]


def test_prelu_gradcheck():
    old = dygraph.get_default_dtype()
    dygraph.set_default_dtype("float64")
    try:
        act = nn.PReLU(2, init=0.3)
    finally:
        dygraph.set_default_dtype(old)
    assert act._weight.dtype == dygraph.float64
    x = dygraph.to_tensor(np.random.default_rng(3).standard_normal((3, 2, 4)),
                          stop_gradient=False)
    assert gradcheck(lambda x, w: nn.functional.prelu(x, w), [x, act._weight])
    act(x).sum().backward()
    want = np.minimum(x.numpy(), 0).sum(axis=(0, 2))
    np.testing.assert_allclose(act._weight.grad.numpy(), want, rtol=1e-10)
