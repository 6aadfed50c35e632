"""spectral_norm against Paddle 3.3's recorded values, and its power iteration against the
largest singular value from NumPy."""

import numpy as np
import pytest

import dygraph
from dygraph.nn.utils import spectral_norm
from tests.nn.utils.refs import REFS, arr, layer_for


@pytest.mark.parametrize("case", REFS["spectral_norm"],
                         ids=lambda c: f"{c['kind']}-{c['dim']}-{c['iters']}")
def test_matches_paddle(case):
    layer, x = layer_for(case["kind"])
    spectral_norm(layer, n_power_iterations=case["iters"], dim=case["dim"])
    assert sorted(layer.state_dict()) == case["state"]
    layer.weight_u.set_value(arr(layer.weight_u.shape, 3))
    layer.weight_v.set_value(arr(layer.weight_v.shape, 4))
    y_train = layer(x)
    np.testing.assert_allclose(layer.weight_u.numpy(), case["u"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(layer.weight_v.numpy(), case["v"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(y_train.numpy(), case["y_train"], rtol=1e-5, atol=1e-5)
    (y_train * y_train).sum().backward()
    np.testing.assert_allclose(layer.weight_orig.grad.numpy(), case["grad"], rtol=1e-4,
                               atol=1e-4)
    layer.eval()
    np.testing.assert_allclose(layer(x).numpy(), case["y_eval"], rtol=1e-5, atol=1e-5)
    # eval mode runs no power iteration
    np.testing.assert_allclose(layer.weight_u.numpy(), case["u"], rtol=1e-5, atol=1e-6)


def test_converges_to_the_largest_singular_value_and_is_seeded():
    dygraph.seed(3)
    layer = spectral_norm(dygraph.nn.Conv2D(3, 5, 3))
    dygraph.seed(3)
    again = spectral_norm(dygraph.nn.Conv2D(3, 5, 3))
    np.testing.assert_array_equal(layer.weight_u.numpy(), again.weight_u.numpy())
    x = dygraph.ones([1, 3, 4, 4])
    for _ in range(100):
        layer(x)
    mat = layer.weight_orig.numpy().reshape(5, -1)
    sigma = np.linalg.svd(mat, compute_uv=False)[0]
    np.testing.assert_allclose(layer.weight.numpy(), layer.weight_orig.numpy() / sigma,
                               rtol=1e-4)


def test_errors():
    layer = spectral_norm(dygraph.nn.Linear(2, 2))
    with pytest.raises(RuntimeError):
        spectral_norm(layer)
    with pytest.raises(ValueError):
        spectral_norm(dygraph.nn.Linear(2, 2), n_power_iterations=0)
