"""Recurrent cells and layers against NumPy references of the recurrences, and float64
gradient checks of a cell and of a small stacked bidirectional LSTM."""

import numpy as np
import pytest

import dygraph
from dygraph import nn
from dygraph.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(0)


def _t(a, grad=False):
    return dygraph.to_tensor(np.asarray(a), stop_gradient=not grad)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _weights(cell):
    return [p.numpy().astype(np.float64) for p in
            (cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh)]


def np_step(cell, x, state):
    """One step of `cell`'s recurrence in NumPy (Paddle's formulas and gate orders)."""
    w_ih, w_hh, b_ih, b_hh = _weights(cell)
    if isinstance(cell, nn.LSTMCell):
        h, c = state
        i, f, g, o = np.split(x @ w_ih.T + b_ih + h @ w_hh.T + b_hh, 4, axis=-1)
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        h = _sigmoid(o) * np.tanh(c)
        return h, (h, c)
    if isinstance(cell, nn.GRUCell):
        x_r, x_z, x_c = np.split(x @ w_ih.T + b_ih, 3, axis=-1)
        h_r, h_z, h_c = np.split(state @ w_hh.T + b_hh, 3, axis=-1)
        r, z = _sigmoid(x_r + h_r), _sigmoid(x_z + h_z)
        c = np.tanh(x_c + r * h_c)
        h = (state - c) * z + c
        return h, h
    pre = x @ w_ih.T + b_ih + state @ w_hh.T + b_hh
    h = np.tanh(pre) if cell.activation == "tanh" else np.maximum(pre, 0)
    return h, h


def np_run(cell, x, state, lengths=None, reverse=False):
    """Unroll over x [B, T, I]: padded steps hold the state and output zeros."""
    batch, steps = x.shape[:2]
    lengths = np.full(batch, steps) if lengths is None else np.asarray(lengths)
    outs = np.zeros((batch, steps, cell.hidden_size))
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        out, new = np_step(cell, x[:, t], state)
        run = (t < lengths)[:, None]
        if isinstance(new, tuple):
            state = tuple(np.where(run, n, s) for n, s in zip(new, state))
        else:
            state = np.where(run, new, state)
        outs[:, t] = out * run
    return outs, state


def _zeros_state(cell, batch):
    h = np.zeros((batch, cell.hidden_size))
    return (h, h.copy()) if isinstance(cell, nn.LSTMCell) else h


@pytest.mark.parametrize("make", [
    lambda: nn.SimpleRNNCell(3, 4), lambda: nn.SimpleRNNCell(3, 4, activation="relu"),
    lambda: nn.LSTMCell(3, 4), lambda: nn.GRUCell(3, 4)])
def test_cell_step_matches_numpy(make):
    cell = make()
    x = RNG.normal(size=(2, 3))
    state = (RNG.normal(size=(2, 4)), RNG.normal(size=(2, 4))) \
        if isinstance(cell, nn.LSTMCell) else RNG.normal(size=(2, 4))
    states = tuple(_t(s.astype(np.float32)) for s in state) \
        if isinstance(state, tuple) else _t(state.astype(np.float32))
    out, new = cell(_t(x.astype(np.float32)), states)
    want_out, want_new = np_step(cell, x, state)
    np.testing.assert_allclose(out.numpy(), want_out, rtol=1e-5, atol=1e-6)
    for got, want in zip(new if isinstance(new, tuple) else [new],
                         want_new if isinstance(want_new, tuple) else [want_new]):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)
    # Without states the cell starts from zeros.
    out0, _ = cell(_t(x.astype(np.float32)))
    np.testing.assert_allclose(out0.numpy(), np_step(cell, x, _zeros_state(cell, 2))[0],
                               rtol=1e-5, atol=1e-6)


