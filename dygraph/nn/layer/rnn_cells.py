"""Recurrent cells: SimpleRNNCell, LSTMCell and GRUCell, with Paddle 2.x gate orders,
formulas, parameter names (weight_ih, weight_hh, bias_ih, bias_hh) and initialisation
(every parameter uniform in [-1/sqrt(hidden_size), 1/sqrt(hidden_size)]).

The elementwise parts of the LSTM and GRU steps are single fused ops (ops/rnn/fused_gates.py).
A cell splits its step in two: `input_gates(x)` (the input projection, which does not
depend on the state, so RNN runs it once for the whole sequence as one matmul) and
`step(gates, states)` (the recurrence). `forward(inputs, states)` is the two together.
"""

import math

from dygraph.autograd.function import apply
from dygraph.framework.dtype import convert_dtype
from dygraph.framework.errors import describe, op_error
from dygraph.nn.initializer import Uniform
from dygraph.nn.layer.layers import Layer
from dygraph.ops.activation.piecewise import relu
from dygraph.ops.creation import constructors as creation
from dygraph.ops.linalg import products as linalg
from dygraph.ops.rnn.fused_gates import BatchFull, gru_pointwise, lstm_pointwise
from dygraph.ops.unary.core import tanh
from dygraph.tensor.tensor import Tensor

__all__ = ["RNNCellBase", "SimpleRNNCell", "LSTMCell", "GRUCell"]


def _is_shape(value):
    return isinstance(value, (list, tuple)) and all(isinstance(v, int) for v in value)


def map_structure(fn, *structures):
    """Apply `fn` to matching leaves of nested tuples/lists (the leaves are Tensors).

    Example:
        >>> map_structure(lambda a, b: a + b, (1, (2, 3)), (10, (20, 30)))
        (11, (22, 33))
    """
    first = structures[0]
    if isinstance(first, (list, tuple)):
        return type(first)(map_structure(fn, *parts) for parts in zip(*structures))
    return fn(*structures)


def first_leaf(structure):
    """The first Tensor of a nested structure.

    Example:
        >>> first_leaf(((3, 4), 5))
        3
    """
    while isinstance(structure, (list, tuple)):
        structure = structure[0]
    return structure


class RNNCellBase(Layer):
    """Base of recurrent cells: `get_initial_states` builds zero (or `init_value`) states
    shaped [batch] + `state_shape`, following the nesting of `state_shape`.

    Example:
        >>> import dygraph
        >>> cell = LSTMCell(2, 3)
        >>> h, c = cell.get_initial_states(dygraph.zeros([4, 2]))
        >>> h.shape, c.shape
        ([4, 3], [4, 3])
    """

    # Where bias_hh is simply added to the gate sums (SimpleRNN, LSTM), it joins bias_ih in
    # the input projection, which RNN runs once per sequence instead of once per step.
    _fold_hidden_bias = False

    def get_initial_states(self, batch_ref, shape=None, dtype=None, init_value=0.0,
                           batch_dim_idx=0):
        """States for a batch the size of `batch_ref`'s dimension `batch_dim_idx`."""
        batch = first_leaf(batch_ref).shape[batch_dim_idx]
        shape = self.state_shape if shape is None else shape
        dtype = dtype if dtype is not None else getattr(self, "state_dtype", self._dtype)

        def build(s):
            if _is_shape(s) and batch == -1:
                # A static program's free batch: the size comes from the input at run time.
                op = BatchFull(batch_dim_idx, tuple(s), init_value, convert_dtype(dtype).np_dtype)
                return apply(op, first_leaf(batch_ref))
            if _is_shape(s):
                return creation.full([batch] + list(s), init_value, dtype)
            return tuple(build(part) for part in s)

        return build(shape)

    @property
    def state_shape(self):
        """The shape of one sample's state (a nested tuple for several states)."""
        raise NotImplementedError(f"{type(self).__name__} does not define state_shape")

    def forward(self, inputs, states=None):
        """One step: returns (outputs, new_states)."""
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape,
                                             dtype=inputs.dtype)
        return self.step(self.input_gates(inputs), states)

    def input_gates(self, inputs):
        """x @ weight_ih^T + bias_ih, for one step [B, I] or a sequence [T, B, I]."""
        if not isinstance(inputs, Tensor) or inputs.shape[-1] != self.input_size:
            raise op_error(type(self).__name__, f"inputs must end in input_size="
                           f"{self.input_size}, got {describe(inputs)}")
        gates = linalg.matmul(inputs, self.weight_ih, transpose_y=True)
        biases = [b for b in (self.bias_ih, self.bias_hh if self._fold_hidden_bias else None)
                  if b is not None]
        if biases:
            # Sum the [G] biases first: one add (and one column sum backward) over the
            # [T, B, G] gates instead of two.
            gates = gates + (biases[0] if len(biases) == 1 else biases[0] + biases[1])
        return gates

    def _hidden_gates(self, h):
        gates = linalg.matmul(h, self.weight_hh, transpose_y=True)
        if self.bias_hh is None or self._fold_hidden_bias:
            return gates
        return gates + self.bias_hh

    def _make_parameters(self, input_size, hidden_size, gates, weight_ih_attr, weight_hh_attr,
                         bias_ih_attr, bias_hh_attr, state_size=None):
        if input_size <= 0 or hidden_size <= 0:
            raise ValueError(f"{type(self).__name__}: input_size and hidden_size must be "
                             f"positive, got {input_size} and {hidden_size}")
        self.input_size, self.hidden_size = input_size, hidden_size
        bound = 1.0 / math.sqrt(hidden_size)
        init = Uniform(-bound, bound)
        rows = gates * hidden_size
        self.weight_ih = self.create_parameter([rows, input_size], weight_ih_attr,
                                               default_initializer=init)
        self.weight_hh = self.create_parameter([rows, state_size or hidden_size],
                                               weight_hh_attr, default_initializer=init)
        self.bias_ih = self.create_parameter([rows], bias_ih_attr, is_bias=True,
                                             default_initializer=init)
        self.bias_hh = self.create_parameter([rows], bias_hh_attr, is_bias=True,
                                             default_initializer=init)

    def extra_repr(self):
        return f"{self.input_size}, {self.hidden_size}"


