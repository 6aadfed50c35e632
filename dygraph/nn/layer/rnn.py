"""Recurrent layers: RNN and BiRNN (run any cell over a sequence) and the multi-layer
SimpleRNN, LSTM and GRU (Paddle 2.x arguments and return shapes). The cells live in
rnn_cells.py and are exported here too.

With `sequence_length`, steps past a sequence's length leave its state unchanged and
give zero outputs, so the final states are those at each sequence's last valid step (for
a reverse pass, the padding is crossed first with the initial state held).
"""

from dygraph.backend import get_array_module
from dygraph.framework.errors import describe, op_error
from dygraph.nn import functional as F
from dygraph.nn.layer.container import LayerList
from dygraph.nn.layer.layers import Layer
from dygraph.nn.layer.rnn_cells import (
    GRUCell,
    LSTMCell,
    RNNCellBase,
    SimpleRNNCell,
    first_leaf,
    map_structure,
)
from dygraph.ops.common import amp_casts, as_tensor
from dygraph.ops.manipulation import rearrange as manipulation
from dygraph.ops.manipulation import shape
from dygraph.ops.rnn.layer_op import gru_layer, lstm_layer
from dygraph.ops.rnn.sequence import run_sequence
from dygraph.ops.unary.core import where
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["RNNCellBase", "SimpleRNNCell", "LSTMCell", "GRUCell", "RNN", "BiRNN",
           "SimpleRNN", "LSTM", "GRU"]


def _const(array):
    return _new_tensor(array, None, 0, True)


def _running(sequence_length, steps, batch, like):
    """The [T, B, 1] bool array: True where a sequence is still running at a step."""
    lengths = as_tensor(sequence_length, "RNN")
    if lengths.shape != [batch] or lengths._data.dtype.kind not in "iu":
        raise op_error("RNN", f"sequence_length must be integers of shape [{batch}], got "
                       f"{describe(lengths)}")
    xp = get_array_module(like)
    return xp.arange(steps)[:, None, None] < lengths._data.reshape(1, -1, 1)


_SEQUENCE_CELLS = (SimpleRNNCell, LSTMCell, GRUCell)


def run_cell(cell, inputs, initial_states=None, sequence_length=None, time_major=False,
             is_reverse=False, **kwargs):
    """Unroll `cell` over the time axis of `inputs`; returns (outputs, final_states).

    Example:
        >>> import dygraph
        >>> out, h = run_cell(SimpleRNNCell(2, 3), dygraph.randn([4, 5, 2]))
        >>> out.shape, h.shape
        ([4, 5, 3], [4, 3])
    """
    leaf = first_leaf(inputs)
    if len(leaf.shape) > 1 and leaf.shape[0 if time_major else 1] == 0:
        # (PyTorch refuses an empty sequence too; Paddle 3.3's kernels stop the process)
        raise op_error(type(cell).__name__, f"the input sequence has no time steps (input "
                       f"shape {list(leaf.shape)}, time_major={time_major})")
    if _one_layer_op(cell, inputs, sequence_length, kwargs):
        # The whole layer (projection, biases, recurrence) as one op: dygraph.ops.rnn.layer_op.
        states = initial_states
        if states is None:
            states = cell.get_initial_states(inputs, batch_dim_idx=1 if time_major else 0,
                                             dtype=inputs.dtype)
        if type(cell) is GRUCell:
            return gru_layer(cell, inputs, states, time_major, is_reverse)
        return lstm_layer(cell, inputs, *states, time_major, is_reverse)
    x = inputs if time_major else _swap_time(inputs)
    leaf = first_leaf(x)
    steps, batch = leaf.shape[0], leaf.shape[1]
    states = initial_states
    if states is None:
        states = cell.get_initial_states(leaf, batch_dim_idx=1, dtype=leaf.dtype)
    running = None
    if sequence_length is not None:
        running = _running(sequence_length, steps, batch, leaf._data)
    # Library cells project the whole sequence with one matmul; a cell with forward hooks
    # or extra arguments is called step by step so that its hooks and arguments apply.
    fused = (isinstance(cell, RNNCellBase) and hasattr(cell, "step") and not kwargs
             and not cell._forward_pre_hooks and not cell._forward_post_hooks)
    if fused and type(cell) in _SEQUENCE_CELLS and not getattr(cell, "proj_size", 0):
        # The whole recurrence as one op (ops/rnn/sequence.py): no per-step ops, and each weight
        # gradient is one product over all steps.
        keep = None if running is None else _const(running.astype(leaf._data.dtype))
        out, states = run_sequence(cell, cell.input_gates(x), states, keep, is_reverse)
        return (out if time_major else shape.transpose(out, [1, 0, 2])), states
    masks = None
    if running is not None:
        masks = [(_const(m), _const(m.astype(leaf._data.dtype))) for m in running]
    if fused:
        xs = manipulation.unbind(cell.input_gates(x), axis=0)
    outputs = [None] * steps
    for t in (range(steps - 1, -1, -1) if is_reverse else range(steps)):
        if fused:
            out, new_states = cell.step(xs[t], states)
        else:
            out, new_states = cell(map_structure(lambda seq, t=t: seq[t], x), states, **kwargs)
        if masks is not None:
            keep, scale = masks[t]
            new_states = map_structure(lambda new, old, k=keep: where(k, new, old),
                                       new_states, states)
            out = map_structure(lambda o, s=scale: o * s, out)
        states = new_states
        outputs[t] = out
    axis = 0 if time_major else 1
    stacked = map_structure(lambda *seq: manipulation.stack(list(seq), axis=axis), *outputs)
    return stacked, states


