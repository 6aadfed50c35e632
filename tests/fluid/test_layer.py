"""fluid.dygraph.Layer: 1.x names, build_once, create_parameter's argument orders, load_dict,
clear_gradients, and the 1.x parameter objects."""

import numpy as np
import pytest

import dygraph.fluid as fluid
from dygraph.fluid.dygraph import Layer


class Child(Layer):
    def __init__(self, name_scope):
        super().__init__(name_scope)
        self.w = self.create_parameter(None, [2], "float32")

    def forward(self, x):
        return x * self.w


class Parent(Layer):
    def __init__(self, name_scope):
        super().__init__(name_scope)
        self.first = Child(self.full_name())
        self.second = Child(self.full_name())

    def forward(self, x):
        return self.second(self.first(x))


def test_full_names_are_unique_and_nest_under_the_parent():
    a, b = Parent("net"), Parent("net")
    assert a.full_name() != b.full_name()
    assert a.full_name().startswith("net_")
    assert a.first.full_name().startswith(a.full_name() + "/child_")
    assert a.first.full_name() != a.second.full_name()
    assert a.first.w.name.startswith(a.first.full_name() + ".w_")
    assert fluid.Layer is Layer and fluid.dygraph.layers.Layer is Layer


def test_build_once_runs_once_before_the_first_forward():
    calls = []

    class Lazy(Layer):
        def build_once(self, x):
            calls.append(("build", x.shape))
            self.w = self.create_parameter(None, [x.shape[-1]], "float32")

        def forward(self, x):
            calls.append(("forward", x.shape))
            return x * self.w

    layer = Lazy("lazy")
    assert layer.parameters() == []
    x = fluid.dygraph.to_variable(np.ones([2, 3], np.float32))
    layer(x)
    layer(x)
    assert calls == [("build", [2, 3]), ("forward", [2, 3]), ("forward", [2, 3])]
    assert [p.shape for p in layer.parameters()] == [[3]]


def test_create_parameter_takes_the_1x_and_the_2x_order():
    layer = Layer("params")
    attr = fluid.ParamAttr(initializer=fluid.initializer.ConstantInitializer(3.0))
    w14 = layer.create_parameter(attr, [2, 2], "float32")
    w20 = layer.create_parameter([2, 2], attr)
    b = layer.create_parameter(attr=None, shape=[4], dtype="float64", is_bias=True)
    np.testing.assert_array_equal(w14.numpy(), np.full([2, 2], 3.0))
    np.testing.assert_array_equal(w20.numpy(), np.full([2, 2], 3.0))
    assert b.numpy().dtype == np.float64
    np.testing.assert_array_equal(b.numpy(), np.zeros(4))
    assert layer.create_parameter(False, [2], "float32") is None
    with pytest.raises(TypeError, match="shape"):
        layer.create_parameter(None)


def test_parameters_have_1x_names_values_and_gradients():
    with fluid.dygraph.guard():
        net = Parent("grads")
        x = fluid.dygraph.to_variable(np.array([1.0, 2.0], np.float32))
        fluid.layers.reduce_sum(net(x)).backward()
        for param in net.parameters():
            assert isinstance(param.name, str)
            assert param.numpy().shape == (2,)
            assert param.gradient().shape == (2,)
        net.clear_gradients()
        assert all(not p.gradient().any() for p in net.parameters())


def test_load_dict_by_structured_names_and_by_parameter_names():
    source, target = Parent("src"), Parent("dst")
    by_structure = source.state_dict()
    target.load_dict(by_structure)
    for key, value in target.state_dict().items():
        np.testing.assert_array_equal(value.numpy(), by_structure[key].numpy())
    by_name = {p.name: np.full([2], 7.0, np.float32) for p in target.parameters()}
    target.set_dict(by_name)
    assert all((p.numpy() == 7.0).all() for p in target.parameters())


def test_load_dict_with_a_missing_parameter_raises_before_writing():
    net = Parent("missing")
    state = {k: np.full([2], 5.0, np.float32) for k in net.state_dict()}
    del state["second.w"]
    before = net.first.w.numpy().copy()
    with pytest.raises(RuntimeError, match="second.w"):
        net.load_dict(state)
    np.testing.assert_array_equal(net.first.w.numpy(), before)


def test_load_dict_fills_parameters_created_at_the_first_call():
    with fluid.dygraph.guard():
        trained = fluid.dygraph.FC("fc", 3)
        x = fluid.dygraph.to_variable(np.ones([2, 4], np.float32))
        expected = trained(x).numpy()
        fresh = fluid.dygraph.FC("fc", 3)
        fresh.load_dict(trained.state_dict())  # fresh has no weight yet
        np.testing.assert_array_equal(fresh(x).numpy(), expected)


def test_tensor_attributes_are_not_state():
    class Debug(Layer):
        def forward(self, x):
            self._x_for_debug = fluid.layers.relu(x)
            return self._x_for_debug

    layer = Debug("debug")
    layer(fluid.dygraph.to_variable(np.ones([2], np.float32)))
    assert list(layer.state_dict()) == []
    assert layer._x_for_debug.shape == [2]
