"""Container layers: Sequential (with append, insert and extend), LayerList, LayerDict,
ParameterList, ParameterDict, and the torch-style aliases (Module, ModuleList, Conv1d,
Parameter(shape, dtype))."""

from collections import OrderedDict

import numpy as np
import pytest

import dygraph
from dygraph import nn
from dygraph.nn.initializer import Constant


class AddConst(nn.Layer):
    """x + c with c a parameter, so containers have something to register."""

    def __init__(self, value):
        super().__init__()
        self.c = self.create_parameter([1], default_initializer=Constant(value))

    def forward(self, x):
        return x + self.c

    def extra_repr(self):
        return f"c={self.c.item()}"


def values(layers):
    return [layer.c.item() for layer in layers]


# -- Sequential ----------------------------------------------------------------------------
def test_sequential_runs_layers_in_order_and_registers_them():
    net = nn.Sequential(AddConst(1.0), AddConst(2.0))
    assert net(dygraph.to_tensor([0.5])).item() == 3.5
    assert list(net.state_dict()) == ["0.c", "1.c"]
    assert len(net.parameters()) == 2
    assert net(dygraph.to_tensor([1.0])).item() == 4.0
    assert nn.Sequential()(dygraph.to_tensor([1.0])).item() == 1.0


def test_sequential_accepts_pairs_and_ordered_dicts():
    pairs = nn.Sequential(("first", AddConst(1.0)), ("second", AddConst(2.0)))
    mapping = nn.Sequential(OrderedDict([("first", AddConst(1.0)), ("second", AddConst(2.0))]))
    for net in (pairs, mapping):
        assert [name for name, _ in net.named_children()] == ["first", "second"]
        assert net["second"].c.item() == 2.0 and net.first is net[0]


def test_sequential_indexing_slicing_iteration_and_edits():
    layers = [AddConst(float(i)) for i in range(4)]
    net = nn.Sequential(*layers)
    assert len(net) == 4 and net[-1] is layers[3] and list(net) == layers
    part = net[1:3]
    assert isinstance(part, nn.Sequential) and list(part) == layers[1:3]
    with pytest.raises(IndexError, match="out of range"):
        net[4]
    with pytest.raises(IndexError):
        net[-5]
    replacement = AddConst(9.0)
    net[1] = replacement
    assert net[1] is replacement and list(net._sub_layers) == ["0", "1", "2", "3"]
    with pytest.raises(TypeError, match="Layer"):
        net[0] = "relu"
    del net[0]
    assert values(net) == [9.0, 2.0, 3.0]
    del net["3"]
    assert len(net) == 2


def test_sequential_repr():
    net = nn.Sequential(AddConst(1.0))
    assert repr(net) == "Sequential(\n  (0): AddConst(c=1.0)\n)"


# -- LayerList -----------------------------------------------------------------------------
def test_layer_list_append_extend_insert():
    layers = nn.LayerList([AddConst(0.0)])
    assert layers.append(AddConst(1.0)) is layers
    layers.extend([AddConst(2.0), AddConst(3.0)])
    layers.insert(0, AddConst(-1.0))
    layers.insert(-1, AddConst(2.5))
    layers.insert(len(layers), AddConst(4.0))
    assert values(layers) == [-1.0, 0.0, 1.0, 2.0, 2.5, 3.0, 4.0]
    assert list(layers._sub_layers) == [str(i) for i in range(7)]
    assert [n for n, _ in layers.named_parameters()] == [f"{i}.c" for i in range(7)]
    with pytest.raises(IndexError):
        layers.insert(9, AddConst(0.0))
    with pytest.raises(TypeError, match="iterable"):
        layers.extend(AddConst(0.0))


def test_layer_list_indexing_deleting_and_assignment():
    layers = nn.LayerList([AddConst(float(i)) for i in range(5)])
    assert layers[-1].c.item() == 4.0 and len(layers) == 5
    assert isinstance(layers[1:3], nn.LayerList) and values(layers[1:3]) == [1.0, 2.0]
    del layers[1]
    assert values(layers) == [0.0, 2.0, 3.0, 4.0]
    assert list(layers._sub_layers) == ["0", "1", "2", "3"]
    del layers[::2]
    assert values(layers) == [2.0, 4.0]
    layers[-1] = AddConst(8.0)
    assert values(layers) == [2.0, 8.0]
    with pytest.raises(IndexError):
        layers[2]
    with pytest.raises(TypeError, match="Layer"):
        layers[0] = 5


