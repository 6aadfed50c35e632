"""The rest of the fluid namespace: initializers, ParamAttr, regularizers, clips,
unique_name, io and the lazily loaded names."""

import numpy as np
import pytest

import dygraph
import dygraph.fluid as fluid

I = fluid.initializer  # noqa: E741


def fill(init, shape):
    return init(dygraph.zeros(shape)).numpy()


def test_initializers_map_onto_the_2x_ones():
    assert np.all(fill(I.ConstantInitializer(0.25), [3]) == 0.25)
    normal = fill(I.NormalInitializer(loc=1.0, scale=0.1, seed=3), [4000])
    assert abs(normal.mean() - 1.0) < 0.01 and abs(normal.std() - 0.1) < 0.01
    uniform = fill(I.UniformInitializer(-0.2, 0.3, seed=3), [4000])
    assert uniform.min() >= -0.2 and uniform.max() < 0.3
    truncated = fill(I.TruncatedNormalInitializer(1.0, 0.5, seed=3), [4000])
    assert truncated.min() >= 0.0 and truncated.max() <= 2.0
    limit = (6.0 / (30 + 20)) ** 0.5
    xavier = fill(I.XavierInitializer(seed=3), [30, 20])
    assert np.abs(xavier).max() <= limit and np.abs(xavier).max() > 0.9 * limit
    xavier_normal = fill(I.XavierInitializer(uniform=False, seed=3), [300, 200])
    assert xavier_normal.std() == pytest.approx((2.0 / 500) ** 0.5, rel=0.05)
    msra = fill(I.MSRAInitializer(uniform=False, seed=3), [400, 100])
    assert msra.std() == pytest.approx((2.0 / 400) ** 0.5, rel=0.05)
    msra_fan = fill(I.MSRAInitializer(fan_in=6, seed=3), [50, 50])
    assert np.abs(msra_fan).max() <= 1.0
    np.testing.assert_array_equal(fill(I.NumpyArrayInitializer(np.arange(3.0)), [3]),
                                  [0.0, 1.0, 2.0])
    assert fill(I.BilinearInitializer(), [1, 1, 4, 4])[0, 0, 1, 1] == 0.5625
    assert I.Normal is I.NormalInitializer and I.MSRA is I.MSRAInitializer
    assert I.Xavier is I.XavierInitializer and I.Constant is I.ConstantInitializer


def test_initializer_seeds_are_reproducible_and_leave_the_global_stream_alone():
    dygraph.seed(11)
    expected_next = dygraph.rand([3]).numpy()
    dygraph.seed(11)
    a = fill(I.NormalInitializer(seed=5), [4])
    b = fill(I.NormalInitializer(seed=5), [4])
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(dygraph.rand([3]).numpy(), expected_next)
    fluid.default_main_program().random_seed = 7
    c = fill(I.NormalInitializer(), [4])
    fluid.default_main_program().random_seed = 7
    np.testing.assert_array_equal(fill(I.NormalInitializer(), [4]), c)


def test_param_attr():
    attr = fluid.param_attr.ParamAttr(name="w", learning_rate=0.5, trainable=False,
                                      regularizer=fluid.regularizer.L1Decay(0.1),
                                      gradient_clip=fluid.clip.GradientClipByValue(1.0))
    assert fluid.ParamAttr is fluid.param_attr.ParamAttr
    assert attr.do_model_average is False and attr.gradient_clip.max == 1.0
    layer = fluid.dygraph.Layer("attr")
    w = layer.create_parameter(attr, [2], "float32")
    assert w.name == "w" and not w.trainable and w.optimize_attr["learning_rate"] == 0.5
    assert isinstance(w.regularizer, fluid.regularizer.L1DecayRegularizer)


def test_regularizers():
    w, g = dygraph.to_tensor([2.0, -1.0]), dygraph.to_tensor([0.5, 0.5])
    l2 = fluid.regularizer.L2Decay(regularization_coeff=0.1)
    np.testing.assert_allclose(l2(w, g).numpy(), [0.7, 0.4], rtol=1e-6)
    l1 = fluid.regularizer.L1DecayRegularizer(0.1)
    np.testing.assert_allclose(l1(w, g).numpy(), [0.6, 0.4], rtol=1e-6)
    assert fluid.regularizer.L2DecayRegularizer is fluid.regularizer.L2Decay


def test_clips_with_need_clip():
    a = dygraph.to_tensor([0.0], stop_gradient=False)
    b = dygraph.to_tensor([0.0], stop_gradient=False)
    pairs = [(a, dygraph.to_tensor([3.0])), (b, dygraph.to_tensor([4.0]))]
    clipped = fluid.clip.GradientClipByGlobalNorm(1.0)(pairs)
    np.testing.assert_allclose([g.numpy()[0] for _, g in clipped], [0.6, 0.8], rtol=1e-6)
    only_b = fluid.clip.GradientClipByNorm(2.0, need_clip=lambda p: p is b)(pairs)
    assert [g.numpy()[0] for _, g in only_b] == [3.0, 2.0]
    by_value = fluid.clip.GradientClipByValue(3.5, min=-1.0)(pairs)
    assert [g.numpy()[0] for _, g in by_value] == [3.0, 3.5]


def test_unique_name_guard_and_switch():
    with fluid.unique_name.guard():
        first = [fluid.unique_name.generate("ns_fc") for _ in range(2)]
        layer_a = fluid.dygraph.Layer("ns_model")
    with fluid.unique_name.guard():
        assert fluid.unique_name.generate("ns_fc") == first[0] == "ns_fc_0"
        layer_b = fluid.dygraph.Layer("ns_model")
    assert layer_a.full_name() == layer_b.full_name() == "ns_model_0"
    state = fluid.unique_name.switch()
    fluid.unique_name.generate("ns_switch")
    inner = fluid.unique_name.switch(state)
    with fluid.unique_name.guard(inner):
        assert fluid.unique_name.generate("ns_switch") == "ns_switch_1"
    with pytest.raises(TypeError, match="new_generator"):
        with fluid.unique_name.guard("prefix"):
            pass


def test_io_and_lazy_names():
    assert list(fluid.io.batch(lambda: iter(range(3)), 2)()) == [[0, 1], [2]]
    assert fluid.io.DataLoader is dygraph.io.DataLoader
    assert fluid.Layer is fluid.dygraph.Layer
    for name in ("Sequential", "LayerList", "ParameterList", "BatchNorm", "GRUUnit",
                 "NoamDecay", "DataParallel", "prepare_context", "save_dygraph"):
        assert getattr(fluid.dygraph, name) is not None
    layers = fluid.dygraph.LayerList([fluid.dygraph.Linear(2, 2) for _ in range(2)])
    assert len(layers.parameters()) == 4 and isinstance(layers, fluid.dygraph.Layer)
