"""The whole-sequence recurrent ops against their reference: the cells run step by step.

The per-step loop (a cell called once per time step, masked with `where` for
sequence_length) is the composition the sequence ops replace; it stays here as the
reference for values, first and second derivatives.
"""

import numpy as np
import pytest

import dygraph
from dygraph.autograd import gradcheck, gradgradcheck
from dygraph.autograd.function import apply
from dygraph.backend import blas, compiled
from dygraph.nn import GRUCell, LSTMCell, SimpleRNNCell
from dygraph.ops.rnn import sequence as rs
from dygraph.ops.rnn.sequence import keep_mask, run_sequence
from tests.ops.rnn.graph_helpers import op_names

CELLS = {
    "lstm": lambda: LSTMCell(3, 4),
    "gru": lambda: GRUCell(3, 4),
    "gru_nobias": lambda: GRUCell(3, 4, bias_hh_attr=False),
    "rnn_tanh": lambda: SimpleRNNCell(3, 4),
    "rnn_relu": lambda: SimpleRNNCell(3, 4, activation="relu"),
}


def _reference(cell, x, states, running, reverse):
    """Step-by-step: the cell per time step, finished sequences keep their state."""
    steps = x.shape[0]
    outs = [None] * steps
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        out, new = cell(x[t], states)
        if running is not None:
            keep = dygraph.to_tensor(running[t])
            flat_new = new if isinstance(new, tuple) else (new,)
            flat_old = states if isinstance(states, tuple) else (states,)
            merged = tuple(dygraph.where(keep, a, b) for a, b in zip(flat_new, flat_old))
            new = merged if isinstance(new, tuple) else merged[0]
            out = out * dygraph.to_tensor(running[t].astype(x.numpy().dtype))
        states = new
        outs[t] = out
    return dygraph.stack(outs), states


def _sequence(cell, x, states, running, reverse):
    keep = None if running is None else keep_mask(running.astype(x.numpy().dtype))
    return run_sequence(cell, cell.input_gates(x), states, keep, reverse)


def _setup(kind, dtype="float32", seed=0):
    dygraph.seed(seed)
    dygraph.set_default_dtype(dtype)
    try:
        cell = CELLS[kind]()
    finally:
        dygraph.set_default_dtype("float32")
    rng = np.random.default_rng(seed)
    x = dygraph.to_tensor(rng.standard_normal((5, 2, 3)).astype(dtype), stop_gradient=False)
    states = cell.get_initial_states(x, batch_dim_idx=1)
    states = tuple(dygraph.to_tensor(rng.standard_normal(s.shape).astype(dtype),
                                     stop_gradient=False)
                   for s in (states if isinstance(states, tuple) else (states,)))
    if kind != "lstm":
        states = states[0]
    running = np.arange(5)[:, None, None] < np.array([5, 3]).reshape(1, -1, 1)
    return cell, x, states, running


def _flat(result):
    out, states = result
    return [out] + list(states if isinstance(states, tuple) else (states,))


@pytest.mark.parametrize("kind", sorted(CELLS))
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("masked", [False, True])
def test_sequence_op_matches_step_loop_values_and_gradients(kind, reverse, masked):
    cell, x, states, running = _setup(kind)
    _check_against_step_loop(cell, x, states, running if masked else None, reverse)


@pytest.mark.parametrize("kind", ["lstm", "gru"])
@pytest.mark.parametrize("reverse", [False, True])
def test_array_walks_without_blas_match_step_loop(monkeypatch, kind, reverse):
    # Where NumPy's BLAS is not OpenBLAS (or the arrays are CuPy's), the LSTM's hidden
    # product is NumPy's matmul and an add instead of one BLAS call adding in place.
    monkeypatch.setattr(blas, "available", lambda xp, dtype: False)
    cell, x, states, _ = _setup(kind)
    _check_against_step_loop(cell, x, states, None, reverse)


@pytest.mark.parametrize("use_blas", [True, False])
@pytest.mark.parametrize("reverse", [False, True])
def test_lstm_walk_without_compiled_kernels_matches_step_loop(monkeypatch, use_blas, reverse):
    # The NumPy path of the LSTM's element-wise step, which runs without Numba (the
    # compiled one, dygraph.kernels.numba.lstm_cell, is the default where Numba is installed).
    monkeypatch.setattr(compiled, "enabled", lambda: False)
    if not use_blas:
        monkeypatch.setattr(blas, "available", lambda xp, dtype: False)
    cell, x, states, _ = _setup("lstm")
    _check_against_step_loop(cell, x, states, None, reverse)


def _check_against_step_loop(cell, x, states, running, reverse):
    flat_states = list(states) if isinstance(states, tuple) else [states]
    leaves = [x] + flat_states + list(cell.parameters())
    results = []
    for run in (_reference, _sequence):
        outs = _flat(run(cell, x, states, running, reverse))
        weights = [dygraph.to_tensor(np.linspace(-1, 1, o.size).reshape(o.shape)
                                     .astype(np.float32)) for o in outs]
        total = sum((o * w).sum() for o, w in zip(outs, weights))
        grads = dygraph.grad(total, leaves)
        results.append(([o.numpy() for o in outs], [g.numpy() for g in grads]))
    (ref_out, ref_grads), (seq_out, seq_grads) = results
    for a, b in zip(ref_out + ref_grads, seq_out + seq_grads):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op, gates_per", [
    (lambda: rs.LSTMSequence(False, True), 4), (lambda: rs.LSTMSequence(True, False), 4),
    (lambda: rs.GRUSequence(True, True), 3), (lambda: rs.GRUSequence(False, False), 3),
    (lambda: rs.SimpleRNNSequence(False, True, "tanh"), 1)],
    ids=["lstm", "lstm-bulk-reverse", "gru", "gru-bulk", "rnn"])
def test_sequence_ops_first_and_second_derivatives_float64(op, gates_per):
    rng = np.random.default_rng(1)
    n_states = op().n_states
    size = 3

    def leaf(*shape):
        return dygraph.to_tensor(rng.standard_normal(shape) * 0.7, stop_gradient=False)

    inputs = [leaf(4, 2, gates_per * size)] + [leaf(2, size) for _ in range(n_states)]
    inputs.append(leaf(gates_per * size, size))
    if isinstance(op(), rs.GRUSequence):
        inputs.append(leaf(gates_per * size))
    running = np.arange(4)[:, None, None] < np.array([4, 2]).reshape(1, -1, 1)
    keep = keep_mask(running.astype(np.float64))

    def fn(*args):
        return apply(op(), *args, *([keep] if op().masked else []))

    assert gradcheck(fn, inputs, eps=1e-6, atol=1e-6, rtol=1e-4)
    assert gradgradcheck(lambda *a: fn(*a)[0], inputs)


@pytest.mark.parametrize("layer, op", [(dygraph.nn.LSTM, "LSTMSequence"),
                                       (dygraph.nn.GRU, "GRUSequence"),
                                       (dygraph.nn.SimpleRNN, "SimpleRNNSequence")])
def test_recurrent_layers_run_one_sequence_op_per_direction(layer, op):
    net = layer(3, 4, direction="bidirect")
    x = dygraph.randn([2, 5, 3])
    x.stop_gradient = False
    out, _ = net(x, sequence_length=dygraph.to_tensor([5, 2]))
    names = op_names(out)
    assert op in names
    assert not {"LSTMPointwise", "GRUPointwise", "Unbind"} & names