def test_layer_list_inside_a_model_trains_and_switches_mode():
    class Stack(nn.Layer):
        def __init__(self):
            super().__init__()
            self.blocks = nn.LayerList([AddConst(1.0), AddConst(2.0)])

        def forward(self, x):
            for block in self.blocks:
                x = block(x)
            return x

    model = Stack()
    out = model(dygraph.to_tensor([0.0]))
    out.backward()
    assert [p.grad.item() for p in model.parameters()] == [1.0, 1.0]
    model.eval()
    assert not model.blocks[1].training
    assert list(model.state_dict()) == ["blocks.0.c", "blocks.1.c"]


# -- LayerDict -----------------------------------------------------------------------------
def test_layer_dict_behaves_like_an_ordered_dict():
    layers = nn.LayerDict({"a": AddConst(1.0), "b": AddConst(2.0)})
    layers.update([("c", AddConst(3.0))])
    layers.update(nn.LayerDict({"d": AddConst(4.0)}))
    assert list(layers) == ["a", "b", "c", "d"] and len(layers) == 4
    assert list(layers.keys()) == ["a", "b", "c", "d"]
    assert values(layers.values()) == [1.0, 2.0, 3.0, 4.0]
    assert [k for k, _ in layers.items()] == ["a", "b", "c", "d"]
    assert "c" in layers and "z" not in layers
    layers["a"] = AddConst(5.0)
    assert layers["a"].c.item() == 5.0 and list(layers)[0] == "a"
    assert layers.pop("b").c.item() == 2.0
    del layers["c"]
    assert list(layers.state_dict()) == ["a.c", "d.c"]
    layers.clear()
    assert len(layers) == 0 and layers.parameters() == []
    with pytest.raises(ValueError, match="pair"):
        layers.update([("a", AddConst(1.0), "extra")])
    with pytest.raises(TypeError, match="mapping"):
        layers.update(3)


# -- ParameterList -------------------------------------------------------------------------
def test_parameter_list_registers_parameters():
    maker = nn.Layer()
    params = nn.ParameterList([maker.create_parameter([2]) for _ in range(2)])
    extra = maker.create_parameter([3])
    assert params.append(extra) is params
    assert len(params) == 3 and params[-1] is extra and list(params)[2] is extra
    assert params.parameters() == list(params) and params[0:2] == list(params)[:2]
    assert list(params.state_dict()) == ["0", "1", "2"]
    replacement = maker.create_parameter([2])
    params[0] = replacement
    assert params[0] is replacement and len(params) == 3
    with pytest.raises(TypeError, match="Parameter"):
        params[1] = dygraph.zeros([2])
    with pytest.raises(IndexError):
        params[3]

    class Mixture(nn.Layer):
        def __init__(self):
            super().__init__()
            self.weights = params

        def forward(self, x):
            return sum((x * w).sum() for w in self.weights)

    out = Mixture()(dygraph.ones([1]))
    out.backward()
    np.testing.assert_array_equal(extra.grad.numpy(), np.ones(3))


def test_containers_and_aliases():
    maker = nn.Layer()
    params = nn.ParameterDict({"a": maker.create_parameter([2])})
    params["b"] = maker.create_parameter([3])
    assert list(params) == ["a", "b"] and "b" in params
    holder = nn.Module()
    holder.params = params
    assert sorted(holder.state_dict()) == ["params.a", "params.b"]
    assert nn.ModuleList is nn.LayerList and nn.ModuleDict is nn.LayerDict
    conv = nn.Conv1d(2, 4, 3, bias=False, dtype="float64")
    assert conv.bias is None and conv.weight.dtype == dygraph.float64
    assert nn.AdaptiveMaxPool2d is nn.AdaptiveMaxPool2D and nn.LPPool1d is nn.LPPool1D
    made = nn.Parameter([2, 3], "float64")  # Paddle's (shape, dtype) form
    assert made.shape == [2, 3] and made.dtype == dygraph.float64 and not made.stop_gradient
    wrapped = nn.Parameter(dygraph.ones([2]), name="w", trainable=False)
    assert wrapped.name == "w" and wrapped.stop_gradient


def test_sequential_append_insert_extend():
    net = nn.Sequential(nn.ReLU()).append(nn.Tanh()).extend([nn.Sigmoid()])
    net.insert(-1, nn.Silu())
    assert [type(layer).__name__ for layer in net] == ["ReLU", "Tanh", "Silu", "Sigmoid"]
    assert list(net._sub_layers) == ["0", "1", "2", "3"]
    with pytest.raises(IndexError):
        net.insert(9, nn.ReLU())