def _one_layer_op(cell, inputs, sequence_length, kwargs):
    """Whether `cell` over `inputs` can run as one LSTMLayer/GRULayer op: a library LSTMCell
    or GRUCell without hooks, masks, extra arguments or autocast, on a [B, T, I] input of
    its dtype (anything else takes the composed path, which also reports bad inputs)."""
    return (type(cell) in (LSTMCell, GRUCell) and sequence_length is None and not kwargs
            and not getattr(cell, "proj_size", 0)
            and not cell._forward_pre_hooks and not cell._forward_post_hooks
            and isinstance(inputs, Tensor) and inputs.ndim == 3
            and inputs.shape[-1] == cell.input_size
            and inputs._data.dtype == cell.weight_ih._data.dtype and not amp_casts())


def _swap_time(structure):
    def swap(t):
        if not isinstance(t, Tensor) or t.ndim < 2:
            raise op_error("RNN", f"inputs must be [batch, time, ...], got {describe(t)}")
        return shape.transpose(t, [1, 0] + list(range(2, t.ndim)))

    return map_structure(swap, structure)


class RNN(Layer):
    """Run a cell over a sequence: inputs [B, T, ...] ([T, B, ...] if time_major);
    returns (outputs, final_states), outputs stacked along the time axis.

    Example:
        >>> import dygraph
        >>> rnn = RNN(GRUCell(2, 3))
        >>> out, h = rnn(dygraph.randn([4, 5, 2]), sequence_length=dygraph.to_tensor([5, 3, 1, 2]))
        >>> out.shape, h.shape
        ([4, 5, 3], [4, 3])
    """

    def __init__(self, cell, is_reverse=False, time_major=False):
        super().__init__()
        self.cell = cell
        self.is_reverse, self.time_major = is_reverse, time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        return run_cell(self.cell, inputs, initial_states, sequence_length, self.time_major,
                        self.is_reverse, **kwargs)


class BiRNN(Layer):
    """A forward and a backward cell over the same sequence; outputs are concatenated on
    the last axis and the final states are (states_fw, states_bw).

    Example:
        >>> import dygraph
        >>> birnn = BiRNN(LSTMCell(2, 3), LSTMCell(2, 3))
        >>> out, ((h_fw, c_fw), (h_bw, c_bw)) = birnn(dygraph.randn([4, 5, 2]))
        >>> out.shape, h_bw.shape
        ([4, 5, 6], [4, 3])
    """

    def __init__(self, cell_fw, cell_bw, time_major=False):
        super().__init__()
        self.cell_fw, self.cell_bw = cell_fw, cell_bw
        self.time_major = time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        if initial_states is None:
            initial_states = (None, None)
        elif not isinstance(initial_states, (list, tuple)) or len(initial_states) != 2:
            raise ValueError("BiRNN: initial_states must be a pair (states_fw, states_bw)")
        out_fw, st_fw = run_cell(self.cell_fw, inputs, initial_states[0], sequence_length,
                                 self.time_major, False, **kwargs)
        out_bw, st_bw = run_cell(self.cell_bw, inputs, initial_states[1], sequence_length,
                                 self.time_major, True, **kwargs)
        outputs = map_structure(lambda a, b: manipulation.concat([a, b], axis=-1), out_fw,
                                out_bw)
        return outputs, (st_fw, st_bw)


