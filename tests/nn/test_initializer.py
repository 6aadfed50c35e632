"""Initializers: statistics, fan rules, structure, reproducibility, ParamAttr plumbing."""

import math

import numpy as np
import pytest

import dygraph
from dygraph import nn
from dygraph.nn import initializer as init
from dygraph.nn.param_attr import ParamAttr, create_parameter


def fill(initializer, shape, dtype="float32"):
    return initializer(dygraph.zeros(shape, dtype=dtype)).numpy()


@pytest.fixture(autouse=True)
def _seeded():
    dygraph.seed(1234)
    yield
    init.set_global_initializer(None)


# -- distributions -------------------------------------------------------------------------
def test_constant_and_assign():
    np.testing.assert_array_equal(fill(init.Constant(1.5), [2, 2]), np.full((2, 2), 1.5))
    np.testing.assert_array_equal(fill(init.Constant(), [3], "int64"), [0, 0, 0])
    values = np.arange(6, dtype=np.float64).reshape(2, 3)
    for source in (values, values.tolist(), dygraph.to_tensor(values)):
        np.testing.assert_array_equal(fill(init.Assign(source), [2, 3]), values)
    with pytest.raises(ValueError, match=r"\[3, 2\]"):
        fill(init.Assign(values), [3, 2])
    with pytest.raises(TypeError, match="Assign"):
        init.Assign("text")


@pytest.mark.parametrize("mean, std", [(0.0, 1.0), (3.0, 0.2)])
def test_normal_statistics(mean, std):
    w = fill(init.Normal(mean, std), [200, 100])
    assert abs(w.mean() - mean) < 4 * std / math.sqrt(w.size)
    assert abs(w.std() - std) < 0.02 * std


def test_uniform_bounds_and_statistics():
    w = fill(init.Uniform(-2.0, 4.0), [20000])
    assert w.min() >= -2.0 and w.max() < 4.0
    assert abs(w.mean() - 1.0) < 0.05
    assert abs(w.std() - 6 / math.sqrt(12)) < 0.03
    with pytest.raises(ValueError, match="low"):
        init.Uniform(1.0, 0.0)


def test_truncated_normal_stays_in_bounds_with_the_truncated_std():
    w = fill(init.TruncatedNormal(), [20000])
    assert w.min() >= -2.0 and w.max() <= 2.0
    # Standard normal truncated to [-2, 2] has std 0.8796.
    assert abs(w.std() - 0.8796) < 0.02 and abs(w.mean()) < 0.03
    shifted = fill(init.TruncatedNormal(mean=1.0, std=0.5, a=0.5, b=1.2), [5000])
    assert shifted.min() >= 0.5 and shifted.max() <= 1.2
    with pytest.raises(ValueError, match="bound"):
        init.TruncatedNormal(a=1.0, b=0.0)


# -- fan-scaled ----------------------------------------------------------------------------
def test_fans_use_the_receptive_field_for_conv_weights():
    from dygraph.nn.initializer.base import compute_fans

    assert compute_fans((784, 10)) == (784, 10)
    assert compute_fans((50, 20, 5, 5)) == (500, 1250)
    assert compute_fans((8, 4, 3)) == (12, 24)
    assert compute_fans((7,)) == (7, 7) and compute_fans(()) == (1, 1)


def test_xavier_uniform_and_normal_follow_the_fans():
    shape = [50, 20, 5, 5]  # fan_in 500, fan_out 1250
    limit = math.sqrt(6.0 / 1750)
    w = fill(init.XavierUniform(), shape)
    assert np.abs(w).max() <= limit and np.abs(w).max() > 0.95 * limit
    assert abs(w.std() - limit / math.sqrt(3)) < 0.02 * limit
    w = fill(init.XavierNormal(gain=2.0), shape)
    assert abs(w.std() - 2.0 * math.sqrt(2.0 / 1750)) < 0.002
    w = fill(init.XavierUniform(fan_in=1, fan_out=5), [100, 100])
    assert np.abs(w).max() <= 1.0 and np.abs(w).max() > 0.95


def test_kaiming_uses_fan_in_and_the_gain():
    w = fill(init.KaimingNormal(), [64, 16, 3, 3])  # fan_in 144
    assert abs(w.std() - math.sqrt(2.0 / 144)) < 0.003
    gain = math.sqrt(2.0 / (1 + 0.2 ** 2))
    w = fill(init.KaimingUniform(negative_slope=0.2, nonlinearity="leaky_relu"), [400, 300])
    limit = gain * math.sqrt(3.0 / 400)
    assert np.abs(w).max() <= limit and np.abs(w).max() > 0.99 * limit
    w = fill(init.KaimingNormal(fan_in=4, nonlinearity="linear"), [200, 200])
    assert abs(w.std() - 0.5) < 0.01
    with pytest.raises(ValueError, match="fan_in"):
        fill(init.KaimingNormal(), [0, 3])


def test_calculate_gain_table():
    assert init.calculate_gain("sigmoid") == 1.0 and init.calculate_gain("conv2d") == 1.0
    assert init.calculate_gain("tanh") == pytest.approx(5 / 3)
    assert init.calculate_gain("relu") == pytest.approx(math.sqrt(2))
    assert init.calculate_gain("leaky_relu") == pytest.approx(math.sqrt(2 / (1 + 0.01 ** 2)))
    assert init.calculate_gain("selu") == 0.75
    with pytest.raises(ValueError, match="swish"):
        init.calculate_gain("swish")


