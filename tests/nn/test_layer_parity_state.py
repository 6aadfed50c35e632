"""Layers whose state_dict keys and argument errors follow Paddle 3.3:

* GRU / LSTM / SimpleRNN also hold their cells' parameters under Paddle's flat names
  (weight_ih_l0, ..., bias_hh_l1_reverse): the same Parameter objects, listed once by
  parameters(), so a Paddle checkpoint (keyed either way) loads by key;
* BatchNorm1D/2D/3D take only the data_format values Paddle's take;
* pad's unknown mode is an AssertionError (and ValueError), unfold's list of the wrong
  length a TypeError (and ValueError), fold's an AssertionError (and ValueError).

The RNN outputs below were produced by Paddle 3.3 from the same weights and input.
"""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph import nn

# Paddle 3.3's state_dict keys, in order
GRU_BIDIRECT_2 = [
    "weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
    "weight_ih_l0_reverse", "weight_hh_l0_reverse", "bias_ih_l0_reverse",
    "bias_hh_l0_reverse",
    "weight_ih_l1", "weight_hh_l1", "bias_ih_l1", "bias_hh_l1",
    "weight_ih_l1_reverse", "weight_hh_l1_reverse", "bias_ih_l1_reverse",
    "bias_hh_l1_reverse",
] + [f"{i}.{cell}.{name}" for i in (0, 1) for cell in ("cell_fw", "cell_bw")
     for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
LSTM_PROJ = ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "0.cell.weight_ih",
             "0.cell.weight_hh", "0.cell.bias_ih", "0.cell.bias_hh", "0.cell.weight_ho"]

# Paddle 3.3: the layer built as below, loaded with `_rule` weights under the flat keys
# only, run on `_input()`
PADDLE_OUT = {
    "GRU": (dict(direction="bidirect"), [
        [[0.6637914180755615, 0.14031299948692322, -0.15579840540885925,
          -0.3653244078159332, 0.4915178120136261, 0.5462378263473511],
         [0.335013210773468, 0.33564820885658264, 0.1322467029094696,
          -0.4644958972930908, -0.23407019674777985, 0.3736982047557831],
         [0.15932680666446686, 0.4014151990413666, 0.2832261919975281,
          -0.2486557960510254, -0.23322010040283203, 0.19917170703411102]],
        [[0.6609779000282288, 0.06845860183238983, -0.1423145979642868,
          -0.28394490480422974, 0.6249827742576599, 0.5842812061309814],
         [0.6250748038291931, 0.30133119225502014, -0.13347570598125458,
          -0.40767499804496765, 0.16047720611095428, 0.46650031208992004],
         [0.16651590168476105, 0.4093047082424164, 0.2678205966949463,
          -0.37730249762535095, -0.35866779088974, 0.19818510115146637]]]),
    "LSTM": (dict(num_layers=2), [
        [[0.04746609926223755, 0.012830499559640884, -0.08812659978866577],
         [0.07146020233631134, 0.020326100289821625, -0.14532379806041718],
         [0.08287730067968369, 0.027738099917769432, -0.18021149933338165]],
        [[0.047228798270225525, 0.013256699778139591, -0.08812080323696136],
         [0.07041379809379578, 0.024980900809168816, -0.14391109347343445],
         [0.08094590157270432, 0.029412399977445602, -0.18233460187911987]]]),
    "SimpleRNN": ({}, [
        [[-0.31106090545654297, -0.014078100211918354, -0.5321086049079895],
         [-0.3248825967311859, -0.9272269010543823, -0.5919072031974792],
         [0.15020820498466492, -0.9697294235229492, -0.5833430886268616]],
        [[-0.19171440601348877, 0.005198500119149685, -0.6132615208625793],
         [-0.36910030245780945, -0.7267206907272339, -0.39247119426727295],
         [-0.006347899790853262, -0.9784379005432129, -0.6578660011291504]]]),
}


def _rule(key, shape):
    """Deterministic weights named by key (the same rule made Paddle's outputs)."""
    n = int(np.prod(shape))
    k = sum(map(ord, key)) % 7
    return (0.5 * np.sin(np.arange(n) * 0.7 + k)).reshape(shape).astype("float32")


def _input():
    return np.cos(np.arange(12) * 0.9).reshape(2, 3, 2).astype("float32")


def _is_flat(key):
    return not key[0].isdigit()


def test_rnn_state_dict_has_paddles_keys_in_paddles_order():
    assert list(nn.GRU(3, 4, num_layers=2, direction="bidirect").state_dict()) == \
        GRU_BIDIRECT_2
    assert list(nn.LSTM(3, 4, proj_size=2).state_dict()) == LSTM_PROJ
    assert list(nn.SimpleRNN(3, 4).state_dict()) == LSTM_PROJ[:-1]


def test_flat_and_cell_names_are_one_parameter_listed_once():
    net = nn.GRU(3, 4, num_layers=2, direction="bidirect")
    state = net.state_dict()
    assert state["weight_ih_l1_reverse"] is net[1].cell_bw.weight_ih
    assert state["bias_hh_l0"] is state["0.cell_fw.bias_hh"]
    assert net.weight_hh_l1 is net[1].cell_fw.weight_hh
    names = [name for name, _ in net.named_parameters()]
    assert names == GRU_BIDIRECT_2[:16]  # each once, under its flat name, as Paddle
    assert len({id(p) for p in net.parameters()}) == len(net.parameters()) == 16
    # an optimizer takes parameters() (a duplicate would be refused)
    dygraph.optimizer.Adam(parameters=net.parameters())
    lstm = nn.LSTM(3, 4, proj_size=2)
    assert [n for n, _ in lstm.named_parameters()][-1] == "0.cell.weight_ho"


