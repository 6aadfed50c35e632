"""ops/scalar_max.maximum_scalar: blockwise max(x, c) must give exactly what NumPy's
`maximum(x, c)` gives, for every size around the block, every special value and every
layout it hands back to NumPy; ReLU's forward runs through it."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.ops.activation import scalar_max
from dygraph.ops.activation.scalar_max import maximum_scalar

BLOCK = scalar_max._BLOCK
SPECIALS = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("size", [5, scalar_max._MIN_SIZE, BLOCK - 1, BLOCK, 2 * BLOCK + 7])
@pytest.mark.parametrize("value", [0, -1.5, 6.0])
def test_bit_identical_to_numpy(dtype, size, value):
    rng = np.random.default_rng(size)
    x = rng.standard_normal(size).astype(dtype)
    x[rng.integers(0, size, min(size, len(SPECIALS)))] = SPECIALS[:min(size, len(SPECIALS))]
    got = maximum_scalar(np, x, value, np.empty_like(x))
    assert got.tobytes() == np.maximum(x, value).tobytes()


def test_in_place_and_shaped():
    x = np.random.default_rng(0).standard_normal((3, 5, BLOCK // 7)).astype(np.float32)
    expected = np.maximum(x, 0)
    assert maximum_scalar(np, x, 0, x) is x
    np.testing.assert_array_equal(x, expected)


def test_layouts_numpy_must_handle_fall_back():
    rng = np.random.default_rng(1)
    base = rng.standard_normal((2 * BLOCK, 4)).astype(np.float32)
    strided = base[:, 1]  # not contiguous
    np.testing.assert_array_equal(maximum_scalar(np, strided, 0, np.empty(2 * BLOCK, np.float32)),
                                  np.maximum(strided, 0))
    ints = rng.integers(-5, 5, 2 * BLOCK)
    np.testing.assert_array_equal(maximum_scalar(np, ints, 0, np.empty_like(ints)),
                                  np.maximum(ints, 0))


def test_constant_block_cannot_be_changed():
    x = np.ones(2 * BLOCK, np.float32)
    maximum_scalar(np, x, 0, np.empty_like(x))
    block = scalar_max._constant_block(np.dtype(np.float32), 0)
    with pytest.raises(ValueError):
        block[0] = 1.0


def test_relu_forward_and_gradient_on_a_big_tensor():
    rng = np.random.default_rng(2)
    data = rng.standard_normal((4, 8, 64, 65)).astype(np.float32)  # > one block
    x = dygraph.to_tensor(data, stop_gradient=False)
    y = F.relu(x)
    np.testing.assert_array_equal(y.numpy(), np.maximum(data, 0))
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), (data > 0).astype(np.float32))