# -- structured ----------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [[3, 5], [6, 2], [4, 2, 3, 3]])
def test_orthogonal_rows_or_columns_are_orthonormal(shape):
    w = fill(init.Orthogonal(gain=1.5), shape, "float64").reshape(shape[0], -1)
    gram = w @ w.T if w.shape[0] <= w.shape[1] else w.T @ w
    np.testing.assert_allclose(gram, 2.25 * np.eye(gram.shape[0]), atol=1e-10)
    with pytest.raises(ValueError, match="2 or more"):
        fill(init.Orthogonal(), [3])


def test_dirac_makes_an_identity_convolution():
    w = fill(init.Dirac(), [3, 2, 3, 3])
    assert w.sum() == 2 and w[0, 0, 1, 1] == 1 and w[1, 1, 1, 1] == 1
    # Applying the kernel at the centre of a 3x3 window copies channels 0 and 1.
    x = np.random.default_rng(0).normal(size=(2, 3, 3))
    out = np.einsum("oikl,ikl->o", w, x)
    np.testing.assert_allclose(out, [x[0, 1, 1], x[1, 1, 1], 0.0], atol=1e-6)
    grouped = fill(init.Dirac(groups=2), [4, 2, 3])
    assert [tuple(i) for i in np.argwhere(grouped)] == [(0, 0, 1), (1, 1, 1), (2, 0, 1),
                                                        (3, 1, 1)]
    with pytest.raises(ValueError, match="divisible"):
        fill(init.Dirac(groups=2), [3, 2, 3])
    with pytest.raises(ValueError, match="3-D"):
        fill(init.Dirac(), [3, 3])


def test_bilinear_kernel():
    w = fill(init.Bilinear(), [2, 2, 4, 4])
    line = np.array([0.25, 0.75, 0.75, 0.25])  # size 4: factor 2, centre 0.75
    np.testing.assert_allclose(w[1, 0], np.outer(line, line))
    with pytest.raises(ValueError, match="square"):
        fill(init.Bilinear(), [1, 1, 2, 3])


# -- behaviour shared by all ---------------------------------------------------------------
ALL = [init.Constant(0.3), init.Normal(), init.TruncatedNormal(), init.Uniform(),
       init.XavierNormal(), init.XavierUniform(), init.KaimingNormal(), init.KaimingUniform(),
       init.Orthogonal(), init.Assign(np.ones((4, 3, 3)))]


@pytest.mark.parametrize("initializer", ALL, ids=lambda i: type(i).__name__)
def test_fills_in_place_reproducibly_in_the_tensor_dtype(initializer):
    param = nn.Layer().create_parameter([4, 3, 3], dtype="float64")
    version = param._version[0]
    assert initializer(param) is param
    assert param.dtype == dygraph.float64 and param._version[0] == version + 1
    assert not param.stop_gradient and param.is_leaf
    dygraph.seed(99)
    first = fill(initializer, [4, 3, 3], "float16")
    dygraph.seed(99)
    np.testing.assert_array_equal(fill(initializer, [4, 3, 3], "float16"), first)
    assert first.dtype == np.float16


def test_initializer_needs_a_tensor():
    with pytest.raises(TypeError, match="Tensor"):
        init.Normal()(np.zeros(3))


# -- ParamAttr and the global default ------------------------------------------------------
def test_param_attr_checks_and_conversions():
    attr = ParamAttr(name="w_attr_h5a", learning_rate=2, trainable=False)
    assert attr.learning_rate == 2.0 and attr.do_model_average and attr.need_clip
    with pytest.raises(TypeError, match="learning_rate"):
        ParamAttr(learning_rate="fast")
    with pytest.raises(TypeError, match="initializer"):
        ParamAttr(initializer="normal")
    with pytest.raises(TypeError, match="trainable"):
        ParamAttr(trainable=1)
    assert ParamAttr._to_attr(None).name is None and ParamAttr._to_attr(True).name is None
    assert ParamAttr._to_attr(False) is False and ParamAttr._to_attr(attr) is attr
    assert isinstance(ParamAttr._to_attr(init.Normal()).initializer, init.Normal)
    assert [a.name for a in ParamAttr._to_attr(["a", None])] == ["a", None]
    with pytest.raises(TypeError, match="ParamAttr"):
        ParamAttr._to_attr(3)
    assert dygraph.ParamAttr is ParamAttr and "w_attr_h5a" in repr(attr)


def test_reusing_an_unnamed_attr_gives_distinct_names():
    attr = ParamAttr(initializer=init.Constant(1.0))
    layer = nn.Layer()
    first, second = layer.create_parameter([1], attr), layer.create_parameter([1], attr)
    assert first.name != second.name and attr.name is None


def test_global_initializer_is_below_param_attr_but_above_layer_defaults():
    init.set_global_initializer(init.Constant(7.0), init.Constant(-1.0))
    layer = nn.Layer()
    assert (layer.create_parameter([2], default_initializer=init.Constant(0.0)).numpy()
            == 7.0).all()
    assert (layer.create_parameter([2], is_bias=True).numpy() == -1.0).all()
    own = layer.create_parameter([2], attr=ParamAttr(initializer=init.Constant(3.0)))
    assert (own.numpy() == 3.0).all()
    init.set_global_initializer(None)
    assert (layer.create_parameter([2], is_bias=True).numpy() == 0.0).all()
    with pytest.raises(TypeError, match="weight_init"):
        init.set_global_initializer("zeros")


def test_standalone_create_parameter():
    w = create_parameter([2, 3], "float64", name="standalone_h5a",
                         default_initializer=init.Constant(2.0))
    assert w.name == "standalone_h5a" and w.dtype == dygraph.float64
    assert (w.numpy() == 2.0).all()
    assert create_parameter([2], "float32", attr=False) is None
    b = create_parameter([3], "float32", is_bias=True)
    assert b.name.startswith("create_parameter_") and ".b_" in b.name