class SimpleRNNCell(RNNCellBase):
    """h = activation(x @ weight_ih^T + bias_ih + h_prev @ weight_hh^T + bias_hh), with
    activation 'tanh' or 'relu'. Returns (h, h).

    Example:
        >>> import dygraph
        >>> cell = SimpleRNNCell(4, 3)
        >>> out, h = cell(dygraph.randn([2, 4]))
        >>> out.shape, cell.weight_hh.shape
        ([2, 3], [3, 3])
    """

    _fold_hidden_bias = True

    def __init__(self, input_size, hidden_size, activation="tanh", weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__()
        if activation not in ("tanh", "relu"):
            raise ValueError(f"SimpleRNNCell: activation must be 'tanh' or 'relu', got "
                             f"{activation!r}")
        self.activation = activation
        self._act = tanh if activation == "tanh" else relu
        self._make_parameters(input_size, hidden_size, 1, weight_ih_attr, weight_hh_attr,
                              bias_ih_attr, bias_hh_attr)

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def step(self, gates, states):
        h = self._act(gates + self._hidden_gates(states))
        return h, h


class LSTMCell(RNNCellBase):
    """Long short-term memory, gates in Paddle's order i, f, g, o:
    c = sigmoid(f) * c_prev + sigmoid(i) * tanh(g), h = sigmoid(o) * tanh(c).
    States are (h, c); returns (h, (h, c)). With `proj_size` P (0 < P < hidden_size), h
    is projected to P values, h = (sigmoid(o) * tanh(c)) @ weight_ho with weight_ho of
    shape [hidden_size, P], and weight_hh is [4 * hidden_size, P].

    Example:
        >>> import dygraph
        >>> cell = LSTMCell(4, 3)
        >>> out, (h, c) = cell(dygraph.randn([2, 4]))
        >>> out.shape, cell.weight_ih.shape
        ([2, 3], [12, 4])
        >>> out, (h, c) = LSTMCell(4, 3, proj_size=2)(dygraph.randn([2, 4]))
        >>> h.shape, c.shape
        ([2, 2], [2, 3])
    """

    _fold_hidden_bias = True

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0, name=None):
        super().__init__()
        if proj_size < 0 or proj_size and proj_size >= hidden_size:
            raise ValueError(f"LSTMCell: proj_size must be 0 (no projection) or in (0, "
                             f"hidden_size={hidden_size}), got {proj_size}")
        self.proj_size = proj_size
        self._make_parameters(input_size, hidden_size, 4, weight_ih_attr, weight_hh_attr,
                              bias_ih_attr, bias_hh_attr, state_size=proj_size or hidden_size)
        if proj_size:
            bound = 1.0 / math.sqrt(hidden_size)
            self.weight_ho = self.create_parameter([hidden_size, proj_size], weight_hh_attr,
                                                   default_initializer=Uniform(-bound, bound))

    @property
    def state_shape(self):
        return ((self.proj_size or self.hidden_size,), (self.hidden_size,))

    def step(self, gates, states):
        h_prev, c_prev = states
        h, c = lstm_pointwise(gates + self._hidden_gates(h_prev), c_prev)
        if self.proj_size:
            h = linalg.matmul(h, self.weight_ho)
        return h, (h, c)

    def extra_repr(self):
        text = super().extra_repr()
        return text + (f", proj_size={self.proj_size}" if self.proj_size else "")


class GRUCell(RNNCellBase):
    """Gated recurrent unit, gates in Paddle's order r, z, c; the reset gate applies
    after the hidden matmul: c = tanh(x_c + r * (h_prev @ W_hc^T + b_hc)),
    h = (h_prev - c) * z + c. Returns (h, h).

    Example:
        >>> import dygraph
        >>> cell = GRUCell(4, 3)
        >>> out, h = cell(dygraph.randn([2, 4]))
        >>> out.shape, cell.bias_hh.shape
        ([2, 3], [9])
    """

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__()
        self._make_parameters(input_size, hidden_size, 3, weight_ih_attr, weight_hh_attr,
                              bias_ih_attr, bias_hh_attr)

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def step(self, gates, states):
        h = gru_pointwise(gates, self._hidden_gates(states), states)
        return h, h