class RNNBase(LayerList):
    """Stacked, optionally bidirectional recurrent network of one cell type; the layers
    are RNN or BiRNN items of this list (state_dict keys like '0.cell_fw.weight_ih'), and
    the cells' parameters are also this layer's, under Paddle's flat names ('weight_ih_l0',
    'bias_hh_l1_reverse')."""

    _CELLS = {"RNN_TANH": SimpleRNNCell, "RNN_RELU": SimpleRNNCell, "LSTM": LSTMCell,
              "GRU": GRUCell}

    def __init__(self, mode, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0):
        super().__init__()
        if direction not in ("forward", "bidirect", "bidirectional"):
            raise ValueError(f"{type(self).__name__}: direction must be 'forward', 'bidirect' "
                             f"or 'bidirectional', got {direction!r}")
        if num_layers < 1 or not 0 <= dropout < 1:
            raise ValueError(f"{type(self).__name__}: need num_layers >= 1 and dropout in "
                             f"[0, 1), got {num_layers} and {dropout}")
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.time_major, self.dropout = num_layers, time_major, dropout
        self.num_directions = 1 if direction == "forward" else 2
        self.state_components = 2 if mode == "LSTM" else 1
        kw = dict(weight_ih_attr=weight_ih_attr, weight_hh_attr=weight_hh_attr,
                  bias_ih_attr=bias_ih_attr, bias_hh_attr=bias_hh_attr)
        if mode.startswith("RNN"):
            kw["activation"] = "relu" if mode == "RNN_RELU" else "tanh"
        self.proj_size = proj_size
        if proj_size:
            kw["proj_size"] = proj_size
        cell_type = self._CELLS[mode]
        out_size = proj_size or hidden_size  # what each direction's layer outputs
        for i in range(num_layers):
            size = input_size if i == 0 else out_size * self.num_directions
            if self.num_directions == 1:
                self.append(RNN(cell_type(size, hidden_size, **kw),
                                time_major=time_major))
            else:
                self.append(BiRNN(cell_type(size, hidden_size, **kw),
                                  cell_type(size, hidden_size, **kw),
                                  time_major))
        self._share_flat_parameters()

    def _share_flat_parameters(self):
        """Register each cell's weights and biases on this layer too, under Paddle's flat
        names (weight_ih_l0, ..., bias_hh_l1_reverse): the same Parameter objects, so
        state_dict holds both key sets (checkpoints keyed either way load), while
        parameters() lists each parameter once, under its flat name first, as Paddle."""
        for i, layer in enumerate(self):
            cells = ([layer.cell] if self.num_directions == 1
                     else [layer.cell_fw, layer.cell_bw])
            for cell, suffix in zip(cells, ("", "_reverse")):
                for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                    param = getattr(cell, name)
                    if param is not None:  # a bias made with attr False is absent
                        setattr(self, f"{name}_l{i}{suffix}", param)

    def _split_states(self, initial_states):
        """[L * D, B, H] state tensors -> per layer: a state (or pair for BiRNN)."""
        expected = self.num_layers * self.num_directions
        parts = initial_states if self.state_components == 2 else (initial_states,)
        if self.state_components == 2 and (not isinstance(parts, (list, tuple))
                                           or len(parts) != 2):
            raise ValueError("LSTM: initial_states must be a pair (h0, c0)")
        per_component = []
        for k, t in enumerate(parts):
            t = as_tensor(t, type(self).__name__)
            # h is [L * D, B, proj_size] where the LSTM projects; c stays hidden_size wide.
            width, what = ((self.proj_size, "proj_size") if k == 0 and self.proj_size
                           else (self.hidden_size, "hidden_size"))
            if t.ndim != 3 or t.shape[0] != expected or t.shape[2] != width:
                raise op_error(type(self).__name__, f"initial states must be [num_layers * "
                               f"num_directions={expected}, batch, {what}={width}], got "
                               f"{describe(t)}")
            per_component.append(manipulation.unbind(t, axis=0))
        states = [tuple(c[k] for c in per_component) if self.state_components == 2
                  else per_component[0][k] for k in range(expected)]
        if self.num_directions == 1:
            return states
        return [(states[2 * i], states[2 * i + 1]) for i in range(self.num_layers)]

    def forward(self, inputs, initial_states=None, sequence_length=None):
        per_layer = ([None] * self.num_layers if initial_states is None
                     else self._split_states(initial_states))
        finals = []
        x = inputs
        for i, layer in enumerate(self):
            if i > 0 and self.dropout > 0:
                x = F.dropout(x, self.dropout, training=self.training)
            x, states = layer(x, per_layer[i], sequence_length)
            finals.extend(states if self.num_directions == 2 else [states])
        if self.state_components == 1:
            return x, manipulation.stack(finals, axis=0)
        return x, (manipulation.stack([h for h, _ in finals], axis=0),
                   manipulation.stack([c for _, c in finals], axis=0))

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if self.num_directions == 2:
            text += ", direction=bidirect"
        if self.proj_size:
            text += f", proj_size={self.proj_size}"
        return text + (f", dropout={self.dropout}" if self.dropout else "")