def test_a_bias_made_without_a_parameter_has_no_flat_name():
    net = nn.GRU(3, 4, bias_ih_attr=False)
    assert list(net.state_dict()) == ["weight_ih_l0", "weight_hh_l0", "bias_hh_l0",
                                      "0.cell.weight_ih", "0.cell.weight_hh",
                                      "0.cell.bias_hh"]
    assert net.bias_hh_l0 is net[0].cell.bias_hh


@pytest.mark.parametrize("name", sorted(PADDLE_OUT))
@pytest.mark.parametrize("keys", ["flat", "cells"])
def test_a_checkpoint_keyed_either_way_loads_and_runs_as_paddle(name, keys):
    kwargs, want = PADDLE_OUT[name]
    ref = getattr(nn, name)(2, 3, **kwargs)
    flat = {k: _rule(k, v.shape) for k, v in ref.state_dict().items() if _is_flat(k)}
    if keys == "cells":  # the same values under the cells' names
        state = ref.state_dict()
        flat = {k: flat[f] for k in state if not _is_flat(k)
                for f in flat if state[f] is state[k]}
    net = getattr(nn, name)(2, 3, **kwargs)
    with pytest.warns(UserWarning, match="missing keys"):  # the other names, as Paddle
        net.set_state_dict(flat)
    out = net(dygraph.to_tensor(_input()))[0]
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-6)


def test_training_updates_the_parameter_under_both_names():
    net = nn.SimpleRNN(2, 3)
    opt = dygraph.optimizer.SGD(0.5, parameters=net.parameters())
    before = net.weight_ih_l0.numpy().copy()
    net(dygraph.to_tensor(_input()))[0].sum().backward()
    opt.step()
    state = net.state_dict()
    assert not np.allclose(state["weight_ih_l0"].numpy(), before)
    np.testing.assert_array_equal(state["weight_ih_l0"].numpy(),
                                  state["0.cell.weight_ih"].numpy())


@pytest.mark.parametrize("cls, fmt, shape", [
    (nn.BatchNorm2D, "NC", [2, 4, 3, 3]), (nn.BatchNorm2D, "NCL", [2, 4, 3, 3]),
    (nn.BatchNorm2D, "NCDHW", [2, 4, 3, 3]), (nn.BatchNorm1D, "NCDHW", [2, 4, 3]),
    (nn.BatchNorm3D, "NC", [2, 4, 3, 3, 3]), (nn.BatchNorm3D, "NCL", [2, 4, 3, 3, 3])])
def test_batch_norm_refuses_a_layout_of_another_rank_as_paddle(cls, fmt, shape):
    layer = cls(4, data_format=fmt)  # Paddle checks at the call
    with pytest.raises(ValueError, match="data_format"):
        layer(dygraph.randn(shape))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("cls, fmt, same, shape", [
    (nn.BatchNorm1D, "NCHW", "NCL", [4, 3, 5]), (nn.BatchNorm1D, "NC", "NCL", [4, 3]),
    (nn.BatchNorm3D, "NCHW", "NCDHW", [2, 3, 2, 2, 2]), (nn.BatchNorm2D, "NHWC", "NHWC",
                                                         [2, 2, 2, 3])])
def test_batch_norm_takes_paddles_other_names_of_a_layout(cls, fmt, same, shape, dtype):
    x = np.random.default_rng(0).normal(size=shape).astype(dtype)
    got = cls(3, data_format=fmt)(dygraph.to_tensor(x)).numpy()
    want = cls(3, data_format=same)(dygraph.to_tensor(x)).numpy()
    np.testing.assert_allclose(got, want)
    axes = tuple(a for a in range(len(shape)) if a != (len(shape) - 1 if fmt == "NHWC"
                                                       else 1))
    ref = (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + 1e-5)
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("make", [
    lambda x: F.pad(x, [1, 1, 1, 1], mode="mirror"),
    lambda x: nn.Pad2D(1, mode="mirror")(x),
    lambda x: nn.Pad1D(1, mode="mirror")(x[0]),
    lambda x: nn.Pad3D(1, mode="mirror")(x[None]),
])
def test_pad_asserts_its_mode_as_paddle(make):
    x = dygraph.ones([1, 1, 3, 3])
    with pytest.raises(AssertionError, match="mode") as info:
        make(x)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("kwargs", [dict(kernel_sizes=[2, 2, 2]),
                                    dict(kernel_sizes=2, strides=[1, 1, 1]),
                                    dict(kernel_sizes=2, dilations=[1, 1, 1])])
def test_unfold_refuses_a_list_of_the_wrong_length_with_a_type_error(kwargs):
    x = dygraph.ones([1, 2, 4, 4])
    with pytest.raises(TypeError, match="list of 2 ints") as info:
        F.unfold(x, **kwargs)
    assert isinstance(info.value, ValueError)
    with pytest.raises(TypeError):
        nn.Unfold(**kwargs)(x)


def test_fold_asserts_the_length_and_both_refuse_non_positive_sizes():
    cols = dygraph.ones([1, 8, 9])
    with pytest.raises(AssertionError, match="kernel_sizes") as info:
        F.fold(cols, [4, 4], [2, 2, 2])
    assert isinstance(info.value, ValueError)
    with pytest.raises(AssertionError, match="output_sizes"):
        F.fold(cols, [4, 4, 4], 2)
    for call in (lambda: F.unfold(dygraph.ones([1, 2, 4, 4]), 0),
                 lambda: F.fold(cols, [4, 4], 2, strides=0)):
        with pytest.raises(ValueError, match="positive") as info:
            call()
        assert not isinstance(info.value, (TypeError, AssertionError))