def test_cell_parameters_names_shapes_and_init():
    cell = nn.LSTMCell(3, 16)
    assert [n for n, _ in cell.named_parameters()] == ["weight_ih", "weight_hh", "bias_ih",
                                                       "bias_hh"]
    assert cell.weight_ih.shape == [64, 3] and cell.weight_hh.shape == [64, 16]
    assert cell.bias_ih.shape == [64]
    bound = 1 / 4
    for p in cell.parameters():
        assert np.abs(p.numpy()).max() <= bound and np.abs(p.numpy()).max() > bound / 2
    assert nn.GRUCell(3, 4, bias_ih_attr=False).bias_ih is None
    with pytest.raises(ValueError, match="activation"):
        nn.SimpleRNNCell(3, 4, activation="sigmoid")


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("time_major", [False, True])
def test_rnn_masks_padded_steps(reverse, time_major):
    cell = nn.GRUCell(3, 4)
    x = RNG.normal(size=(3, 5, 3))
    lengths = np.array([5, 2, 3])
    h0 = RNG.normal(size=(3, 4))
    rnn = nn.RNN(cell, is_reverse=reverse, time_major=time_major)
    inp = x.transpose(1, 0, 2) if time_major else x
    out, h = rnn(_t(inp.astype(np.float32)), _t(h0.astype(np.float32)),
                 sequence_length=_t(lengths))
    want_out, want_h = np_run(cell, x, h0, lengths, reverse)
    got_out = out.numpy().transpose(1, 0, 2) if time_major else out.numpy()
    np.testing.assert_allclose(got_out, want_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h.numpy(), want_h, rtol=1e-5, atol=1e-6)
    assert np.all(got_out[1, 2:] == 0)


def test_rnn_with_a_user_cell_calls_it_each_step():
    class Accumulate(nn.RNNCellBase):
        state_shape = (2,)

        def forward(self, x, state):
            return x + state, x + state

    x = RNG.normal(size=(2, 4, 2)).astype(np.float32)
    out, h = nn.RNN(Accumulate())(_t(x))
    np.testing.assert_allclose(out.numpy(), np.cumsum(x, axis=1), rtol=1e-6)
    np.testing.assert_allclose(h.numpy(), x.sum(1), rtol=1e-6)


def test_birnn_is_a_forward_and_a_reverse_rnn():
    fw, bw = nn.LSTMCell(3, 2), nn.LSTMCell(3, 2)
    x = RNG.normal(size=(2, 4, 3))
    lengths = np.array([4, 2])
    out, (st_fw, st_bw) = nn.BiRNN(fw, bw)(_t(x.astype(np.float32)),
                                            sequence_length=_t(lengths))
    o_fw, s_fw = np_run(fw, x, _zeros_state(fw, 2), lengths)
    o_bw, s_bw = np_run(bw, x, _zeros_state(bw, 2), lengths, reverse=True)
    np.testing.assert_allclose(out.numpy(), np.concatenate([o_fw, o_bw], -1), rtol=1e-5,
                               atol=1e-6)
    for got, want in zip(st_fw + st_bw, s_fw + s_bw):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)


def _np_stacked(net, x, init, lengths):
    """NumPy reference of SimpleRNN/LSTM/GRU: layers of (Bi)RNNs, states [L * D, B, H]."""
    lstm = isinstance(net, nn.LSTM)
    finals = []
    for i, layer in enumerate(net):
        cells = [layer.cell] if net.num_directions == 1 else [layer.cell_fw, layer.cell_bw]
        outs = []
        for d, cell in enumerate(cells):
            k = i * net.num_directions + d
            state = (init[0][k], init[1][k]) if lstm else init[k]
            out, st = np_run(cell, x, state, lengths, reverse=d == 1)
            outs.append(out)
            finals.append(st)
        x = np.concatenate(outs, -1)
    if lstm:
        return x, (np.stack([h for h, _ in finals]), np.stack([c for _, c in finals]))
    return x, np.stack(finals)


@pytest.mark.parametrize("kind, direction", [
    (nn.SimpleRNN, "forward"), (nn.GRU, "bidirect"), (nn.LSTM, "bidirectional"),
    (nn.LSTM, "forward")])
def test_stacked_rnns_match_numpy(kind, direction):
    net = kind(3, 4, num_layers=2, direction=direction)
    dirs = 1 if direction == "forward" else 2
    x = RNG.normal(size=(3, 5, 3))
    lengths = np.array([5, 1, 3])
    shape = (2 * dirs, 3, 4)
    init = (RNG.normal(size=shape), RNG.normal(size=shape)) if kind is nn.LSTM \
        else RNG.normal(size=shape)
    init_t = tuple(_t(a.astype(np.float32)) for a in init) if kind is nn.LSTM \
        else _t(init.astype(np.float32))
    out, final = net(_t(x.astype(np.float32)), init_t, sequence_length=_t(lengths))
    want_out, want_final = _np_stacked(net, x, init, lengths)
    assert out.shape == [3, 5, 4 * dirs]
    np.testing.assert_allclose(out.numpy(), want_out, rtol=1e-4, atol=1e-5)
    for got, want in zip(final if kind is nn.LSTM else [final],
                         want_final if kind is nn.LSTM else [want_final]):
        assert got.shape == list(shape)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-5)


