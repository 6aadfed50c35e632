"""LSTM and GRU on the GPU path (the step kernels of dygraph/kernels/cuda/recurrent.py
with the hidden product outside, and the sequence kernels of recurrent_sequences.py with it
inside, run as their NumPy statements on the CuPy stand-in) against the CPU path: outputs,
final states and every gradient, for batch-first and time-major input, both directions,
two layers, with both biases, one or none (the biases join the input gates in one kernel
after the projection, dygraph/kernels/cuda/gate_inputs.py), with the final states in the
loss or not (the sequence kernels then start their walk back from zeros they write)."""

import numpy as np
import pytest

import dygraph
from tools import cupy_standin


def _run(kind, time_major, direction, bias, device, states_in_loss=True):
    dygraph.seed(3)
    cls = dygraph.nn.LSTM if kind == "lstm" else dygraph.nn.GRU
    layer = cls(6, 5, num_layers=2, direction=direction, time_major=time_major,
                bias_ih_attr=None if bias in ("both", "input") else False,
                bias_hh_attr=None if bias in ("both", "hidden") else False)
    rng = np.random.default_rng(0)
    x = dygraph.to_tensor(rng.standard_normal((4, 3, 6) if time_major else (3, 4, 6))
                          .astype(np.float32), stop_gradient=False)
    out, states = layer(x)
    states = states if isinstance(states, tuple) else (states,)
    weights = rng.standard_normal(out.shape).astype(np.float32)
    loss = (out * dygraph.to_tensor(weights)).sum()
    if states_in_loss:
        loss = loss + sum((s * s).sum() for s in states)
    loss.backward()
    assert device != "gpu" or cupy_standin.ndarray is type(out._data)
    grads = [x.grad.numpy()] + [p.grad.numpy() for p in layer.parameters()
                                if p.grad is not None]
    return [out.numpy()] + [s.numpy() for s in states] + grads


@pytest.mark.parametrize("kind", ["lstm", "gru"])
@pytest.mark.parametrize("time_major, direction, bias", [
    (False, "forward", "both"), (True, "bidirect", "both"), (False, "bidirect", "input"),
    (True, "forward", "hidden"), (False, "forward", "none")])
@pytest.mark.parametrize("sequences", [True, False])
def test_the_gpu_path_equals_the_cpu_path(kind, time_major, direction, bias, sequences,
                                          monkeypatch):
    """sequences: a layer direction's steps with their products one kernel each way
    (recurrent_sequences.py); else cuBLAS's product and the element-wise kernel a step."""
    from dygraph.kernels.cuda import recurrent_sequences

    if not sequences:
        monkeypatch.setattr(recurrent_sequences, "FUSED_WIDTH", 0)
    got, expected, made = _on_both(kind, time_major, direction, bias)
    # two layers, each direction one launch forward and one back; else one of each a step
    directions = 2 * (2 if direction == "bidirect" else 1)
    assert sum(n for name, n in made.items()
               if name.startswith(f"dygraph_{kind}_sequence")) == (
        2 * directions if sequences else 0)
    assert sum(n for name, n in made.items() if name in (f"{kind}_forward", f"{kind}_backward")
               ) == (0 if sequences else 2 * directions * 4)
    assert made.get("gate_inputs", 0) == (0 if bias == "none" else directions)
    # the hidden weight laid out and halved for the sequence kernels, one launch each
    assert made.get("hidden_weights", 0) == (directions if sequences else 0)
    _same(got, expected)


def _on_both(kind, time_major, direction, bias, states_in_loss=True):
    """(the GPU path's results, the CPU path's, the stand-in's calls by name on the GPU)."""
    expected = _run(kind, time_major, direction, bias, "cpu", states_in_loss)
    with cupy_standin.installed():
        dygraph.set_device("gpu:0")
        try:
            before = dict(cupy_standin.calls_by_name)
            got = _run(kind, time_major, direction, bias, "gpu", states_in_loss)
            made = {k: v - before.get(k, 0) for k, v in cupy_standin.calls_by_name.items()}
        finally:
            dygraph.set_device("cpu")
    return got, expected, made


def _same(got, expected):
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("kind", ["lstm", "gru"])
@pytest.mark.parametrize("direction", ["forward", "bidirect"])
def test_final_states_outside_the_loss(kind, direction):
    """The final states take no gradient: the sequence kernels start from zeros they write
    themselves, where zeros arrays were a launch each (two an LSTM layer direction, one a
    GRU's), and the GRU's factors are worked out inside its kernel."""
    got, expected, made = _on_both(kind, False, direction, "both", states_in_loss=False)
    _same(got, expected)
    assert made.get("zeros_like", 0) == made.get("zeros", 0) == 0
