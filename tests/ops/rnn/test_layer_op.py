"""The one-op LSTM and GRU layers (rnn_layer_op) against the composed layers they replace:
the input projection, bias add and whole-sequence recurrence as separate ops, which stay
the reference (`rnn._one_layer_op` switched off)."""

import numpy as np
import pytest

import dygraph
from dygraph.autograd import gradcheck, gradgradcheck
from dygraph.autograd.function import apply
from dygraph.nn.layer import rnn
from dygraph.ops.rnn.layer_op import GRULayer, LSTMLayer
from tests.ops.rnn.graph_helpers import op_names

BIASES = {"both": {}, "none": {"bias_ih_attr": False, "bias_hh_attr": False},
          "ih_only": {"bias_hh_attr": False}, "hh_only": {"bias_ih_attr": False}}


def _run(net, x, states, create_graph=False):
    """Outputs, the gradients of a weighted sum of them w.r.t. x, states and parameters,
    those leaves, and the names of the ops that made the outputs."""
    out, final = net(x, states)
    outs = [out] + (list(final) if isinstance(final, tuple) else [final])
    names = op_names(out)
    weights = [dygraph.to_tensor(np.linspace(-1, 1, o.size).reshape(o.shape)) for o in outs]
    total = sum((o * w).sum() for o, w in zip(outs, weights))
    leaves = [x] + list(net.parameters())
    leaves += [] if states is None else list(states) if isinstance(states, tuple) else [states]
    grads = dygraph.grad(total, leaves, create_graph=create_graph)
    return outs, grads, leaves, names


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize("time_major", [False, True])
@pytest.mark.parametrize("direction", ["forward", "bidirect"])
@pytest.mark.parametrize("bias", sorted(BIASES))
@pytest.mark.parametrize("given_states", [False, True])
def test_matches_composed_layer_values_and_gradients(monkeypatch, kind, time_major, direction,
                                                     bias, given_states):
    dygraph.seed(3)
    net = getattr(dygraph.nn, kind)(3, 4, num_layers=2, direction=direction,
                                    time_major=time_major, **BIASES[bias])
    net.to(dtype="float64")
    rng = np.random.default_rng(0)
    x = dygraph.to_tensor(rng.standard_normal((5, 2, 3) if time_major else (2, 5, 3)),
                          stop_gradient=False)
    states = None
    if given_states:
        layers = 2 * (2 if direction == "bidirect" else 1)
        states = tuple(dygraph.to_tensor(rng.standard_normal((layers, 2, 4)),
                                         stop_gradient=False)
                       for _ in range(2 if kind == "LSTM" else 1))
        states = states if kind == "LSTM" else states[0]
    fused_outs, fused_grads, _, names = _run(net, x, states)
    assert f"{kind}Layer" in names
    monkeypatch.setattr(rnn, "_one_layer_op", lambda *args: False)
    ref_outs, ref_grads, _, names = _run(net, x, states)
    assert f"{kind}Layer" not in names
    for got, want in zip(fused_outs + list(fused_grads), ref_outs + list(ref_grads)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_second_derivatives_match_composed_layer(monkeypatch, kind):
    dygraph.seed(4)
    net = getattr(dygraph.nn, kind)(3, 4, direction="bidirect")
    net.to(dtype="float64")
    x = dygraph.to_tensor(np.random.default_rng(1).standard_normal((2, 4, 3)),
                          stop_gradient=False)

    def second(layer_op):
        monkeypatch.setattr(rnn, "_one_layer_op", layer_op)
        _, grads, leaves, _ = _run(net, x, None, create_graph=True)
        return [g.numpy() for g in dygraph.grad(sum((g * g).sum() for g in grads), leaves)]

    fused = second(rnn._one_layer_op)
    reference = second(lambda *args: False)
    for got, want in zip(fused, reference):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("op", ["lstm", "gru", "gru_hidden_bias_only"])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("time_major", [False, True])
def test_op_first_and_second_derivatives_float64(op, reverse, time_major):
    rng = np.random.default_rng(2)

    def leaf(*shape):
        return dygraph.to_tensor(rng.standard_normal(shape) * 0.7, stop_gradient=False)

    size = 3
    x = leaf(4, 2, 2) if time_major else leaf(2, 4, 2)
    if op == "lstm":
        make = lambda: LSTMLayer(reverse, time_major)  # noqa: E731 - a fresh node per call
        inputs = [x, leaf(2, size), leaf(2, size), leaf(4 * size, 2), leaf(4 * size, size),
                  leaf(4 * size), leaf(4 * size)]
    else:
        both = op == "gru"
        make = lambda: GRULayer(reverse, time_major, (both, True))  # noqa: E731
        inputs = [x, leaf(2, size), leaf(3 * size, 2), leaf(3 * size, size)]
        inputs += [leaf(3 * size) for _ in range(2 if both else 1)]

    def fn(*args):
        return apply(make(), *args)

    assert gradcheck(fn, inputs, eps=1e-6, atol=1e-6, rtol=1e-4)
    assert gradgradcheck(lambda *a: fn(*a)[0], inputs)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_output_changed_in_place_before_backward_raises(kind):
    net = getattr(dygraph.nn, kind)(3, 4)
    out, _ = net(dygraph.randn([2, 5, 3]))
    out.scale_(2.0)
    with pytest.raises(RuntimeError, match=f"{kind.lower()}layer"):
        out.sum().backward()


def test_input_of_another_dtype_is_refused_naming_the_op():
    net = dygraph.nn.LSTM(3, 4)
    with pytest.raises(Exception, match="matmul"):
        net(dygraph.to_tensor(np.zeros((2, 5, 3))))