def test_stacked_rnn_state_dict_keys_and_errors():
    net = nn.GRU(3, 4, num_layers=2, direction="bidirect")
    keys = list(net.state_dict())
    assert "0.cell_fw.weight_ih" in keys and "1.cell_bw.bias_hh" in keys
    assert net[1].cell_fw.weight_ih.shape == [12, 8]
    with pytest.raises(ValueError, match="direction"):
        nn.LSTM(3, 4, direction="backward")
    with pytest.raises(ValueError, match=r"num_layers \* num_directions=4"):
        net(_t(np.zeros((2, 3, 3), np.float32)), _t(np.zeros((2, 2, 4), np.float32)))


def test_dropout_between_layers_only_in_training():
    net = nn.SimpleRNN(3, 4, num_layers=2, dropout=0.5)
    x = _t(RNG.normal(size=(2, 3, 3)).astype(np.float32))
    net.eval()
    a, _ = net(x)
    b, _ = net(x)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    net.train()
    dygraph.seed(1)
    c, _ = net(x)
    assert not np.allclose(c.numpy(), a.numpy())


def layer_gradcheck(layer, inputs, call=None):
    """gradcheck over the layer's parameters and the float inputs that need gradients:
    the parameters are swapped for the probed tensors while `call` runs."""
    call = call or (lambda *xs: layer(*xs))
    owners = [(sub, key) for sub in layer.sublayers(include_self=True)
              for key in list(sub._parameters) if sub._parameters[key] is not None]
    # A parameter registered twice (an RNN's flat 'weight_ih_l0' and its cell's 'weight_ih')
    # is probed once, and swapped under each of its names.
    params = list({id(p): p for p in (sub._parameters[key] for sub, key in owners)}.values())
    slot = {id(p): i for i, p in enumerate(params)}
    which = [slot[id(sub._parameters[key])] for sub, key in owners]
    n = len(inputs)

    def fn(*tensors):
        saved = [sub._parameters[key] for sub, key in owners]
        for (sub, key), i in zip(owners, which):
            sub._parameters[key] = tensors[n + i]
        try:
            out = call(*tensors[:n])
        finally:
            for (sub, key), p in zip(owners, saved):
                sub._parameters[key] = p
        flat = []
        stack = [out]
        while stack:
            item = stack.pop()
            if isinstance(item, (list, tuple)):
                stack.extend(item)
            else:
                flat.append(item)
        return flat

    return gradcheck(fn, list(inputs) + params, eps=1e-6, atol=1e-6, rtol=1e-4)


def test_lstm_cell_gradients_float64():
    cell = nn.LSTMCell(2, 3).to(dtype="float64")
    x = _t(RNG.normal(size=(2, 2)), grad=True)
    h, c = _t(RNG.normal(size=(2, 3)), grad=True), _t(RNG.normal(size=(2, 3)), grad=True)
    assert layer_gradcheck(cell, [x, h, c], lambda x, h, c: cell(x, (h, c)))


def test_gru_cell_gradients_float64():
    cell = nn.GRUCell(2, 3).to(dtype="float64")
    x, h = _t(RNG.normal(size=(2, 2)), grad=True), _t(RNG.normal(size=(2, 3)), grad=True)
    assert layer_gradcheck(cell, [x, h], lambda x, h: cell(x, h))


def test_bidirectional_two_layer_lstm_gradients_float64():
    net = nn.LSTM(2, 2, num_layers=2, direction="bidirect").to(dtype="float64")
    x = _t(RNG.normal(size=(2, 3, 2)), grad=True)
    lengths = _t(np.array([3, 2]))
    assert layer_gradcheck(net, [x], lambda x: net(x, sequence_length=lengths))


def test_fused_cell_steps_have_second_derivatives():
    lstm = nn.LSTMCell(2, 3).to(dtype="float64")
    gru = nn.GRUCell(2, 3).to(dtype="float64")
    x = _t(RNG.normal(size=(2, 2)), grad=True)
    h, c = _t(RNG.normal(size=(2, 3)), grad=True), _t(RNG.normal(size=(2, 3)), grad=True)
    assert gradgradcheck(lambda x, h, c: lstm(x, (h, c))[1], [x, h, c])
    assert gradgradcheck(lambda x, h: gru(x, h)[0], [x, h])
    # Only the cell state used: the h output of the fused LSTM step gets no gradient.
    assert gradcheck(lambda x, h, c: lstm(x, (h, c))[1][1], [x, h, c])


