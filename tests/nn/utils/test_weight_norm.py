"""weight_norm / remove_weight_norm against Paddle 3.3's recorded values and finite
differences."""

import numpy as np
import pytest

import dygraph
from dygraph.nn.utils import remove_weight_norm, weight_norm
from tests.nn.utils.refs import REFS, arr, layer_for


@pytest.mark.parametrize("case", REFS["weight_norm"], ids=lambda c: f"{c['kind']}-{c['dim']}")
def test_matches_paddle(case):
    layer, x = layer_for(case["kind"])
    weight_norm(layer, dim=case["dim"])
    assert [n for n, _ in layer.named_parameters()] == case["params"]
    np.testing.assert_allclose(layer.weight_g.numpy(), case["g"], rtol=1e-5, atol=1e-6)
    y = layer(x)
    np.testing.assert_allclose(layer.weight.numpy(), case["weight"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(y.numpy(), case["y"], rtol=1e-5, atol=1e-5)
    (y * y).sum().backward()
    np.testing.assert_allclose(layer.weight_g.grad.numpy(), case["grad_g"], rtol=1e-4,
                               atol=1e-4)
    np.testing.assert_allclose(layer.weight_v.grad.numpy(), case["grad_v"], rtol=1e-4,
                               atol=1e-4)


def test_weight_is_not_state_and_remove_restores_a_parameter():
    layer, x = layer_for("conv2d")
    before = layer(x).numpy()
    weight_norm(layer)
    assert sorted(layer.state_dict()) == ["bias", "weight_g", "weight_v"]
    np.testing.assert_allclose(layer(x).numpy(), before, rtol=1e-5, atol=1e-6)
    with dygraph.no_grad():
        layer.weight_g.set_value(layer.weight_g * 2)
    doubled = layer(x).numpy()
    remove_weight_norm(layer)
    assert [n for n, _ in layer.named_parameters()] == ["bias", "weight"]
    assert type(layer.weight) is type(layer.bias)  # a Parameter again
    np.testing.assert_allclose(layer(x).numpy(), doubled, rtol=1e-5, atol=1e-6)
    assert not layer._forward_pre_hooks


def test_errors():
    layer = weight_norm(dygraph.nn.Linear(2, 2))
    with pytest.raises(RuntimeError):
        weight_norm(layer)
    with pytest.raises(ValueError):
        remove_weight_norm(layer, "bias")
    with pytest.raises(AssertionError):
        weight_norm(dygraph.nn.Linear(2, 2), dim=2)


@pytest.mark.parametrize("dim", [0, 1, None])
def test_gradients_match_finite_differences_float64(dim):
    v0, g_shape = arr([3, 4], 1).astype("float64"), {0: [3], 1: [4], None: []}[dim]
    layer = dygraph.nn.Linear(3, 4)
    layer.weight = layer.create_parameter([3, 4], dtype="float64")
    layer.weight.set_value(v0)
    layer.bias = layer.create_parameter([4], dtype="float64", is_bias=True)
    weight_norm(layer, dim=dim)
    x = dygraph.to_tensor(arr([2, 3], 5).astype("float64"))

    def loss():
        y = layer(x)
        return (y * y * y).sum()

    loss().backward()
    for param, shape in [(layer.weight_g, g_shape), (layer.weight_v, [3, 4])]:
        assert list(param.shape) == shape
        base = param.numpy().copy()
        numeric = np.zeros_like(base)
        for i in np.ndindex(base.shape):
            for sign in (1, -1):
                moved = base.copy()
                moved[i] += sign * 1e-6
                param.set_value(moved)
                with dygraph.no_grad():
                    numeric[i] += sign * float(loss()) / 2e-6
        param.set_value(base)
        np.testing.assert_allclose(param.grad.numpy(), numeric, rtol=1e-5, atol=1e-6)