class SimpleRNN(RNNBase):
    """Multi-layer Elman RNN: h = activation(x W_ih^T + b_ih + h W_hh^T + b_hh).
    Returns (outputs [B, T, D * H], h_n [L * D, B, H]).

    Example:
        >>> import dygraph
        >>> rnn = SimpleRNN(2, 3, num_layers=2, direction='bidirect')
        >>> out, h = rnn(dygraph.randn([4, 5, 2]))
        >>> out.shape, h.shape
        ([4, 5, 6], [4, 4, 3])
    """

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, activation="tanh", weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        if activation not in ("tanh", "relu"):
            raise ValueError(f"SimpleRNN: activation must be 'tanh' or 'relu', got "
                             f"{activation!r}")
        super().__init__("RNN_TANH" if activation == "tanh" else "RNN_RELU", input_size,
                         hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)


class LSTM(RNNBase):
    """Multi-layer LSTM. Returns (outputs [B, T, D * H], (h_n, c_n)), each state
    [L * D, B, H]; initial_states is (h0, c0) of that shape. With `proj_size` P, each
    cell projects h to P values (LSTMCell): outputs are [B, T, D * P] and h_n [L * D, B, P].

    Example:
        >>> import dygraph
        >>> lstm = LSTM(2, 3, num_layers=2)
        >>> out, (h, c) = lstm(dygraph.randn([4, 5, 2]))
        >>> out.shape, c.shape
        ([4, 5, 3], [2, 4, 3])
        >>> out, (h, c) = LSTM(2, 3, proj_size=1)(dygraph.randn([4, 5, 2]))
        >>> out.shape, h.shape, c.shape
        ([4, 5, 1], [1, 4, 1], [1, 4, 3])
    """

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0, name=None):
        if proj_size < 0 or proj_size and proj_size >= hidden_size:
            raise ValueError(f"LSTM: proj_size must be 0 (no projection) or smaller than "
                             f"hidden_size={hidden_size}, got {proj_size}")
        super().__init__("LSTM", input_size, hidden_size, num_layers, direction, time_major,
                         dropout, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr,
                         proj_size)


class GRU(RNNBase):
    """Multi-layer GRU. Returns (outputs [B, T, D * H], h_n [L * D, B, H]).

    Example:
        >>> import dygraph
        >>> gru = GRU(2, 3, direction='bidirectional', time_major=True)
        >>> out, h = gru(dygraph.randn([5, 4, 2]))
        >>> out.shape, h.shape
        ([5, 4, 6], [2, 4, 3])
    """

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, direction, time_major,
                         dropout, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