def test_lstm_with_a_projection_matches_numpy():
    """proj_size P (Paddle's LSTM and LSTMCell): h = (o * tanh(c)) @ weight_ho, weight_hh
    [4H, P]; outputs [B, T, D * P], h_n [L * D, B, P], c_n [L * D, B, H]."""
    net = nn.LSTM(3, 5, num_layers=2, direction="bidirect", proj_size=2)
    x = RNG.normal(size=(2, 4, 3)).astype(np.float32)
    out, (h, c) = net(_t(x))
    assert out.shape == [2, 4, 4] and h.shape == [4, 2, 2] and c.shape == [4, 2, 5]
    cells = [(layer.cell_fw, layer.cell_bw) for layer in net]
    assert cells[1][0].weight_ih.shape == [20, 4] and cells[0][0].weight_hh.shape == [20, 2]

    def run(cell, seq, reverse):
        w_ih, w_hh, b_ih, b_hh = _weights(cell)
        w_ho = cell.weight_ho.numpy().astype(np.float64)
        hh, cc = np.zeros((2, 2)), np.zeros((2, 5))
        outs = np.zeros((2, seq.shape[1], 2))
        for t in (range(seq.shape[1] - 1, -1, -1) if reverse else range(seq.shape[1])):
            i, f, g, o = np.split(seq[:, t] @ w_ih.T + b_ih + hh @ w_hh.T + b_hh, 4, axis=-1)
            cc = _sigmoid(f) * cc + _sigmoid(i) * np.tanh(g)
            hh = (_sigmoid(o) * np.tanh(cc)) @ w_ho
            outs[:, t] = hh
        return outs, hh, cc

    seq, hs, cs = x.astype(np.float64), [], []
    for fw, bw in cells:
        (of, hf, cf), (ob, hb, cb) = run(fw, seq, False), run(bw, seq, True)
        seq = np.concatenate([of, ob], axis=-1)
        hs += [hf, hb]
        cs += [cf, cb]
    np.testing.assert_allclose(out.numpy(), seq, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h.numpy(), np.stack(hs), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c.numpy(), np.stack(cs), rtol=1e-5, atol=1e-6)


def test_lstm_projection_gradients_and_checks():
    cell = nn.LSTMCell(2, 3, proj_size=2).to(dtype="float64")
    x = _t(RNG.normal(size=(2, 2)), grad=True)
    h, c = _t(RNG.normal(size=(2, 2)), grad=True), _t(RNG.normal(size=(2, 3)), grad=True)
    assert layer_gradcheck(cell, [x, h, c], lambda x, h, c: cell(x, (h, c)))
    for bad in (3, 4, -1):
        with pytest.raises(ValueError, match="proj_size"):
            nn.LSTM(2, 3, proj_size=bad)
    net = nn.LSTM(2, 3, proj_size=1)
    with pytest.raises(ValueError, match="proj_size=1"):
        net(_t(np.zeros((2, 4, 2), np.float32)), (_t(np.zeros((1, 2, 3), np.float32)),
                                                   _t(np.zeros((1, 2, 3), np.float32))))
    out, (h1, c1) = net(_t(np.zeros((2, 4, 2), np.float32)),
                        (_t(np.zeros((1, 2, 1), np.float32)), _t(np.zeros((1, 2, 3), np.float32))))
    assert out.shape == [2, 4, 1] and h1.shape == [1, 2, 1] and c1.shape == [1, 2, 3]


@pytest.mark.parametrize("layer", ["LSTM", "GRU", "SimpleRNN"])
@pytest.mark.parametrize("time_major", [False, True])
def test_an_empty_sequence_is_refused_with_its_shape(layer, time_major):
    """PyTorch refuses a sequence of no time steps too (Paddle 3.3.1 aborts the process)."""
    rnn = getattr(dygraph.nn, layer)(4, 3, time_major=time_major)
    x = dygraph.zeros([0, 2, 4] if time_major else [2, 0, 4])
    with pytest.raises(ValueError, match=r"no time steps \(input shape \[.*\]"):
        rnn(x)
