"""GRUUnit: one step of a GRU (1.x), written with dygraph ops.

Example:
    >>> import numpy as np
    >>> import dygraph.fluid as fluid
    >>> with fluid.dygraph.guard():
    ...     gru = fluid.dygraph.GRUUnit('gru', size=3 * 4)
    ...     x = fluid.dygraph.to_variable(np.ones([2, 12], np.float32))
    ...     h = fluid.dygraph.to_variable(np.zeros([2, 4], np.float32))
    ...     hidden, reset_hidden_pre, gate = gru(x, h)
    ...     hidden.shape, gate.shape
    ([2, 4], [2, 12])
"""

import dygraph
from dygraph.fluid.dygraph.layer_args import bind
from dygraph.fluid.dygraph.layers import Layer
from dygraph.fluid.layers.nn import apply_act

__all__ = ["GRUUnit"]


def _gru_15(name_scope, size, param_attr=None, bias_attr=None, activation="tanh",
            gate_activation="sigmoid", origin_mode=False, dtype="float32"):
    """GRUUnit in 1.5 form."""


def _gru_16(size, param_attr=None, bias_attr=None, activation="tanh",
            gate_activation="sigmoid", origin_mode=False, dtype="float32"):
    """GRUUnit in 1.6 form."""


class GRUUnit(Layer):
    """One GRU step. `size` is 3 * hidden size D; `forward(input, hidden)` takes the
    projected input [N, 3D] and the previous hidden state [N, D] and returns
    (hidden, reset_hidden_prev, gate):

        u, r = gate_act(x_u + h W_u), gate_act(x_r + h W_r)
        c = act(x_c + (r * h) W_c)
        hidden = (1 - u) * h + u * c      (origin_mode: u * h + (1 - u) * c)

    with x = input + bias. The weight is stored as 1.x stored it: a [D, 3D] parameter
    whose first 2 * D * D values are [W_u W_r] ([D, 2D]) and the rest W_c ([D, D]).
    `gate` is [u, r, c] concatenated.

    Example:
        >>> import dygraph
        >>> gru = GRUUnit(size=6)
        >>> h, _, _ = gru(dygraph.zeros([1, 6]), dygraph.ones([1, 2]))
        >>> h.shape, gru.weight.shape
        ([1, 2], [2, 6])
    """

    def __init__(self, *args, **kwargs):
        a = bind((_gru_15, _gru_16), args, kwargs)
        super().__init__(a["name_scope"], a["dtype"])
        if a["size"] % 3:
            raise ValueError(f"GRUUnit: size must be 3 * hidden size, got {a['size']}")
        self._hidden = hidden = a["size"] // 3
        self._activation = a["activation"]
        self._gate_activation = a["gate_activation"]
        self._origin_mode = bool(a["origin_mode"])
        self.weight = self.create_parameter(a["param_attr"], [hidden, 3 * hidden],
                                            self._dtype)
        self.bias = self.create_parameter(a["bias_attr"], [1, 3 * hidden], self._dtype,
                                          is_bias=True)

    def forward(self, input, hidden):
        d = self._hidden
        flat = dygraph.reshape(self.weight, [-1])
        w_gates = dygraph.reshape(flat[:2 * d * d], [d, 2 * d])
        w_candidate = dygraph.reshape(flat[2 * d * d:], [d, d])
        x = input if self.bias is None else input + self.bias
        gates = apply_act(x[:, :2 * d] + dygraph.matmul(hidden, w_gates),
                          self._gate_activation)
        update, reset = gates[:, :d], gates[:, d:]
        reset_hidden_prev = reset * hidden
        candidate = apply_act(x[:, 2 * d:] + dygraph.matmul(reset_hidden_prev, w_candidate),
                              self._activation)
        if self._origin_mode:
            new_hidden = update * hidden + (1.0 - update) * candidate
        else:
            new_hidden = hidden + update * (candidate - hidden)
        gate = dygraph.concat([update, reset, candidate], axis=1)
        return new_hidden, reset_hidden_prev, gate
