"""deform_conv2d and DeformConv2D beyond the spec entries and the recorded Paddle cases: the
layer's parameters, zero offsets reducing to an ordinary convolution, inputs of mixed
dtypes, and errors."""

import math

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.vision.ops import DeformConv2D, deform_conv2d

RNG = np.random.default_rng(5)


def test_zero_offsets_and_unit_mask_give_an_ordinary_convolution():
    x = dygraph.to_tensor(RNG.standard_normal((2, 4, 7, 6)))
    w = dygraph.to_tensor(RNG.standard_normal((6, 2, 3, 3)))
    b = dygraph.to_tensor(RNG.standard_normal(6))
    offset = dygraph.zeros([2, 2 * 2 * 9, 4, 6], "float64")
    mask = dygraph.ones([2, 2 * 9, 4, 6], "float64")
    got = deform_conv2d(x, offset, w, b, stride=(2, 1), padding=1, dilation=(1, 1),
                        deformable_groups=2, groups=2, mask=mask)
    want = F.conv2d(x, w, b, stride=(2, 1), padding=1, groups=2)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)


def test_whole_pixel_offsets_shift_the_input():
    x = dygraph.to_tensor(RNG.standard_normal((1, 1, 5, 5)))
    offset = dygraph.to_tensor(np.tile(np.array([1.0, -1.0]).reshape(1, 2, 1, 1), (1, 1, 5, 5)))
    got = deform_conv2d(x, offset, dygraph.ones([1, 1, 1, 1], "float64")).numpy()[0, 0]
    want = np.zeros((5, 5))
    want[:4, 1:] = x.numpy()[0, 0, 1:, :4]  # out[i, j] = x[i + 1, j - 1], zero outside
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_the_layer_holds_paddle_s_parameters():
    dygraph.seed(0)
    layer = DeformConv2D(8, 16, (3, 3), padding=1, deformable_groups=2, groups=2)
    assert layer.weight.shape == [16, 4, 3, 3] and layer.bias.shape == [16]
    assert layer.weight.name.startswith("deform_conv2d_") and layer.weight.name.endswith(".w_0")
    std = float(layer.weight.numpy().std())
    assert abs(std - math.sqrt(2.0 / (9 * 8))) < 0.03  # Normal(0, sqrt(2 / (kh kw C)))
    assert not layer.bias.numpy().any()
    x = dygraph.to_tensor(RNG.standard_normal((1, 8, 5, 5)).astype(np.float32))
    offset = dygraph.to_tensor(RNG.uniform(-1, 1, (1, 36, 5, 5)).astype(np.float32))
    mask = dygraph.to_tensor(RNG.uniform(0, 1, (1, 18, 5, 5)).astype(np.float32))
    out = layer(x, offset, mask)
    np.testing.assert_array_equal(out.numpy(), deform_conv2d(
        x, offset, layer.weight, layer.bias, 1, 1, 1, 2, 2, mask).numpy())
    out.sum().backward()
    assert layer.weight.grad is not None and layer.bias.grad is not None
    no_bias = DeformConv2D(8, 4, 1, bias_attr=False)
    assert no_bias.bias is None and no_bias(x, dygraph.zeros([1, 2, 5, 5])).shape == [1, 4, 5, 5]


def test_offsets_of_another_dtype_are_cast_to_x():
    x = dygraph.to_tensor(RNG.standard_normal((1, 2, 4, 4)).astype(np.float32))
    offset = RNG.uniform(-1, 1, (1, 8, 3, 3))
    w = dygraph.ones([1, 2, 2, 2])
    got = deform_conv2d(x, dygraph.to_tensor(offset), w)
    want = deform_conv2d(x, dygraph.to_tensor(offset.astype(np.float32)), w)
    assert got.dtype == dygraph.float32
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("kwargs, text", [
    ({"offset": [1, 16, 3, 3]}, "offset must have shape [1, 18, 3, 3]"),
    ({"mask": [1, 8, 3, 3]}, "mask must have shape [1, 9, 3, 3]"),
    ({"weight": [2, 3, 3, 3]}, "wants 3 input channels"),
    ({"bias": [3]}, "bias must have shape [2]"),
    ({"x": [1, 2, 5]}, "4-D"),
    ({"groups": 3}, "groups (3) must divide"),
    ({"stride": 0}, "stride"),
    ({"x": [1, 2, 2, 2]}, "does not fit"),
])
def test_errors_name_the_shapes(kwargs, text):
    shapes = {"x": [1, 2, 5, 5], "offset": [1, 18, 3, 3], "weight": [2, 2, 3, 3],
              "bias": [2], "mask": [1, 9, 3, 3]}
    shapes.update({k: v for k, v in kwargs.items() if isinstance(v, list)})
    t = {k: dygraph.zeros(v) for k, v in shapes.items()}
    options = {k: v for k, v in kwargs.items() if not isinstance(v, list)}
    with pytest.raises(ValueError, match="deform_conv2d") as info:
        deform_conv2d(t["x"], t["offset"], t["weight"], t["bias"], mask=t["mask"], **options)
    assert text in str(info.value)


def test_a_wrong_dtype_is_a_type_error():
    with pytest.raises(TypeError, match="deform_conv2d: x must be float32 or float64, got int64"):
        deform_conv2d(dygraph.ones([1, 2, 5, 5], "int64"), dygraph.zeros([1, 18, 3, 3]),
                      dygraph.ones([2, 2, 3, 3]))
