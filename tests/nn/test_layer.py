"""Layer: registration, naming, state dicts, modes, hooks, repr, conversion and training."""

import copy
import pickle
import warnings

import numpy as np
import pytest

import dygraph
from dygraph import nn
from dygraph.framework.parameter import Parameter
from dygraph.nn.initializer import Assign, Constant


class Affine(nn.Layer):
    """y = x @ weight + bias, built only from Layer's own tools."""

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None,
                 dtype="float32"):
        super().__init__(dtype=dtype)
        self.weight = self.create_parameter([in_features, out_features], weight_attr)
        self.bias = self.create_parameter([out_features], bias_attr, is_bias=True)

    def forward(self, x):
        out = dygraph.matmul(x, self.weight)
        return out if self.bias is None else out + self.bias

    def extra_repr(self):
        return f"in_features={self.weight.shape[0]}, out_features={self.weight.shape[1]}"


class TwoLayer(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = Affine(2, 3)
        self.fc2 = Affine(3, 1)
        self.register_buffer("steps", dygraph.zeros([1]))

    def forward(self, x):
        return self.fc2(dygraph.tanh(self.fc1(x)))


# -- registration ---------------------------------------------------------------------------
def test_assignment_registers_parameters_sublayers_and_buffers():
    net = TwoLayer()
    assert list(net._parameters) == []
    assert list(net._sub_layers) == ["fc1", "fc2"]
    assert list(net._buffers) == ["steps"]
    # Members are mirrored into __dict__ so reading them is a plain attribute lookup.
    assert net.__dict__["fc1"] is net._sub_layers["fc1"]
    assert isinstance(net.fc1.weight, Parameter) and net.fc1.weight.stop_gradient is False
    names = [name for name, _ in net.named_parameters()]
    assert names == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert [name for name, _ in net.named_buffers()] == ["steps"]
    assert {"fc1", "fc2", "steps"} <= set(dir(net))


def test_plain_tensor_attribute_is_a_non_persistable_buffer():
    net = TwoLayer()
    net.debug = dygraph.ones([2])
    assert "debug" in dict(net.named_buffers())
    assert "debug" not in net.state_dict()
    net.debug = None
    assert net.debug is None


def test_deleting_and_reassigning_attributes():
    net = TwoLayer()
    del net.fc2
    assert "fc2" not in net._sub_layers
    with pytest.raises(AttributeError, match="fc2"):
        _ = net.fc2
    del net.steps
    assert net.buffers() == []
    net.fc1.bias = None  # a registered parameter may be cleared
    assert [n for n, _ in net.named_parameters()] == ["fc1.weight"]
    with pytest.raises(TypeError, match="bias"):
        net.fc1.bias = 3.0
    with pytest.raises(TypeError, match="fc1"):
        net.fc1 = "not a layer"
    # A Layer replacing a plain attribute of the same name moves it into _sub_layers.
    net.helper = 1
    net.helper = Affine(1, 1)
    assert net.helper is net._sub_layers["helper"]
    del net.helper
    assert not hasattr(net, "helper")


def test_stores_written_directly_keep_attributes_in_step():
    class WithDefault(nn.Layer):
        bias = None  # a class-level default must not hide a registered parameter

        def __init__(self):
            super().__init__()
            self.bias = self.create_parameter([1], is_bias=True)

    layer = WithDefault()
    assert layer.bias is layer._parameters["bias"]
    other = layer.create_parameter([1])
    layer._parameters["bias"] = other
    assert layer.bias is other
    del layer._parameters["bias"]
    assert layer.bias is None  # the class default shows again
    layer._parameters.update(extra=other)
    assert layer.extra is other
    assert layer._parameters.pop("extra") is other and not hasattr(layer, "extra")
    layer._sub_layers = {"child": nn.Layer()}
    assert layer.child is layer._sub_layers["child"]
    layer._sub_layers.clear()
    assert not hasattr(layer, "child")


def test_copies_and_pickles_have_their_own_members():
    net = TwoLayer()
    for clone in (copy.copy(net), copy.deepcopy(net), pickle.loads(pickle.dumps(net))):
        clone.fc3 = Affine(1, 1)
        assert "fc3" not in net._sub_layers and not hasattr(net, "fc3")
        clone.fc1.extra = clone.fc1.create_parameter([1])
        assert clone.fc1.extra is clone.fc1._parameters["extra"]
        del clone.fc3
        assert not hasattr(clone, "fc3")


def test_registration_before_init_and_bad_names():
    class Early(nn.Layer):
        def __init__(self):
            self.w = Parameter(np.zeros(1, np.float32))
            super().__init__()

    with pytest.raises(ValueError, match="super"):
        Early()
    layer = nn.Layer()
    param = layer.create_parameter([1])
    with pytest.raises(KeyError, match="'.'"):
        layer.add_parameter("a.b", param)
    with pytest.raises(KeyError, match="empty"):
        layer.add_parameter("", param)
    with pytest.raises(KeyError, match="already exists"):
        layer.add_parameter("training", param)
    with pytest.raises(TypeError, match="Parameter"):
        layer.add_parameter("w", dygraph.zeros([1]))
    with pytest.raises(TypeError, match="Tensor"):
        layer.register_buffer("b", np.zeros(1))
    with pytest.raises(TypeError, match="Layer"):
        layer.add_sublayer("child", object())
    assert layer.add_parameter("w", param) is param and layer.w is param


def test_named_members_are_deduplicated_and_prefixed():
    shared = Affine(2, 2)
    net = nn.Layer()
    net.a = shared
    net.b = shared
    net.extra = shared.weight
    # The layer's own parameters come first; a shared one is listed once.
    assert [n for n, _ in net.named_parameters(prefix="m")] == ["m.extra", "m.a.bias"]
    assert len(net.parameters()) == 2
    assert net.sublayers() == [shared]
    assert net.sublayers(include_self=True) == [net, shared]
    assert list(net.children()) == [shared]
    assert net.parameters(include_sublayers=False) == [shared.weight]
    # state_dict lists every path, as Paddle does, so each key loads back.
    assert list(net.state_dict()) == ["extra", "a.weight", "a.bias", "b.weight", "b.bias"]


# -- names and parameter creation ------------------------------------------------------------
def test_unique_parameter_names_follow_the_layer_name_scope():
    first, second = Affine(2, 2), Affine(2, 2)
    scope1, scope2 = first.full_name(), second.full_name()
    assert scope1.startswith("affine_") and scope1 != scope2
    assert first.weight.name == scope1 + ".w_0" and first.bias.name == scope1 + ".b_0"
    assert second.weight.name == scope2 + ".w_0"
    names = [p.name for layer in (first, second) for p in layer.parameters()]
    assert len(set(names)) == len(names)


def test_snake_case_scopes_and_hierarchical_full_names():
    class SimpleImgConvPool(nn.Layer):
        def __init__(self, name_scope):
            super().__init__(name_scope)
            self.w = self.create_parameter([1])

    class Conv2D(nn.Layer):
        pass

    class MNIST(nn.Layer):
        def __init__(self, name_scope):
            super().__init__(name_scope)
            self.pool1 = SimpleImgConvPool(self.full_name())
            self.pool2 = SimpleImgConvPool(self.full_name())

    assert Conv2D().full_name().startswith("conv2d_")
    model = MNIST("mnist_h5a")
    top = model.full_name()
    assert top.startswith("mnist_h5a_")
    assert model.pool1.full_name() == top + "/simple_img_conv_pool_0"
    assert model.pool2.full_name() == top + "/simple_img_conv_pool_1"
    assert model.pool2.w.name == top + "/simple_img_conv_pool_1.w_0"
    # A plain name_scope that is not a layer's full name is used as given.
    assert SimpleImgConvPool("custom_h5a").full_name() == "custom_h5a_0"


def test_create_parameter_attrs_and_defaults():
    layer = nn.Layer(dtype="float64")
    assert layer.create_parameter([2], attr=False) is None
    named = layer.create_parameter([2], attr="my_weight_h5a")
    assert named.name == "my_weight_h5a" and named.dtype == dygraph.float64
    frozen = layer.create_parameter(
        [3], attr=dygraph.ParamAttr(learning_rate=0.5, trainable=False, need_clip=False,
                                    initializer=Constant(2.0)))
    assert frozen.stop_gradient and not frozen.trainable
    assert frozen.optimize_attr == {"learning_rate": 0.5} and frozen.need_clip is False
    np.testing.assert_array_equal(frozen.numpy(), [2.0, 2.0, 2.0])
    bias = layer.create_parameter([4], is_bias=True)
    np.testing.assert_array_equal(bias.numpy(), np.zeros(4))
    weight = layer.create_parameter([30, 70], dtype="float32")
    assert weight.dtype == dygraph.float32
    assert np.abs(weight.numpy()).max() <= np.sqrt(6 / 100)  # XavierUniform by default
    with pytest.raises(TypeError, match="int64"):
        layer.create_parameter([2], dtype="int64")
    counts = layer.create_parameter([2], dtype="int64", default_initializer=Constant(3))
    assert counts.numpy().tolist() == [3, 3]
    with pytest.raises(ValueError, match="dimension"):
        layer.create_parameter([-1, 2])


def test_create_tensor_names_and_persistable():
    layer = nn.Layer("tensor_maker_h5a")
    named = layer.create_tensor("tmp", persistable=True, dtype="int64")
    assert named.name == layer.full_name() + ".tmp" and named.persistable
    assert named.dtype == dygraph.int64 and named.shape == [0]
    assert layer.create_variable().name.startswith(layer.full_name() + "._generated_var")


# -- state dict --------------------------------------------------------------------------------
def test_state_dict_round_trip_into_a_fresh_model():
    source, target = TwoLayer(), TwoLayer()
    source.steps.set_value(np.array([7.0], np.float32))
    state = source.state_dict()
    assert list(state) == ["steps", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert state["fc1.weight"] is source.fc1.weight
    arrays = {k: v.numpy().copy() for k, v in state.items()}
    missing, unexpected = target.set_state_dict(arrays)
    assert missing == [] and unexpected == []
    for key, value in target.state_dict().items():
        np.testing.assert_array_equal(value.numpy(), arrays[key])
    x = dygraph.to_tensor(np.arange(4, dtype=np.float32).reshape(2, 2))
    np.testing.assert_array_equal(source(x).numpy(), target(x).numpy())
    assert nn.Layer.load_dict is nn.Layer.set_state_dict is nn.Layer.set_dict


def test_state_dict_prefix_and_detached_values():
    net = TwoLayer()
    state = net.state_dict(structured_name_prefix="model.", include_sublayers=False)
    assert list(state) == ["model.steps"]
    detached = net.state_dict(keep_vars=False)["fc1.weight"]
    assert detached is not net.fc1.weight and detached.stop_gradient


def test_shape_mismatch_names_the_key_and_writes_nothing():
    net = TwoLayer()
    before = {k: v.numpy().copy() for k, v in net.state_dict().items()}
    bad = {k: np.ones_like(v) for k, v in before.items()}
    bad["fc2.weight"] = np.ones((2, 2), np.float32)
    with pytest.raises(ValueError, match=r"'fc2.weight' has shape \[2, 2\].*\[3, 1\]"):
        net.set_state_dict(bad)
    for key, value in net.state_dict().items():
        np.testing.assert_array_equal(value.numpy(), before[key])
    with pytest.raises(TypeError, match="fc1.bias"):
        net.set_state_dict({"fc1.bias": np.ones(3, np.complex64)})


def test_missing_and_unexpected_keys_are_returned_and_warned():
    net = TwoLayer()
    state = {"fc1.weight": dygraph.ones([2, 3]), "nothing.here": np.zeros(1)}
    with pytest.warns(UserWarning, match="nothing.here"):
        missing, unexpected = net.set_state_dict(state)
    assert missing == ["steps", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert unexpected == ["nothing.here"]
    np.testing.assert_array_equal(net.fc1.weight.numpy(), np.ones((2, 3)))


def test_load_by_parameter_name():
    source, target = Affine(2, 2), Affine(2, 2)
    by_name = {p.name: p.numpy() * 0 + 5 for p in source.parameters()}
    by_name[target.weight.name] = np.full((2, 2), 3.0, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        missing, _ = target.set_state_dict(by_name, use_structured_name=False)
    assert missing == [target.bias.name]
    np.testing.assert_array_equal(target.weight.numpy(), np.full((2, 2), 3.0))


def test_values_loaded_before_a_lazy_parameter_exists_are_used_when_it_is_built():
    class LazyFC(nn.Layer):
        """A 1.x-style layer whose weight depends on the first input (build_once)."""

        def __init__(self):
            super().__init__()
            self.builds = 0

        def build_once(self, x):
            self.builds += 1
            self.weight = self.create_parameter([x.shape[1], 2])

        def forward(self, x):
            return dygraph.matmul(x, self.weight)

    trained = nn.Sequential(LazyFC())
    x = dygraph.ones([1, 3])
    trained(x)
    state = {k: v.numpy() for k, v in trained.state_dict().items()}
    fresh = nn.Sequential(LazyFC())
    with pytest.warns(UserWarning):
        assert fresh.set_state_dict(state) == ([], ["0.weight"])
    np.testing.assert_array_equal(fresh(x).numpy(), trained(x).numpy())
    fresh(x)
    assert fresh[0].builds == 1 and fresh[0]._loaddict_holder == {}


# -- modes, hooks, calling -----------------------------------------------------------------
def test_train_and_eval_propagate_to_sublayers():
    net = TwoLayer()
    assert net.eval() is net
    assert [layer.training for layer in net.sublayers(include_self=True)] == [False] * 3
    net.fc1.train()
    assert net.fc1.training and not net.training and not net.fc2.training
    net.train()
    assert all(layer.training for layer in net.sublayers(include_self=True))


def test_forward_hooks_change_inputs_and_outputs_and_can_be_removed():
    layer = Affine(1, 1, weight_attr=Assign([[2.0]]))
    x = dygraph.to_tensor([[1.0]])
    seen = []
    pre = layer.register_forward_pre_hook(lambda lay, inputs: inputs[0] * 10)
    post = layer.register_forward_post_hook(lambda lay, inputs, out: out + 1)
    layer.register_forward_post_hook(lambda lay, inputs, out: seen.append(out.item()))
    assert layer(x).item() == 21.0
    assert seen == [21.0]
    pre.remove()
    pre.remove()
    assert layer(x).item() == 3.0
    post.remove()
    assert layer(x).item() == 2.0


def test_build_once_runs_once_before_forward_and_forward_is_required():
    calls = []

    class Lazy(nn.Layer):
        def build_once(self, x, scale=1):
            calls.append(("build", x, scale))

        def forward(self, x, scale=1):
            calls.append(("forward", x, scale))
            return x

    lazy = Lazy()
    lazy(1, scale=2)
    lazy(3)
    assert calls == [("build", 1, 2), ("forward", 1, 2), ("forward", 3, 1)]
    with pytest.raises(NotImplementedError, match="forward"):
        nn.Layer()(1)
    with pytest.raises(ValueError, match="backward"):
        nn.Layer().backward()


def test_repr_prints_the_sublayer_tree():
    class Multi(nn.Layer):
        def extra_repr(self):
            return "a=1\nb=2"

    net = nn.Sequential(Affine(2, 3), nn.Sequential(Affine(3, 1)))
    net.add_sublayer("m", Multi())
    assert repr(net) == (
        "Sequential(\n"
        "  (0): Affine(in_features=2, out_features=3)\n"
        "  (1): Sequential(\n"
        "    (0): Affine(in_features=3, out_features=1)\n"
        "  )\n"
        "  (m): Multi(\n"
        "    a=1\n"
        "    b=2\n"
        "  )\n"
        ")")
    assert repr(nn.Layer()) == "Layer()"


def test_apply_visits_children_before_parents():
    net = TwoLayer()
    order = []
    assert net.apply(lambda layer: order.append(layer)) is net
    assert order == [net.fc1, net.fc2, net]
    net.apply(lambda layer: [Constant(0.5)(p) for p in layer.parameters(False)])
    assert all((p.numpy() == 0.5).all() for p in net.parameters())


# -- gradients, conversion, copies -----------------------------------------------------------
def test_clear_gradients_zeroes_or_drops():
    net = TwoLayer()
    net(dygraph.ones([2, 2])).sum().backward()
    grad = net.fc1.weight.grad
    net.clear_gradients()
    assert net.fc1.weight.grad is grad and not grad.numpy().any()
    net.clear_gradients(set_to_zero=False)
    assert all(p.grad is None for p in net.parameters())


def test_to_and_float_casts_in_place_keeping_parameter_objects():
    net = TwoLayer()
    weight = net.fc1.weight
    net(dygraph.ones([1, 2])).sum().backward()
    assert net.to(device="cpu", dtype="float64") is net
    assert net.fc1.weight is weight and weight.dtype == dygraph.float64
    assert weight.grad.dtype == dygraph.float64 and net.steps.dtype == dygraph.float64
    assert net._dtype == "float64"
    out = net(dygraph.ones([1, 2], dtype="float64"))
    assert out.dtype == dygraph.float64
    net.float(excluded_layers=[net.fc2])
    assert weight.dtype == dygraph.float32 and net.fc2.weight.dtype == dygraph.float64
    net.float16(excluded_layers=Affine)
    assert weight.dtype == dygraph.float32 and net.steps.dtype == dygraph.float16
    assert net.astype("float64").fc2.bias.dtype == dygraph.float64
    with pytest.raises(ValueError, match="device"):
        net.to(device="tpu")


def test_deepcopy_gives_an_independent_layer():
    net = TwoLayer()
    clone = copy.deepcopy(net)
    assert clone.fc1.weight is not net.fc1.weight
    np.testing.assert_array_equal(clone.fc1.weight.numpy(), net.fc1.weight.numpy())
    with dygraph.no_grad():
        clone.fc1.weight.set_value(np.zeros((2, 3), np.float32))
    assert net.fc1.weight.numpy().any()


def test_a_tiny_layer_learns_by_hand_written_sgd():
    dygraph.seed(5)
    model = Affine(1, 1)
    xs = dygraph.to_tensor(np.linspace(-1, 1, 16, dtype=np.float32).reshape(16, 1))
    ys = xs * 2.0 + 0.5
    losses = []
    for _ in range(60):
        loss = ((model(xs) - ys) ** 2).mean()
        loss.backward()
        losses.append(loss.item())
        with dygraph.no_grad():
            for param in model.parameters():
                param.set_value(param.numpy() - 0.3 * param.grad.numpy())
        model.clear_gradients()
    assert losses[-1] < 1e-3 < losses[0]
    np.testing.assert_allclose(model.weight.numpy(), [[2.0]], atol=0.05)
    np.testing.assert_allclose(model.bias.numpy(), [0.5], atol=0.05)


def test_remove_duplicate_lists_shared_members_under_every_name():
    shared = nn.Linear(2, 2)
    net = nn.Sequential(shared, shared)
    assert len(list(net.named_parameters())) == 2
    assert [n for n, _ in net.named_parameters(remove_duplicate=False)] == [
        "0.weight", "0.bias", "1.weight", "1.bias"]
    assert [n for n, _ in net.named_sublayers(remove_duplicate=False)] == ["0", "1"]


class _Scaled(nn.Layer):
    def forward(self, x, scale=1.0):
        if scale < 0:
            raise ValueError("negative scale")
        return x * scale


def test_forward_hooks_with_kwargs_prepend_and_always_call():
    layer, log = _Scaled(), []
    layer.register_forward_pre_hook(lambda m, args: log.append("plain"))
    layer.register_forward_pre_hook(
        lambda m, args, kwargs: (log.append("kwargs"), (args, {"scale": 3.0}))[1],
        with_kwargs=True, prepend=True)
    layer.register_forward_post_hook(lambda m, args, kwargs, out: out + kwargs["scale"],
                                     with_kwargs=True)
    assert float(layer(dygraph.to_tensor(1.0))) == 6.0
    assert log == ["kwargs", "plain"]
    failing, seen = _Scaled(), []
    failing.register_forward_post_hook(lambda m, args, out: seen.append(out), always_call=True)
    with pytest.raises(ValueError, match="negative"):
        failing(dygraph.to_tensor(1.0), scale=-1.0)
    assert seen == [None]
